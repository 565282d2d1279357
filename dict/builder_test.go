package dict

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestIDFBuilderGolden(t *testing.T) {
	docs := [][]string{
		{"a", "b", "a", "a"},
		{"b", "c"},
		{"b", "", "x y", "tab\there", "\xff"}, // unstorable words are ignored
		{"d", "b"},
	}
	tests := []struct {
		minDF int
		want  string
	}{
		{0, "a 1.386294\nb 0.000000\nc 1.386294\nd 1.386294\n"},
		{1, "a 1.386294\nb 0.000000\nc 1.386294\nd 1.386294\n"},
		{2, "b 0.000000\n"},
		{5, ""},
	}
	for _, tt := range tests {
		b := NewIDFBuilder()
		b.MinDF = tt.minDF
		for _, d := range docs {
			b.Add(d)
		}
		var buf bytes.Buffer
		n, err := b.WriteTo(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if buf.String() != tt.want || n != int64(len(tt.want)) {
			t.Errorf("MinDF %d: wrote %d bytes %q, want %q", tt.minDF, n, buf.String(), tt.want)
		}
	}
}

func TestIDFBuilderCounts(t *testing.T) {
	b := NewIDFBuilder()
	buf := []string{"x", "y"}
	b.Add(buf)
	buf[0] = "z" // Add must have copied
	b.Add(buf)
	b.Add(nil)
	if b.Docs() != 3 {
		t.Errorf("Docs = %d, want 3", b.Docs())
	}
	for w, want := range map[string]int{"x": 1, "y": 2, "z": 1, "w": 0} {
		if got := b.DF(w); got != want {
			t.Errorf("DF(%q) = %d, want %d", w, got, want)
		}
	}
	if got, want := b.Words(), []string{"x", "y", "z"}; !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
	tab := b.Table()
	if v, _ := tab.Lookup("x"); v != math.Log(3) {
		t.Errorf("Table x = %v, want ln 3", v)
	}
	if v, _ := tab.Lookup("y"); v != math.Log(1.5) {
		t.Errorf("Table y = %v, want ln 1.5", v)
	}
	if tab.Median() != math.Log(3) {
		t.Errorf("Table median = %v, want ln 3", tab.Median())
	}
	b.MinDF = 3
	if b.Table() != nil {
		t.Errorf("Table with no word at MinDF 3 should be nil")
	}
}

// The output depends on the set of documents, not on word order within them.
func TestIDFBuilderDeterministic(t *testing.T) {
	build := func(docs [][]string) string {
		b := NewIDFBuilder()
		for _, d := range docs {
			b.Add(d)
		}
		var sb strings.Builder
		b.WriteTo(&sb)
		return sb.String()
	}
	x := build([][]string{{"q", "p", "r"}, {"p"}, {"s", "q"}})
	y := build([][]string{{"r", "q", "p"}, {"p"}, {"q", "s", "s"}})
	if x != y {
		t.Errorf("outputs differ:\n%s\n%s", x, y)
	}
}

// The committed English table is what the committed generator writes: every
// line parses, is sorted, and has an idf of ln(N/df) for N = 3572 and an
// integer df >= 2.
func TestEnIDFShape(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(enIDF, "\n"), "\n")
	if !slices.IsSorted(lines) {
		t.Errorf("en_idf.utf8 is not sorted")
	}
	const n = 3572
	for i, line := range lines {
		word, v, ok, err := parseIDFLine(line)
		if err != nil || !ok {
			t.Fatalf("line %d %q: %v", i+1, line, err)
		}
		df := n / math.Exp(v)
		if math.Abs(df-math.Round(df)) > 1e-3*df || math.Round(df) < 2 {
			t.Fatalf("line %d: %s %v is not ln(%d/df) for an integer df >= 2 (df = %v)", i+1, word, v, n, df)
		}
	}
}

func TestLoadStopWords(t *testing.T) {
	s, err := LoadStopWords(strings.NewReader("\uFEFFthe\r\n\n  a  \n的\u3000\nAnd\n"))
	if err != nil {
		t.Fatal(err)
	}
	for w, want := range map[string]bool{"the": true, "a": true, "的": true, "And": true, "and": false, "": false, "\u3000": false} {
		if s.Has(w) != want {
			t.Errorf("Has(%q) = %v, want %v", w, !want, want)
		}
	}
	if len(s) != 4 {
		t.Errorf("len = %d, want 4", len(s))
	}
	if _, err := LoadStopWords(strings.NewReader("ok\nbad\xff\n")); err == nil || err.Error() != `dict: stop words: line 2: "bad\xff" is not valid UTF-8` {
		t.Errorf("invalid UTF-8: error %v", err)
	}
}

func TestDefaultStopWords(t *testing.T) {
	s, err := DefaultStopWords()
	if err != nil {
		t.Fatal(err)
	}
	for w, want := range map[string]bool{
		"的": true, "了": true, "，": true, // from cppjieba's list
		"the": true, "don": true, "use": true, "whom": true, // from en_stop_words.utf8
		"北京": false, "apple": false, "iphone": false,
	} {
		if s.Has(w) != want {
			t.Errorf("Has(%q) = %v, want %v", w, !want, want)
		}
	}
	zh, _ := LoadStopWords(strings.NewReader(zhStopWords))
	en, _ := LoadStopWords(strings.NewReader(enStopWords))
	if len(en) != strings.Count(enStopWords, "\n") {
		t.Errorf("en_stop_words.utf8 has duplicate or blank lines")
	}
	union := make(map[string]bool)
	for w := range zh {
		union[w] = true
	}
	for w := range en {
		union[w] = true
	}
	if len(s) != len(union) {
		t.Errorf("len = %d, want %d (zh %d + en %d - common)", len(s), len(union), len(zh), len(en))
	}
}

func TestRawAccessorsCopy(t *testing.T) {
	for name, get := range map[string]func() []byte{
		"JiebaDict": JiebaDict, "HMMModel": HMMModel, "ZhIDF": ZhIDF,
		"ZhStopWords": ZhStopWords, "EnIDF": EnIDF, "EnStopWords": EnStopWords,
	} {
		b := get()
		if len(b) == 0 {
			t.Errorf("%s is empty", name)
			continue
		}
		b[0] ^= 0xff
		if get()[0] == b[0] {
			t.Errorf("%s returned shared memory", name)
		}
	}
	if want, _ := os.ReadFile("data/jieba.dict.utf8"); JiebaDictText() != string(want) {
		t.Errorf("JiebaDictText differs from data/jieba.dict.utf8")
	}
}

func ExampleIDFBuilder() {
	b := NewIDFBuilder()
	b.MinDF = 2
	b.Add([]string{"near", "duplicate", "near"})
	b.Add([]string{"near", "copy"})
	b.Add([]string{"copy", "paste"})
	b.Add([]string{"original"})
	b.WriteTo(os.Stdout)
	fmt.Println(b.Docs(), b.DF("near"))
	// Output:
	// copy 0.693147
	// near 0.693147
	// 4 2
}

func ExampleStopWords() {
	s, err := LoadStopWords(strings.NewReader("的\nthe\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Has("的"), s.Has("北京"))
	// Output: true false
}

// A Matcher answers exactly as the list it was made from.
func TestStopMatcher(t *testing.T) {
	list, err := DefaultStopWords()
	if err != nil {
		t.Fatal(err)
	}
	m := list.Matcher()
	if len(m.hashes) != 4096 {
		t.Errorf("%d slots for %d words, want 4096", len(m.hashes), len(list))
	}
	for w := range list {
		if !m.Has(w) {
			t.Errorf("Has(%q) = false", w)
		}
		if m.Has(w+"x") != list.Has(w+"x") || m.Has("x"+w) != list.Has("x"+w) {
			t.Errorf("Has(%q or %q) differs from the list", w+"x", "x"+w)
		}
	}
	for _, tt := range []struct {
		word string
		want bool
	}{{"的", true}, {"我们", true}, {"the", true}, {"北京", false}, {"", false}, {"iphone", false}} {
		if got := m.Has(tt.word); got != tt.want {
			t.Errorf("Has(%q) = %v, want %v", tt.word, got, tt.want)
		}
	}
	if empty := (StopWords{}).Matcher(); empty.Has("的") || empty.Has("") {
		t.Errorf("the empty set has a word")
	}
}
