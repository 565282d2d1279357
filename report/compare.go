package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/progress"
	"github.com/neardup/neardup/tfidf"
)

// Comparison is a comparison of two articles (dedup.Comparison) as
// neardup compare --json and the HTTP service's POST /v1/compare print
// it.
type Comparison struct {
	A           Side            `json:"a"`
	B           Side            `json:"b"`
	Analyzer    string          `json:"analyzer"`
	Distance    int             `json:"distance"`
	Similarity  float64         `json:"similarity"`
	Content     float64         `json:"content"`
	Exact       bool            `json:"exact"`
	MaxDistance int             `json:"max_distance"`
	MinContent  float64         `json:"min_content"`
	Verdict     string          `json:"verdict"`
	Shared      []Shared        `json:"shared"`
	OnlyA       []tfidf.Keyword `json:"only_a"`
	OnlyB       []tfidf.Keyword `json:"only_b"`
	// Why says why the verdict (dedup.Comparison.Why): WriteText
	// writes it, the JSON leaves it out.
	Why string `json:"-"`
}

// Side is one article of a Comparison.
type Side struct {
	ID          string `json:"id"`
	Title       string `json:"title,omitempty"`
	Source      string `json:"source"`
	Fingerprint string `json:"fingerprint"`
	ContentHash string `json:"content_hash"`
	Keywords    int    `json:"keywords"`
}

// Shared is a keyword both articles have, with its weight in each.
type Shared struct {
	Word    string  `json:"word"`
	WeightA float64 `json:"weight_a"`
	WeightB float64 `json:"weight_b"`
}

// SideOf describes the article id, titled title, read from source, that
// an is the analysis of.
func SideOf(id, title, source string, an *neardup.Analysis) Side {
	return Side{ID: id, Title: title, Source: source, Fingerprint: an.Fingerprint.String(),
		ContentHash: fmt.Sprintf("%016x", an.ContentHash), Keywords: len(an.Keywords)}
}

// WriteText writes r for people: both articles, the numbers, the
// verdict and why, and at most n keywords of each list (all when
// n <= 0).
func (r *Comparison) WriteText(w io.Writer, n int) error {
	var b strings.Builder
	for _, s := range []struct {
		name string
		side *Side
	}{{"A", &r.A}, {"B", &r.B}} {
		fmt.Fprintf(&b, "%-19s %s  %s (%d keywords)", s.name, s.side.Fingerprint, input.QuoteID(s.side.ID), s.side.Keywords)
		if s.side.Title != "" {
			fmt.Fprintf(&b, "  %q", s.side.Title)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%-19s %d of 64 bits\n", "distance", r.Distance)
	fmt.Fprintf(&b, "%-19s %.3f\n", "similarity", r.Similarity)
	fmt.Fprintf(&b, "%-19s %.3f (estimated Jaccard of character 5-grams)\n", "content similarity", r.Content)
	fmt.Fprintf(&b, "%-19s %s: %s\n", "verdict", r.Verdict, r.Why)
	shared := make([]string, len(r.Shared))
	for i, s := range r.Shared {
		shared[i] = fmt.Sprintf("%s %.2f/%.2f", s.Word, s.WeightA, s.WeightB)
	}
	for _, l := range []struct {
		label string
		words []string
	}{{"shared keywords", shared}, {"only in A", weighted(r.OnlyA)}, {"only in B", weighted(r.OnlyB)}} {
		if len(l.words) == 0 {
			fmt.Fprintf(&b, "%-19s 0\n", l.label)
		} else {
			fmt.Fprintf(&b, "%-19s %d: %s\n", l.label, len(l.words), wordList(l.words, n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// weighted formats keywords as "word 1.23".
func weighted(ks []tfidf.Keyword) []string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = fmt.Sprintf("%s %.2f", k.Word, k.Weight)
	}
	return s
}

// wordList formats words as "a, b, c" (at most n, then "… (N more)";
// all when n <= 0).
func wordList(words []string, n int) string {
	more := 0
	if n > 0 && len(words) > n {
		more = len(words) - n
		words = words[:n]
	}
	s := strings.Join(words, ", ")
	if more > 0 {
		s += fmt.Sprintf(", … (%d more)", more)
	}
	return s
}

// plural returns "1 article" or "2 articles".
func plural(n int, one, many string) string {
	return progress.Plural(int64(n), one, many)
}
