package memstore

import (
	"maps"
	"slices"
	"testing"

	"github.com/neardup/neardup/index"
)

// Passage keys below 2^32 are kept in a postTable32, the others in a
// postTable: a key and the same key plus 2^32 never mix, and replacing
// or deleting a document removes its postings from either.
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
	if l := x.Store().(*Store).lists[listKey{kind: index.KindPassage}]; l.small.n != 3 || l.table.n != 1 {
		t.Errorf("added: %d postings in the 32-bit table and %d in the 64-bit one, want 3 and 1", l.small.n, l.table.n)
	}
	if err := x.Add(ctx, index.Doc{ID: "a", Passages: []uint64{6}}); err != nil {
		t.Fatal(err)
	}
	check("a replaced", [][]string{{"b"}, nil, {"a"}, nil})
	if err := x.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	check("b deleted", [][]string{nil, nil, {"a"}, nil})
}

// postTable32 agrees with a map after each step of adds and removals
// of many values in a small table (probe runs wrap around; removals
// shift entries back).
func TestPostTable32Model(t *testing.T) {
	var pt postTable32
	model := map[uint32]map[uint32]bool{}
	x := uint64(1)
	for step := range 20000 {
		x = x*6364136223846793005 + 1442695040888963407
		v, d := uint32(x>>40)%300, uint32(x>>20)%50+1
		if model[v] == nil {
			model[v] = map[uint32]bool{}
		}
		if step%3 == 2 {
			pt.remove(v, d)
			delete(model[v], d)
		} else {
			pt.add(v, d)
			model[v][d] = true
		}
		if step%997 != 0 && step != 19999 {
			continue
		}
		n := 0
		for v, ds := range model {
			var got []uint32
			pt.each(v, func(d uint32) { got = append(got, d) })
			want := slices.Sorted(maps.Keys(ds))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: documents of %d: %v, want %v", step, v, got, want)
			}
			n += len(ds)
		}
		if pt.n != n {
			t.Fatalf("step %d: %d postings, want %d", step, pt.n, n)
		}
	}
}
