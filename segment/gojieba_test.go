//go:build gojieba && cgo

package segment

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// jiebaCache is a cache directory shared by the tests of this binary.
var jiebaCache = sync.OnceValue(func() string {
	dir, err := os.MkdirTemp("", "segment-test-")
	if err != nil {
		panic(err)
	}
	return dir
})

var testGojieba = sync.OnceValues(func() (*Gojieba, error) { return NewGojieba(&Options{CacheDir: jiebaCache()}) })

func TestMain(m *testing.M) {
	code := m.Run()
	os.RemoveAll(jiebaCache())
	os.Exit(code)
}

func TestGojiebaGolden(t *testing.T) {
	j, err := testGojieba()
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, j, jiebaGolden)
}

func TestGojiebaExtractWithWeight(t *testing.T) {
	j, err := testGojieba()
	if err != nil {
		t.Fatal(err)
	}
	// The example of yanyiwu/simhash's README, whose keywords are
	// ["CEO:11.7392", "蓝翔:11.7392", "白富美:11.7392", "升职:10.8562",
	// "加薪:10.6426"] with an older dictionary.
	words, weights := j.ExtractWithWeight("我是蓝翔技工拖拉机学院手扶拖拉机专业的。不用多久，我就会升职加薪，当上总经理，出任CEO，迎娶白富美，走上人生巅峰。", 5)
	wantWords := []string{"白富", "CEO", "蓝翔", "升职", "加薪"}
	wantWeights := []float64{11.739204307083542, 11.739204307083542, 11.739204307083542, 10.8561552143, 10.642581114}
	if !slices.Equal(words, wantWords) || !slices.Equal(weights, wantWeights) {
		t.Errorf("ExtractWithWeight = %q %v, want %q %v", words, weights, wantWords, wantWeights)
	}
	if w, ww := j.ExtractWithWeight("北京", 0); w != nil || ww != nil {
		t.Errorf("n = 0 gave %q %v", w, ww)
	}
	// Invalid UTF-8 and NUL bytes do not upset cppjieba.
	words, _ = j.ExtractWithWeight("清华大学\xff北京大学\x00复旦大学", 5)
	if !slices.Equal(words, []string{"清华大学", "北京大学"}) {
		t.Errorf("ExtractWithWeight with invalid UTF-8 and NUL = %q", words)
	}
}

// A CutOnly Jieba cuts exactly as a full one and extracts nothing.
func TestGojiebaCutOnly(t *testing.T) {
	full, err := testGojieba()
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewGojieba(&Options{CacheDir: jiebaCache(), CutOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	checkGolden(t, j, jiebaGolden)
	text := Normalize("我是蓝翔技工拖拉机学院手扶拖拉机专业的。不用多久，我就会升职加薪，当上总经理，出任CEO，迎娶白富美。")
	if a, b := j.Cut(text), full.Cut(text); !slices.Equal(a, b) {
		t.Errorf("CutOnly: Cut = %q, full Jieba %q", a, b)
	}
	if p := j.Paths(); filepath.Base(p.IDF) != "stub_idf.utf8" || filepath.Base(p.StopWords) != "stub_stop_words.utf8" {
		t.Errorf("CutOnly loaded %s and %s", p.IDF, p.StopWords)
	}
	if w, ww := j.ExtractWithWeight(text, 5); w != nil || ww != nil {
		t.Errorf("CutOnly: ExtractWithWeight = %q %v, want nothing", w, ww)
	}
}

func TestGojiebaUserDict(t *testing.T) {
	path := filepath.Join(t.TempDir(), "user.txt")
	if err := os.WriteFile(path, []byte("清华 100000000 nt\n韩玉鉴赏 nz\n云计算\nApple手机 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := NewGojieba(&Options{UserDict: path, CacheDir: jiebaCache()})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	j0, err := testGojieba()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in              string
		without, withUD []string
	}{
		{"我来到北京清华大学", []string{"我", "来到", "北京", "清华大学"}, []string{"我", "来到", "北京", "清华", "大学"}},
		{"韩玉鉴赏了一幅画", []string{"韩玉", "鉴赏", "了", "一幅", "画"}, []string{"韩玉鉴赏", "了", "一幅", "画"}},
		{"云计算和区块链", []string{"云", "计算", "和", "区块", "链"}, []string{"云计算", "和", "区块", "链"}},
	}
	for _, tt := range tests {
		if got := j0.Cut(tt.in); !slices.Equal(got, tt.without) {
			t.Errorf("without user dictionary: Cut(%q) = %q, want %q", tt.in, got, tt.without)
		}
		if got := j.Cut(tt.in); !slices.Equal(got, tt.withUD) {
			t.Errorf("with user dictionary: Cut(%q) = %q, want %q", tt.in, got, tt.withUD)
		}
	}
	if got, _ := os.ReadFile(j.Paths().User); string(got) != "清华 100000000 nt\n韩玉鉴赏\n云计算\n" {
		t.Errorf("materialised user dictionary %q", got)
	}
}

// Close frees the C++ object while other goroutines may still cut (no
// crash, no race); afterwards Cut keeps only the non-Han words, and a second
// Close is harmless.
func TestGojiebaClose(t *testing.T) {
	j, err := NewGojieba(&Options{CacheDir: jiebaCache()})
	if err != nil {
		t.Fatal(err)
	}
	if got := j.Cut("北京 abc"); !slices.Equal(got, []string{"北京", "abc"}) {
		t.Fatalf("Cut = %q", got)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				got := j.Cut("小明硕士毕业于中国科学院计算所 abc")
				if len(got) == 0 || got[len(got)-1] != "abc" {
					t.Errorf("Cut during Close = %q", got)
					return
				}
			}
		}()
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := j.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if got := j.Cut("北京 abc"); !slices.Equal(got, []string{"abc"}) {
		t.Errorf("Cut after Close = %q, want only the non-Han words", got)
	}
	if w, _ := j.ExtractWithWeight("北京大学", 3); w != nil {
		t.Errorf("ExtractWithWeight after Close = %q", w)
	}
}

func TestGojiebaConcurrent(t *testing.T) {
	j, err := testGojieba()
	if err != nil {
		t.Fatal(err)
	}
	checkConcurrent(t, j, concurrencyTexts())
}

// The jieba backend works from a test binary copied into an empty directory
// and run with nothing in its environment but PATH (HOME empty, no XDG
// variables): the dictionary comes from the binary, written to the
// fallback cache directory, never from gojieba's source tree.
func TestGojiebaCopiedBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("copies and runs the test binary")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copied := filepath.Join(dir, "segment.test")
	if err := copyFile(copied, exe); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copied, "-test.run=^TestHelperGojiebaProcess$", "-test.v", "--", "helper")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME="}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper failed: %v\n%s", err, out)
	}
	want := fmt.Sprintf("TOKENS %q\n", []string{"iphone", "16", "pro", "发布会", "在", "北京", "举行", "apple", "ceo", "说"})
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "--- PASS: TestHelperGojiebaProcess") {
		t.Errorf("helper output lacks %q:\n%s", want, out)
	}
}

// TestHelperGojiebaProcess is run by TestGojiebaCopiedBinary in a child process.
func TestHelperGojiebaProcess(t *testing.T) {
	if flag.Arg(0) != "helper" {
		t.Skip("run by TestGojiebaCopiedBinary only")
	}
	for _, v := range []string{"HOME", "XDG_CACHE_HOME", "GOPATH", "GOMODCACHE"} {
		if os.Getenv(v) != "" {
			t.Fatalf("%s is set in the helper's environment", v)
		}
	}
	j, err := NewGojieba(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	fallback := filepath.Join(os.TempDir(), "neardup-"+strconv.Itoa(os.Getuid())) + string(filepath.Separator)
	if p := j.Paths(); !strings.HasPrefix(p.Dict, fallback) || !strings.HasPrefix(p.User, fallback) {
		t.Errorf("dictionary files %+v are not under %s", p, fallback)
	}
	fmt.Printf("TOKENS %q\n", j.Cut(Normalize("iPhone 16 Pro 发布会在北京举行，Apple CEO 说...")))
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func FuzzCutGojieba(f *testing.F) {
	for _, s := range goldenTexts {
		f.Add(s)
	}
	f.Add("北京\n上海")
	f.Add("\xff北京\x00a")
	j, err := testGojieba()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) { checkCut(t, j, s) })
}
