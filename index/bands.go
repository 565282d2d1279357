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

// A batch record (BatchRecord) keeps, in place of the 64 sketch values,
// an 8-bit digest of each band: enough to tell whether a candidate
// shares a band with a query (the engine's confirmation asks only
// that, and only of candidates found under the query's keys: an exact
// copy, one within the distance, or one that shares a band, for which
// a chance agreement of the digests changes nothing), in 16 bytes
// instead of 128. Decoded, its Sketch holds the digest of band b at
// index b·BandRows and zeros elsewhere, a pattern no sketch of
// minhash.New has (its values are never 0), so that the Sketch is not
// zero: it says that the document has a sketch. Its estimates
// (Sketch.Jaccard) mean nothing; Content and Confirmed use the
// confirmation sketches (Doc.Long), which a batch record always keeps.

// digested reports whether s holds band digests (see above).
func digested(s *minhash.Sketch) bool {
	for b := range Bands {
		if s[b*BandRows] == 0 {
			return false
		}
		for _, v := range s[b*BandRows+1 : (b+1)*BandRows] {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

// bandDigest returns the 8-bit digest of band b of s, never 0; dig
// says whether s is digested.
func bandDigest(s *minhash.Sketch, dig bool, b int) uint16 {
	if dig {
		return s[b*BandRows]
	}
	return digestOf(bandValue(s, b))
}

// digestOf is the digest of a band value: its top 8 bits after a
// multiplication that spreads every bit of it over them, 1 for 0.
func digestOf(v uint64) uint16 {
	h := uint16((v * 0x9e3779b97f4a7c15) >> 56)
	return max(h, 1)
}

// digestBands returns the band digests of s, which is neither zero nor
// digested already, as a batch record keeps them.
func digestBands(s *minhash.Sketch) minhash.Sketch {
	var out minhash.Sketch
	for b := range Bands {
		out[b*BandRows] = digestOf(bandValue(s, b))
	}
	return out
}

// sharesBand reports whether a and b agree on a whole band: by their
// values, or by the bands' digests when either holds only those (a
// batch record's), which two different bands share with probability
// about 1/256. A zero sketch shares none.
func sharesBand(a, b *minhash.Sketch) bool {
	if a.IsZero() || b.IsZero() {
		return false
	}
	if da, db := digested(a), digested(b); da || db {
		for i := range Bands {
			if bandDigest(a, da, i) == bandDigest(b, db, i) {
				return true
			}
		}
		return false
	}
	for i := range Bands {
		if bandValue(a, i) == bandValue(b, i) {
			return true
		}
	}
	return false
}
