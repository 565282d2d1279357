// Shared-corpus quality tests: they measure the detector's quality on the shared real
// corpora (shared/corpora beside the repository, or $NEARDUP_CORPORA)
// against their reference pairs: character 5-gram Jaccard similarity
// computed without SimHash. They skip under -short, and when the corpora
// are absent, except in CI (CI=true) or when NEARDUP_CORPORA is set, where
// they fail.
//
// The tables are kept as golden files in testdata/shared, one per corpus
// (<corpus>.golden, made with the default analyzer, whose jieba backend
// cuts alike in every build, cgo or not), compared exactly so that any
// change of quality shows as a diff; run with -update to rewrite them.
// The corpora themselves are research-use only in part and are never
// copied here: the golden files hold counts and rates only.

package corpus_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/eval"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/testfixtures"
	sharedcorpora "github.com/neardup/neardup/internal/testfixtures/corpora"
	"github.com/neardup/neardup/segment"
)

// Quality the defaults must reach on the news corpora, on reference
// pairs with J >= 0.8 (duplicates) against J < 0.5 (distinct).
const (
	minPrecision = 0.98
	minRecall    = 0.95
)

// sweep are the MinContent values the golden files tabulate for the
// default detector.
var sweep = []float64{0.5, 0.6, 0.7, 0.8}

// compatTopN are the gosimhash keyword counts of the compatibility
// baselines (5 is yanyiwu/simhash's demo value).
var compatTopN = []int{5, 20}

// compatK is the distance of the compatibility baselines.
const compatK = 3

type corpusSpec struct {
	name string
	news bool // assert the quality thresholds
}

var corpora = []corpusSpec{
	{"zh_news", true},
	{"en_reuters", true},
	{"zh_docs", false},
	{"en_docs", false},
}

// corporaDir returns the directory of the shared corpora. When one is
// missing it skips, or fails in CI or when NEARDUP_CORPORA is set (the
// quality gates must not pass by not running).
func corporaDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("shared-corpus quality tests are long: skipped under -short")
	}
	var files []string
	for _, c := range corpora {
		files = append(files, c.name+".jsonl.gz", c.name+".pairs.jsonl.gz")
	}
	return sharedcorpora.Require(t, files...)
}

// suite analyses each corpus once per analyzer and shares the results
// between subtests.
type suite struct {
	dir     string
	corpora map[string]*eval.Corpus // analyzer key ("" for the default, or "compat N") + "/" + corpus
	took    map[string]time.Duration
}

// analyzer returns the analyzer of opts, shared with the package's other
// tests (testfixtures.Analyzers).
func (s *suite) analyzer(t *testing.T, key string, opts *neardup.Options) *neardup.Analyzer {
	t.Helper()
	a, err := testfixtures.Analyzers.Get(opts)
	if err != nil {
		t.Fatalf("analyzer %q: %v", key, err)
	}
	return a
}

func (s *suite) corpus(t *testing.T, key string, opts *neardup.Options, name string) *eval.Corpus {
	t.Helper()
	if c, ok := s.corpora[key+"/"+name]; ok {
		return c
	}
	a := s.analyzer(t, key, opts)
	start := time.Now()
	r := input.NewReader([]string{filepath.Join(s.dir, name+".jsonl.gz")}, nil, nil)
	defer r.Close()
	c, err := eval.AnalyzeCorpus(context.Background(), r, a, 0, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(c.Rejected) > 0 {
		t.Errorf("%s: %d records rejected, the first: %v", name, len(c.Rejected), c.Rejected[0])
	}
	s.took[key+"/"+name] = time.Since(start)
	s.corpora[key+"/"+name] = c
	return c
}

func TestSharedCorpora(t *testing.T) {
	dir := corporaDir(t)
	s := &suite{dir: dir, corpora: map[string]*eval.Corpus{}, took: map[string]time.Duration{}}
	haveJieba := slices.Contains(segment.Backends(), segment.BackendJieba)

	for _, spec := range corpora {
		t.Run(spec.name, func(t *testing.T) {
			labels, err := eval.ReadPairs(filepath.Join(dir, spec.name+".pairs.jsonl.gz"))
			if err != nil {
				t.Fatal(err)
			}
			if !labels.Reference {
				t.Fatalf("%s: pairs file is not in the jaccard_char5 reference format", spec.name)
			}
			c := s.corpus(t, "", nil, spec.name)
			start := time.Now()
			rep, err := eval.Evaluate(c, labels, newStore, &eval.Options{Sweep: sweep})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: analysis %v, evaluation %v", spec.name, s.took["/"+spec.name].Round(time.Millisecond),
				time.Since(start).Round(time.Millisecond))
			if rep.MissingPairs > 0 {
				t.Errorf("%d reference pairs name ids not in the corpus, e.g. %q", rep.MissingPairs, rep.MissingIDs)
			}

			var b strings.Builder
			fmt.Fprintf(&b, "%s, default analyzer (segmenter %s), default index\n\n", spec.name, segment.DefaultBackend)
			if err := rep.WriteTable(&b); err != nil {
				t.Fatal(err)
			}
			if haveJieba {
				b.WriteString("\ncompatibility baseline (gosimhash: cppjieba keywords, lookup3), SimHash alone\n")
				for _, n := range compatTopN {
					cc := s.corpus(t, fmt.Sprintf("compat %d", n), &neardup.Options{Compat: true, TopN: n}, spec.name)
					cr, err := eval.Evaluate(cc, labels, newStore, &eval.Options{MaxThreshold: compatK})
					if err != nil {
						t.Fatal(err)
					}
					x := cr.Thresholds[compatK].SimHash
					fmt.Fprintf(&b, "top-n %-3d k=%d: P %.4f  R %.4f  F1 %.4f  TP %d  FP %d  FN %d  (%d too short)\n",
						n, compatK, x.Precision, x.Recall, x.F1, x.TP, x.FP, x.FN, cr.TooShort)
				}
			}
			compareGolden(t, spec.name, b.String())

			if !spec.news {
				return
			}
			cur := rep.Current.Confusion
			if cur.Precision < minPrecision || cur.Recall < minRecall {
				var why strings.Builder
				fmt.Fprintf(&why, "%s at the defaults (%d blocks, k=%d, content >= %.2f): precision %.4f (want >= %.2f), recall %.4f (want >= %.2f)",
					spec.name, rep.Current.Blocks, rep.Current.MaxDistance, rep.Current.MinContent,
					cur.Precision, minPrecision, cur.Recall, minRecall)
				fmt.Fprintf(&why, "\n%d duplicates missed:", len(rep.Current.Missed))
				for _, d := range rep.Current.Missed {
					fmt.Fprintf(&why, "\n  %v", d)
				}
				fmt.Fprintf(&why, "\n%d distinct pairs matched:", len(rep.Current.False))
				for _, d := range rep.Current.False {
					fmt.Fprintf(&why, "\n  %v", d)
				}
				t.Error(why.String())
			}
		})
	}

	// The LibreOffice help pages of zh_docs are translations of those of
	// en_docs, under the same page ids: a Chinese page and its English
	// original must never match, nor should any Chinese and English pages.
	t.Run("zh_en_docs", func(t *testing.T) {
		zh := s.corpus(t, "", nil, "zh_docs")
		en := s.corpus(t, "", nil, "en_docs")
		m, err := memstore.Open(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		var docs []index.Doc
		for _, part := range []struct {
			name string
			c    *eval.Corpus
		}{{"zh_docs", zh}, {"en_docs", en}} {
			for _, d := range part.c.Docs {
				d.ID = part.name + "/" + d.ID
				docs = append(docs, d)
			}
		}
		if err := m.Add(context.Background(), docs...); err != nil {
			t.Fatal(err)
		}
		twins := 0
		zhPages := map[string]bool{}
		for _, d := range zh.Docs {
			if p, ok := pageID(d.ID); ok {
				zhPages[p] = true
			}
		}
		for _, d := range en.Docs {
			if p, ok := pageID(d.ID); ok && zhPages[p] {
				twins++
			}
		}
		if twins == 0 {
			t.Fatalf("only %d LibreOffice pages in both zh_docs and en_docs: page ids not recognised", twins)
		}
		var same, other []string
		for i := range docs {
			if !strings.HasPrefix(docs[i].ID, "zh_docs/") {
				continue
			}
			ms, err := m.Similar(context.Background(), &docs[i], index.DefaultMaxDistance)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range ms {
				if !strings.HasPrefix(x.ID, "en_docs/") {
					continue
				}
				pa, _ := pageID(strings.TrimPrefix(docs[i].ID, "zh_docs/"))
				pb, _ := pageID(strings.TrimPrefix(x.ID, "en_docs/"))
				desc := fmt.Sprintf("%s ~ %s: distance %d, content %.4f, exact %t", docs[i].ID, x.ID, x.Distance, x.Content, x.Exact)
				if pa != "" && pa == pb {
					same = append(same, desc)
				} else {
					other = append(other, desc)
				}
			}
		}
		t.Logf("%d LibreOffice pages in both languages; %d cross-language matches of twins, %d others", twins, len(same), len(other))
		if len(same) > 0 {
			t.Errorf("%d Chinese pages match their English originals:\n  %s", len(same), strings.Join(same, "\n  "))
		}
		if len(other) > 0 {
			t.Errorf("%d Chinese pages match English pages:\n  %s", len(other), strings.Join(other, "\n  "))
		}
	})
}

// pageID returns the language-neutral id of a LibreOffice help page:
// "lo-help-zh-CN/text/x" and "lo-help-en-US/text/x" are both "text/x".
func pageID(id string) (string, bool) {
	first, rest, ok := strings.Cut(id, "/")
	if !ok || !strings.HasPrefix(first, "lo-help-") {
		return "", false
	}
	return rest, true
}

// compareGolden compares got with testdata/shared/<name>.golden, or
// rewrites it under -update.
func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "shared", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no golden file %s: run 'go test ./corpus_test -run %s -update' to create it\n%s", path, t.Name(), got)
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the measured quality (run with -update to accept):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines that differ, "-" wanted and "+" got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var x, y string
		if i < len(w) {
			x = w[i]
		}
		if i < len(g) {
			y = g[i]
		}
		if x != y {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, x, y)
		}
	}
	return b.String()
}

// newStore is the store of eval's detector archive: memory.
func newStore() index.Store { return memstore.New() }
