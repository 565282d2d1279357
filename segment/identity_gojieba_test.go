//go:build gojieba && cgo

package segment

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup/dict"
	"github.com/neardup/neardup/internal/testfixtures/corpora"
)

// sharedCorpora returns the paths of every article corpus of the shared
// corpora (NAME.jsonl.gz, not the pairs), or skips (fails in CI).
func sharedCorpora(t *testing.T) []string {
	t.Helper()
	dir := corpora.Require(t, "zh_news.jsonl.gz", "en_reuters.jsonl.gz")
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return strings.HasSuffix(p, ".pairs.jsonl.gz") })
	if len(paths) == 0 {
		t.Fatalf("no corpora in %s", dir)
	}
	return paths
}

// readArticles returns the texts of the articles of a shared corpus.
func readArticles(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []string
	for n := 1; sc.Scan(); n++ {
		var doc struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, doc.Text)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// identity counts one identity check's comparisons.
type identity struct {
	texts, tokens, diffs atomic.Int64
	mu                   sync.Mutex
	examples             []string
}

// compare counts one text's tokens from both cutters, and keeps the first
// few differences.
func (id *identity) compare(what, text string, got, want []string) {
	id.texts.Add(1)
	id.tokens.Add(int64(len(want)))
	if slices.Equal(got, want) {
		return
	}
	id.diffs.Add(1)
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	if len(id.examples) < 10 {
		lo := max(0, i-3)
		id.examples = append(id.examples, fmt.Sprintf("%s: token %d: jieba %q, gojieba %q (text %.80q)",
			what, i, got[lo:min(len(got), i+4)], want[lo:min(len(want), i+4)], text))
	}
}

func (id *identity) report(t *testing.T, name string) {
	t.Helper()
	t.Logf("%s: %d texts, %d tokens compared, %d texts differ", name, id.texts.Load(), id.tokens.Load(), id.diffs.Load())
	for _, e := range id.examples {
		t.Error(e)
	}
	if id.diffs.Load() != 0 {
		t.Errorf("%s: %d texts cut differently", name, id.diffs.Load())
	}
}

// each runs f on every text from two goroutines.
func each(texts []string, f func(text string)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(texts)); i = next.Add(1) - 1 {
				f(texts[i])
			}
		}()
	}
	wg.Wait()
}

// cutRaw cuts text with the mixed segmentation alone, as
// ExtractWithWeight does, into words.
func (j *Jieba) cutRaw(text string) []string {
	s := j.scratch()
	defer j.pool.Put(s)
	j.cutSentence(s, text)
	out := make([]string, len(s.spans))
	for i, sp := range s.spans {
		out[i] = text[s.offs[sp.lo]:s.offs[sp.hi]]
	}
	return out
}

// TestJiebaIdentity is the check that makes Jieba the jieba backend: on
// every article of every shared corpus (both languages), it cuts as
// gojieba cuts:
//
//   - "norm": the normalised text, as the analyzer cuts it (Cut);
//   - "fold": the normalised text folded to simplified Chinese, when that
//     changes it (what the default analyzer cuts);
//   - "raw": the text as it is, with the mixed segmentation alone (no run
//     splitting: spaces, punctuation, Latin letters and digits go through
//     cppjieba's rules), as compat mode's keyword extractor cuts it;
//   - "keywords": ExtractWithWeight(text, 20), words and weights;
//   - the same four on the traditional versions (opencc s2twp) of the
//     first 1,000 articles of zh_news and of zh_docs.
func TestJiebaIdentity(t *testing.T) {
	if testing.Short() {
		t.Skip("cuts every shared corpus with both backends (minutes)")
	}
	j, err := newJieba()
	if err != nil {
		t.Fatal(err)
	}
	g, err := testGojieba()
	if err != nil {
		t.Fatal(err)
	}
	fold, err := NewTradFold()
	if err != nil {
		t.Fatal(err)
	}
	var norm, folded, raw, kw identity
	check := func(text string) {
		n := Normalize(text)
		norm.compare("norm", n, j.Cut(n), g.Cut(n))
		if f, err := fold.Fold(n); err != nil {
			t.Error(err)
		} else if f != n {
			folded.compare("fold", f, j.Cut(f), g.Cut(f))
		}
		if strings.IndexByte(text, 0) < 0 {
			raw.compare("raw", text, j.cutRaw(text), g.x.Cut(text, true))
		}
		gw, gwt := g.ExtractWithWeight(text, 20)
		jw, jwt := j.ExtractWithWeight(text, 20)
		ws := func(w []string, wt []float64) []string {
			out := make([]string, len(w))
			for i := range w {
				out[i] = w[i] + ":" + strconv.FormatFloat(wt[i], 'g', -1, 64)
			}
			return out
		}
		kw.compare("keywords", text, ws(jw, jwt), ws(gw, gwt))
	}
	total := 0
	for _, path := range sharedCorpora(t) {
		texts := readArticles(t, path)
		total += len(texts)
		each(texts, check)
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl.gz")
		if strings.HasPrefix(name, "zh_news") || strings.HasPrefix(name, "zh_docs") {
			trad := corpora.OpenCC(t, "s2twp", texts[:min(len(texts), 1000)])
			total += len(trad)
			each(trad, check)
		}
	}
	t.Logf("%d articles (traditional versions included)", total)
	norm.report(t, "norm")
	folded.report(t, "fold")
	raw.report(t, "raw")
	kw.report(t, "keywords")
}

// identityUserDict has every kind of user word: with and without a
// frequency, overriding a dictionary word's frequency, one character (kept
// from the HMM), and frequencies whose weight glibc's log does not round
// correctly (4470, 33826).
const identityUserDict = `清华 100000000 nt
韩玉鉴赏 nz
云计算
杭研
的确 1 d
中国 3 ns
新闻 4470 n
记者 33826 n
了
杭
区块链 5
北京大学生 20000 n
`

// TestJiebaIdentityUserDict compares the cuts of the normalised articles
// of zh_news with a user dictionary.
func TestJiebaIdentityUserDict(t *testing.T) {
	if testing.Short() {
		t.Skip("cuts zh_news with both backends")
	}
	path := filepath.Join(t.TempDir(), "user.txt")
	if err := os.WriteFile(path, []byte(identityUserDict), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := NewJieba(&Options{UserDict: path, CutOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGojieba(&Options{UserDict: path, CacheDir: jiebaCache(), CutOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	dir := corpora.Require(t, "zh_news.jsonl.gz")
	texts := readArticles(t, filepath.Join(dir, "zh_news.jsonl.gz"))
	var id identity
	each(texts, func(text string) {
		n := Normalize(text)
		id.compare("user dict", n, j.Cut(n), g.Cut(n))
	})
	id.report(t, "user dictionary, zh_news")
}

// Jieba's and gojieba's test goldens and user dictionary cases agree.
func TestJiebaGojiebaSmall(t *testing.T) {
	j, err := newJieba()
	if err != nil {
		t.Fatal(err)
	}
	g, err := testGojieba()
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range goldenTexts {
		n := Normalize(text)
		if a, b := j.Cut(n), g.Cut(n); !slices.Equal(a, b) {
			t.Errorf("Cut(%q): jieba %q, gojieba %q", n, a, b)
		}
	}
	for _, text := range []string{"我来到北京清华大学", "他来到了网易杭研大厦", "出任CEO，迎娶白富美。", "iPhone16 售价 3.14万 abc", "a\tb\nc"} {
		if a, b := j.cutRaw(text), g.x.Cut(text, true); !slices.Equal(a, b) {
			t.Errorf("raw cut of %q: jieba %q, gojieba %q", text, a, b)
		}
	}
}

// crLog gives the C library's log for every frequency of the dictionary.
// Over the frequencies 1 to 200,000 a user dictionary might give, it
// reports those where glibc's log (0.52 ulp) is not correctly rounded.
func TestLogMatchesLibm(t *testing.T) {
	sum := 0.0
	freqs := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(dict.JiebaDictText(), "\n"), "\n") {
		f, err := strconv.ParseFloat(strings.Fields(line)[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += f
		freqs[f] = true
	}
	for f := range freqs {
		if a, b := crLog(f/sum), libmLog(f/sum); a != b {
			t.Errorf("log(%v/%v): crLog %v, libm %v", f, sum, a, b)
		}
	}
	var off []string
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for f := 1; f <= n; f++ {
		x := float64(f) / sum
		if a, b := crLog(x), libmLog(x); a != b {
			if math.Abs(a-b) > math.Abs(math.Nextafter(a, 0)-a) {
				t.Errorf("log(%d/sum): crLog %v, libm %v: more than an ulp apart", f, a, b)
			}
			off = append(off, strconv.Itoa(f))
		}
	}
	t.Logf("%d distinct dictionary frequencies agree; of the frequencies 1 to %d, libm's log(f/sum) is one ulp from the correctly rounded value for %d: %s",
		len(freqs), n, len(off), strings.Join(off, " "))
}
