package index

import (
	"sort"

	"github.com/neardup/neardup/tfidf"
)

// similar combines the exact-hash IDs, the SimHash candidates and the
// MinHash band candidates of d into Similar's result, reading records
// with get. SimHash candidates are confirmed by content when both sketches
// are known; band candidates always have both and are always confirmed.
func similar(d *Doc, exact []string, near []Match, banded []string, get func(string) (Doc, error), minContent float64) ([]Match, error) {
	var out []Match
	seen := make(map[string]bool, len(exact)+len(near))
	for _, id := range exact {
		if id == d.ID || seen[id] {
			continue
		}
		seen[id] = true
		r, err := get(id)
		if err != nil {
			return nil, err
		}
		dist := d.Fingerprint.Distance(r.Fingerprint)
		out = append(out, Match{ID: id, Title: r.Title, Distance: dist, Similarity: d.Fingerprint.Similarity(r.Fingerprint),
			Content: 1, Exact: true, Keywords: r.Keywords, Job: r.Job, Seq: r.Seq})
	}
	for _, m := range near {
		if m.ID == d.ID || seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		r, err := get(m.ID)
		if err != nil {
			return nil, err
		}
		m.Title, m.Keywords, m.Job, m.Seq = r.Title, r.Keywords, r.Job, r.Seq
		if !d.Sketch.IsZero() && !r.Sketch.IsZero() {
			m.Content = d.Sketch.Jaccard(r.Sketch)
			if m.Content < minContent {
				continue
			}
		}
		out = append(out, m)
	}
	for _, id := range banded {
		if id == d.ID || seen[id] {
			continue
		}
		seen[id] = true
		r, err := get(id)
		if err != nil {
			return nil, err
		}
		c := d.Sketch.Jaccard(r.Sketch)
		if r.Sketch.IsZero() || c < minContent {
			continue
		}
		out = append(out, Match{ID: id, Title: r.Title, Distance: d.Fingerprint.Distance(r.Fingerprint),
			Similarity: d.Fingerprint.Similarity(r.Fingerprint), Content: c, Keywords: r.Keywords, Job: r.Job, Seq: r.Seq})
	}
	SortMatches(out)
	return out, nil
}

// SortMatches sorts matches as Similar does: exact matches first, then by
// distance, then by ID.
func SortMatches(ms []Match) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := &ms[i], &ms[j]
		if a.Exact != b.Exact {
			return a.Exact
		}
		if a.Distance != b.Distance {
			return a.Distance < b.Distance
		}
		return a.ID < b.ID
	})
}

// Explanation says which keywords two documents share.
type Explanation struct {
	Shared []SharedKeyword
	OnlyA  []tfidf.Keyword
	OnlyB  []tfidf.Keyword
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
func Explain(a, b []tfidf.Keyword) Explanation {
	wa, wb := weights(a), weights(b)
	var e Explanation
	for w, x := range wa {
		if y, ok := wb[w]; ok {
			e.Shared = append(e.Shared, SharedKeyword{Word: w, WeightA: x, WeightB: y})
		} else {
			e.OnlyA = append(e.OnlyA, tfidf.Keyword{Word: w, Weight: x})
		}
	}
	for w, y := range wb {
		if _, ok := wa[w]; !ok {
			e.OnlyB = append(e.OnlyB, tfidf.Keyword{Word: w, Weight: y})
		}
	}
	sort.Slice(e.Shared, func(i, j int) bool {
		x, y := e.Shared[i], e.Shared[j]
		if sx, sy := x.WeightA+x.WeightB, y.WeightA+y.WeightB; sx != sy {
			return sx > sy
		}
		return x.Word < y.Word
	})
	sortKeywords(e.OnlyA)
	sortKeywords(e.OnlyB)
	return e
}

func weights(ks []tfidf.Keyword) map[string]float64 {
	m := make(map[string]float64, len(ks))
	for _, k := range ks {
		m[k.Word] += k.Weight
	}
	return m
}

func sortKeywords(ks []tfidf.Keyword) {
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].Weight != ks[j].Weight {
			return ks[i].Weight > ks[j].Weight
		}
		return ks[i].Word < ks[j].Word
	})
}
