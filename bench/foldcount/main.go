// Command foldcount analyses a fixed set of articles, for an instruction
// count of the analysis with and without the fold of traditional Chinese
// (neardup.Options.KeepTraditional) that does not depend on the load of
// the machine:
//
//	go build -o /tmp/foldcount ./bench/foldcount
//	for keep in false true; do
//	  GOGC=off GOMAXPROCS=1 valgrind --tool=callgrind --toggle-collect=main.analyzeAll \
//	    --callgrind-out-file=/tmp/cg.$keep /tmp/foldcount -keep=$keep -n 50 ../shared/corpora/zh_docs.jsonl.gz
//	done
//	callgrind_annotate /tmp/cg.false | head -30
//
// It reads the first -n articles (text field of JSONL, gzip or not),
// analyses each once untimed (so that the segmenter and, for a text with
// traditional characters, the fold's tables are loaded), then -reps times
// in analyzeAll, the only function callgrind counts with the toggle
// above. With -simplified it drops the articles that have a traditional
// character (segment.HasTradChar), so that the count is that of
// simplified text alone. It prints the articles, their bytes and a
// checksum of the fingerprints.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/segment"
)

func main() {
	flag.CommandLine = flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	n := flag.Int("n", 50, "articles to read")
	reps := flag.Int("reps", 1, "analyses of each article in analyzeAll")
	keep := flag.Bool("keep", false, "Options.KeepTraditional: analyse without the fold")
	simplified := flag.Bool("simplified", true, "leave out the articles with a traditional character")
	backend := flag.String("segmenter", "", "segmenter backend (default: "+segment.DefaultBackend+")")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: foldcount [flags] CORPUS.jsonl[.gz]")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *n, *reps, *keep, *simplified, *backend); err != nil {
		fmt.Fprintln(os.Stderr, "foldcount:", err)
		os.Exit(1)
	}
}

func run(path string, n, reps int, keep, simplified bool, backend string) error {
	texts, err := readTexts(path, n, simplified)
	if err != nil {
		return err
	}
	a, err := neardup.NewAnalyzer(&neardup.Options{Segmenter: backend, KeepTraditional: keep})
	if err != nil {
		return err
	}
	defer a.Close()
	var size int
	for _, t := range texts {
		size += len(t)
		if _, err := a.Analyze(t); err != nil && !errors.Is(err, neardup.ErrTooShort) {
			return err
		}
	}
	callgrindZero()
	sum := analyzeAll(a, texts, reps)
	callgrindDump()
	fmt.Printf("%d articles, %d bytes, keep %v, checksum %016x\n", len(texts), size, keep, sum)
	return nil
}

// analyzeAll analyses every text reps times and returns the XOR of their
// fingerprints.
//
//go:noinline
func analyzeAll(a *neardup.Analyzer, texts []string, reps int) uint64 {
	var sum uint64
	for range reps {
		for _, t := range texts {
			r, err := a.Analyze(t)
			if err == nil {
				sum ^= uint64(r.Fingerprint)
			}
		}
	}
	return sum
}

func readTexts(path string, n int, simplified bool) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	var out []string
	for len(out) < n && sc.Scan() {
		var d struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, err
		}
		if simplified && segment.HasTradChar(segment.Normalize(d.Text)) {
			continue
		}
		out = append(out, d.Text)
	}
	return out, sc.Err()
}
