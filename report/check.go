package report

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/progress"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// Verdicts of a Check.
const (
	CheckNew       = "new"       // no near-duplicate archived
	CheckDuplicate = "duplicate" // near-duplicates archived (Matches)
	CheckArchived  = "archived"  // no near-duplicate, but the archive holds this very text under its id
	CheckTooShort  = "too short" // no fingerprint (TooShort says why)
)

// Check is one checked article as neardup check --json prints it
// and the HTTP service's POST /v1/check answers it.
type Check struct {
	ID string `json:"id,omitempty"`
	// Title, Source and Line locate an article read from a file (neardup
	// check); the service leaves them empty.
	Title       string `json:"title,omitempty"`
	Source      string `json:"source,omitempty"`
	Line        int    `json:"line,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	TooShort    string `json:"too_short,omitempty"` // why the text has no fingerprint
	Verdict     string `json:"verdict,omitempty"`   // CheckNew, CheckDuplicate, CheckArchived or CheckTooShort; empty with Error
	// Matches is never nil.
	Matches []Match `json:"matches"`
	// Archived says what the archive holds under the article's own id:
	// "same" (this very text), "different" or "" (nothing).
	Archived string `json:"archived,omitempty"`
	Added    bool   `json:"added"`
	// Error says why the article was not checked (neardup check).
	Error string `json:"error,omitempty"`
	// Lean says that the archive is lean (index.Stats.Lean): its
	// matches have no title and no keywords to share.
	Lean bool `json:"lean,omitempty"`
}

// Match is a near-duplicate in a Check.
type Match struct {
	ID         string  `json:"id"`
	Title      string  `json:"title"`
	Distance   int     `json:"distance"`
	Similarity float64 `json:"similarity"`
	Content    float64 `json:"content"`
	Exact      bool    `json:"exact"`
	// Unverified: found by its fingerprint alone, its content unknown
	// (an archive loaded from bare fingerprints).
	Unverified bool `json:"unverified,omitempty"`
	// Shared are the keywords the two articles share, heaviest first;
	// never nil.
	Shared []string `json:"shared_keywords"`
	// noKeywords: the archived document has no keywords stored with it.
	noKeywords bool
}

// NewMatch returns the archived document m that an article with
// keywords matched, with the keywords they share.
func NewMatch(m *index.Match, keywords []tfidf.Keyword) Match {
	sk := tfidf.Shared(keywords, m.Keywords)
	shared := make([]string, len(sk))
	for i, k := range sk {
		shared[i] = k.Word
	}
	return Match{ID: m.ID, Title: m.Title, Distance: m.Distance, Similarity: m.Similarity,
		Content: m.Content, Exact: m.Exact, Unverified: m.Unverified, Shared: shared, noKeywords: len(m.Keywords) == 0}
}

// Unchecked returns the report of an article that was not checked
// because of err (a bad record, an unreadable input, a text too short to
// fingerprint), read as rec (nil when no record was read): Error says
// why, and Source and Line are where, from err when it names them.
func Unchecked(rec *input.Record, err error) Check {
	var r Check
	if rec != nil {
		r = Check{ID: rec.ID, Title: rec.Title, Source: rec.Source, Line: rec.Line}
	}
	var re *input.RecordError
	var ie *input.Error
	switch {
	case errors.As(err, &re):
		r.Source, r.Line = re.Source, re.Line
	case errors.As(err, &ie):
		r.Source, r.Line = ie.Source, ie.Line
	}
	r.Matches, r.Error = []Match{}, err.Error()
	return r
}

// WriteText writes r for people: each near-duplicate with its numbers
// and at most n shared keywords (all when n <= 0), what archive (its
// name) holds under the article's id, and whether the article was
// added; or, for an article not checked (Error), why. An article with
// nothing to say writes nothing.
func (r *Check) WriteText(w io.Writer, archive string, n int) error {
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
		case m.noKeywords && r.Lean && !m.Unverified:
			b.WriteString("      (no title or keywords: the archive is lean, as dedup --index makes it; --lean=false makes one that keeps them)\n")
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

// Fingerprint is what CheckFingerprint found, as neardup check
// --fingerprint prints it.
type Fingerprint struct {
	Fingerprint string `json:"fingerprint"`
	// Verified is always false: a bare fingerprint has no content to
	// confirm its matches with.
	Verified bool               `json:"verified"`
	Matches  []FingerprintMatch `json:"matches"` // never nil
	k        int
}

// FingerprintMatch is an archived document within the distance of a
// Fingerprint.
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

// NewFingerprint returns the report of the matches ms of fp at
// distance k (CheckFingerprint's).
func NewFingerprint(fp simhash.Fingerprint, k int, ms []index.Match) Fingerprint {
	r := Fingerprint{Fingerprint: fp.String(), Matches: make([]FingerprintMatch, 0, len(ms)), k: k}
	for _, m := range ms {
		r.Matches = append(r.Matches, FingerprintMatch{ID: m.ID, Title: m.Title, Distance: m.Distance, Similarity: m.Similarity})
	}
	return r
}

// WriteText writes r for people, naming archive.
func (r *Fingerprint) WriteText(w io.Writer, archive string) error {
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
