//go:build gojieba && cgo

package neardup

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup/internal/testfixtures/corpora"
	"github.com/neardup/neardup/segment"
)

// An analyzer with the gojieba backend has the ID of one with jieba.
func TestGojiebaAnalyzerID(t *testing.T) {
	for _, o := range []Options{{}, {KeepTraditional: true}, {Compat: true, TopN: 20}} {
		j := o
		j.Segmenter = segment.BackendJieba
		g := o
		g.Segmenter = segment.BackendGojieba
		aj, err := NewAnalyzer(&j)
		if err != nil {
			t.Fatal(err)
		}
		ag, err := NewAnalyzer(&g)
		if err != nil {
			t.Fatal(err)
		}
		if aj.ID() != ag.ID() {
			t.Errorf("%+v: jieba ID %s, gojieba ID %s", o, aj.ID(), ag.ID())
		}
		if ag.Backend() != segment.BackendGojieba {
			t.Errorf("Backend() = %q", ag.Backend())
		}
		aj.Close()
		ag.Close()
	}
}

// TestGojiebaAnalyzerIdentity analyses every article of every shared
// corpus with the default analyzer over jieba and over gojieba, and in
// compat mode (top 20) over each: the analyses (fingerprint, keywords and
// weights, content hash, sketches, word count, fold, error) are equal.
func TestGojiebaAnalyzerIdentity(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses every shared corpus four times (minutes)")
	}
	dir := corpora.Require(t, "zh_news.jsonl.gz", "en_reuters.jsonl.gz")
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return strings.HasSuffix(p, ".pairs.jsonl.gz") })
	pairs := []struct {
		name string
		o    Options
	}{{"default", Options{}}, {"compat", Options{Compat: true, TopN: 20}}}
	for _, p := range pairs {
		j, g := p.o, p.o
		j.Segmenter, g.Segmenter = segment.BackendJieba, segment.BackendGojieba
		aj, err := NewAnalyzer(&j)
		if err != nil {
			t.Fatal(err)
		}
		defer aj.Close()
		ag, err := NewAnalyzer(&g)
		if err != nil {
			t.Fatal(err)
		}
		defer ag.Close()
		var texts, fingerprints, diffs atomic.Int64
		var mu sync.Mutex
		var examples []string
		for _, path := range paths {
			articles, _ := benchArticles(t, strings.TrimSuffix(filepath.Base(path), ".jsonl.gz"), 1<<30)
			var next atomic.Int64
			var wg sync.WaitGroup
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := next.Add(1) - 1; i < int64(len(articles)); i = next.Add(1) - 1 {
						text := articles[i]
						rj, errj := aj.Analyze(text)
						rg, errg := ag.Analyze(text)
						texts.Add(1)
						same := fmt.Sprint(errj) == fmt.Sprint(errg) && reflect.DeepEqual(rj, rg)
						if errj == nil {
							fingerprints.Add(1)
						}
						if !same {
							diffs.Add(1)
							mu.Lock()
							if len(examples) < 10 {
								examples = append(examples, fmt.Sprintf("%s: %.60q: jieba %v %v, gojieba %v %v", p.name, text, rj, errj, rg, errg))
							}
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
		}
		t.Logf("%s analyzer %s: %d texts, %d fingerprints compared, %d analyses differ", p.name, aj.ID(), texts.Load(), fingerprints.Load(), diffs.Load())
		for _, e := range examples {
			t.Error(e)
		}
	}
}
