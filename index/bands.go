package index

import "github.com/neardup/neardup/minhash"

// MinHash bands: the third way Similar finds candidates.
//
// SimHash of keywords measures topic more than text: a copy with a
// sentence rewritten or a tenth cut off often lands 4 to 10 bits from its
// original, beyond any radius the block tables can afford at scale
// (measured on zh_news: 79% of reference pairs with character 5-gram
// Jaccard >= 0.8 lie within distance 3, 95% within 6). The content sketch
// (minhash.Sketch, 64 one-permutation MinHash values) is split into
// Bands bands of BandRows consecutive values; each band of each document
// is stored under its own key, and documents that agree on a whole band
// are candidates. Two texts with Jaccard similarity J agree on a band with
// probability J^BandRows, so on at least one of the 16 bands with
// probability 1−(1−J^4)^16: 0.9998 at J=0.8, 0.93 at 0.6, 0.64 at 0.5,
// 0.12 at 0.3, 2.6e−6 at 0.02 (unrelated articles). Every candidate is
// then confirmed, like the SimHash ones, by the estimated Jaccard
// similarity of the two sketches (Options.MinContent).
const (
	Bands    = 16
	BandRows = minhash.Size / Bands
)

// bandValue packs band b of s into 8 bytes, big-endian.
func bandValue(s *minhash.Sketch, b int) uint64 {
	var v uint64
	for _, x := range s[b*BandRows : (b+1)*BandRows] {
		v = v<<16 | uint64(x)
	}
	return v
}
