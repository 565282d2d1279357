//go:build gojieba && cgo

package neardup

import (
	"testing"

	"github.com/neardup/neardup/segment"
	"github.com/neardup/neardup/simhash"
)

// BenchmarkGosimhash measures the method neardup's pipeline is compared
// with: gojieba's own keyword extraction (cppjieba's KeywordExtractor,
// top 20) plus lookup3 and SimHash, as yanyiwu/gosimhash does, on the
// same articles as BenchmarkPipeline.
func BenchmarkGosimhash(b *testing.B) {
	j, err := segment.NewGojieba(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	for _, c := range benchCorpora {
		texts, size := benchArticles(b, c.corpus, 300)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			for n := 0; n < b.N; n++ {
				for _, t := range texts {
					words, weights := j.ExtractWithWeight(t, 20)
					feats := make([]simhash.Feature, len(words))
					for i, w := range words {
						feats[i] = simhash.Feature{Hash: simhash.HashLookup3(w), Weight: weights[i]}
					}
					simhash.Sum(feats)
				}
			}
		})
	}
}

// gosimhashFunc returns gosimhash's method as a function of the raw text:
// gojieba's ExtractWithWeight (top 20), lookup3 and SimHash.
func gosimhashFunc(b *testing.B) func(text string) simhash.Fingerprint {
	j, err := segment.NewGojieba(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	return func(text string) simhash.Fingerprint {
		words, weights := j.ExtractWithWeight(text, 20)
		feats := make([]simhash.Feature, len(words))
		for i, w := range words {
			feats[i] = simhash.Feature{Hash: simhash.HashLookup3(w), Weight: weights[i]}
		}
		return simhash.Sum(feats)
	}
}
