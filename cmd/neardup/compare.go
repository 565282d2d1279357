package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/tfidf"
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

// compareSide is one article of compare --json.
type compareSide struct {
	ID          string `json:"id"`
	Title       string `json:"title,omitempty"`
	Source      string `json:"source"`
	Fingerprint string `json:"fingerprint"`
	ContentHash string `json:"content_hash"`
	Keywords    int    `json:"keywords"`
}

// sharedJSON is a keyword both articles have.
type sharedJSON struct {
	Word    string  `json:"word"`
	WeightA float64 `json:"weight_a"`
	WeightB float64 `json:"weight_b"`
}

// compareJSON is compare's --json output.
type compareJSON struct {
	A           compareSide     `json:"a"`
	B           compareSide     `json:"b"`
	Analyzer    string          `json:"analyzer"`
	Distance    int             `json:"distance"`
	Similarity  float64         `json:"similarity"`
	Content     float64         `json:"content"`
	Exact       bool            `json:"exact"`
	MaxDistance int             `json:"max_distance"`
	MinContent  float64         `json:"min_content"`
	Verdict     string          `json:"verdict"`
	Shared      []sharedJSON    `json:"shared"`
	OnlyA       []tfidf.Keyword `json:"only_a"`
	OnlyB       []tfidf.Keyword `json:"only_b"`
}

// Verdicts.
const (
	verdictExact     = "exact duplicate"
	verdictNear      = "near duplicate"
	verdictDifferent = "different"
)

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
		if recs[i], err = readOne(path, c.App.Reader, inOpts); err != nil {
			return err
		}
		if ans[i], err = a.Analyze(recs[i].Text); err != nil {
			return fmt.Errorf("%s: %w", recordName(&recs[i]), err)
		}
	}
	x, y := ans[0], ans[1]
	dist := x.Fingerprint.Distance(y.Fingerprint)
	content := x.Sketch.Jaccard(y.Sketch)
	exact := x.ContentHash == y.ContentHash
	if exact {
		content = 1
	}
	verdict, why := verdictDifferent, ""
	switch {
	case exact:
		verdict = verdictExact
		why = "the normalised texts are identical"
	case content >= minJ && dist <= k:
		verdict = verdictNear
		why = fmt.Sprintf("content similarity %.2f ≥ %.2f; fingerprints %d ≤ %d bits apart", content, minJ, dist, k)
	case content >= minJ:
		verdict = verdictNear
		why = fmt.Sprintf("content similarity %.2f ≥ %.2f; fingerprints %d > %d bits apart, so an index finds it by its content bands", content, minJ, dist, k)
	case dist <= k:
		why = fmt.Sprintf("fingerprints %d ≤ %d bits apart, but content similarity %.2f < %.2f", dist, k, content, minJ)
	default:
		why = fmt.Sprintf("content similarity %.2f < %.2f; fingerprints %d > %d bits apart", content, minJ, dist, k)
	}
	e := tfidf.Explain(x.Keywords, y.Keywords)
	w := c.App.Writer
	if c.Bool("json") {
		j := compareJSON{
			Analyzer: a.ID(), Distance: dist, Similarity: x.Fingerprint.Similarity(y.Fingerprint), Content: content, Exact: exact,
			MaxDistance: k, MinContent: minJ, Verdict: verdict,
			Shared: []sharedJSON{}, OnlyA: keywordsJSON(e.OnlyA), OnlyB: keywordsJSON(e.OnlyB),
		}
		sides := [2]*compareSide{&j.A, &j.B}
		for i, s := range sides {
			*s = compareSide{ID: recs[i].ID, Title: recs[i].Title, Source: recs[i].Source, Fingerprint: ans[i].Fingerprint.String(),
				ContentHash: hex16(ans[i].ContentHash), Keywords: len(ans[i].Keywords)}
		}
		for _, s := range e.Shared {
			j.Shared = append(j.Shared, sharedJSON{Word: s.Word, WeightA: s.WeightA, WeightB: s.WeightB})
		}
		return writeJSON(w, j)
	}
	n := c.Int("keywords")
	var b strings.Builder
	for i, name := range []string{"A", "B"} {
		fmt.Fprintf(&b, "%-19s %s  %s (%d keywords)", name, ans[i].Fingerprint, quoteID(recs[i].ID), len(ans[i].Keywords))
		if recs[i].Title != "" {
			fmt.Fprintf(&b, "  %q", recs[i].Title)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%-19s %d of 64 bits\n", "distance", dist)
	fmt.Fprintf(&b, "%-19s %.3f\n", "similarity", x.Fingerprint.Similarity(y.Fingerprint))
	fmt.Fprintf(&b, "%-19s %.3f (estimated Jaccard of character 5-grams)\n", "content similarity", content)
	fmt.Fprintf(&b, "%-19s %s: %s\n", "verdict", verdict, why)
	shared := make([]string, len(e.Shared))
	for i, s := range e.Shared {
		shared[i] = fmt.Sprintf("%s %.2f/%.2f", s.Word, s.WeightA, s.WeightB)
	}
	countedList(&b, "shared keywords", len(e.Shared), wordList(shared, n))
	countedList(&b, "only in A", len(e.OnlyA), keywordList(e.OnlyA, n))
	countedList(&b, "only in B", len(e.OnlyB), keywordList(e.OnlyB, n))
	_, err = io.WriteString(w, b.String())
	return err
}

// countedList writes "label  N: list", or "label  0".
func countedList(b *strings.Builder, label string, n int, list string) {
	if n == 0 {
		fmt.Fprintf(b, "%-19s 0\n", label)
		return
	}
	fmt.Fprintf(b, "%-19s %d: %s\n", label, n, list)
}

// keywordList formats keywords as "word 1.23, word 0.98, … (N more)".
func keywordList(ks []tfidf.Keyword, n int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = fmt.Sprintf("%s %.2f", k.Word, k.Weight)
	}
	return wordList(s, n)
}

// readOne reads the single article of path ("-": stdin).
func readOne(path string, stdin io.Reader, opts *input.Options) (input.Record, error) {
	r := input.NewReader([]string{path}, stdin, opts)
	defer r.Close()
	rec, err := r.Next()
	if err == io.EOF {
		return rec, fmt.Errorf("%s: no article", path)
	}
	if err != nil {
		return rec, err
	}
	if _, err := r.Next(); err != io.EOF {
		return rec, fmt.Errorf("%s: holds more than one article; compare needs one in each argument", path)
	}
	return rec, nil
}
