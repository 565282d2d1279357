package tfidf

import "sort"

// Explanation says which keywords two documents share.
type Explanation struct {
	Shared []SharedKeyword
	OnlyA  []Keyword
	OnlyB  []Keyword
}

// SharedKeyword is a keyword of both documents, with its weight in each.
type SharedKeyword struct {
	Word    string
	WeightA float64
	WeightB float64
}

// Explain compares the keywords of two documents. Shared is sorted by
// WeightA+WeightB, OnlyA and OnlyB by weight, all heaviest first and then
// by word. A word listed twice in one input counts once, with the sum of
// its weights.
func Explain(a, b []Keyword) Explanation {
	wa, wb := weights(a), weights(b)
	var e Explanation
	for w, x := range wa {
		if y, ok := wb[w]; ok {
			e.Shared = append(e.Shared, SharedKeyword{Word: w, WeightA: x, WeightB: y})
		} else {
			e.OnlyA = append(e.OnlyA, Keyword{Word: w, Weight: x})
		}
	}
	for w, y := range wb {
		if _, ok := wa[w]; !ok {
			e.OnlyB = append(e.OnlyB, Keyword{Word: w, Weight: y})
		}
	}
	sortShared(e.Shared)
	SortKeywords(e.OnlyA)
	SortKeywords(e.OnlyB)
	return e
}

// Shared is Explain(a, b).Shared alone: the keywords of both, heaviest
// WeightA+WeightB first, then by word (nil when there are none). It
// costs a map of b's words and one look-up for each of a's, where
// Explain also maps a and lists and sorts the words of each alone: a
// check's match shows only what it shares with the article, whose 256
// keywords would be mapped and sorted again for each match.
func Shared(a, b []Keyword) []SharedKeyword {
	wb := weights(b)
	var wa map[string]float64
	var order []string // the shared words, as first met in a
	for _, k := range a {
		if _, ok := wb[k.Word]; !ok {
			continue
		}
		if wa == nil {
			wa = make(map[string]float64, len(wb))
		}
		if _, ok := wa[k.Word]; !ok {
			order = append(order, k.Word)
		}
		wa[k.Word] += k.Weight
	}
	if len(order) == 0 {
		return nil
	}
	out := make([]SharedKeyword, len(order))
	for i, w := range order {
		out[i] = SharedKeyword{Word: w, WeightA: wa[w], WeightB: wb[w]}
	}
	sortShared(out)
	return out
}

// sortShared sorts shared keywords heaviest WeightA+WeightB first, then
// by word.
func sortShared(s []SharedKeyword) {
	sort.Slice(s, func(i, j int) bool {
		x, y := s[i], s[j]
		if sx, sy := x.WeightA+x.WeightB, y.WeightA+y.WeightB; sx != sy {
			return sx > sy
		}
		return x.Word < y.Word
	})
}

func weights(ks []Keyword) map[string]float64 {
	m := make(map[string]float64, len(ks))
	for _, k := range ks {
		m[k.Word] += k.Weight
	}
	return m
}
