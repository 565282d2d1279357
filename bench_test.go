package neardup

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup/segment"
)

// corpusDir is where the shared corpora live: $NEARDUP_CORPORA, or
// shared/corpora next to the repository.
func corpusDir() string {
	if d := os.Getenv("NEARDUP_CORPORA"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "corpora")
}

// benchArticles returns the texts of the first n articles of a shared
// corpus and their total size, or skips when the corpus is absent.
func benchArticles(b *testing.B, name string, n int) ([]string, int64) {
	b.Helper()
	path := filepath.Join(corpusDir(), name+".jsonl.gz")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		b.Skipf("corpus %s not found", path)
	}
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
