package badgerstore

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/index/memstore"
)

// A lean store keeps the band digests of a record with a confirmation
// sketch in place of its 64 sketch values, 112 bytes less, and finds
// and confirms the same matches as a store of whole records, written
// by Add or by Load, after replacing and deleting documents; a lean
// store written before (records with all 64 values) keeps working,
// with old and new records side by side.
func TestLeanDigests(t *testing.T) {
	ctx := t.Context()
	docs := []index.Doc{
		indextest.LeanDoc("a", 1, 0, 1, 2, 3, 4, 5, 6, 7),
		indextest.LeanDoc("b", 2, 0, 1, 2, 3, 4, 5, 6, 8), // a with one sentence changed
		indextest.LeanDoc("c", 3, 0, 1, 2, 3, 4, 5),       // a cut to three quarters
		indextest.LeanDoc("d", 4, 8, 9),                   // unrelated
	}
	copyOfA := docs[0]
	copyOfA.ID, copyOfA.Fingerprint = "e", 0x5555 // an exact copy of a
	docs = append(docs, copyOfA)
	later := []index.Doc{
		indextest.LeanDoc("b", 5, 9, 8, 7),                      // b replaced by an unrelated text
		indextest.LeanDoc("f", 6, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9), // a and more
	}
	// What each query finds (sorted IDs), by the store of whole
	// records: a finds its copies through bands (b, c) and the content
	// hash (e).
	wantFirst := map[string][]string{"a": {"b", "c", "e"}, "b": {"a", "c", "e"}, "c": {"a", "b", "e"}, "d": nil, "e": {"a", "b", "c"}}

	ref := func(t *testing.T, steps ...func(x *index.Index) error) *index.Index {
		t.Helper()
		x, err := index.New(ctx, memstore.New(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range steps {
			if err := step(x); err != nil {
				t.Fatal(err)
			}
		}
		return x
	}
	add := func(ds ...index.Doc) func(x *index.Index) error {
		return func(x *index.Index) error { return x.Add(ctx, ds...) }
	}
	del := func(id string) func(x *index.Index) error {
		return func(x *index.Index) error { return x.Delete(ctx, id) }
	}
	queries := append(slices.Clone(docs), later...)
	// same checks that Similar on x answers every query as on y.
	same := func(t *testing.T, what string, x, y *index.Index) {
		t.Helper()
		for _, q := range queries {
			if got, want := indextest.SimilarOf(t, x, q), indextest.SimilarOf(t, y, q); got != want {
				t.Errorf("%s: Similar(%s) = %s\nwant (whole records) %s", what, q.ID, got, want)
			}
		}
	}
	// The reference is not trivial: the band candidates are found.
	r := ref(t, add(docs...))
	for _, q := range docs {
		ms, err := r.Similar(ctx, &q, 3)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		slices.Sort(ids)
		if !slices.Equal(ids, wantFirst[q.ID]) {
			t.Fatalf("whole records: Similar(%s) = %q, want %q", q.ID, ids, wantFirst[q.ID])
		}
	}

	for _, load := range []bool{false, true} {
		t.Run(fmt.Sprintf("load=%v", load), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "lean")
			x, s := openDir(t, dir, &Options{Lean: true, Compress: true}, nil)
			if load {
				if _, err := x.Load(ctx, slices.Values(docs)); err != nil {
					t.Fatal(err)
				}
			} else if err := x.Add(ctx, docs...); err != nil {
				t.Fatal(err)
			}
			same(t, "written", x, r)
			// The record keeps the digests: 112 bytes less than a lean
			// record with the 64 values, and Get gives them.
			rec := wholeRecord(t, docs[0])
			lean, err := index.LeanRecord(nil, rec, "a")
			if err != nil {
				t.Fatal(err)
			}
			if v := rawDoc(t, s, "a"); len(v) != numLen+len(lean)-112 {
				t.Errorf("stored record of a: %d bytes, want %d (the number and a lean record of %d, less 112)", len(v), numLen+len(lean)-112, len(lean))
			}
			got, err := x.Get(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			if !indextest.DigestsOnly(&got.Sketch) || got.Long != docs[0].Long || got.Shingles != docs[0].Shingles || got.Title != "" {
				t.Errorf("Get(a): sketch %v, Long kept %v, shingles %d, title %q; want band digests, the Long, %d, no title",
					got.Sketch, got.Long == docs[0].Long, got.Shingles, got.Title, docs[0].Shingles)
			}
			// Replacing and deleting.
			if err := x.Add(ctx, later...); err != nil {
				t.Fatal(err)
			}
			if err := x.Delete(ctx, "c"); err != nil {
				t.Fatal(err)
			}
			same(t, "after replacing b and deleting c", x, ref(t, add(docs...), add(later...), del("c")))
			// The band postings of b's old text and of c, which the
			// digests cannot name, resolve to nothing.
			noBandPostings(t, s, docs[1], docs[2])
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
			x, _ = openDir(t, dir, nil, nil)
			same(t, "reopened", x, ref(t, add(docs...), add(later...), del("c")))
		})
	}

	// A lean store written before the digests: its records keep the 64
	// sketch values (index.LeanRecord), as they are rewritten here.
	t.Run("old lean store", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "old")
		x, s := openDir(t, dir, &Options{Lean: true, Compress: true}, nil)
		if err := x.Add(ctx, docs...); err != nil {
			t.Fatal(err)
		}
		olds := map[string][]byte{}
		for _, d := range docs {
			num, _, err := splitDocValue(rawDoc(t, s, d.ID))
			if err != nil {
				t.Fatal(err)
			}
			if olds[d.ID], err = index.LeanRecord(appendNum(nil, num), wholeRecord(t, d), d.ID); err != nil {
				t.Fatal(err)
			}
		}
		err := s.db.Update(func(txn *badger.Txn) error {
			for id, v := range olds {
				if err := txn.Set(docKey(id), v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		x, s = openDir(t, dir, nil, nil)
		if got, err := x.Get(ctx, "a"); err != nil || got.Sketch != docs[0].Sketch {
			t.Fatalf("old record of a: sketch %v, %v; want all 64 values", got.Sketch, err)
		}
		same(t, "old records", x, r)
		if err := x.Add(ctx, later...); err != nil {
			t.Fatal(err)
		}
		if err := x.Delete(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		same(t, "old and new records", x, ref(t, add(docs...), add(later...), del("c")))
		if got, err := x.Get(ctx, "f"); err != nil || !indextest.DigestsOnly(&got.Sketch) {
			t.Errorf("new record of f in an old lean store: sketch %v, %v; want band digests", got.Sketch, err)
		}
		// The old record of b, replaced, had its band postings removed
		// (its 64 values name its band keys), c's too.
		noBandPostings(t, s, docs[1], docs[2])
	})
}

// noBandPostings checks that no band key of the documents ds has a
// posting that resolves to one of them.
func noBandPostings(t *testing.T, s *Store, ds ...index.Doc) {
	t.Helper()
	for _, d := range ds {
		var keys []index.Key
		for b := range index.Bands {
			var v uint64
			for _, x := range d.Sketch[b*index.BandRows : (b+1)*index.BandRows] {
				v = v<<16 | uint64(x)
			}
			keys = append(keys, index.Key{Kind: index.KindBand, Table: uint8(b), Value: v})
		}
		ps, err := s.Postings(context.Background(), keys)
		if err != nil {
			t.Fatal(err)
		}
		for b, p := range ps {
			for _, p := range p {
				if p.ID == d.ID {
					t.Errorf("band %d of %s's old text still has a posting of %s", b, d.ID, d.ID)
				}
			}
		}
	}
}

// wholeRecord is the record an Index writes for d.
func wholeRecord(t *testing.T, d index.Doc) []byte {
	t.Helper()
	ms := memstore.New()
	x, err := index.New(context.Background(), ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	recs, err := ms.Records(context.Background(), []string{d.ID})
	if err != nil || recs[0] == nil {
		t.Fatalf("record of %s: %v", d.ID, err)
	}
	return recs[0]
}

// rawDoc is the value of the 'd' key of id in s.
func rawDoc(t *testing.T, s *Store, id string) []byte {
	t.Helper()
	var v []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(docKey(id))
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		t.Fatalf("record of %s: %v", id, err)
	}
	return v
}

// Salvage of a lean store gives its records their sketches back from
// their band keys, so that the salvaged store finds what the store of
// whole records finds, band candidates included.
func TestSalvageLeanDigests(t *testing.T) {
	ctx := t.Context()
	docs := []index.Doc{
		indextest.LeanDoc("a", 1, 0, 1, 2, 3, 4, 5, 6, 7),
		indextest.LeanDoc("b", 2, 0, 1, 2, 3, 4, 5, 6, 8),
		indextest.LeanDoc("c", 3, 0, 1, 2, 3, 4, 5),
		indextest.LeanDoc("d", 4, 8, 9),
	}
	replaced := indextest.LeanDoc("b", 5, 1, 2, 3, 4, 5, 6, 7, 9) // b replaced: renumbered, its old band postings left
	dir := filepath.Join(t.TempDir(), "lean")
	x, _ := openDir(t, dir, &Options{Lean: true, Compress: true}, nil)
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ctx, replaced); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	ref, err := index.New(ctx, memstore.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	if err := ref.Add(ctx, replaced); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, n, err := Salvage(ctx, dir, out, nil); err != nil || n != 4 {
		t.Fatalf("Salvage: %d documents, %v", n, err)
	}
	y, s := openDir(t, out, nil, nil)
	if !s.lean {
		t.Errorf("salvaged store not lean")
	}
	for _, q := range append(docs, replaced) {
		got, want := indextest.SimilarOf(t, y, q), indextest.SimilarOf(t, ref, q)
		if got != want {
			t.Errorf("salvaged: Similar(%s) = %s\nwant (whole records) %s", q.ID, got, want)
		}
	}
	// a and c share bands with b's new text and each other: found by
	// bands, as their fingerprints are far apart.
	if got := indextest.SimilarOf(t, y, docs[0]); !strings.Contains(got, "c@") || !strings.Contains(got, "b@") {
		t.Errorf("salvaged: Similar(a) = %s, want b and c among them", got)
	}
	// The salvaged records keep digests again.
	if d, err := y.Get(ctx, "a"); err != nil || !indextest.DigestsOnly(&d.Sketch) {
		t.Errorf("salvaged record of a: sketch %v, %v; want band digests", d.Sketch, err)
	}
}
