package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/internal/outfile"
	prog "github.com/neardup/neardup/internal/progress"
	"github.com/neardup/neardup/tfidf"
)

// keywordText formats keywords as "word 1.23  word 0.98" (at most n; all
// when n <= 0).
func keywordText(ks []tfidf.Keyword, n int) string {
	if n > 0 && len(ks) > n {
		ks = ks[:n]
	}
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString("  ")
		}
		fmt.Fprintf(&b, "%s %.2f", k.Word, k.Weight)
	}
	return b.String()
}

// hex16 formats a 64-bit hash as 16 hex digits.
func hex16(h uint64) string { return fmt.Sprintf("%016x", h) }

// keywordsJSON never encodes as null.
func keywordsJSON(ks []tfidf.Keyword) []tfidf.Keyword {
	if ks == nil {
		return []tfidf.Keyword{}
	}
	return ks
}

// writeJSON writes v as one line.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// outFile is an output file (see package outfile).
type outFile = outfile.File

func formatCount(n int64) string { return prog.Count(n) }
func formatBytes(n int64) string { return prog.Bytes(n) }

// plural returns "1 article" or "2 articles".
func plural(n int64, one, many string) string { return prog.Plural(n, one, many) }

// outputs are the result files of one run (an outfile.Set), named by
// the flags of c.
type outputs struct {
	c       *cli.Context
	set     *outfile.Set
	rejects *outFile // openAll's --rejects file
}

// open creates the output named by flag, or returns nil when the flag is
// empty.
func (o *outputs) open(flag string) (*outFile, error) { return o.create(o.c.String(flag)) }

func (o *outputs) create(path string) (*outFile, error) {
	if o.set == nil {
		o.set = outfile.NewSet(o.c.App.Writer)
	}
	return o.set.Create(path)
}

func (o *outputs) commit() error {
	if o.set == nil {
		return nil
	}
	return o.set.Commit()
}

func (o *outputs) abort() {
	if o.set != nil {
		o.set.Abort()
	}
}

// openAll opens the files of the --pairs, --unique and --rejects flags
// as the writers of d (none for a flag not given; with stdoutPairs the
// pairs go to standard output) and returns the file of --clusters,
// giving d the Clusters of job when it is set.
func (o *outputs) openAll(d *dedup.Outputs, job string, stdoutPairs bool) (clusters *outFile, err error) {
	pairs := o.c.String("pairs")
	if stdoutPairs {
		pairs = "-"
	}
	var files [4]*outFile
	for i, path := range []string{pairs, o.c.String("unique"), o.c.String("rejects"), o.c.String("clusters")} {
		if files[i], err = o.create(path); err != nil {
			return nil, err
		}
	}
	// A nil *outFile must not become a non-nil io.Writer.
	for i, w := range []*io.Writer{&d.Pairs, &d.Unique, &d.Rejects} {
		if files[i] != nil {
			*w = files[i]
		}
	}
	o.rejects, clusters = files[2], files[3]
	if clusters != nil {
		d.Clusters = dedup.NewClusters(job)
	}
	return clusters, nil
}
