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
	Title   string // the original's title; for URLs (urldedup.AddCluster), the kept URL as given
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
// best. Feed it every Outcome of Run (or urldedup.Outcome, through
// urldedup.AddCluster), in order; it needs nothing from the archive, since each match carries the
// job and position that added its document.
type Clusters struct {
	job string
	m   map[string]*Cluster
}

// NewClusters returns an empty grouping for a run of job (Options.Job or
// urldedup.Options.Job).
func NewClusters(job string) *Clusters {
	return &Clusters{job: job, m: make(map[string]*Cluster)}
}

// Add notes o if it is a duplicate.
func (c *Clusters) Add(o *Outcome) {
	if o.Verdict == Duplicate {
		c.AddMatch(o.Seq, o.Record.ID, &o.Matches[0])
	}
}

// AddMatch notes the duplicate id at position seq, whose best match is
// m (urldedup.AddCluster notes URLs through it).
// A cluster first seen through a member (m.Original set) has an
// original from an earlier run: a member of this run would have made
// it known.
func (c *Clusters) AddMatch(seq int64, id string, m *index.Match) {
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
	HashInputs(h, inputs)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// HashInputs writes inputs to h, for a job's name (JobID,
// urldedup.JobID): each file's absolute path, size and modification
// time, standard input as this process and moment.
func HashInputs(h io.Writer, inputs []string) {
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
