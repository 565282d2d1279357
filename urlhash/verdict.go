package urlhash

import "math"

// Similarity levels, in percent, from the measurements in the package
// documentation.
const (
	VeryClose   = 95 // distance ≤ 3: cosmetic variants of one page, or close siblings
	Close       = 90 // distance ≤ 6: most URLs one path segment or query parameter apart
	SamePattern = 80 // distance ≤ 12: mostly the same site
)

// MaxDistance returns the largest fingerprint distance at a similarity
// of at least pct percent: floor(64 × (1 − pct/100)), so that
// 1 − d/64 ≥ pct/100. A small tolerance keeps exact values such as
// 87.5 (d = 8) from rounding down.
func MaxDistance(pct float64) int {
	return int(math.Floor(64*(100-pct)/100 + 1e-9))
}

// Verdict names how close c is: the verdict ("same URL", "very close",
// "close", "same pattern" or "different"), the similarity bound it
// stands for ("" for the same URL) and what it means ("" when nothing).
func (c *Comparison) Verdict() (verdict, bound, why string) {
	d := c.Distance
	switch {
	case len(c.Differ) == 0:
		return "same URL", "", "the normalised URLs are equal"
	case d <= MaxDistance(VeryClose):
		return "very close", "≥ 95%", "a cosmetic variant of one page, or a close sibling"
	case d <= MaxDistance(Close):
		return "close", "≥ 90%", "like most URLs one path segment or query parameter apart"
	case d <= MaxDistance(SamePattern):
		return "same pattern", "≥ 80%", "mostly the same site"
	}
	return "different", "< 80%", ""
}
