package dedup

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
)

// Cluster is an original and the duplicates whose best match it is.
type Cluster struct {
	ID      string
	Title   string // the original's title; for URLs (AddURL), the kept URL as given
	ThisRun bool   // the original is a record of this run (or of an interrupted run of its job)
	Seq     int64  // ThisRun: the original's position; else its first duplicate's
	Members []Member
}

// Member is a duplicate in a cluster.
type Member struct {
	ID string
	// Via is the member it matched when that is not the cluster's
	// original (a copy of a copy); Distance, Exact and Content are of
	// that match.
	Via        string
	Seq        int64 // its position among the records read
	Distance   int
	Exact      bool
	Similarity float64
	Content    float64
}

// Clusters groups the duplicates of a run by the original each matched
// best. Feed it every Outcome of Run (or URLOutcome of RunURLs), in
// order; it needs nothing from the archive, since each match carries the
// job and position that added its document.
type Clusters struct {
	job string
	m   map[string]*Cluster
}

// NewClusters returns an empty grouping for a run of job (Options.Job or
// URLOptions.Job).
func NewClusters(job string) *Clusters {
	return &Clusters{job: job, m: make(map[string]*Cluster)}
}

// Add notes o if it is a duplicate.
func (c *Clusters) Add(o *Outcome) {
	if o.Verdict == Duplicate {
		c.add(o.Seq, o.Record.ID, &o.Matches[0])
	}
}

// AddURL notes o, an outcome of RunURLs, if it is a duplicate: the
// cluster's ID is the normalised kept URL, its Title the kept URL as
// given, and the member's ID the duplicate as given.
func (c *Clusters) AddURL(o *URLOutcome) {
	if o.Verdict == Duplicate {
		c.add(o.Seq, o.URL, &o.Matches[0])
	}
}

// add notes the duplicate id at position seq, whose best match is m.
// A cluster first seen through a member (m.Original set) has an
// original from an earlier run: a member of this run would have made
// it known.
func (c *Clusters) add(seq int64, id string, m *index.Match) {
	key := ClusterOf(m)
	cl := c.m[key]
	if cl == nil {
		cl = &Cluster{ID: key, Seq: seq}
		if m.Original == "" {
			cl.Title = m.Title
			if m.Job == c.job {
				cl.ThisRun, cl.Seq = true, m.Seq
			}
		}
		c.m[key] = cl
	}
	mem := Member{ID: id, Seq: seq, Distance: m.Distance, Exact: m.Exact, Similarity: m.Similarity, Content: m.Content}
	if m.Original != "" {
		mem.Via = m.ID
	}
	cl.Members = append(cl.Members, mem)
}

// Sorted returns the clusters: first those of originals stored by
// earlier runs, in the order their first duplicates appeared, then
// those of this run's originals, in the order the originals appeared.
func (c *Clusters) Sorted() []*Cluster {
	cls := make([]*Cluster, 0, len(c.m))
	for _, cl := range c.m {
		cls = append(cls, cl)
	}
	sort.Slice(cls, func(i, j int) bool {
		a, b := cls[i], cls[j]
		if a.ThisRun != b.ThisRun {
			return !a.ThisRun
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return a.ID < b.ID
	})
	return cls
}

// JobID names a run over a persistent archive for resuming
// (Options.Job): a digest of the analyzer, the inputs (absolute paths,
// sizes and modification times) and every setting that changes the
// outcome. A grown or rewritten input is another job, whose records the
// archive holds already are reported as archived rather than as a
// resumed run; standard input is never resumed (its job is unique to the
// call).
func JobID(analyzerID string, inputs []string, o *input.Options, k int, minContent float64) string {
	h := sha256.New()
	fmt.Fprintf(h, "neardup dedup job v2\nanalyzer %s\nk %d\nmin-content %v\n", analyzerID, k, minContent)
	fmt.Fprintf(h, "fields %q %q %q\nformat %q\nencoding %q\nhtml %t\nmax-bytes %d\nmax-line %d\n",
		o.IDField, o.TextField, o.TitleField, o.Format, o.Encoding, o.HTML, o.MaxBytes, o.MaxLine)
	writeInputs(h, inputs)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// writeInputs writes inputs to h: each file's absolute path, size and
// modification time, standard input as this process and moment.
func writeInputs(h io.Writer, inputs []string) {
	for _, in := range inputs {
		if in == "-" {
			fmt.Fprintf(h, "stdin %d %d\n", os.Getpid(), time.Now().UnixNano())
			continue
		}
		if abs, err := filepath.Abs(in); err == nil {
			in = abs
		}
		fmt.Fprintf(h, "input %q", in)
		if fi, err := os.Stat(in); err == nil {
			fmt.Fprintf(h, " %d %d", fi.Size(), fi.ModTime().UnixNano())
		}
		h.Write([]byte{'\n'})
	}
}

// URLJobID names a RunURLs run over a store for resuming
// (URLOptions.Job): a digest of the normaliser (urlhash.Options.ID), the
// distance, the field and the inputs (absolute paths, sizes and
// modification times). Standard input is never resumed: its job is
// unique to the call.
func URLJobID(normalizerID string, maxDistance int, field string, inputs []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "neardup url dedup job v1\nnormalizer %s\nk %d\nurl-field %q\n", normalizerID, maxDistance, field)
	writeInputs(h, inputs)
	return "url-" + hex.EncodeToString(h.Sum(nil)[:16])
}
