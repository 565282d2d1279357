package report

import (
	"fmt"
	"io"

	"github.com/neardup/neardup/internal/progress"
)

// AddSummary is what neardup add did to an archive: its JSON is the
// object of add --json, WriteText writes the text.
type AddSummary struct {
	Index string `json:"index"` // the archive's name
	Added int64  `json:"added"`
	// Replaced counts the documents added that replaced one with the
	// same id: Added less the archive's growth, for a run that was its
	// only writer.
	Replaced int64 `json:"replaced"`
	Failed   int64 `json:"failed"` // records not added
	Docs     int64 `json:"docs"`   // documents in the archive after the run
}

// WriteText writes s as a line for people.
func (s *AddSummary) WriteText(w io.Writer) error {
	msg := fmt.Sprintf("added %s to %s", progress.Plural(s.Added, "document", "documents"), s.Index)
	if s.Replaced > 0 {
		msg += fmt.Sprintf(" (%s replaced a document with the same id)", progress.Count(s.Replaced))
	}
	_, err := fmt.Fprintf(w, "%s; the index holds %s\n", msg, progress.Plural(s.Docs, "document", "documents"))
	return err
}
