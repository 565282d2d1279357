package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/urldedup"
	"github.com/neardup/neardup/urlhash"
)

// catNormalise is the help category of the URL normalisation flags.
const catNormalise = "Normalisation"

// urlBatch is how many kept URLs url dedup --index writes per
// transaction.
const urlBatch = 1000

// maxURLLine is the longest input line url dedup reads; longer lines
// are rejected.
const maxURLLine = 16 << 20

// urlCommand is "neardup url A B" and "neardup url dedup".
func urlCommand() *cli.Command {
	return &cli.Command{
		Name:        "url",
		Usage:       "compare two URLs, or find near-duplicate URLs in a list (url dedup)",
		ArgsUsage:   "A B",
		Description: description("url"),
		Flags:       flags(urlNormFlags(), []cli.Flag{jsonFlag()}),
		Action:      runURLCompare,
		Subcommands: []*cli.Command{urlDedupCommand()},
	}
}

func urlDedupCommand() *cli.Command {
	return &cli.Command{
		Name:        "dedup",
		Usage:       "find the near-duplicate URLs in a list",
		ArgsUsage:   "[INPUT...]",
		Description: description("url-dedup"),
		Flags: flags([]cli.Flag{
			&cli.Float64Flag{Name: "min-similarity", Aliases: []string{"m"}, Value: urlhash.Close, Category: catMatch,
				Usage: "duplicates are at least `P` percent similar (95 very close, 90 close, 80 same pattern; see above)"},
			&cli.StringFlag{Name: "url-field", Category: catInput,
				Usage: "the lines are JSON objects with the URL in field `NAME`; of Parquet input, the URL column (default url)"},
			&cli.StringFlag{Name: "pairs", Category: catOutput, TakesFile: true, Usage: "write (kept, duplicate) pairs to `FILE`"},
			&cli.StringFlag{Name: "clusters", Category: catOutput, TakesFile: true, Usage: "write clusters to `FILE`"},
			&cli.StringFlag{Name: "unique", Category: catOutput, TakesFile: true, Usage: "write the lines of the kept URLs to `FILE`"},
			&cli.StringFlag{Name: "rejects", Category: catOutput, TakesFile: true, Usage: "write bad lines to `FILE`"},
			&cli.StringFlag{Name: "index", Aliases: []string{"i"}, Category: catIndex, TakesFile: true,
				Usage: "also keep the URLs in the persistent URL index `DIR` and compare with those stored there (NEARDUP_INDEX is not used)"},
			&cli.BoolFlag{Name: "json", Category: catOutput, Usage: "also print the summary on standard output, as a JSON object"},
		}, urlNormFlags()),
		Action: runURLDedup,
	}
}

// urlNormFlags map onto urlhash.Options.
func urlNormFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "drop-param", Category: catNormalise,
			Usage: "also remove the query parameter `NAME` (case-insensitive; NAME* is a prefix; repeat the flag or separate with commas)"},
		&cli.BoolFlag{DisableDefaultText: true, Name: "keep-tracking", Category: catNormalise,
			Usage: "keep the tracking parameters, otherwise removed: " + strings.Join(urlhash.TrackingParams(), " ")},
		&cli.BoolFlag{DisableDefaultText: true, Name: "keep-www", Category: catNormalise,
			Usage: `keep a leading "www." of the host, otherwise removed (www.example.com is example.com)`},
		&cli.BoolFlag{DisableDefaultText: true, Name: "keep-index", Category: catNormalise,
			Usage: "keep a last path segment naming an index page, otherwise removed (/a/index.html is /a/): " + strings.Join(urlhash.IndexPages(), " ")},
	}
}

// urlOptions reads the normalisation flags.
func urlOptions(c *cli.Context) *urlhash.Options {
	return &urlhash.Options{
		DropParams:   c.StringSlice("drop-param"),
		KeepTracking: c.Bool("keep-tracking"),
		KeepWWW:      c.Bool("keep-www"),
		KeepIndex:    c.Bool("keep-index"),
	}
}

func runURLCompare(c *cli.Context) error {
	if c.NArg() != 2 {
		for _, a := range c.Args().Slice() {
			if len(a) > 1 && a[0] == '-' {
				return usagef(c, "want two URLs A B, got %d arguments (give the flags before the URLs: neardup url %s A B)", c.NArg(), a)
			}
		}
		return usagef(c, "want two URLs A B, got %d arguments (or 'neardup url dedup' for a list)", c.NArg())
	}
	opts := urlOptions(c)
	a, b := c.Args().Get(0), c.Args().Get(1)
	cmp, err := urlhash.Compare(a, b, opts)
	if err != nil {
		return err
	}
	r := cmp.Report(a, b, opts)
	if c.Bool("json") {
		return writeURLJSON(c.App.Writer, r)
	}
	return r.WriteText(c.App.Writer)
}

// writeURLJSON writes v as one line, without escaping &, < and >, which
// are common in URLs.
func writeURLJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func runURLDedup(c *cli.Context) (err error) {
	pct := c.Float64("min-similarity")
	if !(pct >= 50 && pct <= 100) {
		hint := ""
		if pct > 0 && pct <= 1 {
			hint = fmt.Sprintf(" (it is in percent: %g for %g%%?)", 100*pct, 100*pct)
		}
		return usagef(c, "--min-similarity %g: want a percentage from 50 to 100%s", pct, hint)
	}
	norm := urlOptions(c)
	inputs := inputArgs(c)
	if n := countStdin(inputs); n > 1 {
		return usagef(c, "standard input (-) given %d times", n)
	}
	opts := &urldedup.Options{MaxDistance: urlhash.MaxDistance(pct), Normalize: norm, Field: c.String("url-field"), MaxLine: maxURLLine,
		Memory: func() index.Store { return memstore.New() }}
	var store *index.Index
	if dir := c.String("index"); dir != "" {
		if store, err = openURLIndex(c.Context, dir, norm, opts.MaxDistance); err != nil {
			return err
		}
		defer func() {
			if cerr := store.Close(); err == nil {
				err = cerr
			}
		}()
		opts.StoreName, opts.Batch = archive.Redact(dir), urlBatch
		opts.Job = urldedup.JobID(norm.ID(), opts.MaxDistance, opts.Field, inputs)
	}
	files := urldedup.Files{Pairs: c.String("pairs"), Clusters: c.String("clusters"), Unique: c.String("unique"), Rejects: c.String("rejects")}
	if files.Pairs == "" && files.Clusters == "" && files.Unique == "" {
		files.Pairs = "-"
	}
	outs, err := urldedup.CreateOutputs(files, c.App.Writer, opts.Job)
	if err != nil {
		return err
	}
	defer outs.Abort()
	ew := c.App.ErrWriter
	var rejected int
	sum, err := urldedup.Run(c.Context, inputs, c.App.Reader, store, opts, func(o *urldedup.Outcome) error {
		noteBadLine(ew, o, &rejected)
		return outs.Write(o)
	})
	if err != nil {
		return err
	}
	if sum.Clusters, err = outs.Commit(); err != nil {
		return err
	}
	sum.Pairs, sum.MinSimilarity = outs.NPairs, pct
	if err := sum.WriteText(ew, "neardup url dedup: "); err != nil {
		return err
	}
	badEnd(ew, "neardup url dedup: ", "line", sum.Rejected+sum.InputErrors, outs.RejectsPath(), sum.Rejected)
	if c.Bool("json") {
		if err := writeURLJSON(c.App.Writer, sum); err != nil {
			return err
		}
	}
	if sum.InputErrors > 0 {
		return &exitStatus{code: exitError, err: fmt.Errorf("%s could not be read to the end; the outputs cover the lines read",
			plural(sum.InputErrors, "input", "inputs"))}
	}
	return nil
}

// noteBadLine shows a failed input, and the first maxShown rejected
// lines, on ew.
func noteBadLine(ew io.Writer, o *urldedup.Outcome, rejected *int) {
	var r input.Reject
	if o.Err != nil {
		r = input.NewReject(&input.Record{}, o.Err)
	}
	switch {
	case o.Verdict == dedup.Rejected:
		if *rejected++; *rejected <= maxShown {
			fmt.Fprintf(ew, "neardup url dedup: %s:%d: %s\n", r.Source, r.Line, r.Reason)
		}
	case o.Verdict == dedup.InputFailed && r.Line > 0 && !hasPos(o.Err):
		fmt.Fprintf(ew, "neardup url dedup: input error: %s:%d: %s\n", r.Source, r.Line, r.Reason)
	case o.Verdict == dedup.InputFailed:
		fmt.Fprintf(ew, "neardup url dedup: input error: %s: %s\n", r.Source, r.Reason)
	}
}

// hasPos reports whether err, an input error, names its place in a
// Parquet or WARC file ("record 7 (byte 5296)"), which its reason then
// says, rather than a line.
func hasPos(err error) bool {
	var ie *input.Error
	return errors.As(err, &ie) && ie.Pos != ""
}

func countStdin(inputs []string) int {
	n := 0
	for _, in := range inputs {
		if in == "-" {
			n++
		}
	}
	return n
}

// openURLIndex opens or creates the URL index in dir for distance k,
// explaining the errors a user can act on.
func openURLIndex(ctx context.Context, dir string, norm *urlhash.Options, k int) (*index.Index, error) {
	if k > index.MaxLayoutDistance {
		return nil, fmt.Errorf("--index %s: an index answers distances up to %d (--min-similarity above 84.375), not %d; use a higher --min-similarity or no --index",
			archive.Redact(dir), index.MaxLayoutDistance, k)
	}
	x, err := archive.Open(ctx, dir, &archive.Options{AnalyzerID: norm.ID(), Distance: k})
	var me *archive.MismatchError
	var de *index.DistanceError
	switch {
	case errors.As(err, &me) && strings.HasPrefix(me.Stored, urlhash.IDPrefix[:len("urlhash/")]):
		return nil, fmt.Errorf("index %s holds URL fingerprints made by %s, not %s (these normalisation flags): use the --drop-param and --keep-* flags it was created with, or another index: %w",
			archive.Redact(dir), me.Stored, norm.ID(), index.ErrMismatch)
	case errors.As(err, &me):
		return nil, fmt.Errorf("index %s holds article fingerprints (analyzer %q), not URL fingerprints (%s): URL and article fingerprints cannot share an index; give url dedup an index of its own: %w",
			archive.Redact(dir), me.Stored, norm.ID(), index.ErrMismatch)
	case errors.As(err, &de):
		return nil, fmt.Errorf("index %s answers distances up to %d (similarity ≥ %s), not %d (--min-similarity): its layout is fixed when it is created; create a new index for this --min-similarity",
			archive.Redact(dir), de.Max, urlhash.Percent(1-float64(de.Max)/64), k)
	}
	return x, err
}
