package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/dict"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/pipeline"
	"github.com/neardup/neardup/segment"
	"github.com/neardup/neardup/tfidf"
)

func idfCommand() *cli.Command {
	return &cli.Command{
		Name:  "idf",
		Usage: "IDF tables",
		Subcommands: []*cli.Command{{
			Name:      "build",
			Usage:     "train an IDF table on a corpus",
			ArgsUsage: "INPUT... -o FILE",
			Description: `Reads the articles of the inputs, normalises and segments them as fingerprinting does (with
--segmenter and --user-dict), keeps the candidate keywords (at least two runes, at least one letter,
not a number) and writes, for each word, idf = ln(N / df): N articles, df of them containing the
word. The output has one "word idf" line per word, sorted, in the format --idf reads. Words in fewer
than --min-df articles are left out. Memory grows with the vocabulary, not with the corpus.

Use the table with --idf FILE on every command (fingerprints made with different tables are not
comparable, and an index remembers which table built it). Words the table lacks get its median IDF.`,
			Flags: flags([]cli.Flag{
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Category: catOutput, TakesFile: true,
					Usage: "write the table to `FILE` (- for standard output)"},
				&cli.IntFlag{Name: "min-df", Value: 2, Category: catOutput, Usage: "leave out words found in fewer than `N` articles"},
				workersFlag(),
			}, segmenterFlags(), inputFlags()),
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
	nw, err := workers(c)
	if err != nil {
		return err
	}
	minDF := c.Int("min-df")
	if minDF < 1 {
		return usagef(c, "--min-df %d: want at least 1", minDF)
	}
	inOpts, err := inputOptions(c)
	if err != nil {
		return err
	}
	seg, err := segment.New(c.String("segmenter"), &segment.Options{UserDict: c.String("user-dict")})
	if err != nil {
		return err
	}
	if cl, ok := seg.(io.Closer); ok {
		defer cl.Close()
	}
	f, err := createOut(out, c.App.Writer)
	if err != nil {
		return err
	}
	defer f.abort()

	b := dict.NewIDFBuilder()
	b.MinDF = minDF
	r := input.NewReader(c.Args().Slice(), c.App.Reader, inOpts)
	defer r.Close()

	// Readers → nw segmenters → one counter. The table does not depend
	// on the order in which documents are counted.
	texts := make(chan string, 4*nw)
	words := make(chan []string, 4*nw)
	var wg sync.WaitGroup
	for range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range texts {
				toks := seg.Cut(segment.Normalize(t))
				kept := toks[:0]
				for _, w := range toks {
					if tfidf.Candidate(w) {
						kept = append(kept, w)
					}
				}
				words <- kept
			}
		}()
	}
	counted := make(chan struct{})
	go func() {
		for ws := range words {
			b.Add(ws)
		}
		close(counted)
	}()
	var failed int64
	var readErr error
	for {
		if readErr = c.Context.Err(); readErr != nil {
			break
		}
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if !pipeline.IsRecordErr(err) {
				readErr = err
				break
			}
			fmt.Fprintf(c.App.ErrWriter, "neardup: %v\n", err)
			failed++
			continue
		}
		texts <- rec.Text
	}
	close(texts)
	wg.Wait()
	close(words)
	<-counted
	if readErr != nil {
		return readErr
	}
	if b.Docs() == 0 {
		return fmt.Errorf("no articles read: no table written")
	}
	if _, err := b.WriteTo(f); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := f.commit(); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "neardup idf build: %s, %s with df ≥ %d written to %s\n",
		plural(int64(b.Docs()), "article", "articles"), plural(int64(len(b.Words())), "word", "words"), minDF, out)
	if failed > 0 {
		return &exitStatus{code: exitError, err: fmt.Errorf("%s not read (see above)", plural(failed, "record", "records"))}
	}
	return nil
}
