package neardup

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neardup/neardup/internal/cputime"
	"github.com/neardup/neardup/internal/testfixtures/corpora"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/segment"
)

// benchArticles returns the texts of the first n articles of a shared
// corpus and their total size, or skips when the corpus is absent (see
// corpora.Require).
func benchArticles(b testing.TB, name string, n int) ([]string, int64) {
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
	var size int64
	for len(out) < n && sc.Scan() {
		var doc struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		out = append(out, doc.Text)
		size += int64(len(doc.Text))
	}
	return out, size
}

var benchCorpora = []struct{ name, corpus string }{
	{"zh", "zh_news"},
	{"en", "en_reuters"},
}

// BenchmarkPipeline measures, on the same 300 real articles per corpus
// and in the same run: the bare segmenter on normalised text ("segment"),
// the whole analysis ("analyze": normalise, segment, keywords, SimHash,
// content hash and sketch), and both again with one goroutine per core
// ("-parallel"). The post-segmentation cost is analyze/segment − 1.
// MB/s counts the articles' UTF-8 bytes.
func BenchmarkPipeline(b *testing.B) {
	for _, be := range segment.Backends() {
		a := testAnalyzer(b, be)
		for _, c := range benchCorpora {
			texts, size := benchArticles(b, c.corpus, 300)
			norm := make([]string, len(texts))
			for i, t := range texts {
				norm[i] = segment.Normalize(t)
			}
			seg := a.Segmenter()
			run := func(name string, f func(i int)) {
				b.Run(be+"/"+c.name+"/"+name, func(b *testing.B) {
					b.SetBytes(size)
					for n := 0; n < b.N; n++ {
						for i := range texts {
							f(i)
						}
					}
				})
				b.Run(be+"/"+c.name+"/"+name+"-parallel", func(b *testing.B) {
					b.SetBytes(size)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							for i := range texts {
								f(i)
							}
						}
					})
				})
			}
			run("segment", func(i int) { seg.Cut(norm[i]) })
			run("analyze", func(i int) { a.Analyze(texts[i]) })
		}
	}
}

// BenchmarkCorpusSegment normalises and segments every article of a whole
// shared corpus with GOMAXPROCS goroutines: the bare-segmentation
// baseline that bench/run.sh sets `neardup dedup` against (run it with
// -cpu 1,2 to match --workers 1 and 2).
func BenchmarkCorpusSegment(b *testing.B) {
	for _, c := range benchCorpora {
		b.Run(c.name, func(b *testing.B) {
			a := testAnalyzer(b, segment.DefaultBackend)
			texts, size := benchArticles(b, c.corpus, 1<<30)
			seg := a.Segmenter()
			b.SetBytes(size)
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				var next atomic.Int64
				var wg sync.WaitGroup
				for w := 0; w < runtime.GOMAXPROCS(0); w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := next.Add(1) - 1; i < int64(len(texts)); i = next.Add(1) - 1 {
							seg.Cut(segment.Normalize(texts[i]))
						}
					}()
				}
				wg.Wait()
			}
		})
	}
}

// BenchmarkInterleaved times, in turn within every iteration, the stages
// whose ratios the analysis is judged by, each over the same 300 articles:
// normalising, cutting the normalised text (as Analyze cuts it: with
// AppendCut into a slice reused, when the segmenter has it), the whole
// Analyze, and (with
// cgo) gosimhash-style extraction (gojieba's ExtractWithWeight, top 20,
// lookup3, SimHash), the sketches alone, and Analyze again with its cuts
// timed. Alternating them, rather than running one benchmark
// after another, keeps the drift of a shared machine out of the ratios;
// whole passes, rather than article by article, keep one stage from
// warming the caches for the next, and a garbage collection before each
// pass keeps one from paying for the garbage of the last. Every
// iteration gives one ratio of each kind, from stages timed within a
// second of each other; the benchmark reports the median over the
// iterations (run it with -benchtime 15x or more), so that a burst of
// load on the machine during a few passes does not move it:
//
//   - post-cut-%: the share of Analyze's time spent after cutting
//     (Analyze − normalise − cut)/Analyze: keywords, hashes, SimHash,
//     sketch;
//   - post-seg-%: the same with normalising counted as post-segmentation
//     work too, (Analyze − cut)/Analyze;
//   - post-cut-inside-%: post-cut-% with the cut timed where it runs,
//     inside Analyze (through a segmenter that times its calls), rather
//     than in a pass of its own: (Analyze − normalise − cut inside)/Analyze.
//     Cut and the rest alternate every article here, so a burst of load
//     moves both alike, where it can fall on one pass and not the other;
//   - cut-slowdown-%: how much longer the cut takes inside Analyze than
//     in its own pass, (cut inside − cut)/cut: the price of the caches
//     the work around it takes from cppjieba's dictionary (and of load
//     that fell on one pass only), which post-cut-% counts and
//     post-cut-inside-% does not;
//   - sketch-%: the time of a separate pass making the MinHash sketches
//     of the normalised texts, as a share of Analyze's (the sketch
//     serves content verification, not the fingerprint);
//   - keywords-%: post-cut-% without the sketch's share: keyword
//     extraction, hashing, SimHash and the content hash;
//   - x-gosimhash: gosimhash-style time / Analyze time (speed-up per core);
//   - MB/s of each stage, from its median pass;
//   - post-cut-cpu-% and x-gosimhash-cpu: post-cut-% and x-gosimhash
//     from the CPU time the process used in each stage (getrusage, on
//     Unix) rather than wall time, which leaves out the time the
//     machine's other tenants took from it but counts the garbage
//     collector's work on the other core.
func BenchmarkInterleaved(b *testing.B) {
	for _, be := range segment.Backends() {
		a := testAnalyzer(b, be)
		gosimhash := gosimhashFunc(b)
		for _, c := range benchCorpora {
			texts, size := benchArticles(b, c.corpus, 300)
			seg := a.Segmenter()
			// timed is a with its segmenter's calls timed.
			ts := &timedSegmenter{seg: seg}
			timed := &Analyzer{backend: a.backend, seg: ts, ex: a.ex, topN: a.topN}
			b.Run(be+"/"+c.name, func(b *testing.B) {
				var tNorm, tCut, tAnalyze, tGosimhash []float64
				var postCut, postSeg, xGosimhash, postCutCPU, xGosimhashCPU, sketch, keywords []float64
				var postCutInside, cutSlowdown []float64
				norm := make([]string, len(texts))
				// The cut as the analysis makes it: into a slice reused.
				var toks []string
				cut := func(dst []string, text string) []string { return append(dst, seg.Cut(text)...) }
				if c, ok := seg.(appendCutter); ok {
					cut = c.AppendCut
				}
				// stage times one pass, after a collection: every pass
				// starts from the same collected heap, and none runs while
				// the garbage of the one before it is being collected.
				stage := func(f func()) (wall float64, cpu time.Duration) {
					runtime.GC()
					c0, t0 := cputime.Self(), time.Now()
					f()
					return time.Since(t0).Seconds(), cputime.Self() - c0
				}
				analyze := func(a *Analyzer) func() {
					return func() {
						for _, text := range texts {
							if _, err := a.Analyze(text); err != nil && !errors.Is(err, ErrTooShort) {
								b.Fatal(err)
							}
						}
					}
				}
				for n := 0; n < b.N; n++ {
					dn, cn := stage(func() {
						for i, text := range texts {
							norm[i] = segment.Normalize(text)
						}
					})
					dc, cc := stage(func() {
						for _, text := range norm {
							toks = cut(toks[:0], text)
						}
					})
					da, ca := stage(analyze(a))
					var dg float64
					var cg time.Duration
					if gosimhash != nil && be == segment.BackendJieba {
						dg, cg = stage(func() {
							for _, text := range texts {
								gosimhash(text)
							}
						})
					}
					ds, _ := stage(func() {
						for _, text := range norm {
							minhash.New(text)
						}
					})
					ts.d = 0
					dt, _ := stage(analyze(timed))
					di := ts.d.Seconds()
					tNorm, tCut, tAnalyze, tGosimhash = append(tNorm, dn), append(tCut, dc), append(tAnalyze, da), append(tGosimhash, dg)
					postCut = append(postCut, 100*(da-dn-dc)/da)
					postCutInside = append(postCutInside, 100*(dt-dn-di)/dt)
					cutSlowdown = append(cutSlowdown, 100*(di-dc)/dc)
					keywords = append(keywords, 100*(da-dn-dc-ds)/da)
					sketch = append(sketch, 100*ds/da)
					postSeg = append(postSeg, 100*(da-dc)/da)
					xGosimhash = append(xGosimhash, dg/da)
					if ca > 0 {
						postCutCPU = append(postCutCPU, 100*float64(ca-cn-cc)/float64(ca))
						xGosimhashCPU = append(xGosimhashCPU, float64(cg)/float64(ca))
					}
				}
				mbs := func(d []float64) float64 { return float64(size) / median(d) / 1e6 }
				b.ReportMetric(median(postCut), "post-cut-%")
				b.ReportMetric(median(postCutInside), "post-cut-inside-%")
				b.ReportMetric(median(cutSlowdown), "cut-slowdown-%")
				b.ReportMetric(median(postSeg), "post-seg-%")
				b.ReportMetric(median(sketch), "sketch-%")
				b.ReportMetric(median(keywords), "keywords-%")
				b.ReportMetric(mbs(tNorm), "normalize-MB/s")
				b.ReportMetric(mbs(tCut), "cut-MB/s")
				b.ReportMetric(mbs(tAnalyze), "analyze-MB/s")
				if gosimhash != nil && be == segment.BackendJieba {
					b.ReportMetric(mbs(tGosimhash), "gosimhash-MB/s")
					b.ReportMetric(median(xGosimhash), "x-gosimhash")
				}
				if len(postCutCPU) > 0 {
					b.ReportMetric(median(postCutCPU), "post-cut-cpu-%")
					if be == segment.BackendJieba {
						b.ReportMetric(median(xGosimhashCPU), "x-gosimhash-cpu")
					}
				}
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// timedSegmenter adds up the time its segmenter's Cut takes. It is not
// safe for concurrent use.
type timedSegmenter struct {
	seg segment.Segmenter
	d   time.Duration
}

func (t *timedSegmenter) Cut(text string) []string {
	t0 := time.Now()
	words := t.seg.Cut(text)
	t.d += time.Since(t0)
	return words
}

// AppendCut is the segmenter's AppendCut, timed, when it has one (the
// analysis calls it rather than Cut then).
func (t *timedSegmenter) AppendCut(dst []string, text string) []string {
	c, ok := t.seg.(appendCutter)
	if !ok {
		return append(dst, t.Cut(text)...)
	}
	t0 := time.Now()
	dst = c.AppendCut(dst, text)
	t.d += time.Since(t0)
	return dst
}

// median returns the median of xs (the mean of the middle two for an
// even count), sorting xs.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
