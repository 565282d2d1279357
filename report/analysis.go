package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/tfidf"
)

// Analysis is an article's analysis as neardup fingerprint prints
// it: its JSON is a line of --json, WriteText writes the text.
type Analysis struct {
	ID          string          `json:"id"`
	Title       string          `json:"title,omitempty"`
	Fingerprint string          `json:"fingerprint"`
	ContentHash string          `json:"content_hash"` // 16 hex digits
	Analyzer    string          `json:"analyzer"`
	Words       int             `json:"words,omitempty"` // segmenter tokens; not counted in compat mode
	Keywords    []tfidf.Keyword `json:"keywords"`        // never nil
}

// NewAnalysis returns the report of the article id, titled title,
// that the analyzer analyzerID analysed as an.
func NewAnalysis(id, title, analyzerID string, an *neardup.Analysis) Analysis {
	r := Analysis{ID: id, Title: title, Fingerprint: an.Fingerprint.String(), ContentHash: fmt.Sprintf("%016x", an.ContentHash),
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
func (r *Analysis) WriteText(w io.Writer, n int) error {
	ks := r.Keywords
	if n > 0 && len(ks) > n {
		ks = ks[:n]
	}
	_, err := fmt.Fprintf(w, "%s  %s\n    %s\n", r.Fingerprint, input.QuoteID(r.ID), strings.Join(weighted(ks), "  "))
	return err
}
