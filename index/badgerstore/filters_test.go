package badgerstore

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
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

// bandDoc is document i of TestBandFilter: a sketch of its own, so that
// its 16 band keys are its own.
func bandDoc(i int) index.Doc {
	d := index.Doc{ID: fmt.Sprint("d", i), Fingerprint: simhash.Fingerprint(mix64(uint64(i))), ContentHash: mix64(uint64(i) + 1e6)}
	for k := range d.Sketch {
		d.Sketch[k] = uint16(mix64(uint64(i*minhash.Size+k))) | 1
	}
	return d
}

// bandKeys returns the band keys of d.
func bandKeys(d index.Doc) []index.Key {
	var ks []index.Key
	for b := range index.Bands {
		var v uint64
		for _, x := range d.Sketch[b*index.BandRows : (b+1)*index.BandRows] {
			v = v<<16 | uint64(x)
		}
		ks = append(ks, index.Key{Kind: index.KindBand, Table: uint8(b), Value: v})
	}
	return ks
}

// The band filter knows every stored band key, whichever way the store
// got it (Apply, the filters file, a rebuild from the store, Load), and
// answers nearly every absent one without a read.
func TestBandFilter(t *testing.T) {
	const docs = 50
	// check asks for the band keys of every document and of as many
	// documents that are not stored.
	check := func(what string, s *Store) {
		t.Helper()
		for i := range docs {
			d := bandDoc(i)
			ps, err := s.Postings(t.Context(), bandKeys(d))
			if err != nil {
				t.Fatal(err)
			}
			for b, p := range ps {
				if len(p) != 1 || p[0].ID != d.ID {
					t.Fatalf("%s: postings of band %d of %s: %v", what, b, d.ID, p)
				}
			}
		}
		before := s.bandSaved.Load()
		for i := docs; i < 2*docs; i++ {
			ps, err := s.Postings(t.Context(), bandKeys(bandDoc(i)))
			if err != nil {
				t.Fatal(err)
			}
			for b, p := range ps {
				if len(p) != 0 {
					t.Fatalf("%s: postings of band %d of absent d%d: %v", what, b, i, p)
				}
			}
		}
		// 800 band keys against a filter of 16,384 keys holding 800:
		// a false positive each about 1 in 10^9.
		if saved := s.bandSaved.Load() - before; saved != docs*index.Bands {
			t.Errorf("%s: the band filter answered %d of %d absent band keys", what, saved, docs*index.Bands)
		}
	}
	dir := filepath.Join(t.TempDir(), "idx")
	x, s := openDir(t, dir, nil, nil)
	for i := range docs {
		if err := x.Add(t.Context(), bandDoc(i)); err != nil {
			t.Fatal(err)
		}
	}
	check("after Add", s)
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	x, s = openDir(t, dir, nil, nil)
	if err := s.loadFilters(s.db.MaxVersion()); err != nil {
		t.Errorf("loadFilters after Close: %v", err)
	}
	check("from the filters file", s)
	x.Close()

	// A file of the version before the band filter: rebuilt, once.
	path := filepath.Join(dir, filtersFile)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := append([]byte("NDFILT01"), good[len(filtersMagic):]...)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	x, s = openDir(t, dir, nil, nil)
	if err := s.loadFilters(s.db.MaxVersion()); err == nil {
		t.Errorf("loadFilters of an NDFILT01 file succeeded")
	}
	check("rebuilt", s)
	x.Close()

	// Load.
	x, s = openTemp(t, nil)
	var ds []index.Doc
	for i := range docs {
		ds = append(ds, bandDoc(i))
	}
	if _, err := x.Load(t.Context(), slices.Values(ds)); err != nil {
		t.Fatal(err)
	}
	check("after Load", s)
}
