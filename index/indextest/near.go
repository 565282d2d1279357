package indextest

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

// testPostingsNear: a store that has PostingsNear (index.NearPostings)
// returns, under each table key, every posting Postings returns within
// k bits of the key's fingerprint, and under every other key the same
// postings as Postings. Documents with fingerprints 0 to 8 bits from
// each query, all under the query's table keys' values in some table.
func testPostingsNear(t *testing.T, open Opener) {
	ctx := t.Context()
	x := newIndex(t, open, nil)
	np, ok := x.Store().(index.NearPostings)
	if !ok {
		t.Skip("the store has no PostingsNear")
	}
	r := rand.New(rand.NewPCG(27, 1))
	var docs []index.Doc
	queries := make([]simhash.Fingerprint, 8)
	for q := range queries {
		queries[q] = simhash.Fingerprint(r.Uint64())
		for d := 0; d <= 8; d++ {
			docs = append(docs, index.Doc{ID: idOf(q, d), Fingerprint: Flip(r, queries[q], d), ContentHash: uint64(q)})
		}
	}
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	for k := 0; k <= x.MaxDistance(); k++ {
		var keys []index.Key
		var fps []simhash.Fingerprint
		for q, fp := range queries {
			for tb := 0; tb < 4; tb++ {
				keys = append(keys, index.Key{Kind: index.KindTable, Table: uint8(tb), Bits: 16, Value: uint64(fp>>(48-16*tb)) & 0xffff})
				fps = append(fps, fp)
			}
			keys = append(keys, index.Key{Kind: index.KindContent, Value: uint64(q)})
			fps = append(fps, fp)
		}
		all, err := x.Store().Postings(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		near, err := np.PostingsNear(ctx, keys, fps, k)
		if err != nil {
			t.Fatal(err)
		}
		for i, key := range keys {
			var want, got []string
			for _, p := range all[i] {
				if key.Kind != index.KindTable || fps[i].Distance(p.Fingerprint) <= k {
					want = append(want, p.ID)
				}
			}
			for _, p := range near[i] {
				if key.Kind != index.KindTable || fps[i].Distance(p.Fingerprint) <= k {
					got = append(got, p.ID)
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("k=%d key %v: PostingsNear kept %v, want %v", k, key, got, want)
			}
			if key.Kind == index.KindContent && len(got) != 9 {
				t.Errorf("k=%d content key %v: %d postings, want the 9 documents of the query", k, key, len(got))
			}
		}
	}
}

func idOf(q, d int) string {
	return string(rune('a'+q)) + "-" + string(rune('0'+d))
}
