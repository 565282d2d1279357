// Command anadigest prints a digest of the analysis of every article of
// the given corpora, by the default analyzer and by the compat analyzer
// (top 20), so that a change to the analysis can be shown to leave every
// output as it was:
//
//	go run ./bench/anadigest ../shared/corpora/*.jsonl.gz > /tmp/after.txt
//	git stash; go run ./bench/anadigest ../shared/corpora/*.jsonl.gz > /tmp/before.txt
//	cmp /tmp/before.txt /tmp/after.txt
//
// Files whose name ends in .pairs.jsonl.gz are skipped (the corpora's
// reference pairs, not articles). A line a text and analyzer:
//
//	CORPUS LINE MODE ID DIGEST
//
// MODE is 0 for the default analyzer and 1 for compat, ID the
// article's id field, DIGEST the first 12 bytes of SHA-256 over
// everything Analyze returns: the error's text, or the fingerprint,
// each keyword (its bytes and its weight's bits), the content hash, both
// sketches, the shingle and word counts and Folded. The last line is
// the digest of all the lines before it. The articles are analysed by
// -workers goroutines; the output does not depend on how many.
package main

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/neardup/neardup"
)

func main() {
	flag.CommandLine = flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "goroutines analysing")
	topN := flag.Int("compat-topn", 20, "keyword count of the compat analyzer")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: anadigest [flags] CORPUS.jsonl[.gz]...")
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Args(), *workers, *topN); err != nil {
		fmt.Fprintln(os.Stderr, "anadigest:", err)
		os.Exit(1)
	}
}

type article struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func run(w io.Writer, paths []string, workers, topN int) error {
	def, err := neardup.NewAnalyzer(nil)
	if err != nil {
		return err
	}
	defer def.Close()
	compat, err := neardup.NewAnalyzer(&neardup.Options{Compat: true, TopN: topN})
	if err != nil {
		return err
	}
	defer compat.Close()
	analyzers := []*neardup.Analyzer{def, compat}

	all := sha256.New()
	out := bufio.NewWriter(io.MultiWriter(w, all))
	for _, path := range paths {
		if strings.HasSuffix(path, ".pairs.jsonl.gz") {
			continue
		}
		arts, err := readArticles(path)
		if err != nil {
			return err
		}
		lines := make([]string, len(arts)*len(analyzers))
		var wg sync.WaitGroup
		next := make(chan int)
		for range max(1, workers) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					for m, a := range analyzers {
						lines[i*len(analyzers)+m] = fmt.Sprintf("%s %d %d %s %s\n", filepath.Base(path), i, m, arts[i].ID, digest(a, arts[i].Text))
					}
				}
			}()
		}
		for i := range arts {
			next <- i
		}
		close(next)
		wg.Wait()
		for _, l := range lines {
			out.WriteString(l)
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "all %x\n", all.Sum(nil))
	return err
}

// digest hashes everything a.Analyze returns for text.
func digest(a *neardup.Analyzer, text string) string {
	h := sha256.New()
	r, err := a.Analyze(text)
	if err != nil {
		fmt.Fprintf(h, "error %s", err)
		return hex.EncodeToString(h.Sum(nil)[:12])
	}
	var b []byte
	b = binary.LittleEndian.AppendUint64(b, uint64(r.Fingerprint))
	b = binary.LittleEndian.AppendUint64(b, r.ContentHash)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(r.Keywords)))
	for _, k := range r.Keywords {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(k.Word)))
		b = append(b, k.Word...)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(k.Weight))
	}
	b, _ = r.Sketch.AppendBinary(b)
	b, _ = r.Long.AppendBinary(b)
	b = binary.LittleEndian.AppendUint64(b, uint64(r.Shingles))
	b = binary.LittleEndian.AppendUint64(b, uint64(r.Words))
	if r.Folded {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func readArticles(path string) ([]article, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	var out []article
	for line := 1; sc.Scan(); line++ {
		var a article
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
