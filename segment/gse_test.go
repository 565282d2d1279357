package segment

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// goldenTexts are the inputs of the golden tests, before Normalize.
var goldenTexts = map[string]string{
	"mixed":   "iPhone 16 Pro 发布会在北京举行，Apple CEO 说...",
	"zh":      "小明硕士毕业于中国科学院计算所，后在日本京都大学深造。",
	"zh2":     "他来到了网易杭研大厦",
	"en":      "The quick brown fox can't jump over 3.14 lazy dogs; e-mail: info@example.com",
	"fw":      "Ｗｉｎｄｏｗｓ　１１ 更新：微软（Microsoft）发布 KB5034441 补丁，修复 BitLocker 漏洞",
	"ja":      "東京タワーは高さ333メートル。서울 타워",
	"empty":   "",
	"symbols": " ,.!？…—— ",
}

// Tokens both backends agree on: everything but Han runs the dictionary
// alone cannot decide.
var commonGolden = map[string][]string{
	"mixed":   {"iphone", "16", "pro", "发布会", "在", "北京", "举行", "apple", "ceo", "说"},
	"zh2":     nil, // differs: see the backend goldens
	"en":      {"the", "quick", "brown", "fox", "can", "t", "jump", "over", "3", "14", "lazy", "dogs", "e", "mail", "info", "example", "com"},
	"fw":      {"windows", "11", "更新", "微软", "microsoft", "发布", "kb5034441", "补丁", "修复", "bitlocker", "漏洞"},
	"empty":   {},
	"symbols": {},
}

var gseGolden = map[string][]string{
	// No HMM: names outside the dictionary fall apart into characters.
	"zh":  {"小", "明", "硕士", "毕业", "于", "中国科学院", "计算所", "后", "在", "日本京都大学", "深造"},
	"zh2": {"他", "来到", "了", "网易", "杭", "研", "大厦"},
	"ja":  {"東", "京", "タワー", "は", "高", "さ", "333", "メートル", "서울", "타워"},
}

// newGse builds one gse segmenter for the whole test binary: construction
// takes about a second (several under -race).
var newGse = sync.OnceValues(func() (*Gse, error) { return NewGse(nil) })

func TestGseGolden(t *testing.T) {
	g, err := newGse()
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, g, gseGolden)
}

func checkGolden(t *testing.T, seg Segmenter, backend map[string][]string) {
	t.Helper()
	for name, text := range goldenTexts {
		want, ok := backend[name]
		if !ok {
			want, ok = commonGolden[name]
		}
		if !ok || want == nil {
			t.Fatalf("no golden for %q", name)
		}
		if got := seg.Cut(Normalize(text)); !slices.Equal(got, want) {
			t.Errorf("%s: Cut(%q) =\n%#v\nwant\n%#v", name, Normalize(text), got, want)
		}
	}
}

func TestGseUserDict(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "user.txt")
	// 杭研 is new; 韩玉鉴赏 and 云计算 are new without a frequency (they
	// get the median); 清华 is in the dictionary and gets a higher
	// frequency, so that 清华大学 is cut in two; Apple手机 is skipped.
	if err := os.WriteFile(path, []byte("杭研 1000 nz\n韩玉鉴赏\n云计算\n清华 100000000 nt\nApple手机 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := NewGse(&Options{UserDict: path})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want []string
	}{
		{"他来到了网易杭研大厦", []string{"他", "来到", "了", "网易", "杭研", "大厦"}},
		{"韩玉鉴赏了一幅画", []string{"韩玉鉴赏", "了", "一幅", "画"}},
		{"云计算和区块链", []string{"云计算", "和", "区块", "链"}},
		{"我来到北京清华大学", []string{"我", "来到", "北京", "清华", "大学"}},
	}
	for _, tt := range tests {
		if got := g.Cut(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Cut(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Without the user dictionary 清华大学 is one word.
	g0, err := newGse()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string][]string{
		"我来到北京清华大学": {"我", "来到", "北京", "清华大学"},
		"韩玉鉴赏了一幅画":  {"韩", "玉", "鉴赏", "了", "一幅", "画"},
		"云计算和区块链":   {"云", "计算", "和", "区块", "链"},
	} {
		if got := g0.Cut(in); !slices.Equal(got, want) {
			t.Errorf("without user dictionary: Cut(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGseConcurrent(t *testing.T) {
	g, err := newGse()
	if err != nil {
		t.Fatal(err)
	}
	checkConcurrent(t, g, concurrencyTexts())
}

func FuzzCutGse(f *testing.F) {
	for _, s := range goldenTexts {
		f.Add(s)
	}
	f.Add("北京\n上海")
	f.Add("\xff北京\x00a")
	g, err := newGse()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) { checkCut(t, g, s) })
}

// checkCut checks the invariants of Cut on any input (normalised or not):
// deterministic, no empty token, no token with white space or a newline.
func checkCut(t *testing.T, seg Segmenter, s string) {
	for _, in := range []string{s, Normalize(s)} {
		a, b := seg.Cut(in), seg.Cut(in)
		if !slices.Equal(a, b) {
			t.Fatalf("Cut(%q) not deterministic: %q then %q", in, a, b)
		}
		for _, tok := range a {
			if tok == "" || containsSpace(tok) {
				t.Fatalf("Cut(%q) returned token %q", in, tok)
			}
		}
	}
}

func containsSpace(s string) bool {
	for _, r := range s {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return true
		}
	}
	return false
}
