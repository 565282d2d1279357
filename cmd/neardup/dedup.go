package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/pipeline"
	prog "github.com/neardup/neardup/internal/progress"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/reuse"
)

func dedupCommand() *cli.Command {
	return &cli.Command{
		Name:        "dedup",
		Usage:       "find the duplicates in a corpus",
		ArgsUsage:   "INPUT...",
		Description: description("dedup"),
		Flags: flags([]cli.Flag{
			&cli.StringFlag{Name: "pairs", Category: catOutput, TakesFile: true, Usage: "write duplicate pairs to `FILE`"},
			&cli.StringFlag{Name: "clusters", Category: catOutput, TakesFile: true, Usage: "write clusters to `FILE`"},
			&cli.StringFlag{Name: "unique", Category: catOutput, TakesFile: true, Usage: "write the articles that are not duplicates to `FILE`"},
			&cli.StringFlag{Name: "rejects", Category: catOutput, TakesFile: true, Usage: "write bad records to `FILE`"},
			&cli.StringFlag{Name: "annotate", Category: catOutput, TakesFile: true,
				Usage: "write every record with neardup's verdict, cluster, member and similarities to `FILE` (JSONL; Parquet when FILE ends in .parquet)"},
			&cli.StringFlag{Name: "keep", Category: catOutput, Value: "first",
				Usage: "which member of each cluster the outputs keep, by `POLICY`: first, longest, newest:FIELD, oldest:FIELD or max:FIELD"},
			&cli.StringFlag{Name: "reuse-pairs", Category: catOutput, TakesFile: true,
				Usage: "write the reuse pairs (articles that share passages: a, b and the share of each in the other) to `FILE`; among this run's articles, in memory"},
			dedupIndexFlag(),
			leanFlag(true),
			workersFlag(),
			&cli.BoolFlag{DisableDefaultText: true, Name: "strict", Category: catInput, Usage: "stop at the first bad record or unreadable input"},
			jsonFlag(),
			progressFlag(),
		}, analyzerFlags(), inputFlags(), matchFlags(), reuseFlags()),
		Action: runDedup,
	}
}

func runDedup(c *cli.Context) (err error) {
	if c.NArg() == 0 {
		return usagef(c, "no input: give files, directories, or - for standard input")
	}
	s := newSetup(c)
	defer s.close()
	k, minJ, nw, inOpts, a := s.indexDistance(), s.minContent(), s.atLeast1("workers"), s.input(), s.analyzer()
	dir := c.String("index")
	x := s.open(dir, a, k, minJ, false) // "": in memory
	// The archive's reuse index, if it has one: dedup files passages too.
	var ri *reuse.Index
	if dir != "" {
		ri = s.openReuse(dir, x, a, false)
	}
	if s.err != nil {
		return s.err
	}
	opts := &dedup.Options{MaxDistance: queryDistance(k), Workers: nw, Strict: c.Bool("strict")}
	if ri != nil {
		opts.Prepare = func(d *index.Doc, text string) error { return ri.Prepare(c.Context, d, text) }
	}
	if dir != "" {
		opts.Job = dedup.JobID(a.ID(), c.Args().Slice(), inOpts, k, minJ)
	}
	defer func() {
		if cerr := x.Close(); err == nil {
			err = cerr
		}
	}()

	outs, rejectsNamed, err := createDedupOutputs(c, opts.Job, inOpts)
	if err != nil {
		return err
	}
	defer outs.Abort()
	rp, err := newReusePairs(s, a)
	if err != nil {
		return err
	}
	defer rp.abort()
	r := input.NewReader(c.Args().Slice(), c.App.Reader, inOpts)
	var bar *prog.Bar // a line on a terminal, also when the pairs go to standard output
	if p := c.String("progress"); p == "always" || (p == "auto" && prog.IsTerminal(c.App.ErrWriter)) {
		bar = prog.Start(c.App.ErrWriter, input.Size(c.Args().Slice()))
		bar.Follow(r.Done)
	}
	defer r.Close()
	defer noteSkipped(c, "neardup dedup: ", r)
	var rejected int64
	sum, err := dedup.Run(c.Context, r, a, x, opts, func(o *dedup.Outcome) error {
		countRecord(bar, &o.Record, o.Err)
		if o.Verdict == dedup.Rejected || o.Verdict == dedup.InputFailed {
			noteRejected(c, o, rejectsNamed, &rejected)
		} else if err := rp.add(&o.Record); err != nil {
			return err
		}
		return outs.Write(o)
	})
	bar.Finish()
	if err != nil {
		if errors.Is(err, context.Canceled) && opts.Job != "" {
			fmt.Fprintln(c.App.ErrWriter, "neardup dedup: interrupted; run the same command again to resume")
		}
		if opts.Strict && pipeline.IsRecordErr(err) {
			return fmt.Errorf("--strict: %w", err)
		}
		return err
	}
	return endDedup(c, outs, rp, &sum, rejected)
}

// createDedupOutputs creates the output files the flags name, keeping
// the member of each cluster --keep chooses; rejectsNamed reports a
// --rejects file. With no file named and no --json, the pairs go to
// standard output rather than nowhere.
func createDedupOutputs(c *cli.Context, job string, inOpts *input.Options) (outs *dedup.Outputs, rejectsNamed bool, err error) {
	keep, err := dedup.ParseKeepPolicy(c.String("keep"))
	if err != nil {
		return nil, false, usagef(c, "--keep: %v", err)
	}
	named := false
	for _, f := range []string{"pairs", "clusters", "unique", "rejects", "annotate", "reuse-pairs"} {
		named = named || c.String(f) != ""
	}
	files := dedup.Files{Pairs: c.String("pairs"), Clusters: c.String("clusters"), Unique: c.String("unique"), Rejects: c.String("rejects"),
		Annotate: c.String("annotate")}
	if !named && !c.Bool("json") {
		files.Pairs = "-" // nothing named: the pairs go to standard output rather than nowhere
	}
	inOpts.ParquetRows = files.ParquetRows()
	if outs, err = dedup.CreateOutputs(files, c.App.Writer, job); err != nil {
		return nil, false, err
	}
	if err := outs.SetKeep(keep, c.Args().Slice(), inOpts); err != nil {
		outs.Abort()
		return nil, false, usagef(c, "%v", err)
	}
	return outs, files.Rejects != "", nil
}

// noteRejected counts o, a rejected record or failed input, and shows
// the first maxShown on stderr when no --rejects file takes them.
func noteRejected(c *cli.Context, o *dedup.Outcome, rejectsNamed bool, rejected *int64) {
	kind := "rejected"
	if o.Verdict == dedup.InputFailed {
		kind = "input error"
	}
	if *rejected++; !rejectsNamed && *rejected <= maxShown {
		fmt.Fprintf(c.App.ErrWriter, "neardup: %s: %v\n", kind, o.Err)
	}
}

// endDedup commits the outputs of a finished run and writes its
// summary: on stderr for people, on stdout with --json. Inputs that
// could not be read to the end make the exit status an error.
func endDedup(c *cli.Context, outs *dedup.Outputs, rp *reusePairs, sum *report.Summary, rejected int64) error {
	if _, err := outs.Commit(); err != nil {
		return err
	}
	if err := rp.commit(); err != nil {
		return err
	}
	if err := sum.WriteText(c.App.ErrWriter, "neardup dedup: "); err != nil {
		return err
	}
	badEnd(c.App.ErrWriter, "neardup dedup: ", "record", sum.Rejected+sum.InputErrors, outs.RejectsPath(), rejected)
	if c.Bool("json") {
		if err := writeJSON(c.App.Writer, sum); err != nil {
			return err
		}
	}
	if sum.InputErrors > 0 {
		return &exitStatus{code: exitError, err: fmt.Errorf("%s could not be read to the end; the outputs cover the records read",
			plural(sum.InputErrors, "input", "inputs"))}
	}
	return nil
}
