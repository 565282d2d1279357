package dedup

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/progress"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// WriteText writes r for people: each near-duplicate with its numbers
// and at most n shared keywords (all when n <= 0), what archive (its
// name) holds under the article's id, and whether the article was
// added; or, for an article not checked (Error), why. An article with
// nothing to say writes nothing.
func (r *CheckReport) WriteText(w io.Writer, archive string, n int) error {
	var b strings.Builder
	if r.Error != "" {
		msg := r.Error
		if r.Source != "" && !strings.HasPrefix(msg, r.Source) {
			msg = (&input.Record{Source: r.Source, Line: r.Line, ID: r.ID}).Name() + ": " + msg
		}
		_, err := fmt.Fprintf(w, "not checked: %s\n", msg)
		return err
	}
	name := input.QuoteID(r.ID)
	if r.Title != "" {
		name += fmt.Sprintf(" %q", r.Title)
	}
	if len(r.Matches) > 0 {
		fmt.Fprintf(&b, "%s: %s in %s\n", name, plural(len(r.Matches), "near-duplicate", "near-duplicates"), archive)
	}
	for _, m := range r.Matches {
		kind := "near duplicate "
		switch {
		case m.Exact:
			kind = "exact duplicate"
		case m.Unverified:
			kind = "unverified     "
		}
		fmt.Fprintf(&b, "  %s  %s", kind, input.QuoteID(m.ID))
		if m.Title != "" {
			fmt.Fprintf(&b, "  %q", m.Title)
		}
		if m.Unverified {
			fmt.Fprintf(&b, "\n      distance %d, similarity %.3f, unverified (fingerprint only: no text to compare)\n", m.Distance, m.Similarity)
		} else {
			fmt.Fprintf(&b, "\n      distance %d, similarity %.3f, content similarity %.2f\n", m.Distance, m.Similarity, m.Content)
		}
		switch {
		case len(m.Shared) > 0:
			fmt.Fprintf(&b, "      shared keywords: %s\n", wordList(m.Shared, n))
		case m.noKeywords:
			b.WriteString("      (no keywords stored with it)\n")
		}
	}
	switch r.Archived {
	case "same":
		fmt.Fprintf(&b, "%s: %s holds this article already, under its id\n", name, archive)
	case "different":
		fmt.Fprintf(&b, "%s: %s holds another text under this id\n", name, archive)
	}
	if r.Added {
		fmt.Fprintf(&b, "%s: added to %s\n", name, archive)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// FingerprintReport is what CheckFingerprint found, as neardup check
// --fingerprint prints it.
type FingerprintReport struct {
	Fingerprint string `json:"fingerprint"`
	// Verified is always false: a bare fingerprint has no content to
	// confirm its matches with.
	Verified bool               `json:"verified"`
	Matches  []FingerprintMatch `json:"matches"` // never nil
	k        int
}

// FingerprintMatch is an archived document within the distance of a
// FingerprintReport.
type FingerprintMatch struct {
	ID         string  `json:"id"`
	Title      string  `json:"title"`
	Distance   int     `json:"distance"`
	Similarity float64 `json:"similarity"`
}

// CheckSummary counts the articles of a neardup check run: those
// checked (Count), and Unchecked, the bad records and unreadable inputs
// its caller counts.
type CheckSummary struct {
	Checked   int64
	Found     int64 // with near-duplicates archived, or archived themselves
	Archived  int64 // archived themselves, without near-duplicates
	Added     int64
	NotAdded  int64 // asked to be added and not, other than for ErrArchived
	Unchecked int64
}

// Count counts one article checked.
func (s *CheckSummary) Count(c *Checked) {
	s.Checked++
	if len(c.Matches) > 0 || c.Same {
		s.Found++
	}
	if len(c.Matches) == 0 && c.Same {
		s.Archived++
	}
	if c.Added {
		s.Added++
	}
	if c.NotAdded != nil && !errors.Is(c.NotAdded, ErrArchived) {
		s.NotAdded++
	}
}

// WriteText writes the last line of a check of the archive named
// archive: whether any article has near-duplicates there, and what was
// added and not checked.
func (s *CheckSummary) WriteText(w io.Writer, archive string) error {
	var msg string
	switch {
	case s.Found == 0:
		msg = fmt.Sprintf("no near-duplicate in %s (%s checked)", archive, progress.Plural(s.Checked, "article", "articles"))
	case s.Checked == 1 && s.Archived == 1:
		msg = fmt.Sprintf("the article is in %s already", archive)
	case s.Checked == 1:
		msg = fmt.Sprintf("the article has near-duplicates in %s", archive)
	default:
		msg = fmt.Sprintf("%s of %s checked have near-duplicates in %s", progress.Count(s.Found), progress.Plural(s.Checked, "article", "articles"), archive)
	}
	if s.Added > 0 {
		msg += fmt.Sprintf("; added %s", progress.Plural(s.Added, "article", "articles"))
	}
	if s.Unchecked > 0 {
		msg += fmt.Sprintf("; %s not checked", progress.Count(s.Unchecked))
	}
	_, err := fmt.Fprintln(w, msg)
	return err
}

// NewFingerprintReport returns the report of the matches ms of fp at
// distance k (CheckFingerprint's).
func NewFingerprintReport(fp simhash.Fingerprint, k int, ms []index.Match) FingerprintReport {
	r := FingerprintReport{Fingerprint: fp.String(), Matches: make([]FingerprintMatch, 0, len(ms)), k: k}
	for _, m := range ms {
		r.Matches = append(r.Matches, FingerprintMatch{ID: m.ID, Title: m.Title, Distance: m.Distance, Similarity: m.Similarity})
	}
	return r
}

// WriteText writes r for people, naming archive.
func (r *FingerprintReport) WriteText(w io.Writer, archive string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "fingerprint %s: SimHash screen only (no text, so content similarity is not verified)\n", r.Fingerprint)
	for _, m := range r.Matches {
		fmt.Fprintf(&b, "  near fingerprint  %s", input.QuoteID(m.ID))
		if m.Title != "" {
			fmt.Fprintf(&b, "  %q", m.Title)
		}
		fmt.Fprintf(&b, "\n      distance %d, similarity %.3f\n", m.Distance, m.Similarity)
	}
	if len(r.Matches) == 0 {
		fmt.Fprintf(&b, "no fingerprint within %d bits in %s\n", r.k, archive)
	} else {
		fmt.Fprintf(&b, "%s within %d bits in %s\n", plural(len(r.Matches), "fingerprint", "fingerprints"), r.k, archive)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes r for people: both articles, the numbers, the
// verdict and why, and at most n keywords of each list (all when
// n <= 0).
func (r *Report) WriteText(w io.Writer, n int) error {
	var b strings.Builder
	for _, s := range []struct {
		name string
		side *ReportSide
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
	fmt.Fprintf(&b, "%-19s %s: %s\n", "verdict", r.Verdict, r.why)
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

// AnalysisReport is an article's analysis as neardup fingerprint prints
// it: its JSON is a line of --json, WriteText writes the text.
type AnalysisReport struct {
	ID          string          `json:"id"`
	Title       string          `json:"title,omitempty"`
	Fingerprint string          `json:"fingerprint"`
	ContentHash string          `json:"content_hash"` // 16 hex digits
	Analyzer    string          `json:"analyzer"`
	Words       int             `json:"words,omitempty"` // segmenter tokens; not counted in compat mode
	Keywords    []tfidf.Keyword `json:"keywords"`        // never nil
}

// NewAnalysisReport returns the report of the article id, titled title,
// that the analyzer analyzerID analysed as an.
func NewAnalysisReport(id, title, analyzerID string, an *neardup.Analysis) AnalysisReport {
	r := AnalysisReport{ID: id, Title: title, Fingerprint: an.Fingerprint.String(), ContentHash: fmt.Sprintf("%016x", an.ContentHash),
		Analyzer: analyzerID, Words: an.Words, Keywords: an.Keywords}
	if r.Keywords == nil {
		r.Keywords = []tfidf.Keyword{}
	}
	return r
}

// WriteText writes the fingerprint and the quoted id, then, indented, at
// most n keywords with their weights (all when n <= 0):
//
//	8f4c4a1fb7e2b0a3  "2018/reprint"
//	    高考 5.12  考生 3.40  志愿 2.91
func (r *AnalysisReport) WriteText(w io.Writer, n int) error {
	ks := r.Keywords
	if n > 0 && len(ks) > n {
		ks = ks[:n]
	}
	_, err := fmt.Fprintf(w, "%s  %s\n    %s\n", r.Fingerprint, input.QuoteID(r.ID), strings.Join(weighted(ks), "  "))
	return err
}
