package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dict"
	"github.com/neardup/neardup/segment"
)

// idfTradText is a traditional (Taiwan) text: its words are the
// analyzer's only once folded (軟體 → 软件, 資訊 → 信息).
const idfTradText = "這個軟體的資訊安全功能由開發團隊維護。使用者可以在設定選單中開啟自動更新，" +
	"軟體會在背景下載最新版本並驗證數位簽章。如果網路連線中斷，程式會在稍後重新嘗試下載，" +
	"並在資訊視窗中顯示錯誤訊息。團隊每個月發佈一次安全更新，說明文件列出所有變更。"

// idfTable runs idf build with --min-df 1 and the extra args on the given
// texts, one file each, and returns the table's words.
func idfTable(t *testing.T, texts []string, args ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for i, text := range texts {
		f := filepath.Join(dir, "t"+string(rune('a'+i))+".txt")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	out := filepath.Join(dir, "idf.txt")
	full := append([]string{"idf", "build", "--min-df", "1", "-o", out}, args...)
	if r := runCLI(t, append(full, files...)...); r.code != 0 {
		t.Fatalf("neardup %s: exit %d: %s", strings.Join(full, " "), r.code, r.stderr)
	}
	var words []string
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, out)), "\n") {
		w, _, _ := strings.Cut(line, " ")
		words = append(words, w)
	}
	return words
}

// idf build folds traditional text as the analyzer does, so the table
// holds the words the analyzer looks up; with --keep-traditional it
// does not.
func TestIDFBuildFolds(t *testing.T) {
	words := idfTable(t, []string{idfTradText})
	for _, w := range words {
		if segment.HasTradChar(w) {
			t.Errorf("folded table has the traditional word %q", w)
		}
	}
	for _, w := range []string{"软件", "信息"} {
		if !slices.Contains(words, w) {
			t.Errorf("folded table lacks %q: %q", w, words)
		}
	}
	kept := idfTable(t, []string{idfTradText}, "--keep-traditional")
	// jieba's HMM keeps unknown traditional words whole; gse cuts them
	// into one-rune tokens, which are dropped.
	if segment.DefaultBackend == segment.BackendJieba && !slices.ContainsFunc(kept, segment.HasTradChar) {
		t.Errorf("--keep-traditional: no traditional word in %q", kept)
	}
	for _, w := range []string{"软件", "信息"} {
		if slices.Contains(kept, w) {
			t.Errorf("--keep-traditional: the table has %q", w)
		}
	}
}

// The words idf build counts for a text are those the analyzer weighs:
// its keywords with all candidate words kept (Options.TopN 0 keeps them
// all, up to 256) are the counted words less the stop words, with and
// without the fold.
func TestIDFWordsAreTheAnalyzers(t *testing.T) {
	stop, err := dict.DefaultStopWords()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{idfTradText, readFile(t, filepath.Join("testdata", "a.txt")), readFile(t, filepath.Join("testdata", "c.txt"))}
	for _, keep := range []bool{false, true} {
		a, err := neardup.NewAnalyzer(&neardup.Options{KeepTraditional: keep})
		if err != nil {
			t.Fatal(err)
		}
		words := a.Words
		for i, text := range texts {
			ws, err := words(text)
			if err != nil {
				t.Fatal(err)
			}
			var counted []string
			for _, w := range ws {
				if !stop.Has(w) {
					counted = append(counted, w)
				}
			}
			slices.Sort(counted)
			counted = slices.Compact(counted)
			an, err := a.Analyze(text)
			if err != nil {
				t.Fatal(err)
			}
			var weighed []string
			for _, k := range an.Keywords {
				weighed = append(weighed, k.Word)
			}
			slices.Sort(weighed)
			if len(counted) > 256 {
				t.Fatalf("text %d: %d words, more than the analyzer keeps", i, len(counted))
			}
			if !slices.Equal(counted, weighed) {
				t.Errorf("keep-traditional %v, text %d: idf build counts %q, the analyzer weighs %q", keep, i, counted, weighed)
			}
		}
		a.Close()
	}
}
