package index

import (
	"fmt"
	"testing"
	"time"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/tfidf"
)

// BenchmarkBatchRecord makes the batch record of a record as dedup
// writes it: a title, 32 keywords, both sketches.
func BenchmarkBatchRecord(b *testing.B) {
	s, l, n := minhash.NewAll("a text of some length with both sketches, long enough to fill them")
	d := Doc{ID: "news.example.com/zh/2026/11/27/a0000001.html", Fingerprint: 1, ContentHash: 2, Title: "A title of forty bytes or so, like news",
		Sketch: s, Long: l, Shingles: n, Added: time.Now(), Seq: 123456}
	for i := range 32 {
		d.Keywords = append(d.Keywords, tfidf.Keyword{Word: fmt.Sprint("词语", i), Weight: float64(i)})
	}
	rec := encodeDoc(nil, &d)
	var dst []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = BatchRecord(dst[:0], rec, d.ID); err != nil {
			b.Fatal(err)
		}
	}
}
