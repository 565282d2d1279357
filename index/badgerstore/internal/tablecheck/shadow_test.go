package tablecheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/pb"
	"google.golang.org/protobuf/proto"
)

// TestParseChecksum: the checksums of Badger's blocks, as Badger
// encodes them, and what is not one.
func TestParseChecksum(t *testing.T) {
	for _, tc := range []struct {
		in   string
		algo pb.Checksum_Algorithm
		sum  uint64
		ok   bool
	}{
		{"", pb.Checksum_CRC32C, 0, true},
		{"\x10\x96\x01", pb.Checksum_CRC32C, 150, true},
		{"\x08\x01\x10\x01", pb.Checksum_XXHash64, 1, true},
		{"\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", pb.Checksum_CRC32C, 1<<64 - 1, true},
		{"\x10", 0, 0, false},         // no value
		{"\x10\x80", 0, 0, false},     // value cut short
		{"\x18\x01", 0, 0, false},     // field 3
		{"\x12\x01\x00", 0, 0, false}, // field 2 as bytes
	} {
		algo, sum, ok := parseChecksum([]byte(tc.in))
		if ok != tc.ok || ok && (algo != tc.algo || sum != tc.sum) {
			t.Errorf("parseChecksum(%q) = %v, %d, %v; want %v, %d, %v", tc.in, algo, sum, ok, tc.algo, tc.sum, tc.ok)
		}
	}
	for _, c := range []*pb.Checksum{{Algo: pb.Checksum_CRC32C, Sum: 0xdeadbeef}, {Algo: pb.Checksum_XXHash64, Sum: 1<<63 + 5}} {
		b, err := proto.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if algo, sum, ok := parseChecksum(b); !ok || algo != c.Algo || sum != c.Sum {
			t.Errorf("parseChecksum of %v marshalled: %v, %d, %v", c, algo, sum, ok)
		}
	}
}

// FuzzParseChecksum: whatever parseChecksum accepts, the protocol
// buffer decoder Badger uses decodes to the same checksum.
func FuzzParseChecksum(f *testing.F) {
	f.Add([]byte("\x10\x96\x01"))
	f.Add([]byte("\x08\x01\x10\x01"))
	f.Add([]byte("\x18\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		algo, sum, ok := parseChecksum(b)
		if !ok {
			return
		}
		var c pb.Checksum
		if err := proto.Unmarshal(b, &c); err != nil {
			t.Fatalf("parseChecksum(%q) = %v, %d; proto: %v", b, algo, sum, err)
		}
		if c.Algo != algo || c.Sum != sum {
			t.Fatalf("parseChecksum(%q) = %v, %d; proto: %v, %d", b, algo, sum, c.Algo, c.Sum)
		}
	})
}

// TestShadowOfDeletedTable: Badger empties a table file it deletes
// after a compaction (z.MmapFile.Delete truncates it before removing
// it), under the store's own mapping of it, which it cannot hold a
// reference against. Reading the mapping then faults: the check treats
// the table as gone (its keys are in the compaction's new tables), does
// not crash the process, and reports no damage.
func TestShadowOfDeletedTable(t *testing.T) {
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(quiet{}).WithCompression(options.None).WithBlockSize(256))
	if err != nil {
		t.Fatal(err)
	}
	keys := [][]byte{}
	for i := range 500 {
		keys = append(keys, fmt.Appendf(nil, "%c%05d", "dtc"[i%3], i))
	}
	if err := db.Update(func(txn *badger.Txn) error {
		for _, k := range keys {
			if err := txn.Set(k, bytes.Repeat([]byte{'v'}, 20)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	sh, err := Open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	tabs := sh.tabs
	if len(tabs) == 0 || tabs[0].blocks == nil || len(tabs[0].blocks.off) < 2 {
		t.Fatalf("%d tables; want one of several blocks", len(tabs))
	}
	// Whole, every read checks.
	for _, k := range keys {
		if err := sh.CheckRead(tabs, k, true); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
	}
	for _, st := range tabs {
		if err := os.Truncate(filepath.Join(dir, st.name), 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range keys {
		if err := sh.CheckRead(tabs, k, true); err != nil {
			t.Errorf("key %s: %v", k, err)
		}
	}
	for _, p := range []string{"d", "t", "c", ""} {
		if err := sh.CheckRead(tabs, []byte(p), false); err != nil {
			t.Errorf("prefix %q: %v", p, err)
		}
	}
	for _, st := range tabs {
		if d := st.checkIndex(); d != nil {
			t.Errorf("index of %s: %v", st.name, d)
		}
	}
	// A table Badger lists whose file is emptied before the store opens
	// it is left out.
	other := &Shadows{dir: dir}
	defer other.Close()
	other.refresh([]badger.TableInfo{{ID: tabs[0].id}})
	if len(other.tabs) != 0 {
		t.Errorf("refresh with emptied %s: %d tables; want none", tabs[0].name, len(other.tabs))
	}
}
