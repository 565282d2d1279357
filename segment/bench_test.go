package segment

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/internal/cputime"
	"github.com/neardup/neardup/internal/testfixtures/corpora"
)

// articles returns the texts of the first n articles of a shared corpus,
// or skips the benchmark if the corpus is absent (see corpora.Require).
func articles(b *testing.B, name string, n int) []string {
	b.Helper()
	path := filepath.Join(corpora.Require(b, name+".jsonl.gz"), name+".jsonl.gz")
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []string
	for len(out) < n && sc.Scan() {
		var doc struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		out = append(out, doc.Text)
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

// benchCorpora are the benchmark inputs: the first 200 articles of a
// Chinese and an English news corpus.
var benchCorpora = []struct{ lang, corpus string }{{"zh", "zh_news"}, {"en", "en_reuters"}}

// newBackend builds a backend for a benchmark, skipping gojieba in builds
// without it.
func newBackend(b *testing.B, name string) Segmenter {
	b.Helper()
	seg, err := New(name, &Options{CacheDir: b.TempDir()})
	if errors.Is(err, ErrUnavailable) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	return seg
}

// BenchmarkCut measures Cut on normalised news articles; MB/s is of the
// normalised text. Every backend of the build is measured, gojieba too
// with -tags gojieba; "jieba-append" is jieba's AppendCut into a reused
// slice, which allocates nothing.
func BenchmarkCut(b *testing.B) {
	b.Run("jieba-append", func(b *testing.B) {
		j, err := NewJieba(&Options{CutOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		var dst []string
		cut := func(s string) []string { dst = j.AppendCut(dst[:0], s); return dst }
		for _, c := range benchCorpora {
			b.Run(c.lang, func(b *testing.B) { benchCutTexts(b, cut, articles(b, c.corpus, 200)) })
		}
	})
	for _, backend := range Backends() {
		b.Run(backend, func(b *testing.B) {
			seg := newBackend(b, backend)
			if c, ok := seg.(interface{ Close() error }); ok {
				defer c.Close()
			}
			for _, c := range benchCorpora {
				b.Run(c.lang, func(b *testing.B) {
					texts := articles(b, c.corpus, 200)
					benchCutTexts(b, seg.Cut, texts)
				})
			}
		})
	}
}

// benchCutTexts runs cut over the normalised texts once per iteration.
func benchCutTexts(b *testing.B, cut func(string) []string, texts []string) {
	b.Helper()
	n := 0
	norm := make([]string, len(texts))
	for i, t := range texts {
		norm[i] = Normalize(t)
		n += len(norm[i])
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	tokens, ops := 0, 0
	cpu0 := cputime.Self()
	for b.Loop() {
		tokens = 0
		for _, t := range norm {
			tokens += len(cut(t))
		}
		ops++
	}
	reportCPURate(b, cpu0, int64(n)*int64(ops))
	b.ReportMetric(float64(tokens), "tokens/op")
}

// reportCPURate reports bytes processed per second of process CPU time
// (all threads, GC included) since cpu0, as "cpu-MB/s": steadier than MB/s
// when other processes compete for the CPU.
func reportCPURate(b *testing.B, cpu0 time.Duration, bytes int64) {
	if d := cputime.Self() - cpu0; cpu0 > 0 && d > 0 {
		b.ReportMetric(float64(bytes)/1e6/d.Seconds(), "cpu-MB/s")
	}
}

func BenchmarkNormalize(b *testing.B) {
	for _, c := range benchCorpora {
		b.Run(c.lang, func(b *testing.B) {
			texts := articles(b, c.corpus, 200)
			n := 0
			for _, t := range texts {
				n += len(t)
			}
			b.SetBytes(int64(n))
			ops := 0
			cpu0 := cputime.Self()
			for b.Loop() {
				for _, t := range texts {
					Normalize(t)
				}
				ops++
			}
			reportCPURate(b, cpu0, int64(n)*int64(ops))
		})
	}
}

// BenchmarkNew measures the constructors (gojieba with its cache
// directory already written) and reports the process's resident set size after the
// last construction, with the segmenter still alive.
func BenchmarkNew(b *testing.B) {
	for _, backend := range Backends() {
		b.Run(backend, func(b *testing.B) {
			opts := &Options{CacheDir: b.TempDir()}
			// The first construction writes jieba's cache directory.
			seg, err := New(backend, opts)
			if errors.Is(err, ErrUnavailable) {
				b.Skip(err)
			} else if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if c, ok := seg.(interface{ Close() error }); ok {
					c.Close()
				}
				var err error
				if seg, err = New(backend, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			reportRSS(b)
			runtime.KeepAlive(seg)
		})
	}
}

// BenchmarkNewBoth constructs one segmenter of each available backend and
// reports the resident set size with both alive, and the wall time taken.
func BenchmarkNewBoth(b *testing.B) {
	for b.Loop() {
		start := time.Now()
		var segs []Segmenter
		for _, name := range Backends() {
			seg, err := New(name, &Options{CacheDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			segs = append(segs, seg)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s-construct")
		b.StopTimer()
		reportRSS(b)
		for _, s := range segs {
			if c, ok := s.(interface{ Close() error }); ok {
				c.Close()
			}
		}
		b.StartTimer()
	}
}

// reportRSS reports VmRSS from /proc/self/status (Linux), after a GC.
func reportRSS(b *testing.B) {
	runtime.GC()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err == nil {
				b.ReportMetric(float64(kb)/1024, "MB-rss")
			}
		}
	}
}
