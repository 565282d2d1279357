package badgerstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"google.golang.org/protobuf/proto"

	"github.com/neardup/neardup/index"
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
	dir, _ := copyStore(t)
	tabs, err := checkTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	sh := &shadows{dir: dir, tabs: tabs}
	defer sh.close()
	for _, st := range tabs {
		if err := os.Truncate(filepath.Join(dir, st.name), 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 50 {
		d := killDoc(i)
		if err := sh.checkRead(tabs, docKey(d.ID), true); err != nil {
			t.Errorf("record of %s: %v", d.ID, err)
		}
		for _, k := range [][]byte{{byte(index.KindContent)}, {byte(index.KindTable), 1}, {byte(index.KindBand)}} {
			if err := sh.checkRead(tabs, k, false); err != nil {
				t.Errorf("prefix %q: %v", k, err)
			}
		}
	}
	for _, st := range tabs {
		if d := st.checkIndex(); d != nil {
			t.Errorf("index of %s: %v", st.name, d)
		}
	}
	// A table Badger lists whose file is emptied before the store opens
	// it is left out.
	other := &shadows{dir: dir}
	defer other.close()
	other.refresh([]badger.TableInfo{{ID: tabs[0].id}})
	if len(other.tabs) != 0 {
		t.Errorf("refresh with emptied %s: %d tables; want none", tabs[0].name, len(other.tabs))
	}
}
