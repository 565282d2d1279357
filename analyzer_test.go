package neardup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup/segment"
)

// analyzers caches one default analyzer per backend: loading the
// dictionaries takes a second or two.
var analyzers sync.Map // backend → *Analyzer

func testAnalyzer(t testing.TB, backend string) *Analyzer {
	t.Helper()
	if a, ok := analyzers.Load(backend); ok {
		return a.(*Analyzer)
	}
	a, err := NewAnalyzer(&Options{Segmenter: backend})
	if err != nil {
		t.Fatalf("NewAnalyzer(%s): %v", backend, err)
	}
	actual, _ := analyzers.LoadOrStore(backend, a)
	return actual.(*Analyzer)
}

var goldenTexts = map[string]string{
	"zh":    "新华社北京10月30日电 武侠小说泰斗金庸（原名查良镛）30日在香港逝世，享年94岁。金庸先生的武侠小说影响了几代读者，《射雕英雄传》《天龙八部》《笑傲江湖》等作品被多次改编为影视剧。",
	"en":    "The Federal Reserve raised interest rates by a quarter point on Wednesday, citing strong employment figures and rising inflation. Analysts expect two more increases this year as the economy continues to grow.",
	"mixed": "Apple 在 iPhone 16 Pro 发布会上宣布，新款手机采用 A18 芯片，续航提升 20%。CEO Tim Cook 表示，Apple Intelligence 将在中国市场推出。",
}

// Both backends cut these texts the same way (same dictionary, no HMM
// new-word guesses involved), so one table serves both.
var golden = []struct {
	name        string
	fingerprint string
	contentHash uint64
	keywords    int
	top         string // the five heaviest, "word weight" with 4 decimals
}{
	{"zh", "3230bef29d4987d3", 0x56907e6de9e85942, 23, "金庸 18.9508, 武侠小说 18.3023, 查良镛 13.9007, 射雕 12.2912, 天龙八部 11.7035"},
	{"en", "dd19f7f86285ea8c", 0xc216ef1a0ff3197d, 20, "citing 7.4877, analysts 6.5714, wednesday 4.4432, inflation 3.9324, reserve 3.7864"},
	{"mixed", "d9efe5e9939c528f", 0x689e9c173314fc32, 19, "新款手机 13.9007, a18 11.7035, iphone 11.7035, 续航 9.6666, 芯片 9.0028"},
}

func TestAnalyzeGolden(t *testing.T) {
	for _, be := range segment.Backends() {
		a := testAnalyzer(t, be)
		for _, g := range golden {
			r, err := a.Analyze(goldenTexts[g.name])
			if err != nil {
				t.Fatalf("%s/%s: %v", be, g.name, err)
			}
			var top []string
			for _, k := range r.Keywords[:5] {
				top = append(top, fmt.Sprintf("%s %.4f", k.Word, k.Weight))
			}
			if got := r.Fingerprint.String(); got != g.fingerprint {
				t.Errorf("%s/%s: fingerprint %s, want %s", be, g.name, got, g.fingerprint)
			}
			if r.ContentHash != g.contentHash {
				t.Errorf("%s/%s: content hash %#x, want %#x", be, g.name, r.ContentHash, g.contentHash)
			}
			if len(r.Keywords) != g.keywords {
				t.Errorf("%s/%s: %d keywords, want %d", be, g.name, len(r.Keywords), g.keywords)
			}
			if got := strings.Join(top, ", "); got != g.top {
				t.Errorf("%s/%s: top keywords\n got %s\nwant %s", be, g.name, got, g.top)
			}
			if r.Sketch.IsZero() {
				t.Errorf("%s/%s: zero sketch", be, g.name)
			}
		}
	}
}

func TestAnalyzeNormalises(t *testing.T) {
	a := testAnalyzer(t, segment.DefaultBackend)
	base, err := a.Analyze(goldenTexts["mixed"])
	if err != nil {
		t.Fatal(err)
	}
	// Full-width letters and digits, upper case, a zero-width space and
	// extra white space change nothing.
	variant := strings.NewReplacer("Apple", "ＡＰＰＬＥ", "16", "１６", "芯片", "芯\u200b片", "，", " ，  ").Replace(goldenTexts["mixed"])
	r, err := a.Analyze(variant)
	if err != nil {
		t.Fatal(err)
	}
	if r.Fingerprint != base.Fingerprint {
		t.Errorf("variant fingerprint %s, want %s", r.Fingerprint, base.Fingerprint)
	}
}

func TestAnalyzeTooShort(t *testing.T) {
	a := testAnalyzer(t, segment.DefaultBackend)
	for _, tc := range []struct {
		text  string
		empty bool
	}{
		{"", true},
		{" \t\n\u200b\ufeff ", true},
		{"。。。！？——", false},
		{"你好吗", false},
		{"abc", false},
		{"的 了 是 在 the of and a to", false}, // stop words only
		{"123 456 7.89 2,000", false},      // numbers only
		{"北京 北京 北京 北京", false},             // one keyword
	} {
		r, err := a.Analyze(tc.text)
		if !errors.Is(err, ErrTooShort) {
			t.Errorf("Analyze(%q) = %v, %v; want ErrTooShort", tc.text, r, err)
		}
		if got := errors.Is(err, ErrEmpty); got != tc.empty {
			t.Errorf("Analyze(%q): errors.Is(err, ErrEmpty) = %v, want %v (%v)", tc.text, got, tc.empty, err)
		}
	}
}

// TestAnalyzerID checks that analyzers that may fingerprint a text
// differently have different IDs, in every build: the only options
// allowed to share an ID are those naming the same analyzer (nil and
// &Options{}, and the default backend named or not: gse in a pure-Go
// build, jieba with cgo).
func TestAnalyzerID(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	idf := file("idf.txt", "北京 3.5\n清华大学 9\n")
	stop := file("stop.txt", "的\nthe\n")
	userDict := file("user.dict", "清华北大 10 n\n")
	opts := map[string]*Options{
		"default":       nil,
		"default again": {},
		"topn 10":       {TopN: 10},
		"idf":           {IDFFile: idf},
		"stop words":    {StopWordsFile: stop},
		"user dict":     {UserDictFile: userDict},
	}
	if slices.Contains(segment.Backends(), segment.BackendJieba) {
		opts["compat 5"] = &Options{Compat: true, TopN: 5}
	}
	// The names of the options that make the same analyzer as another.
	same := map[string]string{"default again": "default", segment.DefaultBackend: "default"}
	if slices.Contains(segment.Backends(), segment.BackendGojieba) {
		same[segment.BackendGojieba] = "default" // it cuts as jieba does
	}

	ids := map[string]string{}
	for _, be := range segment.Backends() {
		ids[be] = testAnalyzer(t, be).ID() // {Segmenter: be}, loaded once for the package's tests
	}
	for name, o := range opts {
		a, err := NewAnalyzer(o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ids[name] = a.ID()
		a.Close()
	}
	for name, id := range ids {
		if !strings.HasPrefix(id, "nd2-") {
			t.Errorf("%s: ID %q lacks the format prefix", name, id)
		}
	}
	seen := map[string]string{}
	for name, id := range ids {
		if other, ok := same[name]; ok {
			if id != ids[other] {
				t.Errorf("%s and %s name the same analyzer, but their IDs differ: %s, %s", name, other, id, ids[other])
			}
			continue
		}
		if other, ok := seen[id]; ok {
			t.Errorf("%s and %s share ID %s", name, other, id)
		}
		seen[id] = name
	}
	if want := len(ids) - len(same); len(seen) != want {
		t.Errorf("%d distinct IDs, want %d: %v", len(seen), want, ids)
	}
}

func TestNewAnalyzerErrors(t *testing.T) {
	for _, tc := range []struct {
		opts *Options
		want string
	}{
		{&Options{Segmenter: "nope"}, "nope"},
		{&Options{IDFFile: "/does/not/exist"}, "/does/not/exist"},
		{&Options{StopWordsFile: "/does/not/exist"}, "/does/not/exist"},
		{&Options{TopN: -1}, "keyword count -1"},
		{&Options{Compat: true, Segmenter: "gse", TopN: 5}, "compat mode needs the jieba segmenter"},
		{&Options{Compat: true, Segmenter: "jieba"}, "compat mode needs a keyword count"},
	} {
		a, err := NewAnalyzer(tc.opts)
		if err == nil {
			a.Close()
			t.Errorf("NewAnalyzer(%+v): no error, want one containing %q", tc.opts, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewAnalyzer(%+v) = %v, want an error containing %q", tc.opts, err, tc.want)
		}
	}
}

// TestAnalyzeConcurrent runs one analyzer from many goroutines; with
// -race it proves the analyzer is safe for concurrent use.
func TestAnalyzeConcurrent(t *testing.T) {
	for _, be := range segment.Backends() {
		a := testAnalyzer(t, be)
		want := map[string]string{}
		for k, text := range goldenTexts {
			r, err := a.Analyze(text)
			if err != nil {
				t.Fatal(err)
			}
			want[k] = r.Fingerprint.String()
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 20; i++ {
					for k, text := range goldenTexts {
						r, err := a.Analyze(text)
						if err != nil {
							errs <- err
							return
						}
						if r.Fingerprint.String() != want[k] {
							errs <- fmt.Errorf("%s/%s: %s, want %s", be, k, r.Fingerprint, want[k])
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
}

// FuzzAnalyze checks that Analyze never panics, is deterministic, and
// either fingerprints a text or says it is too short.
func FuzzAnalyze(f *testing.F) {
	for _, text := range goldenTexts {
		f.Add(text)
	}
	f.Add("")
	f.Add("\xff\xfe invalid \xc3")
	f.Add("ｆｕｌｌ ｗｉｄｔｈ　全角")
	a := testAnalyzer(f, segment.DefaultBackend)
	f.Fuzz(func(t *testing.T, text string) {
		r1, err1 := a.Analyze(text)
		r2, err2 := a.Analyze(text)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("nondeterministic errors: %v, %v", err1, err2)
		}
		if err1 != nil {
			if !errors.Is(err1, ErrTooShort) {
				t.Fatalf("unexpected error %v", err1)
			}
			return
		}
		if r1.Fingerprint != r2.Fingerprint || r1.ContentHash != r2.ContentHash || r1.Sketch != r2.Sketch {
			t.Fatalf("nondeterministic analysis of %q", text)
		}
		if len(r1.Keywords) < MinKeywords {
			t.Fatalf("%d keywords, below MinKeywords", len(r1.Keywords))
		}
	})
}

func ExampleAnalyzer_Analyze() {
	a, err := NewAnalyzer(nil) // embedded dictionaries, default segmenter
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	r, err := a.Analyze("The Federal Reserve raised interest rates by a quarter point on Wednesday, citing strong employment figures and rising inflation.")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Fingerprint)
	for _, k := range r.Keywords[:3] {
		fmt.Printf("%s %.2f\n", k.Word, k.Weight)
	}
	// Output:
	// ef50f5982605aa1c
	// citing 7.49
	// wednesday 4.44
	// inflation 3.93
}

func TestAnalyzeAfterClose(t *testing.T) {
	a, err := NewAnalyzer(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := a.Analyze(goldenTexts["en"]); !errors.Is(err, ErrClosed) {
		t.Errorf("Analyze after Close: %v, want ErrClosed", err)
	}
}

// The IDs of analyzers that keep traditional Chinese are those of neardup
// before the fold (as in the scenario goldens of then), so that an index
// built then is still answered with Options.KeepTraditional; the default
// analyzer folds and says so in its ID.
func TestAnalyzerIDFold(t *testing.T) {
	before := map[string]string{
		"jieba":   "nd2-jieba-d0abb3b4a2248fa2",
		"gse":     "nd2-gse-b23d783dec445675",
		"gojieba": "nd2-jieba-d0abb3b4a2248fa2", // cuts as jieba: its ID
	}
	for _, be := range segment.Backends() {
		keep, err := NewAnalyzer(&Options{Segmenter: be, KeepTraditional: true})
		if err != nil {
			t.Fatal(err)
		}
		keep.Close()
		if keep.ID() != before[be] || keep.Folds() {
			t.Errorf("%s, KeepTraditional: ID %s (folds %v), want %s as before the fold", be, keep.ID(), keep.Folds(), before[be])
		}
		a := testAnalyzer(t, be)
		idBackend := be
		if be == segment.BackendGojieba {
			idBackend = segment.BackendJieba
		}
		if want := "nd2-" + idBackend + FoldSuffix + "-"; !strings.HasPrefix(a.ID(), want) || !a.Folds() {
			t.Errorf("%s: ID %s (folds %v), want the prefix %s", be, a.ID(), a.Folds(), want)
		}
	}
}

// A traditional copy of a simplified text (made by Debian's opencc 1.1.6
// with s2t.json, s2tw.json, s2hk.json and s2twp.json, whose Taiwan
// phrasing 发布会 → 釋出會 and 芯片 → 晶片 is folded back) is analysed as
// the original: same keywords, fingerprint and content hash.
func TestAnalyzeTraditional(t *testing.T) {
	traditional := map[string][]string{
		"zh": {
			"新華社北京10月30日電 武俠小說泰斗金庸（原名查良鏞）30日在香港逝世，享年94歲。金庸先生的武俠小說影響了幾代讀者，《射鵰英雄傳》《天龍八部》《笑傲江湖》等作品被多次改編爲影視劇。",
			"新華社北京10月30日電 武俠小說泰斗金庸（原名查良鏞）30日在香港逝世，享年94歲。金庸先生的武俠小說影響了幾代讀者，《射鵰英雄傳》《天龍八部》《笑傲江湖》等作品被多次改編為影視劇。",
			"新華社北京10月30日電 武俠小説泰斗金庸（原名查良鏞）30日在香港逝世，享年94歲。金庸先生的武俠小説影響了幾代讀者，《射鵰英雄傳》《天龍八部》《笑傲江湖》等作品被多次改編為影視劇。",
		},
		"mixed": {
			"Apple 在 iPhone 16 Pro 發佈會上宣佈，新款手機採用 A18 芯片，續航提升 20%。CEO Tim Cook 表示，Apple Intelligence 將在中國市場推出。",
			"Apple 在 iPhone 16 Pro 釋出會上宣佈，新款手機採用 A18 晶片，續航提升 20%。CEO Tim Cook 表示，Apple Intelligence 將在中國市場推出。",
		},
	}
	for _, be := range segment.Backends() {
		a := testAnalyzer(t, be)
		for name, texts := range traditional {
			want, err := a.Analyze(goldenTexts[name])
			if err != nil {
				t.Fatal(err)
			}
			if want.Folded {
				t.Errorf("%s/%s: the simplified text was folded", be, name)
			}
			for i, text := range texts {
				r, err := a.Analyze(text)
				if err != nil {
					t.Fatal(err)
				}
				if r.Fingerprint != want.Fingerprint || r.ContentHash != want.ContentHash || !r.Folded ||
					fmt.Sprint(r.Keywords) != fmt.Sprint(want.Keywords) {
					t.Errorf("%s/%s copy %d: fingerprint %s, content %#x, folded %v, keywords %v; want %s, %#x, true, %v",
						be, name, i, r.Fingerprint, r.ContentHash, r.Folded, r.Keywords[:5], want.Fingerprint, want.ContentHash, want.Keywords[:5])
				}
			}
		}
		// Without the fold nothing of the traditional copy is the same.
		keep, err := NewAnalyzer(&Options{Segmenter: be, KeepTraditional: true})
		if err != nil {
			t.Fatal(err)
		}
		r, err := keep.Analyze(traditional["zh"][0])
		keep.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := a.Analyze(goldenTexts["zh"]); r.Folded || r.ContentHash == want.ContentHash {
			t.Errorf("%s, KeepTraditional: the traditional copy was folded", be)
		}
	}
}

// Analyze allocates what it returns and nothing per token: the
// normalised text (which the keywords are substrings of), the Analysis
// and its keywords; the tokens, the keyword counter and the sketch's
// shingle set come from the analyzer's pool.
func TestAnalyzeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers at random")
	}
	a := testAnalyzer(t, segment.DefaultBackend)
	for _, name := range []string{"zh", "en", "mixed"} {
		text := goldenTexts[name]
		if _, err := a.Analyze(text); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := testing.AllocsPerRun(50, func() { a.Analyze(text) }); n != 3 {
			t.Errorf("Analyze(%s): %v allocations, want 3", name, n)
		}
	}
}
