package redisstore

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/reuse"
)

// A reuse index on a Redis archive of passage levels (bucket bits 8:
// 300 documents over levels 0 and 1) answers Find as one in memory
// does, with a boilerplate paragraph that every document is filed under
// (so its lists pass the stop rule's bound, which PostingsLimit stops
// at) and articles that copy from documents at both levels.
func TestReuseAgainstMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("harbour council budget river school festival transport museum station library market bridge hospital election weather tunnel garden stadium airport village")
	para := func() string {
		var b strings.Builder
		for b.Len() < 400 {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(fmt.Sprintf("%d ", r.IntN(1000)))
		}
		return b.String()
	}
	boiler := "This article is distributed by the Example News Agency under its usual terms; all rights reserved by the agency."
	texts := make([]string, 300)
	for i := range texts {
		texts[i] = para() + " " + boiler
	}
	o := &reuse.Options{MaxDocs: 20}
	mem, err := memstore.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	rx, _ := openIndex(t, &Options{BucketBits: 8}, nil)
	var rs []*reuse.Index
	for _, x := range []*index.Index{mem, rx} {
		ri, err := reuse.Open(ctx, x, nil, reuse.Params{}, o)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, ri)
		var docs []index.Doc
		for i, text := range texts {
			tx, err := reuse.NewText(text, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Every fingerprint filed (not Prepare's), boilerplate too.
			docs = append(docs, index.Doc{ID: fmt.Sprintf("a%03d", i), Fingerprint: 1, ContentHash: uint64(i + 1), Text: text,
				Passages: ri.Params().Keys(reuse.Hashes(ri.Params().Prints(tx)))})
		}
		if err := x.Add(ctx, docs...); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		texts[7][:300] + " " + para(),                  // level 0
		para() + " " + texts[290][:350] + " " + boiler, // level 1
		texts[3][:200] + " " + texts[280][:200],        // both
		boiler,                                         // boilerplate only
	} {
		want, err := rs[0].Find(ctx, q, "")
		if err != nil {
			t.Fatal(err)
		}
		got, err := rs[1].Find(ctx, q, "")
		if err != nil {
			t.Fatal(err)
		}
		want.File, got.File = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Find(%.30q…) on Redis = %+v\nin memory %+v", q, got, want)
		}
		if (len(want.Matches) == 0) != (q == boiler) || (want.Dropped == 0) == strings.Contains(q, boiler) {
			t.Errorf("Find(%.30q…) in memory = %+v: want matches unless boilerplate only, boilerplate dropped where there is some", q, want)
		}
	}
}
