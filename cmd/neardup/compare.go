package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/report"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:        "compare",
		Aliases:     []string{"cmp"},
		Usage:       "compare two articles: distance, similarities, shared keywords and a verdict",
		ArgsUsage:   "A B",
		Description: description("compare"),
		Flags: flags(analyzerFlags(), inputFlags(), matchFlags(), []cli.Flag{
			jsonFlag(),
			&cli.IntFlag{Name: "keywords", Value: 20, Category: catOutput,
				Usage: "keywords to list per group in text output (0: all)"},
		}),
		Action: runCompare,
	}
}

func runCompare(c *cli.Context) error {
	if c.NArg() != 2 {
		return usagef(c, "want two articles A and B, got %d arguments", c.NArg())
	}
	if c.Args().Get(0) == "-" && c.Args().Get(1) == "-" {
		return usagef(c, "only one of A and B can be standard input (-)")
	}
	s := newSetup(c)
	defer s.close()
	k, minJ, inOpts, a := s.distance(), s.minContent(), s.input(), s.analyzer()
	if s.err != nil {
		return s.err
	}
	var recs [2]input.Record
	var ans [2]*neardup.Analysis
	var err error
	for i := range recs {
		path := c.Args().Get(i)
		if recs[i], err = input.ReadOne(path, c.App.Reader, inOpts); err != nil {
			return err
		}
		if ans[i], err = a.Analyze(recs[i].Text); err != nil {
			return fmt.Errorf("%s: %w", recs[i].Name(), err)
		}
	}
	cmp := dedup.Compare(ans[0], ans[1], k, minJ)
	rep := cmp.Report(report.SideOf(recs[0].ID, recs[0].Title, recs[0].Source, ans[0]), report.SideOf(recs[1].ID, recs[1].Title, recs[1].Source, ans[1]),
		a.ID(), k, minJ)
	if c.Bool("json") {
		return writeJSON(c.App.Writer, rep)
	}
	return rep.WriteText(c.App.Writer, c.Int("keywords"))
}
