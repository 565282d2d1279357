package badgerstore

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/neardup/neardup/index"
)

func TestReadLoadMeta(t *testing.T) {
	kvs := [][2][]byte{{[]byte("mformat"), []byte("3")}, {[]byte("manalyzer"), []byte("jieba/1")}, {[]byte("mx"), nil}}
	path := filepath.Join(t.TempDir(), loadMeta)
	if err := writeLoadMeta(path, kvs); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "\x07mformat\x013\x09manalyzer\x07jieba/1\x02mx\x00"
	if string(b) != want {
		t.Fatalf("file %q, want %q", b, want)
	}
	for _, tc := range []struct {
		in   string
		want int // pairs read; -1: nil
	}{
		{want, 3},
		{"", -1},
		{want[:len(want)-1], -1}, // the last value's length missing
		{want[:5], -1},           // a key cut short
		{"\x07mformat", -1},      // a key without its value
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", -1},
	} {
		got := readLoadMeta([]byte(tc.in))
		if tc.want < 0 {
			if got != nil {
				t.Errorf("readLoadMeta(%q) = %q, want nil", tc.in, got)
			}
			continue
		}
		if len(got) != tc.want {
			t.Fatalf("readLoadMeta(%q): %d pairs, want %d", tc.in, len(got), tc.want)
		}
		for i := range got {
			if !bytes.Equal(got[i][0], kvs[i][0]) || !bytes.Equal(got[i][1], kvs[i][1]) {
				t.Errorf("pair %d: %q, want %q", i, got[i], kvs[i])
			}
		}
	}
}

func FuzzReadLoadMeta(f *testing.F) {
	f.Add([]byte("\x07mformat\x013"))
	f.Add([]byte{})
	f.Add([]byte("\x80"))
	f.Fuzz(func(t *testing.T, b []byte) {
		kvs := readLoadMeta(b)
		if kvs == nil {
			return
		}
		// What it read, written again, reads back the same (the bytes
		// may differ: a length may be a longer uvarint than needed).
		path := filepath.Join(t.TempDir(), loadMeta)
		if err := writeLoadMeta(path, kvs); err != nil {
			t.Fatal(err)
		}
		again, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		back := readLoadMeta(again)
		if len(back) != len(kvs) {
			t.Fatalf("read %q: %d pairs, back %d", b, len(kvs), len(back))
		}
		for i := range kvs {
			if !bytes.Equal(back[i][0], kvs[i][0]) || !bytes.Equal(back[i][1], kvs[i][1]) {
				t.Fatalf("pair %d: %q, back %q", i, kvs[i], back[i])
			}
		}
	})
}

// TestLoadMetaRestored: a Load cut short after the StreamWriter dropped
// the database, with documents' tables landed but not the metadata's
// (TestKillDuringLoad's rare case, made here on purpose): Open puts the
// metadata kept in the run directory back, and the store opens with
// its documents; without that file it is refused.
func TestLoadMetaRestored(t *testing.T) {
	ctx := t.Context()
	var docs []index.Doc
	for i := range 40 {
		docs = append(docs, killDoc(i))
	}
	for _, kept := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "idx")
		x, s := openDir(t, dir, nil, nil)
		if _, err := x.Load(ctx, slices.Values(docs)); err != nil {
			t.Fatal(err)
		}
		want := dumpResolved(t, s)
		// Take the metadata out, as a Load cut short leaves it, and keep
		// it where Load keeps it.
		var meta [][2][]byte
		err := s.db.Update(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{kindMeta}})
			for it.Rewind(); it.Valid(); it.Next() {
				v, err := it.Item().ValueCopy(nil)
				if err != nil {
					it.Close()
					return err
				}
				meta = append(meta, [2][]byte{it.Item().KeyCopy(nil), v})
			}
			it.Close()
			for _, kv := range meta {
				if err := txn.Delete(kv[0]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(meta) < 3 {
			t.Fatalf("%d metadata keys, want format, layout and analyzer at least", len(meta))
		}
		x.Close()
		tmp := filepath.Join(dir, loadTmp)
		if err := os.Mkdir(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, loadNumbered), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if kept {
			if err := writeLoadMeta(filepath.Join(tmp, loadMeta), meta); err != nil {
				t.Fatal(err)
			}
		}
		s2, err := Open(dir, nil)
		if !kept {
			if err == nil || !strings.Contains(err.Error(), "no format metadata") {
				t.Fatalf("Open without the kept metadata: %v, want no format metadata", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		x2, err := index.New(ctx, s2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := dumpResolved(t, s2); !slices.Equal(got, want) {
			t.Errorf("after restoring: %d keys, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
		}
		if st, err := x2.Stats(ctx); err != nil || st.Docs != int64(len(docs)) {
			t.Errorf("Stats: %d docs (%v), want %d", st.Docs, err, len(docs))
		}
		if _, err := os.Stat(tmp); !os.IsNotExist(err) {
			t.Errorf("the run directory is still there: %v", err)
		}
		x2.Close()
	}
}
