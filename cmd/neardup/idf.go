package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/dict"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/outfile"
	"github.com/neardup/neardup/internal/pipeline"
)

func idfCommand() *cli.Command {
	return &cli.Command{
		Name:  "idf",
		Usage: "IDF tables",
		Subcommands: []*cli.Command{{
			Name:        "build",
			Usage:       "train an IDF table on a corpus",
			ArgsUsage:   "INPUT... -o FILE",
			Description: description("idf-build") + description("exit-status"),
			Flags: flags([]cli.Flag{
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Category: catOutput, TakesFile: true,
					Usage: "write the table to `FILE` (- for standard output)"},
				&cli.IntFlag{Name: "min-df", Value: 2, Category: catOutput, Usage: "leave out words found in fewer than `N` articles"},
				workersFlag(),
				strictFlag(),
				progressFlag(),
			}, segmenterFlags(), analyzerFlagsNamed("keep-traditional"), inputFlags()),
			Action: runIDFBuild,
		}},
	}
}

func runIDFBuild(c *cli.Context) (err error) {
	out := c.String("output")
	if out == "" {
		return usagef(c, "no output: give -o FILE")
	}
	if c.NArg() == 0 {
		return usagef(c, "no input: give files, directories, or - for standard input")
	}
	s := newSetup(c)
	defer s.close()
	// The analyzer's own segmenter and fold, so that the table holds the
	// words the analyzer looks up: a table trained on traditional text
	// without the fold would hold words (軟體) that folded text (软件)
	// never has.
	nw, minDF, inOpts, a := s.atLeast1("workers"), s.atLeast1("min-df"), s.input(), s.analyzer()
	if s.err != nil {
		return s.err
	}
	table, err := outfile.Create(out, c.App.Writer)
	if err != nil {
		return err
	}
	defer table.Abort()

	b := dict.NewIDFBuilder()
	b.MinDF = minDF
	r := input.NewReader(c.Args().Slice(), c.App.Reader, inOpts)
	defer r.Close()
	defer noteSkipped(c, "neardup idf build: ", r)

	sk := newSkips(c)
	bar := progressBar(c, r, c.Args().Slice())
	var readErr error
	texts := func(yield func(string) bool) {
		for {
			if readErr = c.Context.Err(); readErr != nil {
				return
			}
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			countRecord(bar, &rec, err)
			switch {
			case err != nil && !pipeline.IsRecordErr(err):
				readErr = err
				return
			case err != nil:
				if readErr = sk.note("", err); readErr != nil {
					return
				}
			case !yield(rec.Text):
				return
			}
		}
	}
	err = b.AddTexts(texts, a.Words, nw)
	bar.Finish()
	if readErr != nil {
		return readErr
	}
	if err != nil {
		return err
	}
	if b.Docs() == 0 {
		return fmt.Errorf("no articles read: no table written")
	}
	if _, err := b.WriteTo(table); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := table.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "neardup idf build: %s, %s with df ≥ %d written to %s\n",
		plural(int64(b.Docs()), "article", "articles"), plural(int64(len(b.Words())), "word", "words"), minDF, out)
	return sk.status("the table covers the records read")
}

// analyzerFlagsNamed returns the analyzer flags of the given names, for a
// command that takes only some of them.
func analyzerFlagsNamed(names ...string) []cli.Flag {
	var out []cli.Flag
	for _, f := range analyzerFlags() {
		for _, n := range f.Names() {
			if slices.Contains(names, n) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}
