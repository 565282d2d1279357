package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/input"
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
				Usage: "the lines are JSON objects with the URL in field `NAME`"},
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

// urlCompareJSON is url --json.
type urlCompareJSON struct {
	A            string   `json:"a"`
	B            string   `json:"b"`
	InputA       string   `json:"input_a"`
	InputB       string   `json:"input_b"`
	FingerprintA string   `json:"fingerprint_a"`
	FingerprintB string   `json:"fingerprint_b"`
	Distance     int      `json:"distance"`
	Similarity   float64  `json:"similarity"`
	Differ       []string `json:"differ"`
	Same         bool     `json:"same"`
	Verdict      string   `json:"verdict"`
	Normalizer   string   `json:"normalizer"`
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
	verdict, bound, why := cmp.Verdict()
	w := c.App.Writer
	if c.Bool("json") {
		differ := cmp.Differ
		if differ == nil {
			differ = []string{}
		}
		return writeURLJSON(w, urlCompareJSON{
			A: cmp.A.String(), B: cmp.B.String(), InputA: a, InputB: b,
			FingerprintA: cmp.FingerprintA.String(), FingerprintB: cmp.FingerprintB.String(),
			Distance: cmp.Distance, Similarity: cmp.Similarity, Differ: differ, Same: len(cmp.Differ) == 0,
			Verdict: verdict, Normalizer: opts.ID(),
		})
	}
	differ := strings.Join(cmp.Differ, ", ")
	if differ == "" {
		differ = "nothing"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-13s %s\n", "A", cmp.A)
	fmt.Fprintf(&sb, "%-13s %s\n", "B", cmp.B)
	fmt.Fprintf(&sb, "%-13s %s %s\n", "fingerprints", cmp.FingerprintA, cmp.FingerprintB)
	fmt.Fprintf(&sb, "%-13s %d of 64 bits\n", "distance", cmp.Distance)
	fmt.Fprintf(&sb, "%-13s %s\n", "similarity", percent(cmp.Similarity))
	fmt.Fprintf(&sb, "%-13s %s\n", "differ", differ)
	fmt.Fprintf(&sb, "%-13s %s", "verdict", verdict)
	if bound != "" {
		fmt.Fprintf(&sb, " (%s)", bound)
	}
	if why != "" {
		fmt.Fprintf(&sb, ": %s", why)
	}
	sb.WriteByte('\n')
	_, err = io.WriteString(w, sb.String())
	return err
}

// percent formats a similarity as "96.9%".
func percent(s float64) string {
	return strconv.FormatFloat(100*s, 'f', 1, 64) + "%"
}

// writeURLJSON writes v as one line, without escaping &, < and >, which
// are common in URLs.
func writeURLJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// urlSummaryJSON is url dedup's --json summary.
type urlSummaryJSON struct {
	Lines         int64   `json:"lines"`
	URLs          int64   `json:"urls"`
	Unique        int64   `json:"unique"`
	Duplicates    int64   `json:"duplicates"`
	Exact         int64   `json:"exact"`
	Near          int64   `json:"near"`
	Blank         int64   `json:"blank"`
	Rejected      int64   `json:"rejected"`
	InputErrors   int64   `json:"input_errors"`
	Resumed       int64   `json:"resumed"`
	Pairs         int64   `json:"pairs"`
	Clusters      int64   `json:"clusters"`
	MinSimilarity float64 `json:"min_similarity"`
	MaxDistance   int     `json:"max_distance"`
	Search        string  `json:"search"`
	Normalizer    string  `json:"normalizer"`
	Seconds       float64 `json:"seconds"`
}

// maxShownURLRejects is how many bad lines url dedup reports on stderr.
const maxShownURLRejects = 10

// urlWriter writes url dedup's outputs as the outcomes arrive.
type urlWriter struct {
	dedup.Outputs
	ew       io.Writer
	rejects  *outFile // nil unless --rejects
	rejected int64
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
	inputs := c.Args().Slice()
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	if n := countStdin(inputs); n > 1 {
		return usagef(c, "standard input (-) given %d times", n)
	}
	opts := &dedup.URLOptions{MaxDistance: urlhash.MaxDistance(pct), Normalize: norm, Field: c.String("url-field"), MaxLine: maxURLLine}
	var store *index.Index
	indexDesc := ""
	if dir := c.String("index"); dir != "" {
		if store, err = openURLIndex(c.Context, dir, norm, opts.MaxDistance); err != nil {
			return err
		}
		defer func() {
			if cerr := store.Close(); err == nil {
				err = cerr
			}
		}()
		st, err := store.Stats(c.Context)
		if err != nil {
			return err
		}
		indexDesc = fmt.Sprintf(" and index %s (%d blocks, %d tables, %s)", dir, st.Blocks, st.Tables, plural(st.Docs, "URL", "URLs"))
		opts.Job = dedup.URLJobID(norm.ID(), opts.MaxDistance, opts.Field, inputs)
		opts.Batch = urlBatch
	}

	w := &urlWriter{ew: c.App.ErrWriter}
	outs := &outputs{c: c}
	defer outs.abort()
	stdoutPairs := c.String("pairs") == "" && c.String("clusters") == "" && c.String("unique") == ""
	clusters, err := outs.openAll(&w.Outputs, opts.Job, stdoutPairs)
	if err != nil {
		return err
	}
	w.rejects = outs.rejects

	sum, err := dedup.RunURLs(c.Context, inputs, c.App.Reader, store, opts, w.emit)
	if err != nil {
		return err
	}
	var nClusters int64
	if clusters != nil {
		if nClusters, err = dedup.WriteURLClusters(clusters, w.Clusters); err != nil {
			return err
		}
	}
	if err := outs.commit(); err != nil {
		return err
	}
	search := "every kept URL (no block layout covers the distance)"
	if sum.Blocks > 0 {
		search = fmt.Sprintf("in-memory block index (%d blocks, %d tables)", sum.Blocks, sum.Tables)
	}
	j := urlSummaryJSON{Lines: sum.Lines, URLs: sum.URLs, Unique: sum.Unique, Duplicates: sum.Exact + sum.Near, Exact: sum.Exact, Near: sum.Near,
		Blank: sum.Blank, Rejected: sum.Rejected, InputErrors: sum.InputErrors, Resumed: sum.Resumed, Pairs: w.NPairs, Clusters: nClusters,
		MinSimilarity: pct, MaxDistance: opts.MaxDistance, Search: search + indexDesc, Normalizer: norm.ID(), Seconds: sum.Elapsed.Seconds()}
	if err := w.report(c, &j); err != nil {
		return err
	}
	if sum.InputErrors > 0 {
		return &exitStatus{code: exitError, err: fmt.Errorf("%s could not be read to the end; the outputs cover the lines read",
			plural(sum.InputErrors, "input", "inputs"))}
	}
	return nil
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
			dir, index.MaxLayoutDistance, k)
	}
	x, err := archive.Open(ctx, dir, &archive.Options{AnalyzerID: norm.ID(), Distance: k})
	var me *archive.MismatchError
	var de *index.DistanceError
	switch {
	case errors.As(err, &me) && strings.HasPrefix(me.Stored, urlhash.IDPrefix[:len("urlhash/")]):
		return nil, fmt.Errorf("index %s holds URL fingerprints made by %s, not %s (these normalisation flags): use the --drop-param and --keep-* flags it was created with, or another index: %w",
			dir, me.Stored, norm.ID(), index.ErrMismatch)
	case errors.As(err, &me):
		return nil, fmt.Errorf("index %s holds article fingerprints (analyzer %q), not URL fingerprints (%s): URL and article fingerprints cannot share an index; give url dedup an index of its own: %w",
			dir, me.Stored, norm.ID(), index.ErrMismatch)
	case errors.As(err, &de):
		return nil, fmt.Errorf("index %s answers distances up to %d (similarity ≥ %s), not %d (--min-similarity): its layout is fixed when it is created; create a new index for this --min-similarity",
			dir, de.Max, percent(1-float64(de.Max)/64), k)
	}
	return x, err
}

// emit writes one outcome; RunURLs calls it in input order.
func (w *urlWriter) emit(o *dedup.URLOutcome) error {
	switch o.Verdict {
	case dedup.Rejected:
		w.rejected++
		if w.rejected <= maxShownURLRejects {
			j := input.NewReject(&input.Record{}, o.Err)
			fmt.Fprintf(w.ew, "neardup url dedup: %s:%d: %s\n", j.Source, j.Line, j.Reason)
		}
	case dedup.InputFailed:
		j := input.NewReject(&input.Record{}, o.Err)
		where := j.Source
		if j.Line > 0 {
			where += ":" + strconv.Itoa(j.Line)
		}
		fmt.Fprintf(w.ew, "neardup url dedup: input error: %s: %s\n", where, j.Reason)
	}
	return w.WriteURL(o)
}

// report prints the summary: text on stderr, and with --json an object
// on stdout.
func (w *urlWriter) report(c *cli.Context, s *urlSummaryJSON) error {
	ew := c.App.ErrWriter
	fmt.Fprintf(ew, "neardup url dedup: %s: %s, %s kept, %s (%s exact: the same normalised URL as an earlier one), %s, %s, %s\n",
		plural(s.Lines, "line", "lines"), plural(s.URLs, "URL", "URLs"), formatCount(s.Unique),
		plural(s.Duplicates, "duplicate", "duplicates"), formatCount(s.Exact),
		plural(s.Blank, "blank", "blank"), plural(s.Rejected, "rejected", "rejected"), plural(s.InputErrors, "input error", "input errors"))
	rate := ""
	if s.Seconds > 0 {
		rate = fmt.Sprintf(", %s URLs/s", formatCount(int64(float64(s.URLs)/s.Seconds)))
	}
	fmt.Fprintf(ew, "neardup url dedup: min similarity %g%% (distance ≤ %d of 64 bits), searched %s; %s%s\n",
		s.MinSimilarity, s.MaxDistance, s.Search, time.Duration(s.Seconds*float64(time.Second)).Round(time.Millisecond), rate)
	if s.Resumed > 0 {
		fmt.Fprintf(ew, "neardup url dedup: resumed an interrupted run: %s already in the index\n", plural(s.Resumed, "kept URL was", "kept URLs were"))
	}
	if n := s.Rejected + s.InputErrors; n > 0 {
		switch {
		case w.rejects != nil:
			fmt.Fprintf(ew, "neardup url dedup: %s written to %s\n", plural(n, "bad line or input", "bad lines or inputs"), w.rejects.Path())
		case s.Rejected > maxShownURLRejects:
			fmt.Fprintf(ew, "neardup url dedup: %d more bad lines not shown (write them all with --rejects FILE)\n", s.Rejected-maxShownURLRejects)
		}
	}
	if !c.Bool("json") {
		return nil
	}
	return writeURLJSON(c.App.Writer, s)
}
