// Command bbit measures how well b-bit confirmation sketches estimate
// Jaccard similarity: minhash.Long keeps 8 bits of each of its 256
// values; keeping 4 or 2 would halve or quarter it. For every reference
// pair of the shared corpora (NAME.pairs.jsonl.gz: the pairs with exact
// character 5-gram Jaccard >= 0.5) it sketches both normalised texts
// (segment.Normalize, minhash.NewAll), computes the exact Jaccard of
// their 5-rune shingle sets, and prints per width the mean absolute
// error of the estimate, the standard deviation of the error, and the
// pairs whose verdict at the default threshold (estimate >= 0.7)
// differs from the 8-bit sketch's, and those whose verdict differs from
// the exact Jaccard's (false accepts: estimate >= 0.7 > exact; false
// rejects: exact >= 0.7 > estimate).
//
//	bbit [-corpora ../shared/corpora]
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/segment"
)

func main() {
	dir := flag.String("corpora", "../shared/corpora", "directory of the shared corpora")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "bbit:", err)
		os.Exit(2)
	}
}

var widths = []uint{8, 6, 5, 4, 2}

type stat struct {
	n, flips    int
	fa, fr      int // verdicts unlike the exact Jaccard's: false accepts, false rejects
	sumAbs, sum float64
	sumSq       float64
}

func run(dir string) error {
	stats := make([]stat, len(widths))
	for _, name := range []string{"zh_news", "en_reuters", "zh_docs", "en_docs"} {
		want := map[string]bool{}
		type pair struct{ a, b string }
		var pairs []pair
		if err := eachLine(filepath.Join(dir, name+".pairs.jsonl.gz"), func(b []byte) error {
			var p struct{ A, B string }
			if err := json.Unmarshal(b, &p); err != nil {
				return err
			}
			want[p.A], want[p.B] = true, true
			pairs = append(pairs, pair{p.A, p.B})
			return nil
		}); err != nil {
			return err
		}
		type sk struct {
			long minhash.Long
			set  map[string]bool
		}
		docs := map[string]*sk{}
		if err := eachLine(filepath.Join(dir, name+".jsonl.gz"), func(b []byte) error {
			var r struct{ ID, Text string }
			if err := json.Unmarshal(b, &r); err != nil {
				return err
			}
			if !want[r.ID] {
				return nil
			}
			norm := segment.Normalize(r.Text)
			_, l, _ := minhash.NewAll(norm)
			docs[r.ID] = &sk{long: l, set: shingles(norm)}
			return nil
		}); err != nil {
			return err
		}
		for _, p := range pairs {
			a, b := docs[p.a], docs[p.b]
			if a == nil || b == nil {
				continue
			}
			exact := jaccard(a.set, b.set)
			base := estimate(&a.long, &b.long, 8) >= 0.7
			for i, w := range widths {
				e := estimate(&a.long, &b.long, w) - exact
				s := &stats[i]
				s.n++
				s.sum += e
				s.sumSq += e * e
				s.sumAbs += math.Abs(e)
				got := estimate(&a.long, &b.long, w) >= 0.7
				if got != base {
					s.flips++
				}
				switch {
				case got && exact < 0.7:
					s.fa++
				case !got && exact >= 0.7:
					s.fr++
				}
			}
		}
	}
	fmt.Printf("%-6s %6s %6s %10s %8s %14s %14s %14s\n", "bits", "bytes", "pairs", "mean|err|", "sd(err)", "unlike 8 bits", "false accepts", "false rejects")
	for i, w := range widths {
		s := stats[i]
		mean := s.sum / float64(s.n)
		sd := math.Sqrt(s.sumSq/float64(s.n) - mean*mean)
		fmt.Printf("%-6d %6d %6d %10.4f %8.4f %14d %14d %14d\n", w, minhash.LongSize*int(w)/8, s.n, s.sumAbs/float64(s.n), sd, s.flips, s.fa, s.fr)
	}
	return nil
}

// estimate is the Jaccard estimate of two Longs from the low w bits of
// their values, corrected for chance agreement (1/2^w).
func estimate(a, b *minhash.Long, w uint) float64 {
	mask := uint8(1<<w - 1)
	n := 0
	for i := range a {
		if a[i]&mask == b[i]&mask {
			n++
		}
	}
	f := float64(n) / minhash.LongSize
	c := 1 / float64(uint(1)<<w)
	return min(1, max(0, (f-c)/(1-c)))
}

func shingles(norm string) map[string]bool {
	rs := []rune(norm)
	m := make(map[string]bool, len(rs))
	for i := 0; i+minhash.ShingleRunes <= len(rs); i++ {
		m[string(rs[i:i+minhash.ShingleRunes])] = true
	}
	return m
}

func jaccard(a, b map[string]bool) float64 {
	in := 0
	for s := range a {
		if b[s] {
			in++
		}
	}
	return float64(in) / float64(len(a)+len(b)-in)
}

func eachLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}
