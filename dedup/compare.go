package dedup

import (
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/tfidf"
)

// Verdicts of Compare.
const (
	VerdictExact     = "exact duplicate"
	VerdictNear      = "near duplicate"
	VerdictDifferent = "different"
)

// Comparison is what Compare finds out about two articles.
type Comparison struct {
	Distance   int     // Hamming distance of the fingerprints
	Similarity float64 // 1 − Distance/64
	Content    float64 // estimated Jaccard similarity of the character 5-grams; 1 when the texts are identical
	// Containment is the estimated share of the smaller text's 5-grams
	// the other holds (index.Containment); 1 when the texts are identical.
	Containment float64
	Exact       bool   // the normalised texts are identical
	Verdict     string // VerdictExact, VerdictNear or VerdictDifferent
	Why         string // the verdict's reason, for people
	Keywords    tfidf.Explanation
}

// Compare decides whether b duplicates a as Run and Check would with an
// archive of a alone: exact when the normalised texts are identical,
// near when index.Confirmed confirms them (the content similarity
// reaches minContent, or one text is mostly contained in the other),
// whatever the fingerprint distance (an archive finds such a copy
// through its sketch bands if the distance is over k), different
// otherwise.
func Compare(a, b *neardup.Analysis, k int, minContent float64) Comparison {
	da, db := DocOf(a, "a", "", 0), DocOf(b, "b", "", 0)
	c := Comparison{
		Distance:    a.Fingerprint.Distance(b.Fingerprint),
		Similarity:  a.Fingerprint.Similarity(b.Fingerprint),
		Content:     index.Content(&da, &db),
		Containment: index.Containment(&da, &db),
		Exact:       a.ContentHash == b.ContentHash,
		Verdict:     VerdictDifferent,
		Keywords:    tfidf.Explain(a.Keywords, b.Keywords),
	}
	dist, content := c.Distance, c.Content
	contained := content < minContent && index.Confirmed(&da, &db, minContent)
	switch {
	case c.Exact:
		c.Content, c.Containment = 1, 1
		c.Verdict, c.Why = VerdictExact, "the normalised texts are identical"
	case contained:
		c.Verdict = VerdictNear
		rule := fmt.Sprintf("≥ %.2f, sizes within %.2f", index.MinContainment, index.MinSizeRatio)
		if !da.Long.IsZero() && !db.Long.IsZero() {
			rule = fmt.Sprintf("≥ %.2f, content ≥ %.2f", index.LongMinContainment, index.LongContainmentFloor)
		}
		c.Why = fmt.Sprintf("content similarity %.2f < %.2f, but the shorter text is %.2f contained in the other (%s)",
			content, minContent, c.Containment, rule)
		if dist > k {
			c.Why += fmt.Sprintf("; fingerprints %d > %d bits apart, so an index finds it by its content bands", dist, k)
		}
	case content >= minContent && dist <= k:
		c.Verdict = VerdictNear
		c.Why = fmt.Sprintf("content similarity %.2f ≥ %.2f; fingerprints %d ≤ %d bits apart", content, minContent, dist, k)
	case content >= minContent:
		c.Verdict = VerdictNear
		c.Why = fmt.Sprintf("content similarity %.2f ≥ %.2f; fingerprints %d > %d bits apart, so an index finds it by its content bands", content, minContent, dist, k)
	case dist <= k:
		c.Why = fmt.Sprintf("fingerprints %d ≤ %d bits apart, but content similarity %.2f < %.2f", dist, k, content, minContent)
	default:
		c.Why = fmt.Sprintf("content similarity %.2f < %.2f; fingerprints %d > %d bits apart", content, minContent, dist, k)
	}
	return c
}

// Report returns c's report, for the articles a and b compared by the
// analyzer analyzer at distance k and content similarity minContent
// (Compare's arguments). Its lists are empty, never nil.
func (c *Comparison) Report(a, b report.Side, analyzer string, k int, minContent float64) report.Comparison {
	r := report.Comparison{
		A: a, B: b, Analyzer: analyzer, Distance: c.Distance, Similarity: c.Similarity, Content: c.Content, Exact: c.Exact,
		MaxDistance: k, MinContent: minContent, Verdict: c.Verdict, Why: c.Why,
		Shared: make([]report.Shared, 0, len(c.Keywords.Shared)), OnlyA: c.Keywords.OnlyA, OnlyB: c.Keywords.OnlyB,
	}
	for _, s := range c.Keywords.Shared {
		r.Shared = append(r.Shared, report.Shared{Word: s.Word, WeightA: s.WeightA, WeightB: s.WeightB})
	}
	if r.OnlyA == nil {
		r.OnlyA = []tfidf.Keyword{}
	}
	if r.OnlyB == nil {
		r.OnlyB = []tfidf.Keyword{}
	}
	return r
}
