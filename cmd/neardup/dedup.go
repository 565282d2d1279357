package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/index/redisstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/pipeline"
	prog "github.com/neardup/neardup/internal/progress"
)

func dedupCommand() *cli.Command {
	return &cli.Command{
		Name:      "dedup",
		Usage:     "find the duplicates in a corpus",
		ArgsUsage: "INPUT...",
		Description: `Reads every article of the inputs in order (files, directories, or - for standard input) and
decides for each whether it duplicates an earlier one: an exact duplicate (identical normalised
text) or a near duplicate (an estimated content similarity of at least --min-content; the
candidates are found by fingerprints at most --max-distance bits apart and by shared MinHash
bands of the content, or a shorter text mostly contained in a longer one). An article that
duplicates nothing is an original; one that does joins the cluster of the article it matched
(an original, or a duplicate, so that a copy of a copy is found, as long as it stays within a
content similarity of 0.5 of the cluster's original). The result does not depend on --workers.

Outputs (written to a temporary file and renamed into place at the end; - is standard output):
   --pairs FILE     a JSON line per (original, duplicate) pair:
                    {"a": original id, "b": duplicate id, "member": the cluster member b matched when
                    it is not a, "distance", "exact", "similarity", "content"} (the numbers of that match)
   --clusters FILE  a JSON line per original that has duplicates, in the order the originals appear:
                    {"id": original, "members": [{"id", "via", "distance", "exact", "content"}, ...]}
                    (a duplicate belongs to the cluster of its best match)
   --unique FILE    the articles that are not duplicates (originals, and those too short to
                    fingerprint): each JSONL line verbatim; a whole-file article as a JSON line
                    {"id", "title", "text"}
   --rejects FILE   a JSON line per bad record or unreadable input:
                    {"source", "line", "field", "reason", "raw"}
With none of these (and no --json), the pairs go to standard output.
A summary goes to stderr (and with --json to stdout as one object); a progress line too when
stderr is a terminal.

With --index DIR|URL the articles are kept in (and checked against) a persistent archive instead of
memory, with what earlier runs stored there: an article whose id it holds with the same text keeps
the verdict it had then, one with another text is rejected; re-running an interrupted run with the
same inputs and settings resumes it, with the output of an uninterrupted run. A Redis archive
(redis://HOST:PORT[,HOST:PORT...]/NAME) takes several dedup processes at once, on any machines,
each record decided race-free against all of them; it keeps duplicates too, so an id is used once.

Exit status: 0 on success, also when some records were rejected (they are counted in the summary and
listed in --rejects, or on stderr); 2 on an error, when an input could not be read to its end (the
outputs are written and cover what was read), or with --strict at the first bad record.`,
		Flags: flags([]cli.Flag{
			&cli.StringFlag{Name: "pairs", Category: catOutput, TakesFile: true, Usage: "write duplicate pairs to `FILE`"},
			&cli.StringFlag{Name: "clusters", Category: catOutput, TakesFile: true, Usage: "write clusters to `FILE`"},
			&cli.StringFlag{Name: "unique", Category: catOutput, TakesFile: true, Usage: "write the articles that are not duplicates to `FILE`"},
			&cli.StringFlag{Name: "rejects", Category: catOutput, TakesFile: true, Usage: "write bad records to `FILE`"},
			dedupIndexFlag(),
			workersFlag(),
			&cli.BoolFlag{DisableDefaultText: true, Name: "strict", Category: catInput, Usage: "stop at the first bad record or unreadable input"},
			jsonFlag(),
			progressFlag(),
		}, analyzerFlags(), inputFlags(), matchFlags()),
		Action: runDedup,
	}
}

// summaryJSON is dedup's --json summary.
type summaryJSON struct {
	Records     int64 `json:"records"`
	Unique      int64 `json:"unique"`
	Exact       int64 `json:"exact"`
	Near        int64 `json:"near"`
	TooShort    int64 `json:"too_short"`
	Rejected    int64 `json:"rejected"`
	InputErrors int64 `json:"input_errors"`
	Resumed     int64 `json:"resumed"`
	// Archived counts the records found in the index from an earlier
	// run, reported with their verdicts then; Changed those rejected
	// because the index holds another text under their id.
	Archived int64 `json:"archived"`
	Changed  int64 `json:"changed"`
	// With --index: the exact-duplicate filter's content-hash lookups
	// and how many it answered without reading the index.
	FilterLookups    int64   `json:"filter_lookups,omitempty"`
	FilterReadsSaved int64   `json:"filter_reads_saved,omitempty"`
	Bytes            int64   `json:"bytes"`
	Seconds          float64 `json:"seconds"`
	MBPerSecond      float64 `json:"mb_per_s"`
	Workers          int     `json:"workers"`
}

// maxShownRejects is how many bad records dedup lists on stderr when
// there is no --rejects file.
const maxShownRejects = 10

// deduper writes dedup's outputs as the outcomes arrive.
type deduper struct {
	dedup.Outputs
	idx      *index.Index // with --index
	ew       io.Writer
	prog     *prog.Bar
	rejects  *outFile // nil unless --rejects
	rejected int64
}

func runDedup(c *cli.Context) (err error) {
	if c.NArg() == 0 {
		return usagef(c, "no input: give files, directories, or - for standard input")
	}
	k, minJ, err := matchSettings(c)
	if err != nil {
		return err
	}
	nw, err := workers(c)
	if err != nil {
		return err
	}
	inOpts, err := inputOptions(c)
	if err != nil {
		return err
	}
	showProgress := false
	switch p := c.String("progress"); p {
	case "auto":
		showProgress = prog.IsTerminal(c.App.ErrWriter)
	case "always":
		showProgress = true
	case "never":
	default:
		return usagef(c, "--progress %q: want auto, always or never", p)
	}
	a, err := newAnalyzer(c)
	if err != nil {
		return err
	}
	defer closeAnalyzer(c, a)

	opts := &dedup.Options{MaxDistance: k, Workers: nw, Strict: c.Bool("strict")}
	if k == 0 {
		opts.MaxDistance = -1 // exact fingerprints (0 would mean the default)
	}
	var store *index.Index
	var idx *index.Index
	if dir := c.String("index"); dir != "" {
		x, err := openIndex(c.Context, dir, a.ID(), k, minJ, false)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := x.Close(); err == nil {
				err = cerr
			}
		}()
		store, idx = x, x
		opts.Job = dedup.JobID(a.ID(), c.Args().Slice(), inOpts, k, minJ)
		if !redisstore.IsURL(dir) {
			opts.Batch = 1000 // write the originals in batches
		} // a Redis archive: dedup.Run's batches of index.Ingest
	} else {
		m, err := archive.Memory(c.Context, &archive.Options{AnalyzerID: a.ID(), Distance: k, MinContent: minJ})
		if err != nil {
			return err
		}
		defer m.Close()
		store = m
	}

	d := &deduper{idx: idx, ew: c.App.ErrWriter}
	outs := &outputs{c: c}
	defer outs.abort()
	named := false
	for _, f := range []string{"pairs", "clusters", "unique", "rejects"} {
		named = named || c.String(f) != ""
	}
	// Nothing named: the pairs go to standard output rather than nowhere.
	clusters, err := outs.openAll(&d.Outputs, opts.Job, !named && !c.Bool("json"))
	if err != nil {
		return err
	}
	d.rejects = outs.rejects

	if showProgress {
		d.prog = prog.Start(c.App.ErrWriter, prog.InputSize(c.Args().Slice()))
	}
	r := input.NewReader(c.Args().Slice(), c.App.Reader, inOpts)
	defer r.Close()
	sum, err := dedup.Run(c.Context, r, a, store, opts, d.emit)
	d.prog.Finish()
	if err != nil {
		if errors.Is(err, context.Canceled) && opts.Job != "" {
			fmt.Fprintln(c.App.ErrWriter, "neardup dedup: interrupted; run the same command again to resume")
		}
		if opts.Strict && pipeline.IsRecordErr(err) {
			return fmt.Errorf("--strict: %w", err)
		}
		return err
	}
	if clusters != nil {
		if _, err := dedup.WriteClusters(clusters, d.Clusters); err != nil {
			return err
		}
	}
	if err := outs.commit(); err != nil {
		return err
	}
	if err := d.report(c, sum, nw); err != nil {
		return err
	}
	if sum.InputErrors > 0 {
		return &exitStatus{code: exitError, err: fmt.Errorf("%s could not be read to the end; the outputs cover the records read",
			plural(sum.InputErrors, "input", "inputs"))}
	}
	return nil
}

// emit writes one outcome; Dedup calls it in input order.
func (d *deduper) emit(o *dedup.Outcome) error {
	d.prog.AddRecord(&o.Record, o.Err)
	if o.Verdict == dedup.Rejected || o.Verdict == dedup.InputFailed {
		d.rejected++
		if d.rejects == nil && d.rejected <= maxShownRejects {
			kind := "rejected"
			if o.Verdict == dedup.InputFailed {
				kind = "input error"
			}
			fmt.Fprintf(d.ew, "neardup: %s: %v\n", kind, o.Err)
		}
	}
	return d.Write(o)
}

// report prints the summary: text on stderr, and with --json an object
// on stdout.
func (d *deduper) report(c *cli.Context, s dedup.Summary, nw int) error {
	secs := s.Elapsed.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(s.Bytes) / 1e6 / secs
	}
	ew := c.App.ErrWriter
	fmt.Fprintf(ew, "neardup dedup: %s: %s unique, %s exact %s, %s near %s, %s too short, %s rejected, %s\n",
		plural(s.Records, "record", "records"), formatCount(s.Unique),
		formatCount(s.Exact), pl(s.Exact, "duplicate", "duplicates"), formatCount(s.Near), pl(s.Near, "duplicate", "duplicates"),
		formatCount(s.TooShort), formatCount(s.Rejected), plural(s.InputErrors, "input error", "input errors"))
	fmt.Fprintf(ew, "neardup dedup: %s of text in %s (%.2f MB/s, %s)\n",
		formatBytes(s.Bytes), s.Elapsed.Round(time.Millisecond), rate, plural(int64(nw), "worker", "workers"))
	switch archived := s.Unique + s.Exact + s.Near; {
	case s.Resumed > 0 && s.Resumed == archived && s.Archived == archived:
		fmt.Fprintf(ew, "neardup dedup: this run had finished before: all %s already in the index, reported with their verdicts then\n",
			plural(s.Resumed, "record was", "records were"))
	case s.Resumed > 0:
		fmt.Fprintf(ew, "neardup dedup: resumed an interrupted run: %s already in the index\n", plural(s.Resumed, "record was", "records were"))
	}
	if other := s.Archived - s.Resumed; other > 0 {
		fmt.Fprintf(ew, "neardup dedup: %s already in the index from earlier runs, reported with their verdicts then\n",
			plural(other, "record was", "records were"))
	}
	if s.Changed > 0 {
		fmt.Fprintf(ew, "neardup dedup: %s rejected: the index holds another text under the same id (delete those ids first to replace them)\n",
			plural(s.Changed, "record", "records"))
	}
	var filter index.BloomStats
	if d.idx != nil {
		st, err := d.idx.Stats(c.Context)
		if err != nil {
			return err
		}
		if filter = st.Bloom; filter.Lookups > 0 {
			fmt.Fprintf(ew, "neardup dedup: exact-duplicate filter: %s, %s (%.1f%%) answered without reading the index\n",
				plural(filter.Lookups, "content-hash lookup", "content-hash lookups"), formatCount(filter.ReadsSaved),
				100*float64(filter.ReadsSaved)/float64(filter.Lookups))
		}
	}
	if s.Rejected+s.InputErrors > 0 {
		if d.rejects != nil {
			fmt.Fprintf(ew, "neardup dedup: %s written to %s\n", plural(s.Rejected+s.InputErrors, "bad record or input", "bad records or inputs"), d.rejects.Path())
		} else if d.rejected > maxShownRejects {
			fmt.Fprintf(ew, "neardup dedup: %d more bad records not shown (write them all with --rejects FILE)\n", d.rejected-maxShownRejects)
		}
	}
	if !c.Bool("json") {
		return nil
	}
	return writeJSON(c.App.Writer, summaryJSON{
		Records: s.Records, Unique: s.Unique, Exact: s.Exact, Near: s.Near, TooShort: s.TooShort, Rejected: s.Rejected,
		InputErrors: s.InputErrors, Resumed: s.Resumed, Archived: s.Archived, Changed: s.Changed, Bytes: s.Bytes, Seconds: secs, MBPerSecond: rate, Workers: nw,
		FilterLookups: filter.Lookups, FilterReadsSaved: filter.ReadsSaved,
	})
}

// pl returns one or many by n.
func pl(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
