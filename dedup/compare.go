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

// Report is a Comparison as neardup compare --json and the HTTP
// service's POST /v1/compare print it.
type Report struct {
	A           ReportSide      `json:"a"`
	B           ReportSide      `json:"b"`
	Analyzer    string          `json:"analyzer"`
	Distance    int             `json:"distance"`
	Similarity  float64         `json:"similarity"`
	Content     float64         `json:"content"`
	Exact       bool            `json:"exact"`
	MaxDistance int             `json:"max_distance"`
	MinContent  float64         `json:"min_content"`
	Verdict     string          `json:"verdict"`
	Shared      []ReportShared  `json:"shared"`
	OnlyA       []tfidf.Keyword `json:"only_a"`
	OnlyB       []tfidf.Keyword `json:"only_b"`
	why         string          // Comparison.Why, for WriteText
}

// ReportSide is one article of a Report.
type ReportSide struct {
	ID          string `json:"id"`
	Title       string `json:"title,omitempty"`
	Source      string `json:"source"`
	Fingerprint string `json:"fingerprint"`
	ContentHash string `json:"content_hash"`
	Keywords    int    `json:"keywords"`
}

// ReportShared is a keyword both articles have, with its weight in each.
type ReportShared struct {
	Word    string  `json:"word"`
	WeightA float64 `json:"weight_a"`
	WeightB float64 `json:"weight_b"`
}

// Side describes the article id, titled title, read from source, that
// an is the analysis of.
func Side(id, title, source string, an *neardup.Analysis) ReportSide {
	return ReportSide{ID: id, Title: title, Source: source, Fingerprint: an.Fingerprint.String(),
		ContentHash: fmt.Sprintf("%016x", an.ContentHash), Keywords: len(an.Keywords)}
}

// Report returns c's report, for the articles a and b compared by the
// analyzer analyzer at distance k and content similarity minContent
// (Compare's arguments). Its lists are empty, never nil.
func (c *Comparison) Report(a, b ReportSide, analyzer string, k int, minContent float64) Report {
	r := Report{
		A: a, B: b, Analyzer: analyzer, Distance: c.Distance, Similarity: c.Similarity, Content: c.Content, Exact: c.Exact,
		MaxDistance: k, MinContent: minContent, Verdict: c.Verdict, why: c.Why,
		Shared: make([]ReportShared, 0, len(c.Keywords.Shared)), OnlyA: c.Keywords.OnlyA, OnlyB: c.Keywords.OnlyB,
	}
	for _, s := range c.Keywords.Shared {
		r.Shared = append(r.Shared, ReportShared{Word: s.Word, WeightA: s.WeightA, WeightB: s.WeightB})
	}
	if r.OnlyA == nil {
		r.OnlyA = []tfidf.Keyword{}
	}
	if r.OnlyB == nil {
		r.OnlyB = []tfidf.Keyword{}
	}
	return r
}
