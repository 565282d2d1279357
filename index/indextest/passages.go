package indextest

import (
	"reflect"
	"slices"
	"testing"

	"github.com/neardup/neardup/index"
)

func passageKey(v uint64) index.Key { return index.Key{Kind: index.KindPassage, Value: v} }

// Passage postings (index.KindPassage, Doc.Passages) through an Index:
// filed with the record, returned by Postings, round-tripped by Get,
// moved by a replace, removed by a delete, filed by Load, none for a
// RecordOnly document; and a document without passages files none.
func testPassages(t *testing.T, open Opener) {
	ctx := t.Context()
	x := newIndex(t, open, nil)
	s := x.Store()
	a := index.Doc{ID: "a", Fingerprint: 0x0123456789abcdef, ContentHash: 1, Passages: []uint64{0xfeed, 0xbeef, 0xffffffffffffffff}}
	b := index.Doc{ID: "b", Fingerprint: 0x1111111111111111, ContentHash: 2, Passages: []uint64{0xbeef, 0x7}}
	c := index.Doc{ID: "c", Fingerprint: 0x2222222222222222, ContentHash: 3}
	if err := x.Add(ctx, a, b, c); err != nil {
		t.Fatal(err)
	}
	keys := []index.Key{passageKey(0xfeed), passageKey(0xbeef), passageKey(0xffffffffffffffff), passageKey(0x7), passageKey(0x8), passageKey(3)}
	want := [][]string{{"a"}, {"a", "b"}, {"a"}, {"b"}, {}, {}}
	if got := postings(t, s, keys...); !reflect.DeepEqual(got, want) {
		t.Errorf("passage postings after Add = %v, want %v", got, want)
	}
	// A passage key and a content key with the same value are apart.
	if got := postings(t, s, contentKey(0xbeef), contentKey(1)); !reflect.DeepEqual(got, [][]string{{}, {"a"}}) {
		t.Errorf("content postings c:beef, c:1 = %v, want [[] [a]]", got)
	}
	for _, d := range []index.Doc{a, b, c} {
		got, err := x.Get(ctx, d.ID)
		if err != nil || !slices.Equal(got.Passages, d.Passages) {
			t.Errorf("Get(%s).Passages = %x, %v; want %x", d.ID, got.Passages, err, d.Passages)
		}
	}
	a2 := a
	a2.Passages = []uint64{0x8}
	if err := x.Add(ctx, a2); err != nil {
		t.Fatal(err)
	}
	want = [][]string{{}, {"b"}, {}, {"b"}, {"a"}, {}}
	if got := postings(t, s, keys...); !reflect.DeepEqual(got, want) {
		t.Errorf("passage postings after replacing a = %v, want %v", got, want)
	}
	if err := x.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	want = [][]string{{}, {}, {}, {}, {"a"}, {}}
	if got := postings(t, s, keys...); !reflect.DeepEqual(got, want) {
		t.Errorf("passage postings after deleting b = %v, want %v", got, want)
	}
	dup := index.Doc{ID: "dup", ContentHash: 1, Original: "a", Via: "a", Hops: 1, RecordOnly: true, Passages: []uint64{0x9}}
	if err := x.Add(ctx, dup); err != nil {
		t.Fatal(err)
	}
	if got := postings(t, s, passageKey(0x9)); !reflect.DeepEqual(got, [][]string{{}}) {
		t.Errorf("passage postings of a RecordOnly document = %v, want none", got)
	}

	y := newIndex(t, open, nil)
	if _, err := y.Load(ctx, slices.Values([]index.Doc{a, b, c})); err != nil {
		t.Fatal(err)
	}
	want = [][]string{{"a"}, {"a", "b"}, {"a"}, {"b"}, {}, {}}
	if got := postings(t, y.Store(), keys...); !reflect.DeepEqual(got, want) {
		t.Errorf("passage postings after Load = %v, want %v", got, want)
	}
}
