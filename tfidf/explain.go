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
	sort.Slice(e.Shared, func(i, j int) bool {
		x, y := e.Shared[i], e.Shared[j]
		if sx, sy := x.WeightA+x.WeightB, y.WeightA+y.WeightB; sx != sy {
			return sx > sy
		}
		return x.Word < y.Word
	})
	SortKeywords(e.OnlyA)
	SortKeywords(e.OnlyB)
	return e
}

func weights(ks []Keyword) map[string]float64 {
	m := make(map[string]float64, len(ks))
	for _, k := range ks {
		m[k.Word] += k.Weight
	}
	return m
}
