package segment

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

var jiebaGolden = map[string][]string{
	// HMM on: names outside the dictionary are found.
	"zh":  {"小明", "硕士", "毕业", "于", "中国科学院", "计算所", "后", "在", "日本京都大学", "深造"},
	"zh2": {"他", "来到", "了", "网易", "杭研", "大厦"},
	"ja":  {"東京", "タワー", "は", "高", "さ", "333", "メートル", "서울", "타워"},
}

// newJieba builds one Jieba for the whole test binary.
var newJieba = sync.OnceValues(func() (*Jieba, error) { return NewJieba(nil) })

func TestJiebaGolden(t *testing.T) {
	j, err := newJieba()
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, j, jiebaGolden)
}

// The mixed segmentation on its own, over whole sentences with
// separators, Latin letters and digits (cppjieba's HMM rules for ASCII),
// as ExtractWithWeight cuts them. Expected tokens are gojieba v1.4.7's
// Cut(s, true) of the same strings.
func TestJiebaCutSentence(t *testing.T) {
	j, err := newJieba()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want []string
	}{
		{"我来到北京清华大学", []string{"我", "来到", "北京", "清华大学"}},
		{"他来到了网易杭研大厦", []string{"他", "来到", "了", "网易", "杭研", "大厦"}},
		{"出任CEO，迎娶白富美。", []string{"出任", "CEO", "，", "迎娶", "白富", "美", "。"}},
		{"iPhone16 售价 3.14万 abc", []string{"iPhone16", " ", "售价", " ", "3.14", "万", " ", "abc"}},
		{"a\tb\nc", []string{"a", "\t", "b", "\n", "c"}},
		{"", nil},
	}
	for _, tt := range tests {
		s := j.scratch()
		j.cutSentence(s, tt.in)
		var got []string
		for _, sp := range s.spans {
			got = append(got, tt.in[s.offs[sp.lo]:s.offs[sp.hi]])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("cutSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJiebaExtractWithWeight(t *testing.T) {
	j, err := newJieba()
	if err != nil {
		t.Fatal(err)
	}
	// The example of yanyiwu/simhash's README, whose keywords are
	// ["CEO:11.7392", "蓝翔:11.7392", "白富美:11.7392", "升职:10.8562",
	// "加薪:10.6426"] with an older dictionary; these are gojieba
	// v1.4.7's, ties in its order.
	words, weights := j.ExtractWithWeight("我是蓝翔技工拖拉机学院手扶拖拉机专业的。不用多久，我就会升职加薪，当上总经理，出任CEO，迎娶白富美，走上人生巅峰。", 5)
	wantWords := []string{"白富", "CEO", "蓝翔", "升职", "加薪"}
	wantWeights := []float64{11.739204307083542, 11.739204307083542, 11.739204307083542, 10.8561552143, 10.642581114}
	if !slices.Equal(words, wantWords) || !slices.Equal(weights, wantWeights) {
		t.Errorf("ExtractWithWeight = %q %v, want %q %v", words, weights, wantWords, wantWeights)
	}
	if w, ww := j.ExtractWithWeight("北京", 0); w != nil || ww != nil {
		t.Errorf("n = 0 gave %q %v", w, ww)
	}
	// Invalid UTF-8 becomes U+FFFD, and the text ends at a NUL byte.
	words, _ = j.ExtractWithWeight("清华大学\xff北京大学\x00复旦大学", 5)
	if !slices.Equal(words, []string{"清华大学", "北京大学"}) {
		t.Errorf("ExtractWithWeight with invalid UTF-8 and NUL = %q", words)
	}
}

// partialSort orders equal weights as libstdc++'s std::partial_sort does;
// the expected orders were printed by a C++ program (g++ 12, libstdc++)
// calling std::partial_sort with KeywordExtractor's Compare on words "a",
// "b", … of these weights.
func TestPartialSort(t *testing.T) {
	kw := func(ws ...float64) []keyword {
		out := make([]keyword, len(ws))
		for i, w := range ws {
			out[i] = keyword{string(rune('a' + i)), w}
		}
		return out
	}
	tests := []struct {
		in   []keyword
		n    int
		want string
	}{
		{kw(1, 2, 3, 4, 5), 3, "edc"},
		{kw(1, 1, 1, 1, 1), 5, "debac"},
		{kw(1, 1, 1, 1, 1), 2, "ab"},
		{kw(2, 1, 2, 1, 2, 1, 2), 4, "eagc"},
		{kw(3, 3, 2, 3, 1, 3), 3, "dba"},
		{kw(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), 7, "debafcg"},
		{kw(5, 1, 5, 2, 5, 3, 5, 4, 5, 5), 6, "aegjic"},
	}
	for _, tt := range tests {
		a := slices.Clone(tt.in)
		partialSort(a, tt.n)
		got := ""
		for _, k := range a[:tt.n] {
			got += k.word
		}
		if got != tt.want {
			t.Errorf("partialSort(%v, %d) = %s, want %s", tt.in, tt.n, got, tt.want)
		}
	}
}

// A CutOnly Jieba cuts exactly as a full one and extracts nothing.
func TestJiebaCutOnly(t *testing.T) {
	full, err := newJieba()
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewJieba(&Options{CutOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, j, jiebaGolden)
	text := Normalize("我是蓝翔技工拖拉机学院手扶拖拉机专业的。不用多久，我就会升职加薪，当上总经理，出任CEO，迎娶白富美。")
	if a, b := j.Cut(text), full.Cut(text); !slices.Equal(a, b) {
		t.Errorf("CutOnly: Cut = %q, full Jieba %q", a, b)
	}
	if w, ww := j.ExtractWithWeight(text, 5); w != nil || ww != nil {
		t.Errorf("CutOnly: ExtractWithWeight = %q %v, want nothing", w, ww)
	}
}

// jiebaUserDictTests are cut without and with jiebaUserDictText.
const jiebaUserDictText = "清华 100000000 nt\n韩玉鉴赏 nz\n云计算\nApple手机 5\n"

var jiebaUserDictTests = []struct {
	in              string
	without, withUD []string
}{
	{"我来到北京清华大学", []string{"我", "来到", "北京", "清华大学"}, []string{"我", "来到", "北京", "清华", "大学"}},
	{"韩玉鉴赏了一幅画", []string{"韩玉", "鉴赏", "了", "一幅", "画"}, []string{"韩玉鉴赏", "了", "一幅", "画"}},
	{"云计算和区块链", []string{"云", "计算", "和", "区块", "链"}, []string{"云计算", "和", "区块", "链"}},
}

func TestJiebaUserDict(t *testing.T) {
	path := filepath.Join(t.TempDir(), "user.txt")
	if err := os.WriteFile(path, []byte(jiebaUserDictText), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := NewJieba(&Options{UserDict: path})
	if err != nil {
		t.Fatal(err)
	}
	j0, err := newJieba()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range jiebaUserDictTests {
		if got := j0.Cut(tt.in); !slices.Equal(got, tt.without) {
			t.Errorf("without user dictionary: Cut(%q) = %q, want %q", tt.in, got, tt.without)
		}
		if got := j.Cut(tt.in); !slices.Equal(got, tt.withUD) {
			t.Errorf("with user dictionary: Cut(%q) = %q, want %q", tt.in, got, tt.withUD)
		}
	}
}

// A one-character user word is kept whole where the HMM would otherwise
// join it to its neighbours (MixSegment's IsUserDictSingleChineseWord).
func TestJiebaUserSingle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "user.txt")
	if err := os.WriteFile(path, []byte("杭\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := NewJieba(&Options{UserDict: path})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"他", "来到", "了", "网易", "杭", "研", "大厦"}
	if got := j.Cut("他来到了网易杭研大厦"); !slices.Equal(got, want) {
		t.Errorf("Cut = %q, want %q", got, want)
	}
}

func TestJiebaConcurrent(t *testing.T) {
	j, err := newJieba()
	if err != nil {
		t.Fatal(err)
	}
	checkConcurrent(t, j, concurrencyTexts())
}

// AppendCut allocates nothing once its buffers have grown: not a string,
// not a slice, per token or per call.
func TestJiebaAppendCutAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers at random")
	}
	j, err := newJieba()
	if err != nil {
		t.Fatal(err)
	}
	text := Normalize("小明硕士毕业于中国科学院计算所，后在日本京都大学深造。他来到了网易杭研大厦 iPhone 16 Pro 发布会在北京举行")
	dst := j.AppendCut(nil, text)
	if len(dst) < 20 {
		t.Fatalf("AppendCut gave %d tokens: %q", len(dst), dst)
	}
	if n := testing.AllocsPerRun(100, func() { dst = j.AppendCut(dst[:0], text) }); n != 0 {
		t.Errorf("AppendCut: %v allocations a call, want 0", n)
	}
	if got := j.Cut(text); !slices.Equal(got, dst) {
		t.Errorf("Cut = %q, AppendCut %q", got, dst)
	}
}

func FuzzCutJieba(f *testing.F) {
	for _, s := range goldenTexts {
		f.Add(s)
	}
	f.Add("北京\n上海")
	f.Add("\xff北京\x00a")
	j, err := newJieba()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCut(t, j, s)
		// ExtractWithWeight's keywords are words of the text.
		words, weights := j.ExtractWithWeight(s, 5)
		if len(words) != len(weights) || len(words) > 5 {
			t.Fatalf("ExtractWithWeight: %d words, %d weights", len(words), len(weights))
		}
	})
}
