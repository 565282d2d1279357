package redisstore

import (
	"reflect"
	"slices"
	"testing"

	"github.com/neardup/neardup/index"
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
