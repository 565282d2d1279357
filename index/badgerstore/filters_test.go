package badgerstore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/index"
)

// Open uses the filters file only when it describes the database as it
// is: a stale file (writes after it was saved, as after a writer that
// was killed), a damaged one or one for another false-positive rate is
// rebuilt, and never answers "no" for a stored content hash.
func TestFiltersFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	add := func(opts *Options, from, to int) {
		t.Helper()
		x, err := OpenIndex(t.Context(), dir, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := from; i < to; i++ {
			if err := x.Add(t.Context(), index.Doc{ID: fmt.Sprint("d", i), ContentHash: mix64(uint64(i))}); err != nil {
				t.Fatal(err)
			}
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// check opens the index and checks that the filter knows every
	// document and whether it was loaded from the file.
	check := func(what string, opts *Options, docs int, fromFile bool) {
		t.Helper()
		x, s := openDir(t, dir, opts, nil)
		defer x.Close()
		if err := s.loadFilters(s.db.MaxVersion()); (err == nil) != fromFile {
			t.Errorf("%s: loadFilters: %v, want success %v", what, err, fromFile)
		}
		st, _ := x.Stats(t.Context())
		if st.Docs != int64(docs) {
			t.Errorf("%s: %d docs, want %d", what, st.Docs, docs)
		}
		for i := range docs {
			if ids, err := x.Exact(t.Context(), mix64(uint64(i))); err != nil || len(ids) != 1 {
				t.Fatalf("%s: Exact of document %d = %q, %v", what, i, ids, err)
			}
		}
	}
	path := filepath.Join(dir, filtersFile)
	add(nil, 0, 100)
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	check("after Close", nil, 100, true)

	// Documents added after the file was saved, the file put back: as
	// if the writer had been killed before its Close.
	add(nil, 100, 150)
	if err := os.WriteFile(path, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	check("stale file", nil, 150, false)

	// A read-only open neither uses nor writes a stale file; the next
	// writer's Close saves a good one.
	s, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	check("after a writer's Close", nil, 150, true)
	s, err = Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.loadFilters(s.db.MaxVersion()); err != nil {
		t.Errorf("read-only open of a good file: %v", err)
	}
	s.Close()

	// One flipped byte.
	good, _ := os.ReadFile(path)
	bad := append([]byte(nil), good...)
	bad[len(bad)/2] ^= 0x40
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	check("damaged file", nil, 150, false)

	// Truncated; then another false-positive rate.
	if err := os.WriteFile(path, good[:len(good)-9], 0o644); err != nil {
		t.Fatal(err)
	}
	check("truncated file", nil, 150, false)
	check("another rate", &Options{FalsePositive: 0.001}, 150, false)
}

// loadFilters never panics on a damaged file and installs only what
// passes its checks.
func FuzzLoadFilters(f *testing.F) {
	dir := filepath.Join(f.TempDir(), "idx")
	x, s := openDir(f, dir, nil, nil)
	if err := x.Add(f.Context(), index.Doc{ID: "a", ContentHash: 1}, index.Doc{ID: "b", ContentHash: 2}); err != nil {
		f.Fatal(err)
	}
	stamp := s.db.MaxVersion()
	if err := s.saveFilters(stamp); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, filtersFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:60])
	f.Add([]byte(filtersMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, filtersFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := s.loadFilters(stamp); err == nil {
			// Whatever loaded must know the two documents.
			for _, h := range []uint64{1, 2} {
				if !s.mayContain(h) {
					t.Fatalf("loaded filter lacks content hash %d", h)
				}
			}
		}
	})
}
