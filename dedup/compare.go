package dedup

import (
	"fmt"

	"github.com/neardup/neardup"
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
	Exact      bool    // the normalised texts are identical
	Verdict    string  // VerdictExact, VerdictNear or VerdictDifferent
	Why        string  // the verdict's reason, for people
	Keywords   tfidf.Explanation
}

// Compare decides whether b duplicates a as Run and Check would with an
// archive of a alone: exact when the normalised texts are identical,
// near when the content similarity reaches minContent (whatever the
// fingerprint distance: an archive finds such a copy through its sketch
// bands if the distance is over k), different otherwise.
func Compare(a, b *neardup.Analysis, k int, minContent float64) Comparison {
	c := Comparison{
		Distance:   a.Fingerprint.Distance(b.Fingerprint),
		Similarity: a.Fingerprint.Similarity(b.Fingerprint),
		Content:    a.Sketch.Jaccard(b.Sketch),
		Exact:      a.ContentHash == b.ContentHash,
		Verdict:    VerdictDifferent,
		Keywords:   tfidf.Explain(a.Keywords, b.Keywords),
	}
	dist, content := c.Distance, c.Content
	switch {
	case c.Exact:
		c.Content = 1
		c.Verdict, c.Why = VerdictExact, "the normalised texts are identical"
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
