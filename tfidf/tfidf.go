package tfidf

import (
	"encoding/binary"
	"hash/maphash"
	"iter"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Weigher gives a word's inverse document frequency; *dict.IDF is one.
// Unknown words must get a neutral weight (dict.IDF uses the median).
// Weights must be finite and not negative.
type Weigher interface {
	Weight(word string) float64
}

// Extractor picks keywords. Its zero value is not usable: IDF is required.
// An Extractor is read-only after construction and safe for concurrent use.
type Extractor struct {
	IDF Weigher
	// Stop reports whether a word is a stop word; nil means none are.
	Stop func(word string) bool
	// Lookup, if not nil, replaces IDF and Stop: for every words[i] it
	// sets idf[i] to the word's IDF and stop[i] to whether it is a stop
	// word. Extract hands it all the candidate words of a text at once,
	// so that a table too large for the caches can overlap its reads
	// (dict.Lexicon.LookupAll).
	Lookup func(words []string, idf []float64, stop []bool)
	// TopN is how many keywords to keep; 0 chooses AdaptiveN.
	TopN int
}

// AdaptiveN is the default number of keywords for a text with the given
// number of distinct candidate words: all of them, up to MaxN. SimHash
// approximates the angle between the texts' weight vectors, so the more of
// the vector it sees the steadier it is under small edits. Measured on
// zh_news (5,868 articles, 242 reference pairs with character 5-gram
// Jaccard >= 0.8), the share of those pairs within Hamming distance 3 is
// 0.71 with the top 64 keywords, 0.78 with the top 200 and 0.79 with all
// words, and within distance 6 it is 0.82, 0.92 and 0.95; unrelated pairs
// stay near distance 32 throughout. MaxN bounds the work on very long texts.
func AdaptiveN(distinct int) int {
	if distinct < MinN {
		return MinN
	}
	if distinct > MaxN {
		return MaxN
	}
	return distinct
}

// Bounds of AdaptiveN.
const (
	MinN = 1
	MaxN = 256
)

// Candidate reports whether a segmented token can be a keyword at all:
// it has at least two runes and at least one letter, and is not a number
// (digits with separators such as "3.14" or "2,000"). One-rune tokens are
// dropped, as jieba does: a single CJK character carries little topic.
func Candidate(tok string) bool {
	if len(tok) < 2 {
		return false
	}
	// Most tokens begin with an ASCII letter or a CJK ideograph: a
	// letter, and another rune after it.
	if c := tok[0] | 0x20; 'a' <= c && c <= 'z' || len(tok) > 3 && ideographAt(tok) {
		return true
	}
	n, letter := 0, false
	for _, r := range tok {
		n++
		if !letter {
			// CJK Unified Ideographs and ASCII letters first: unicode.IsLetter
			// searches a table.
			letter = (0x4e00 <= r && r <= 0x9fff) || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') ||
				(r >= utf8.RuneSelf && unicode.IsLetter(r))
		}
		if n >= 2 && letter {
			return true
		}
	}
	return false
}

// ideographAt reports whether s begins with a CJK Unified Ideograph,
// U+4E00 to U+9FFF: three bytes, E4 B8..BF xx or E5..E9 xx xx.
func ideographAt(s string) bool {
	if len(s) < 3 {
		return false
	}
	c := s[0]
	return (c == 0xe4 && s[1] >= 0xb8 || 0xe5 <= c && c <= 0xe9) && s[1]&0xc0 == 0x80 && s[2]&0xc0 == 0x80
}

// Extract returns the keywords of a segmented text: each candidate word
// that is not a stop word, weighted by (1 + ln count) × IDF, heaviest
// first; ties go to the word whose bytes sort first. It returns at most
// TopN keywords (AdaptiveN when TopN is 0), nil when there are none.
func (e *Extractor) Extract(tokens []string) []Keyword {
	return e.ExtractScratch(tokens, nil)
}

// Scratch is the working memory of ExtractScratch, kept between calls so
// that they do not allocate it anew: counting 600 tokens takes about 20 KB.
// Its zero value is ready to use. A Scratch serves one call at a time;
// sync.Pool suits it.
type Scratch struct {
	slots []uint64
	seed  wordSeed
	kw    []Keyword
	words []string
	idf   []float64
	stop  []bool
	// sortKeywords'
	keys    []uint64
	tieKeys []uint64
	sorted  []Keyword
}

// ExtractScratch is Extract with its working memory taken from s (nil
// for fresh memory). The keywords it returns are its own, not s's.
func (e *Extractor) ExtractScratch(tokens []string, s *Scratch) []Keyword {
	if s == nil {
		s = new(Scratch)
	}
	kw := s.count(tokens)
	defer clear(kw) // s keeps no words alive
	// Classify each distinct word once.
	n := 0
	for _, k := range kw {
		if Candidate(k.Word) {
			kw[n] = k
			n++
		}
	}
	kw = kw[:n]
	idf := resized(s.idf, n)
	stop := resized(s.stop, n)
	s.idf, s.stop = idf, stop
	if e.Lookup != nil {
		words := resized(s.words, n)
		for i := range kw {
			words[i] = kw[i].Word
		}
		e.Lookup(words, idf, stop)
		clear(words)
		s.words = words
	} else {
		for i := range kw {
			if stop[i] = e.Stop != nil && e.Stop(kw[i].Word); !stop[i] {
				idf[i] = e.IDF.Weight(kw[i].Word)
			}
		}
	}
	n = 0
	for i, k := range kw {
		if stop[i] {
			continue
		}
		w := idf[i]
		if c := k.Weight; c > 1 {
			w *= 1 + math.Log(c)
		}
		kw[n] = Keyword{Word: k.Word, Weight: w}
		n++
	}
	kw = kw[:n]
	if n == 0 {
		return nil
	}
	sortKeywords(kw, s)
	top := e.TopN
	if top <= 0 {
		top = AdaptiveN(n)
	}
	return slices.Clone(kw[:min(top, n)])
}

// resized returns b resliced to n elements, reallocated if it is shorter.
// The elements' values are left as they were.
func resized[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// count returns the distinct tokens that may be candidates, in the order
// they first occur, each with its count as Weight. One-rune tokens (in
// Chinese text, 40% of all tokens: 的, 在, 了...) can never be candidates
// and are skipped. The tokens are counted in an open-addressing table
// of indexes into the result (a slot is the upper half of the token's
// hash, which also places it, and its index + 1), at most three-quarters
// full: pointer-free, it is 1.5× faster than a map on 600 tokens of 300
// distinct words. It has four slots for every three tokens, so that it
// never grows: sized for every token, it had to grow (and allocate) on
// every text whose tokens were more than three-quarters distinct; sized
// for half of them, it grew for most articles of en_reuters, whose 170
// tokens hold 110 distinct words. The table and the result are s's,
// reused.
func (s *Scratch) count(tokens []string) []Keyword {
	size := 16
	for 3*size < 4*len(tokens) {
		size <<= 1
	}
	slots := resized(s.slots, size)
	clear(slots)
	kw := s.kw[:0]
	if cap(kw) < len(tokens)/2 {
		kw = make([]Keyword, 0, len(tokens)/2)
	}
	if !s.seed.set {
		s.seed = newWordSeed() // the order of kw does not depend on it
	}
	seed := &s.seed
tokens:
	for _, t := range tokens {
		if len(t) < 2 {
			continue
		}
		if len(t) <= utf8.UTFMax && t[0] >= utf8.RuneSelf {
			if len(t) == 3 && ideographAt(t) {
				continue // one CJK ideograph
			}
			if _, size := utf8.DecodeRuneInString(t); size == len(t) {
				continue
			}
		}
		tag := seed.hash(t) >> 32
		mask := uint64(len(slots) - 1)
		for i := tag & mask; ; i = (i + 1) & mask {
			slot := slots[i]
			if slot == 0 {
				slots[i] = tag<<32 | uint64(len(kw)+1)
				kw = append(kw, Keyword{Word: t, Weight: 1})
				continue tokens
			}
			if slot>>32 == tag {
				if k := &kw[uint32(slot)-1]; k.Word == t {
					k.Weight++
					continue tokens
				}
			}
		}
	}
	s.slots, s.kw = slots, kw
	return kw
}

// wordSeed keys count's hash of a token, chosen at random for each
// Scratch so that no text can be made whose tokens all share a slot.
type wordSeed struct {
	set    bool
	k0, k1 uint64
	long   maphash.Seed // for tokens of more than 16 bytes
}

func newWordSeed() wordSeed {
	return wordSeed{set: true, k0: rand.Uint64(), k1: rand.Uint64(), long: maphash.MakeSeed()}
}

// hash hashes a token: a token of 4 to 16 bytes (most of them) as four
// 4-byte words that cover it, at 0, (n/8)*4, n-4 and n-4-(n/8)*4, one
// of 1 to 3 bytes as its first, middle and last byte, keyed and
// multiplied into 128 bits whose halves are folded (wyhash's
// construction for short keys), rather than through maphash.String,
// which took half of count's time on en_reuters; a longer one by
// maphash. Tokens of 4 to 16 bytes take one path, so that the varied
// lengths of English words do not mispredict a branch a length class.
func (k *wordSeed) hash(t string) uint64 {
	n := len(t)
	var a, b uint64
	if n >= 4 {
		if n > 16 {
			return maphash.String(k.long, t)
		}
		o := n >> 3 << 2
		a = uint64(load32(t))<<32 | uint64(load32(t[o:]))
		b = uint64(load32(t[n-4:]))<<32 | uint64(load32(t[n-4-o:]))
	} else if n > 0 {
		a = uint64(t[0])<<16 | uint64(t[n>>1])<<8 | uint64(t[n-1])
	}
	hi, lo := bits.Mul64(a^k.k0, b^k.k1^uint64(n))
	return hi ^ lo
}

func load32(t string) uint32 {
	t = t[:4]
	return uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24
}

// SortKeywords sorts by weight descending, then word bytes ascending.
func SortKeywords(kw []Keyword) { sortKeywords(kw, new(Scratch)) }

// compareKeywords is SortKeywords' order.
func compareKeywords(a, b Keyword) int {
	// Weights are finite (see Weigher): no NaN to order.
	switch {
	case a.Weight > b.Weight:
		return -1
	case a.Weight < b.Weight:
		return 1
	}
	return strings.Compare(a.Word, b.Word)
}

// sortKeywords is SortKeywords with working memory from s.
//
// A comparison sort through compareKeywords spends most of its time
// calling it: 18 µs an article of zh_news (up to 256 keywords), 4% of
// its whole analysis in a CPU profile. Sorted as below it takes 2.9%
// (BenchmarkSortKeywords: 1.5× faster): by integer keys, each with the
// keyword's index in its lowest b bits (n ≤ 2^b), so that the keys are
// distinct and the sorted keys say where each keyword goes:
//
//   - first by their weights' bits, complemented (heaviest first), as the
//     bits of a float64 that is not negative order as its value does;
//   - then each run of keywords whose weight keys agree (equal weights,
//     or weights within 2^(b-52) of each other), if their weights are all
//     equal, by the first bytes of their words, big-endian; otherwise by
//     compareKeywords;
//   - and last each run of those that agree on the first bytes too, by
//     compareKeywords.
//
// The result is compareKeywords' order exactly. A short slice, or one
// with a negative or NaN weight, is sorted by compareKeywords directly.
func sortKeywords(kw []Keyword, s *Scratch) {
	n := len(kw)
	b := uint(bits.Len(uint(n - 1)))
	if n < 16 || b > 16 {
		slices.SortFunc(kw, compareKeywords)
		return
	}
	keys := resized(s.keys, n)
	s.keys = keys
	for i, k := range kw {
		if !(k.Weight >= 0) {
			slices.SortFunc(kw, compareKeywords)
			return
		}
		var wb uint64
		if k.Weight != 0 { // -0 sorts as 0
			wb = math.Float64bits(k.Weight)
		}
		keys[i] = ^wb>>b<<b | uint64(i)
	}
	s.permute(kw, keys, b)
	for i, j := range runs(keys, b) {
		tie := kw[i:j]
		if slices.ContainsFunc(tie, func(k Keyword) bool { return k.Weight != tie[0].Weight }) {
			slices.SortFunc(tie, compareKeywords)
			continue
		}
		tb := uint(bits.Len(uint(len(tie) - 1)))
		tkeys := resized(s.tieKeys, len(tie))
		s.tieKeys = tkeys
		for i, k := range tie {
			var p [8]byte
			copy(p[:], k.Word)
			tkeys[i] = binary.BigEndian.Uint64(p[:])>>tb<<tb | uint64(i)
		}
		s.permute(tie, tkeys, tb)
		for i, j := range runs(tkeys, tb) {
			slices.SortFunc(tie[i:j], compareKeywords)
		}
	}
}

// permute sorts keys, whose lowest b bits are indexes into kw, and puts
// kw in their order.
func (s *Scratch) permute(kw []Keyword, keys []uint64, b uint) {
	slices.Sort(keys)
	orig := append(s.sorted[:0], kw...)
	mask := uint64(1)<<b - 1
	for i, key := range keys {
		kw[i] = orig[key&mask]
	}
	clear(orig) // s keeps no words alive
	s.sorted = orig[:0]
}

// runs yields the bounds [i, j) of every run of two or more sorted keys
// that agree above their lowest b bits.
func runs(keys []uint64, b uint) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < len(keys); {
			j := i + 1
			for j < len(keys) && keys[j]>>b == keys[i]>>b {
				j++
			}
			if j-i > 1 && !yield(i, j) {
				return
			}
			i = j
		}
	}
}
