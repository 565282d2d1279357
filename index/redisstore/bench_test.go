package redisstore

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

// BenchmarkAdd adds documents in batches of 1000 through Index.Add; b.N
// is documents. See bench/redisarchive for the measurements at scale.
func BenchmarkAdd(b *testing.B) {
	for _, bare := range []bool{true, false} {
		b.Run(fmt.Sprintf("bare=%v", bare), func(b *testing.B) {
			x, _ := openIndex(b, nil, nil)
			r := rand.New(rand.NewPCG(1, 1))
			docs := make([]index.Doc, 0, 1000)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d := index.Doc{ID: fmt.Sprintf("doc-%09d", i), Fingerprint: simhash.Fingerprint(r.Uint64()), Added: time.Unix(1.7e9, 0)}
				if !bare {
					d = doc(d.ID, d.Fingerprint, uint64(i))
				}
				docs = append(docs, d)
				if len(docs) == cap(docs) || i == b.N-1 {
					if err := x.Add(ctx, docs...); err != nil {
						b.Fatal(err)
					}
					docs = docs[:0]
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}
