package redisstore

import (
	"reflect"
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
}
