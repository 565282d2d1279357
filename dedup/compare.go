package dedup

import (
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
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
	da, db := a.Doc("a", "", 0), b.Doc("b", "", 0)
	c := Comparison{
		Distance:    a.Fingerprint.Distance(b.Fingerprint),
		Similarity:  a.Fingerprint.Similarity(b.Fingerprint),
		Content:     a.Sketch.Jaccard(b.Sketch),
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
		c.Why = fmt.Sprintf("content similarity %.2f < %.2f, but the shorter text is %.2f contained in the other (≥ %.2f, sizes within %.2f)",
			content, minContent, c.Containment, index.MinContainment, index.MinSizeRatio)
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
