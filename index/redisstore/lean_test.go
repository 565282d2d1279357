package redisstore

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// An archive created lean keeps records without title, keywords and
// text, written by Add and by Ingest, and stays lean when opened
// without the option; an archive created whole stays whole when opened
// with it.
func TestLean(t *testing.T) {
	c := redistest.Shared(t)
	full := func(id string, seed uint64) index.Doc {
		d := doc(id, simhash.Fingerprint(0x0123456789abcdef+seed<<40), seed)
		d.Title, d.Keywords, d.Text = "Title "+id, []tfidf.Keyword{{Word: "w", Weight: 1.5}}, "the text of "+id
		return d
	}
	lean := func(d index.Doc) index.Doc {
		d.Title, d.Keywords, d.Text = "", nil, ""
		return d
	}
	get := func(url string, o *Options, id string) (index.Doc, bool) {
		t.Helper()
		x, err := OpenIndex(ctx, url, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		got, err := x.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return got, x.Store().(*Store).lean
	}
	url := c.URL(redistest.Name(t) + "lean")
	x, err := OpenIndex(ctx, url, &Options{Lean: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := full("a", 1), full("b", 2)
	if err := x.Add(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Ingest(ctx, []index.Doc{b}, index.IngestOptions{Distance: 3}); err != nil {
		t.Fatal(err)
	}
	x.Close()
	for _, d := range []index.Doc{a, b} {
		want := lean(d)
		want.Added = want.Added.UTC()
		if got, l := get(url, nil, d.ID); !reflect.DeepEqual(got, want) || !l {
			t.Errorf("lean archive: Get(%s) = %+v, lean %v; want %+v", d.ID, got, l, want)
		}
	}
	url = c.URL(redistest.Name(t) + "whole")
	x, err = OpenIndex(ctx, url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ctx, a); err != nil {
		t.Fatal(err)
	}
	x.Close()
	want := a
	want.Added = want.Added.UTC()
	if got, l := get(url, &Options{Lean: true}, "a"); !reflect.DeepEqual(got, want) || l {
		t.Errorf("whole archive opened with Lean: Get = %+v, lean %v; want %+v", got, l, want)
	}
	// An archive created before the setting existed has none: whole.
	s, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.c.Del(ctx, s.storeKey("records")).Err(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got, l := get(url, &Options{Lean: true}, "a"); !reflect.DeepEqual(got, want) || l {
		t.Errorf("archive without the records setting opened with Lean: Get = %+v, lean %v; want %+v", got, l, want)
	}
	y, err := OpenIndex(ctx, url, &Options{Lean: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	dc := full("c", 3)
	if err := y.Add(ctx, dc); err != nil {
		t.Fatal(err)
	}
	want = dc
	want.Added = want.Added.UTC()
	if got, err := y.Get(ctx, "c"); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("added to an archive without the records setting: Get = %+v, %v; want %+v", got, err, want)
	}
}

// PostingsNear leaves out the table postings too far from the query,
// which Postings keeps.
func TestPostingsNear(t *testing.T) {
	x, s := openIndex(t, nil, nil)
	near := doc("near", 0x0123456789abcdef, 1)
	far := doc("far", 0x0123456789abcdef^0xff, 2) // 8 bits away, the same table 0 key
	if err := x.Add(ctx, near, far); err != nil {
		t.Fatal(err)
	}
	key := index.Key{Kind: index.KindTable, Table: 0, Bits: 16, Value: 0x0123}
	ids := func(ps [][]index.Posting) []string {
		var out []string
		for _, p := range ps[0] {
			out = append(out, p.ID)
		}
		slices.Sort(out)
		return out
	}
	ps, err := s.Postings(ctx, []index.Key{key})
	if err != nil || !slices.Equal(ids(ps), []string{"far", "near"}) {
		t.Errorf("Postings = %v, %v; want far and near", ps, err)
	}
	ps, err = s.PostingsNear(ctx, []index.Key{key}, []simhash.Fingerprint{near.Fingerprint}, 3)
	if err != nil || !slices.Equal(ids(ps), []string{"near"}) {
		t.Errorf("PostingsNear = %v, %v; want near alone", ps, err)
	}
}

// wholeRecord is the record an Index writes for d.
func wholeRecord(t *testing.T, d index.Doc) []byte {
	t.Helper()
	ref := newRef()
	x, err := index.New(ctx, ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ctx, d); err != nil {
		t.Fatal(err)
	}
	return ref.recs[d.ID]
}

// rawRecord is the value of the record key of id: its number, then the
// record.
func rawRecord(t *testing.T, s *Store, id string) []byte {
	t.Helper()
	v, err := s.c.Get(ctx, s.recordKey(id)).Bytes()
	if err != nil {
		t.Fatalf("record of %s: %v", id, err)
	}
	return v
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
		ps, err := s.Postings(ctx, keys)
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

// ingestAll ingests docs into x one at a time (each sees the ones
// before) and returns what Ingest said of each: original or the
// matches' IDs and figures.
func ingestAll(t *testing.T, x *index.Index, docs []index.Doc) string {
	t.Helper()
	var b strings.Builder
	for _, d := range docs {
		out, err := x.Ingest(ctx, []index.Doc{d}, index.IngestOptions{Distance: 3})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s original=%v", d.ID, out[0].Original)
		for _, m := range out[0].Matches {
			fmt.Fprintf(&b, " %s@%d/%.4f/%.4f/%v", m.ID, m.Distance, m.Content, m.Containment, m.Exact)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// wholeIngest is an index over a new archive of whole records.
func wholeIngest(t *testing.T) *index.Index {
	t.Helper()
	x, err := OpenIndex(ctx, redistest.Shared(t).URL(redistest.Name(t)+"whole"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// A lean archive keeps the band digests of a record with a
// confirmation sketch in place of its 64 sketch values, 112 bytes less,
// and finds and confirms the same matches as a store of whole records,
// written by Add or by Ingest (what dedup writes through), in both
// posting layouts, after replacing and deleting documents; a lean
// archive written before (records with all 64 values) keeps working,
// with old and new records side by side.
func TestLeanDigests(t *testing.T) {
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
		x, err := index.New(ctx, newRef(), nil)
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
	after := ref(t, add(docs...), add(later...), del("c"))

	for _, tc := range []struct {
		name         string
		ingest, flat bool
	}{{"add", false, false}, {"ingest", true, false}, {"add flat", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := redistest.Shared(t)
			url := c.URL(redistest.Name(t))
			x, err := OpenIndex(ctx, url, &Options{Lean: true, FlatPostings: tc.flat}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { x.Close() }()
			s := x.Store().(*Store)
			if tc.ingest {
				verdicts := ingestAll(t, x, docs)
				if want := ingestAll(t, wholeIngest(t), docs); verdicts != want {
					t.Errorf("Ingest's verdicts:\n%s\nwant (whole records)\n%s", verdicts, want)
				}
			} else if err := x.Add(ctx, docs...); err != nil {
				t.Fatal(err)
			}
			if !tc.ingest {
				same(t, "written", x, r)
			}
			// The record keeps the digests: 112 bytes less than a lean
			// record with the 64 values, and Get gives them.
			lean, err := index.LeanRecord(nil, wholeRecord(t, docs[0]), "a")
			if err != nil {
				t.Fatal(err)
			}
			if v := rawRecord(t, s, "a"); len(v) != numBytes+len(lean)-112 {
				t.Errorf("stored record of a: %d bytes, want %d (the number and a lean record of %d, less 112)", len(v), numBytes+len(lean)-112, len(lean))
			}
			got, err := x.Get(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			if !indextest.DigestsOnly(&got.Sketch) || got.Long != docs[0].Long || got.Shingles != docs[0].Shingles || got.Title != "" {
				t.Errorf("Get(a): sketch %v, Long kept %v, shingles %d, title %q; want band digests, the Long, %d, no title",
					got.Sketch, got.Long == docs[0].Long, got.Shingles, got.Title, docs[0].Shingles)
			}
			if tc.ingest {
				return // Ingest keeps duplicates' records: Similar differs from Add's
			}
			// Replacing and deleting.
			if err := x.Add(ctx, later...); err != nil {
				t.Fatal(err)
			}
			if err := x.Delete(ctx, "c"); err != nil {
				t.Fatal(err)
			}
			same(t, "after replacing b and deleting c", x, after)
			// The band postings of b's old text and of c, which the
			// digests cannot name, resolve to nothing.
			noBandPostings(t, s, docs[1], docs[2])
			x.Close()
			if x, err = OpenIndex(ctx, url, nil, nil); err != nil {
				t.Fatal(err)
			}
			same(t, "reopened", x, after)
		})
	}

	// A lean archive written before the digests: its records keep the
	// 64 sketch values (index.LeanRecord), as they are rewritten here.
	t.Run("old lean archive", func(t *testing.T) {
		c := redistest.Shared(t)
		url := c.URL(redistest.Name(t))
		x, err := OpenIndex(ctx, url, &Options{Lean: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { x.Close() }()
		s := x.Store().(*Store)
		if err := x.Add(ctx, docs...); err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			v := rawRecord(t, s, d.ID)
			old, err := index.LeanRecord(slices.Clone(v[:numBytes]), wholeRecord(t, d), d.ID)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.c.Set(ctx, s.recordKey(d.ID), old, 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
		x.Close()
		if x, err = OpenIndex(ctx, url, nil, nil); err != nil {
			t.Fatal(err)
		}
		s = x.Store().(*Store)
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
		same(t, "old and new records", x, after)
		if got, err := x.Get(ctx, "f"); err != nil || !indextest.DigestsOnly(&got.Sketch) {
			t.Errorf("new record of f in an old lean archive: sketch %v, %v; want band digests", got.Sketch, err)
		}
		noBandPostings(t, s, docs[1], docs[2])
	})
}
