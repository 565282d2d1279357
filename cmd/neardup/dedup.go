package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/dedup"
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

// maxShownRejects is how many bad records dedup lists on stderr when
// there is no --rejects file.
const maxShownRejects = 10

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

	opts := &dedup.Options{MaxDistance: queryDistance(k), Workers: nw, Strict: c.Bool("strict")}
	dir := c.String("index")
	if dir != "" {
		opts.Job = dedup.JobID(a.ID(), c.Args().Slice(), inOpts, k, minJ)
	}
	x, err := openIndex(c.Context, dir, a.ID(), k, minJ, false) // "": in memory
	if err != nil {
		return err
	}
	defer func() {
		if cerr := x.Close(); err == nil {
			err = cerr
		}
	}()

	var outs dedup.Outputs
	files := &outputs{c: c}
	defer files.abort()
	named := false
	for _, f := range []string{"pairs", "clusters", "unique", "rejects"} {
		named = named || c.String(f) != ""
	}
	// Nothing named: the pairs go to standard output rather than nowhere.
	clusters, err := files.openAll(&outs, opts.Job, !named && !c.Bool("json"))
	if err != nil {
		return err
	}
	var bar *prog.Bar
	if showProgress {
		bar = prog.Start(c.App.ErrWriter, prog.InputSize(c.Args().Slice()))
	}
	r := input.NewReader(c.Args().Slice(), c.App.Reader, inOpts)
	defer r.Close()
	var rejected int64
	sum, err := dedup.Run(c.Context, r, a, x, opts, func(o *dedup.Outcome) error {
		bar.AddRecord(&o.Record, o.Err)
		if o.Verdict == dedup.Rejected || o.Verdict == dedup.InputFailed {
			kind := "rejected"
			if o.Verdict == dedup.InputFailed {
				kind = "input error"
			}
			if rejected++; files.rejects == nil && rejected <= maxShownRejects {
				fmt.Fprintf(c.App.ErrWriter, "neardup: %s: %v\n", kind, o.Err)
			}
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
	if clusters != nil {
		if _, err := dedup.WriteClusters(clusters, outs.Clusters); err != nil {
			return err
		}
	}
	if err := files.commit(); err != nil {
		return err
	}
	if err := sum.WriteText(c.App.ErrWriter, "neardup dedup: "); err != nil {
		return err
	}
	switch {
	case sum.Rejected+sum.InputErrors == 0:
	case files.rejects != nil:
		fmt.Fprintf(c.App.ErrWriter, "neardup dedup: %s written to %s\n", plural(sum.Rejected+sum.InputErrors, "bad record or input", "bad records or inputs"), files.rejects.Path())
	case rejected > maxShownRejects:
		fmt.Fprintf(c.App.ErrWriter, "neardup dedup: %d more bad records not shown (write them all with --rejects FILE)\n", rejected-maxShownRejects)
	}
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
