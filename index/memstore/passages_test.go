package memstore

import (
	"slices"
	"testing"

	"github.com/neardup/neardup/index"
)

// Passage keys below 2^32 (the default, 32-bit keys) and above it (an
// archive made with 64-bit keys) share a postTable: a key and the same
// key plus 2^32 never mix, and replacing or deleting a document removes
// its postings.
func TestPassagePostings(t *testing.T) {
	ctx := t.Context()
	x, err := Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	const big = 5 + 1<<32
	ids := func(vs ...uint64) [][]string {
		keys := make([]index.Key, len(vs))
		for i, v := range vs {
			keys[i] = index.Key{Kind: index.KindPassage, Value: v}
		}
		ps, err := x.Store().Postings(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		out := make([][]string, len(ps))
		for i, l := range ps {
			for _, p := range l {
				out[i] = append(out[i], p.ID)
			}
			slices.Sort(out[i])
		}
		return out
	}
	check := func(step string, want [][]string) {
		t.Helper()
		if got := ids(5, big, 6, 0xffffffff); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: documents under 5, 5+2^32, 6, 2^32-1: %q, want %q", step, got, want)
		}
	}
	if err := x.Add(ctx, index.Doc{ID: "a", Passages: []uint64{5, big, 0xffffffff}}, index.Doc{ID: "b", Passages: []uint64{5}}); err != nil {
		t.Fatal(err)
	}
	check("added", [][]string{{"a", "b"}, {"a"}, nil, {"a"}})
	if err := x.Add(ctx, index.Doc{ID: "a", Passages: []uint64{6}}); err != nil {
		t.Fatal(err)
	}
	check("a replaced", [][]string{{"b"}, nil, {"a"}, nil})
	if err := x.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	check("b deleted", [][]string{nil, nil, {"a"}, nil})
}
