package urldedup

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/outfile"
)

// Outputs writes the outcomes of Run, as they arrive, in the formats of
// neardup url dedup's output files: one JSON object a line (the
// command's goldens pin them). URLs are written as given, without
// escaping &, < and >, which are common in them.
//
//	Pairs     a Pair per match of each duplicate
//	Unique    the line of each kept URL, verbatim
//	Rejects   an input.Reject per bad line or unreadable input
//
// A nil writer is not written; Clusters, when set, collects the
// clusters for WriteClusters.
type Outputs struct {
	Pairs, Unique, Rejects io.Writer
	Clusters               *dedup.Clusters
	// NPairs counts the pairs written.
	NPairs int64

	// Made by CreateOutputs: the files, the clusters file and the
	// rejects file's path.
	files       *outfile.Set
	clusters    io.Writer
	rejectsPath string
}

// Files names the output files of a run: "" none, "-" standard output.
type Files struct {
	Pairs, Clusters, Unique, Rejects string
}

// CreateOutputs creates the files f names (each written to a temporary
// file that Commit renames into place, so that an interrupted run leaves
// no half file; "-" goes to stdout) and returns Outputs writing them,
// collecting the clusters of job (see dedup.NewClusters) when f names a
// clusters file. Call Abort when done, to remove what was not
// committed. The unique file holds input lines, so a name ending in
// .parquet is refused.
func CreateOutputs(f Files, stdout io.Writer, job string) (*Outputs, error) {
	if strings.HasSuffix(f.Unique, ".parquet") {
		return nil, fmt.Errorf("%s: the unique file of url dedup holds the kept URLs' lines, not Parquet", f.Unique)
	}
	w := &Outputs{files: outfile.NewSet(stdout)}
	for _, o := range []struct {
		path string
		out  *io.Writer
	}{{f.Pairs, &w.Pairs}, {f.Unique, &w.Unique}, {f.Rejects, &w.Rejects}, {f.Clusters, &w.clusters}} {
		file, err := w.files.Create(o.path)
		if err != nil {
			w.Abort()
			return nil, err
		}
		// A nil *outfile.File must not become a non-nil io.Writer.
		if file != nil {
			*o.out = file
			if o.out == &w.Rejects {
				w.rejectsPath = file.Path()
			}
		}
	}
	if w.clusters != nil {
		w.Clusters = dedup.NewClusters(job)
	}
	return w, nil
}

// RejectsPath is the path of the rejects file CreateOutputs created, or
// "" when there is none.
func (w *Outputs) RejectsPath() string { return w.rejectsPath }

// Commit writes the clusters collected (WriteClusters) to the clusters
// file and renames every file CreateOutputs created into place. It
// returns how many clusters it wrote.
func (w *Outputs) Commit() (clusters int64, err error) {
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

// Abort removes the files CreateOutputs created that were not committed.
func (w *Outputs) Abort() {
	if w.files != nil {
		w.files.Abort()
	}
}

// Pair is a line of url dedup's pairs file: a duplicate URL B of the
// kept URL A, both as given.
type Pair struct {
	A          string  `json:"a"`
	B          string  `json:"b"`
	Distance   int     `json:"distance"`
	Similarity float64 `json:"similarity"` // 1 - Distance/64
	Exact      bool    `json:"exact"`      // equal normalised URLs
}

// Write writes o, an outcome of Run.
func (w *Outputs) Write(o *Outcome) error {
	switch o.Verdict {
	case dedup.Duplicate:
		if w.Clusters != nil {
			AddCluster(w.Clusters, o)
		}
		if w.Pairs == nil {
			return nil
		}
		for _, m := range o.Matches {
			p := Pair{A: m.Title, B: o.URL, Distance: m.Distance, Similarity: 1 - float64(m.Distance)/64, Exact: m.Exact}
			if err := writeJSON(w.Pairs, p); err != nil {
				return err
			}
			w.NPairs++
		}
	case dedup.Unique:
		if w.Unique != nil {
			if _, err := w.Unique.Write(o.Raw); err != nil {
				return err
			}
			_, err := w.Unique.Write([]byte{'\n'})
			return err
		}
	case dedup.Rejected, dedup.InputFailed:
		if w.Rejects != nil {
			return writeJSON(w.Rejects, input.NewReject(&input.Record{}, o.Err))
		}
	}
	return nil
}

// AddCluster notes o in c if it is a duplicate: the cluster's ID is the
// normalised kept URL, its Title the kept URL as given, and the
// member's ID the duplicate as given.
func AddCluster(c *dedup.Clusters, o *Outcome) {
	if o.Verdict == dedup.Duplicate {
		c.AddMatch(o.Seq, o.URL, &o.Matches[0])
	}
}

// WriteClusters writes the clusters of a Run collected in c, in
// c.Sorted's order, one a line: {"id": the kept URL as given, "members":
// [{"id", "distance", "similarity", "exact"}, ...]}. It returns how
// many it wrote.
func WriteClusters(out io.Writer, c *dedup.Clusters) (int64, error) {
	type member struct {
		ID         string  `json:"id"`
		Distance   int     `json:"distance"`
		Similarity float64 `json:"similarity"`
		Exact      bool    `json:"exact"`
	}
	type line struct {
		ID      string   `json:"id"`
		Members []member `json:"members"`
	}
	n := int64(0)
	for _, cl := range c.Sorted() {
		l := line{ID: cl.Title, Members: make([]member, len(cl.Members))}
		for i, m := range cl.Members {
			l.Members[i] = member{ID: m.ID, Distance: m.Distance, Similarity: 1 - float64(m.Distance)/64, Exact: m.Exact}
		}
		if err := writeJSON(out, l); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// writeJSON writes v as one line, without escaping &, < and >.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// JobID names a Run over a store for resuming (Options.Job): a digest
// of the normaliser (urlhash.Options.ID), the distance, the field and
// the inputs (absolute paths, sizes and modification times). Standard
// input is never resumed: its job is unique to the call.
func JobID(normalizerID string, maxDistance int, field string, inputs []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "neardup url dedup job v1\nnormalizer %s\nk %d\nurl-field %q\n", normalizerID, maxDistance, field)
	dedup.HashInputs(h, inputs)
	return "url-" + hex.EncodeToString(h.Sum(nil)[:16])
}
