package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/input"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Aliases:   []string{"cmp"},
		Usage:     "compare two articles: distance, similarities, shared keywords and a verdict",
		ArgsUsage: "A B",
		Description: `A and B are files holding one article each (a text or HTML file, or a JSONL file of one line);
one of them may be - for standard input. compare prints the Hamming distance of the two fingerprints,
their similarity (1 - distance/64), the estimated content similarity (MinHash Jaccard of character
5-grams), the keywords they share and those only one has, and a verdict:

   exact duplicate   the normalised texts are identical
   near duplicate    the content similarity is at least --min-content (check and dedup find such
                     a pair by its fingerprints, when they are at most --max-distance bits apart,
                     or else by the MinHash bands of its content: almost surely at a similarity
                     of 0.7 or more, 64% of the time at 0.5)
   different         otherwise

The exit status is 0 whatever the verdict, 2 on an error.`,
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
	k, err := maxDistance(c)
	if err != nil {
		return err
	}
	minJ, err := minContent(c)
	if err != nil {
		return err
	}
	inOpts, err := inputOptions(c)
	if err != nil {
		return err
	}
	a, err := newAnalyzer(c)
	if err != nil {
		return err
	}
	defer closeAnalyzer(c, a)
	var recs [2]input.Record
	var ans [2]*neardup.Analysis
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
	rep := cmp.Report(dedup.Side(recs[0].ID, recs[0].Title, recs[0].Source, ans[0]), dedup.Side(recs[1].ID, recs[1].Title, recs[1].Source, ans[1]),
		a.ID(), k, minJ)
	if c.Bool("json") {
		return writeJSON(c.App.Writer, rep)
	}
	return rep.WriteText(c.App.Writer, c.Int("keywords"))
}
