package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/eval"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
)

// evalShowRejects is how many bad records eval names on stderr.
const evalShowRejects = 10

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:        "eval",
		Usage:       "measure precision and recall on a corpus with labelled pairs",
		ArgsUsage:   "CORPUS...",
		Description: description("eval"),
		Flags: flags([]cli.Flag{
			&cli.StringFlag{Name: "pairs", Category: catInput, TakesFile: true,
				Usage: "labelled pairs `FILE` (JSONL, may be gzip-compressed)"},
			jsonFlag(),
			&cli.BoolFlag{DisableDefaultText: true, Name: "list", Category: catOutput,
				Usage: "list the duplicates the current settings miss and the distinct pairs they find"},
			&cli.StringFlag{Name: "sweep", Category: catMatch,
				Usage: "also run the detector with each of these comma-separated --min-content `VALUES`"},
			workersFlag(),
			progressFlag(),
		}, analyzerFlags(), inputFlags(), matchFlags()),
		Action: runEval,
	}
}

func runEval(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef(c, "no corpus: give the files or directories to evaluate on (- for standard input)")
	}
	if c.String("pairs") == "" {
		return usagef(c, "no labelled pairs: give --pairs FILE")
	}
	s := newSetup(c)
	defer s.close()
	k, mc, sweep, nw, inOpts := s.indexDistance(), s.minContent(), s.sweep(), s.atLeast1("workers"), s.input()
	if s.err != nil {
		return s.err
	}
	// Everything that can fail fast before the long analysis.
	labels, err := eval.ReadPairs(c.String("pairs"))
	if err != nil {
		return fmt.Errorf("--pairs: %w", err)
	}
	a := s.analyzer()
	if s.err != nil {
		return s.err
	}

	start := time.Now()
	r := input.NewReader(c.Args().Slice(), c.App.Reader, inOpts)
	defer r.Close()
	bar := progressBar(c, c.Args().Slice())
	corpus, err := eval.AnalyzeCorpus(c.Context, r, a, nw, func(rec *input.Record, err error) { countRecord(bar, rec, err) })
	bar.Finish()
	if err != nil {
		return err
	}
	analysed := time.Since(start)
	for i, e := range corpus.Rejected {
		if i == evalShowRejects {
			fmt.Fprintf(c.App.ErrWriter, "neardup eval: … and %d more bad records\n", len(corpus.Rejected)-i)
			break
		}
		fmt.Fprintf(c.App.ErrWriter, "neardup eval: skipped: %v\n", e)
	}
	start = time.Now()
	rep, err := eval.Evaluate(corpus, labels, func() index.Store { return memstore.New() }, &eval.Options{
		Index:       index.Options{MinContent: mc, AnalyzerID: a.ID()},
		MaxDistance: queryDistance(k),
		Sweep:       sweep,
		Workers:     nw,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "neardup eval: analysed %s records in %.1f s, evaluated in %.1f s\n",
		formatCount(int64(rep.Docs+rep.TooShort+rep.Rejected)), analysed.Seconds(), time.Since(start).Seconds())

	rep.Inputs, rep.Pairs = c.Args().Slice(), c.String("pairs")
	if c.Bool("json") {
		return writeJSON(c.App.Writer, rep)
	}
	return rep.WriteText(c.App.Writer, c.Bool("list"))
}

// sweep reads --sweep.
func (s *setup) sweep() []float64 {
	list := s.c.String("sweep")
	if list == "" {
		return nil
	}
	var out []float64
	for _, v := range strings.Split(list, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(x > 0 && x <= 1) {
			s.fail("--sweep %q: %q is not a value in (0, 1]", list, strings.TrimSpace(v))
			return nil
		}
		out = append(out, x)
	}
	return out
}
