package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/pipeline"
	prog "github.com/neardup/neardup/internal/progress"
	"github.com/neardup/neardup/report"
)

func fingerprintCommand() *cli.Command {
	return &cli.Command{
		Name:        "fingerprint",
		Aliases:     []string{"fp"},
		Usage:       "print the SimHash fingerprint and the weighted keywords of each article",
		ArgsUsage:   "[FILE...|-]",
		Description: description("fingerprint") + description("exit-status"),
		Flags: flags(analyzerFlags(), inputFlags(), []cli.Flag{
			strictFlag(),
			progressFlag(),
			jsonFlag(),
			&cli.IntFlag{Name: "keywords", Value: 10, Category: catOutput,
				Usage: "keywords to print per article in text output (0: all)"},
		}),
		Action: runFingerprint,
	}
}

func runFingerprint(c *cli.Context) error {
	s := newSetup(c)
	defer s.close()
	inOpts, a := s.input(), s.analyzer()
	if s.err != nil {
		return s.err
	}
	asJSON, nkw := c.Bool("json"), c.Int("keywords")
	w := c.App.Writer
	r := input.NewReader(inputArgs(c), c.App.Reader, inOpts)
	defer r.Close()
	defer noteSkipped(c, "neardup fingerprint: ", r)
	sk := newSkips(c)
	err := analyzeEach(c, r, a, sk, func(_ int64, rec *input.Record, an *neardup.Analysis) error {
		rep := report.NewAnalysis(rec.ID, rec.Title, a.ID(), an)
		if asJSON {
			return writeJSON(w, rep)
		}
		return rep.WriteText(w, nkw)
	})
	if err != nil {
		return err
	}
	if sk.records > 0 {
		fmt.Fprintf(c.App.ErrWriter, "neardup: %s not fingerprinted\n", plural(sk.records, "article", "articles"))
	}
	return sk.status("the output covers the records read")
}

// analyzeEach analyses the records of r and calls f, in input order,
// with those fingerprinted (n counts every record from 0, good or bad).
// A bad record, an unreadable input or an article that cannot be
// fingerprinted is noted in sk (reported on stderr and counted), and
// the loop goes on, unless --strict stops it. An error from f, or any
// other error, stops the loop.
func analyzeEach(c *cli.Context, r *input.Reader, a *neardup.Analyzer, sk *skips, f func(n int64, rec *input.Record, an *neardup.Analysis) error) error {
	var bar *prog.Bar
	if c.NArg() > 1 {
		bar = progressBar(c, r, c.Args().Slice()) // check and fingerprint of several files
		defer bar.Finish()
	}
	return pipeline.Run(c.Context, r, a, nil, func(it *pipeline.Item) error {
		countRecord(bar, &it.Record, it.Err)
		switch {
		case it.Err != nil && pipeline.IsRecordErr(it.Err):
			return sk.noteRecord("", &it.Record, it.Err)
		case it.Err != nil:
			return sk.noteRecord(it.Record.Name(), &it.Record, it.Err)
		}
		return f(it.Seq, &it.Record, it.Analysis)
	})
}
