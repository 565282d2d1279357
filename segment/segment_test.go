package segment

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

type runT struct {
	S   string
	Han bool
}

func splitRuns(s string) []runT {
	var out []runT
	SplitRuns(s, func(run string, han bool) { out = append(out, runT{run, han}) })
	return out
}

func TestSplitRuns(t *testing.T) {
	tests := []struct {
		in   string
		want []runT
	}{
		{"", nil},
		{" ,.!", nil},
		{"iphone 16 pro", []runT{{"iphone", false}, {"16", false}, {"pro", false}}},
		{"iphone16发布会在北京举行,apple ceo说...", []runT{{"iphone16", false}, {"发布会在北京举行", true}, {"apple", false}, {"ceo", false}, {"说", true}}},
		{"3.14 don't e-mail info@example.com", []runT{{"3", false}, {"14", false}, {"don", false}, {"t", false}, {"e", false}, {"mail", false}, {"info", false}, {"example", false}, {"com", false}}},
		{"café naïve", []runT{{"café", false}, {"naïve", false}}},
		{"cafe\u0301 \u0301x", []runT{{"cafe\u0301", false}, {"\u0301x", false}}},
		{"москва αθηνα 서울타워", []runT{{"москва", false}, {"αθηνα", false}, {"서울타워", false}}},
		{"東京タワーは高さ333メートル", []runT{{"東京", true}, {"タワー", false}, {"は", false}, {"高", true}, {"さ", false}, {"333", false}, {"メートル", false}}},
		{"〇々年", []runT{{"〇々年", true}}},
		{"a_b a\ufffdb a\xffb", []runT{{"a", false}, {"b", false}, {"a", false}, {"b", false}, {"a", false}, {"b", false}}},
		{"x²½", []runT{{"x²½", false}}},
		{"hello👍world 中文🎉", []runT{{"hello", false}, {"world", false}, {"中文", true}}},
	}
	for _, tt := range tests {
		if got := splitRuns(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SplitRuns(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// cutRuns puts the backend's tokens for the joined Han runs back between the
// word runs, whatever the backend does with the "\n" separators.
func TestCutRuns(t *testing.T) {
	// perRune cuts every Han run into single runes, keeping "\n" tokens.
	perRune := func(s string) []string {
		var out []string
		for _, r := range s {
			out = append(out, string(r))
		}
		return out
	}
	// glued returns the joined string as one token, separators inside.
	glued := func(s string) []string { return []string{s} }
	var seen []string
	record := func(s string) []string { seen = append(seen, s); return perRune(s) }
	tests := []struct {
		in   string
		cut  func(string) []string
		want []string
	}{
		{"", perRune, []string{}},
		{"abc def", perRune, []string{"abc", "def"}},
		{"北京", perRune, []string{"北", "京"}},
		{"a北京b上海c", perRune, []string{"a", "北", "京", "b", "上", "海", "c"}},
		{"北京,上海 广州", glued, []string{"北京", "上海", "广州"}},
		{"x 北京 y 上海 z", glued, []string{"x", "北京", "y", "上海", "z"}},
		{"北京 y", func(string) []string { return nil }, []string{"y"}},
		{"北京 y 上海", func(string) []string { return []string{"", "北京\n", "", "上海"} }, []string{"北京", "y", "上海"}},
		// A backend that invents or loses separators.
		{"北京 y 上海 z", func(string) []string { return []string{"北京\n", "\n上海\n\n"} }, []string{"北京", "y", "上海", "z"}},
		{"北京 y 上海 z", func(string) []string { return []string{"北京", "上海"} }, []string{"北京", "上海", "y"}},
		// More runs than cutRuns keeps on the stack, with and without Han.
		{strings.Repeat("ab 北京 ", 40) + "cd", glued, slices.Concat(slices.Repeat([]string{"ab", "北京"}, 40), []string{"cd"})},
		{strings.Repeat("x1 ", 100), perRune, slices.Repeat([]string{"x1"}, 100)},
		{strings.Repeat("x ", 64), perRune, slices.Repeat([]string{"x"}, 64)},
		{strings.Repeat("x ", 65), perRune, slices.Repeat([]string{"x"}, 65)},
	}
	for _, tt := range tests {
		got := cutRuns(tt.in, tt.cut)
		if !slices.Equal(got, tt.want) {
			t.Errorf("cutRuns(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	cutRuns("a 北京 b, 上海。广州 c", record)
	if want := []string{"北京\n上海\n广州"}; !slices.Equal(seen, want) {
		t.Errorf("backend saw %q, want one call with %q", seen, want)
	}
	seen = nil
	cutRuns("only latin words", record)
	if seen != nil {
		t.Errorf("backend called for text without Han: %q", seen)
	}
}

func TestNewUnknownBackend(t *testing.T) {
	_, err := New("mecab", nil)
	if err == nil {
		t.Fatal("no error for an unknown backend")
	}
	want := `segment: unknown backend "mecab": valid backends are "", jieba, gse, gojieba (available in this build: ` + strings.Join(Backends(), ", ") + ")"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestBackends(t *testing.T) {
	b := Backends()
	if b[0] != DefaultBackend || !slices.Contains(b, BackendGse) {
		t.Errorf("Backends() = %q, DefaultBackend %q", b, DefaultBackend)
	}
	if gojiebaAvailable != slices.Contains(b, BackendGojieba) {
		t.Errorf("Backends() = %q but gojiebaAvailable = %v", b, gojiebaAvailable)
	}
}

func TestParseUserDict(t *testing.T) {
	got, err := parseUserDict("\uFEFF云计算\r\n\n韩玉鉴赏 3 nz\n蓝翔 nz\n区块链 12\nApple手机 5 n\niphone\n  \n中国科学院\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []userWord{
		{word: "云计算"},
		{word: "韩玉鉴赏", freq: 3, tag: "nz"},
		{word: "蓝翔", tag: "nz"},
		{word: "区块链", freq: 12},
		{word: "中国科学院"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("parseUserDict = %+v, want %+v", got, want)
	}
	if b := string(cppjiebaUserDict(want)); b != "云计算\n韩玉鉴赏 3 nz\n蓝翔\n区块链 12 x\n中国科学院\n" {
		t.Errorf("cppjieba rendering %q", b)
	}
	errTests := []struct{ in, want string }{
		{"a\nb c d e\n", `line 2: want "word [freq] [tag]", got 4 fields in "b c d e"`},
		{"云计算 many n\n", `line 1: frequency "many" of "云计算" is not an integer from 1 to 2147483647`},
		{"云计算 0 n\n", `line 1: frequency "0" of "云计算" is not an integer from 1 to 2147483647`},
		{"云计算 9999999999 n\n", `line 1: frequency "9999999999" of "云计算" is not an integer from 1 to 2147483647`},
		{"ok\n\xff\n", `line 2: not valid UTF-8`},
	}
	for _, tt := range errTests {
		if _, err := parseUserDict(tt.in); err == nil || err.Error() != tt.want {
			t.Errorf("parseUserDict(%q) error %v, want %q", tt.in, err, tt.want)
		}
	}
}

// Errors about the user dictionary name its path, for every backend.
func TestUserDictErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dict.txt")
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("云计算\n区块链 lots of words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, backend := range Backends() {
		_, err := New(backend, &Options{UserDict: missing, CacheDir: dir})
		if err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s, missing user dict: error %v, want one naming %s", backend, err, missing)
		}
		_, err = New(backend, &Options{UserDict: bad, CacheDir: dir})
		if want := "segment: user dictionary " + bad + `: line 2: want "word [freq] [tag]", got 4 fields in "区块链 lots of words"`; err == nil || err.Error() != want {
			t.Errorf("%s, bad user dict: error %v, want %q", backend, err, want)
		}
	}
}

// checkConcurrent cuts texts from 8 goroutines at once and compares every
// result with the sequential one.
func checkConcurrent(t *testing.T, seg Segmenter, texts []string) {
	t.Helper()
	want := make([][]string, len(texts))
	for i, s := range texts {
		want[i] = seg.Cut(s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 3; round++ {
				for k := range texts {
					i := (k + g) % len(texts)
					if got := seg.Cut(texts[i]); !slices.Equal(got, want[i]) {
						errs <- texts[i]
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("concurrent Cut(%q) differs from the sequential result", s)
	}
}

// concurrencyTexts are varied texts for the concurrency tests.
func concurrencyTexts() []string {
	base := []string{
		"iPhone 16 Pro 发布会在北京举行，Apple CEO 说...",
		"小明硕士毕业于中国科学院计算所，后在日本京都大学深造。",
		"他来到了网易杭研大厦",
		"The quick brown fox can't jump over 3.14 lazy dogs.",
		"Ｗｉｎｄｏｗｓ　１１ 更新：微软（Microsoft）发布 KB5034441 补丁，修复 BitLocker 漏洞",
	}
	var out []string
	for i, s := range base {
		out = append(out, Normalize(s), Normalize(strings.Repeat(s, i+2)))
	}
	return out
}

// splitRunsReference is SplitRuns without its shortcuts for ASCII and
// CJK ideographs: every character decoded and classified.
func splitRunsReference(text string) []runT {
	var out []runT
	kind, start := kindSep, 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		k := classify(r, size)
		if k == kindMark {
			if kind != kindSep {
				i += size
				continue
			}
			k = kindWord
			if r == prolongedSoundMark {
				k = kindKatakana
			}
		}
		if k != kind {
			if kind != kindSep {
				out = append(out, runT{text[start:i], kind == kindHan})
			}
			kind, start = k, i
		}
		i += size
	}
	if kind != kindSep {
		out = append(out, runT{text[start:], kind == kindHan})
	}
	return out
}

// SplitRuns's shortcuts agree with classify: every character of the
// Basic Multilingual Plane alone, between letters, between ideographs,
// and cut short.
func TestSplitRunsShortcuts(t *testing.T) {
	for r := rune(0); r < 0x10000; r++ {
		c := string(r)
		for _, text := range []string{c, "a" + c + "b", "中" + c + "文", c + c + " " + c, c[:len(c)-1], "中" + c[:len(c)-1]} {
			if got, want := splitRuns(text), splitRunsReference(text); !slices.Equal(got, want) {
				t.Fatalf("SplitRuns(%q) = %v, want %v", text, got, want)
			}
		}
	}
}

// FuzzSplitRuns: SplitRuns, with its loops for runs of ASCII and of CJK
// ideographs, gives the runs of splitRunsReference, which decodes and
// classifies every character.
func FuzzSplitRuns(f *testing.F) {
	for _, s := range []string{
		"iphone16 发布会在北京举行, apple ceo 说...", "café au lait ñ 北京 2024年", "タワーは ーa\u0301", "\u0301abc\xe4\xb8",
		"中文\xe4\xb8\xadx", "a  b\t\tc,,d", "", "中", "\xe4",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := splitRuns(text), splitRunsReference(text); !slices.Equal(got, want) {
			t.Fatalf("SplitRuns(%q) = %v, want %v", text, got, want)
		}
	})
}

// classifyCached's table gives classify's answer for every character,
// and an invalid byte is a separator.
func TestClassifyCached(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xd800 <= r && r <= 0xdfff {
			continue // not encodable
		}
		size := utf8.RuneLen(r)
		if got, want := classifyCached(r, size), classify(r, size); got != want {
			t.Fatalf("classifyCached(%U) = %d, classify says %d", r, got, want)
		}
	}
	if got := classifyCached(utf8.RuneError, 1); got != kindSep {
		t.Errorf("classifyCached of an invalid byte = %d, want kindSep", got)
	}
}
