package dedup

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/outfile"
)

// Outputs writes the outcomes of Run, as they arrive, in the formats of
// neardup dedup's output files: one JSON object a line (the command's
// goldens pin them; urldedup.Outputs writes url dedup's).
//
//	Pairs     a Pair per match of each duplicate
//	Unique    the input line of each record that is not a duplicate
//	          (originals, and those too short to fingerprint), verbatim;
//	          a whole-file article as a UniqueArticle
//	Rejects   an input.Reject per bad record or unreadable input
//
// A nil writer is not written; Clusters, when set, collects the
// clusters for WriteClusters.
type Outputs struct {
	Pairs, Unique, Rejects io.Writer
	Clusters               *Clusters
	// NPairs counts the pairs written.
	NPairs int64

	// Made by CreateOutputs for an annotate file (Files.Annotate), and
	// for a unique or annotate file named *.parquet: Parquet rows.
	annotate     io.Writer
	annotateRows *parquetOut
	uniqueRows   *parquetOut
	// Set by SetKeep for a policy other than first: the plan, and a
	// reader of the inputs again.
	plan   *keepPlan
	reread func() *input.Reader

	// Made by CreateOutputs: the files, the clusters file and the
	// rejects file's path.
	files       *outfile.Set
	clusters    io.Writer
	rejectsPath string
	job         string
}

// Files names the output files of a run: "" none, "-" standard output.
// Annotate is every record with neardup's Annotation (JSONL; Parquet
// when its name ends in .parquet); a Unique file named *.parquet is
// Parquet too: the columns of Parquet inputs read with
// input.Options.ParquetRows (see ParquetRows), else id, title and text.
type Files struct {
	Pairs, Clusters, Unique, Rejects, Annotate string
}

// ParquetRows reports whether f names a Parquet unique or annotate
// file, which keeps the columns of Parquet inputs when their records
// carry their rows: read them with input.Options.ParquetRows set to it.
func (f Files) ParquetRows() bool {
	return strings.HasSuffix(f.Unique, ".parquet") || strings.HasSuffix(f.Annotate, ".parquet")
}

// CreateOutputs creates the files f names (each written to a temporary
// file that Commit renames into place, so that an interrupted run leaves
// no half file; "-" goes to stdout) and returns Outputs writing them,
// collecting the clusters of job (see NewClusters) when f names a
// clusters file. Call Abort when done, to remove what was not committed.
func CreateOutputs(f Files, stdout io.Writer, job string) (*Outputs, error) {
	w := &Outputs{files: outfile.NewSet(stdout)}
	var files [5]*outfile.File
	for i, path := range []string{f.Pairs, f.Unique, f.Rejects, f.Clusters, f.Annotate} {
		var err error
		if files[i], err = w.files.Create(path); err != nil {
			w.Abort()
			return nil, err
		}
	}
	// A nil *outfile.File must not become a non-nil io.Writer.
	for i, out := range []*io.Writer{&w.Pairs, &w.Unique, &w.Rejects, &w.clusters, &w.annotate} {
		if files[i] != nil {
			*out = files[i]
		}
	}
	if files[1] != nil && strings.HasSuffix(f.Unique, ".parquet") {
		w.Unique, w.uniqueRows = nil, newParquetOut(files[1], false)
	}
	if files[4] != nil && strings.HasSuffix(f.Annotate, ".parquet") {
		w.annotate, w.annotateRows = nil, newParquetOut(files[4], true)
	}
	if files[2] != nil {
		w.rejectsPath = files[2].Path()
	}
	if files[3] != nil {
		w.Clusters = NewClusters(job)
	}
	w.job = job
	return w, nil
}

// RejectsPath is the path of the rejects file CreateOutputs created, or
// "" when there is none.
func (w *Outputs) RejectsPath() string { return w.rejectsPath }

// Commit writes the clusters collected (WriteClusters) to the clusters
// file and renames every file CreateOutputs created into place. It
// returns how many clusters it wrote.
func (w *Outputs) Commit() (clusters int64, err error) {
	if w.plan != nil {
		if err := w.finish(w.plan); err != nil {
			return 0, err
		}
	}
	if w.uniqueRows != nil {
		if err := w.uniqueRows.Close(); err != nil {
			return 0, err
		}
	}
	if w.annotateRows != nil {
		if err := w.annotateRows.Close(); err != nil {
			return 0, err
		}
	}
	if w.clusters != nil {
		if clusters, err = WriteClusters(w.clusters, w.Clusters); err != nil {
			return clusters, err
		}
	}
	if w.files != nil {
		err = w.files.Commit()
	}
	return clusters, err
}

// SetKeep makes the outputs keep the member of each cluster that policy
// chooses (see KeepPolicy): for a policy other than first, the pairs,
// clusters, unique and annotate files are written when the run ends
// (Commit), the last two from a second read of inputs with opts, in
// input order. Its cost: the run's memory holds 16 bytes a record and
// the clusters; the second read costs what reading the inputs costs
// (no analysis, a small part of a run's time). Standard input cannot be
// read twice: a policy other than first with a unique or annotate file
// and "-" among the inputs is an error.
func (w *Outputs) SetKeep(policy KeepPolicy, inputs []string, opts *input.Options) error {
	if policy.First() {
		return nil
	}
	if w.Unique != nil || w.uniqueRows != nil || w.annotate != nil || w.annotateRows != nil {
		if slices.Contains(inputs, "-") {
			return fmt.Errorf("--keep %s reads the inputs again for --unique and --annotate: standard input cannot be read twice", policy)
		}
	}
	clusters := w.Clusters
	if clusters == nil {
		clusters = NewClusters(w.job)
	}
	w.Clusters = clusters
	w.plan = &keepPlan{policy: policy, clusters: clusters}
	w.reread = func() *input.Reader { return input.NewReader(inputs, nil, opts) }
	return nil
}

// Abort removes the files CreateOutputs created that were not committed.
func (w *Outputs) Abort() {
	if w.files != nil {
		w.files.Abort()
	}
}

// Pair is a line of the pairs file: a duplicate B of the original A.
type Pair struct {
	A string `json:"a"`
	B string `json:"b"`
	// Member is the member of A's cluster that B matched, when it is
	// not A itself (B is a copy of a copy); the other fields are of that
	// match.
	Member     string  `json:"member,omitempty"`
	Distance   int     `json:"distance"`
	Exact      bool    `json:"exact"`
	Similarity float64 `json:"similarity"`
	Content    float64 `json:"content"`
}

// UniqueArticle is a whole-file article (one without an input line) in
// the unique file.
type UniqueArticle struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
}

// Write writes o, an outcome of Run.
func (w *Outputs) Write(o *Outcome) error {
	rec := &o.Record
	if w.plan != nil {
		// Decided when the run ends (Commit): only the rejects now.
		w.plan.note(o)
		if (o.Verdict == Rejected || o.Verdict == InputFailed) && w.Rejects != nil {
			return writeJSON(w.Rejects, input.NewReject(rec, o.Err), true)
		}
		return nil
	}
	if (w.annotate != nil || w.annotateRows != nil) && o.Verdict != InputFailed {
		if err := w.writeAnnotation(rec, o.Err, annotation(o)); err != nil {
			return err
		}
	}
	switch o.Verdict {
	case Duplicate:
		if w.Clusters != nil {
			w.Clusters.Add(o)
		}
		if w.Pairs == nil {
			return nil
		}
		for _, m := range o.Matches {
			p := Pair{A: ClusterOf(&m), B: rec.ID, Distance: m.Distance, Exact: m.Exact, Similarity: m.Similarity, Content: m.Content}
			if m.Original != "" {
				p.Member = m.ID
			}
			if err := writeJSON(w.Pairs, p, true); err != nil {
				return err
			}
			w.NPairs++
		}
	case Unique, TooShort:
		if w.Unique == nil && w.uniqueRows == nil {
			return nil
		}
		return w.writeUnique(rec)
	case Rejected, InputFailed:
		if w.Rejects != nil {
			return writeJSON(w.Rejects, input.NewReject(rec, o.Err), true)
		}
	}
	return nil
}

// WriteClusters writes the clusters of a Run collected in c, in
// c.Sorted's order, one a line: {"id": the original, "members": [{"id",
// "via" (the member it matched, for a copy of a copy), "distance",
// "exact", "content"}, ...]}. It returns how many it wrote.
func WriteClusters(out io.Writer, c *Clusters) (int64, error) {
	type member struct {
		ID       string  `json:"id"`
		Via      string  `json:"via,omitempty"`
		Distance int     `json:"distance"`
		Exact    bool    `json:"exact"`
		Content  float64 `json:"content"`
	}
	type line struct {
		ID      string   `json:"id"`
		Members []member `json:"members"`
	}
	n := int64(0)
	for _, cl := range c.Sorted() {
		l := line{ID: cl.ID, Members: make([]member, len(cl.Members))}
		for i, m := range cl.Members {
			l.Members[i] = member{ID: m.ID, Via: m.Via, Distance: m.Distance, Exact: m.Exact, Content: m.Content}
		}
		if err := writeJSON(out, l, true); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// writeJSON writes v as one line.
func writeJSON(w io.Writer, v any, escapeHTML bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(escapeHTML)
	return enc.Encode(v)
}

// writeLine writes b and a line end.
func writeLine(w io.Writer, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return err
	}
	_, err := w.Write([]byte{'\n'})
	return err
}
