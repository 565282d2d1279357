package tfidf

import (
	"math"
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
	// Lookup, if not nil, replaces IDF and Stop: it gives a word's IDF
	// and whether it is a stop word in one lookup (dict.Lexicon.Lookup).
	Lookup func(word string) (idf float64, stop bool)
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

// Extract returns the keywords of a segmented text: each candidate word
// that is not a stop word, weighted by (1 + ln count) × IDF, heaviest
// first; ties go to the word whose bytes sort first. It returns at most
// TopN keywords (AdaptiveN when TopN is 0).
func (e *Extractor) Extract(tokens []string) []Keyword {
	// Count first, then classify each distinct token once. One-rune
	// tokens (in Chinese text, 40% of all tokens: 的, 在, 了...) can never
	// be candidates and are skipped before they reach the map.
	counts := make(map[string]int32, len(tokens)*2/3)
	for _, t := range tokens {
		if len(t) < 2 {
			continue
		}
		if len(t) <= utf8.UTFMax && t[0] >= utf8.RuneSelf {
			if _, size := utf8.DecodeRuneInString(t); size == len(t) {
				continue
			}
		}
		counts[t]++
	}
	lookup := e.Lookup
	if lookup == nil {
		lookup = func(w string) (float64, bool) {
			if e.Stop != nil && e.Stop(w) {
				return 0, true
			}
			return e.IDF.Weight(w), false
		}
	}
	kw := make([]Keyword, 0, len(counts))
	for w, c := range counts {
		if !Candidate(w) {
			continue
		}
		idf, stop := lookup(w)
		if stop {
			continue
		}
		if c > 1 {
			idf *= 1 + math.Log(float64(c))
		}
		kw = append(kw, Keyword{Word: w, Weight: idf})
	}
	SortKeywords(kw)
	n := e.TopN
	if n <= 0 {
		n = AdaptiveN(len(kw))
	}
	if len(kw) > n {
		kw = kw[:n:n]
	}
	return kw
}

// SortKeywords sorts by weight descending, then word bytes ascending.
func SortKeywords(kw []Keyword) {
	slices.SortFunc(kw, func(a, b Keyword) int {
		// Weights are finite (see Weigher): no NaN to order.
		switch {
		case a.Weight > b.Weight:
			return -1
		case a.Weight < b.Weight:
			return 1
		}
		return strings.Compare(a.Word, b.Word)
	})
}
