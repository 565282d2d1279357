package dict

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"testing"
	"testing/iotest"
)

// entries returns the table as a map, for comparisons.
func entries(t *IDF) map[string]float64 {
	m := make(map[string]float64, t.Len())
	for e, v := range t.idfs {
		m[t.word(int32(e))] = v
	}
	return m
}

func TestLoadIDF(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   map[string]float64
		median float64
	}{
		{"odd", "a 1\nb 2\nc 3\n", map[string]float64{"a": 1, "b": 2, "c": 3}, 2},
		{"even", "a 1\nb 2\nc 3\nd 10\n", map[string]float64{"a": 1, "b": 2, "c": 3, "d": 10}, 2.5},
		{"one", "x 7.25", map[string]float64{"x": 7.25}, 7.25},
		{"unsorted", "z 9\ny 0\nx 4\n", map[string]float64{"z": 9, "y": 0, "x": 4}, 4},
		{"blank lines, CRLF, tabs, BOM", "\uFEFFx\t0.5\r\n\n  \r\n\t\ny   1.5 \n", map[string]float64{"x": 0.5, "y": 1.5}, 1},
		{"jieba lines", "劳动防护 13.900677652\n中国 3.02732068666\n", map[string]float64{"劳动防护": 13.900677652, "中国": 3.02732068666}, 8.46399916933},
		{"exponent", "e 1e-3\n", map[string]float64{"e": 0.001}, 0.001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := LoadIDF(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := entries(tab); !maps.Equal(got, tt.want) {
				t.Errorf("entries = %v, want %v", got, tt.want)
			}
			if tab.Len() != len(tt.want) {
				t.Errorf("Len = %d, want %d", tab.Len(), len(tt.want))
			}
			if tab.Median() != tt.median {
				t.Errorf("Median = %v, want %v", tab.Median(), tt.median)
			}
		})
	}
}

func TestLoadIDFErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"a 1\nb\n", `dict: idf table: line 2: want "word idf", got one field "b"`},
		{"a 1\n\nb 2 3\n", `dict: idf table: line 3: want "word idf", got more than two fields in "b 2 3"`},
		{"a x", `dict: idf table: line 1: word "a": idf "x" is not a number`},
		{"a NaN", `dict: idf table: line 1: word "a": idf "NaN" is not a finite number >= 0`},
		{"a +Inf", `dict: idf table: line 1: word "a": idf "+Inf" is not a finite number >= 0`},
		{"a -0.5", `dict: idf table: line 1: word "a": idf "-0.5" is not a finite number >= 0`},
		{"a 1e999", `dict: idf table: line 1: word "a": idf "1e999" is not a number`},
		{"a 1\nb 2\na 3\n", `dict: idf table: line 3: duplicate word "a"`},
		{"\xff\xfe 1", `dict: idf table: line 1: word "\xff\xfe" is not valid UTF-8`},
		{"", "dict: idf table: idf table has no entries"},
		{"\n \r\n", "dict: idf table: idf table has no entries"},
	}
	for _, tt := range tests {
		_, err := LoadIDF(strings.NewReader(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("LoadIDF(%q) error = %v, want %q", tt.in, err, tt.want)
		}
	}
	if _, err := LoadIDF(strings.NewReader("")); !errors.Is(err, ErrEmptyTable) {
		t.Errorf("empty table: error %v is not ErrEmptyTable", err)
	}
	readErr := errors.New("disk on fire")
	if _, err := LoadIDF(iotest.ErrReader(readErr)); !errors.Is(err, readErr) {
		t.Errorf("read error: got %v, want it wrapped", err)
	}
}

func TestIDFLookupWeight(t *testing.T) {
	tab, err := LoadIDF(strings.NewReader("a 1\nb 2\nc 4\nd 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		word   string
		idf    float64
		ok     bool
		weight float64
	}{
		{"a", 1, true, 1},
		{"d", 8, true, 8},
		{"zzz", 0, false, 3}, // median of 1 2 4 8
		{"", 0, false, 3},
	}
	for _, tt := range tests {
		idf, ok := tab.Lookup(tt.word)
		if idf != tt.idf || ok != tt.ok {
			t.Errorf("Lookup(%q) = %v, %v; want %v, %v", tt.word, idf, ok, tt.idf, tt.ok)
		}
		if w := tab.Weight(tt.word); w != tt.weight {
			t.Errorf("Weight(%q) = %v, want %v", tt.word, w, tt.weight)
		}
	}
}

func TestMerge(t *testing.T) {
	a, _ := LoadIDF(strings.NewReader("x 1\ny 2\nz 3\n"))
	b, _ := LoadIDF(strings.NewReader("y 20\nw 9\n"))
	m := a.Merge(b)
	want := map[string]float64{"x": 1, "y": 20, "z": 3, "w": 9}
	if got := entries(m); !maps.Equal(got, want) {
		t.Errorf("merged = %v, want %v", got, want)
	}
	if m.Median() != 6 { // 1 3 9 20
		t.Errorf("merged median = %v, want 6", m.Median())
	}
	if a.Len() != 3 || a.Weight("y") != 2 || a.Median() != 2 || b.Len() != 2 || b.Median() != 14.5 {
		t.Errorf("Merge changed its operands: a=%v b=%v", entries(a), entries(b))
	}
	if a.Merge(nil) != a {
		t.Errorf("Merge(nil) should return the receiver")
	}
}

func TestIDFWriteTo(t *testing.T) {
	tab, err := LoadIDF(strings.NewReader("中国 3.02732068666\nb 0.1\na 2\nc 1e-7\n"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := tab.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	const want = "a 2\nb 0.1\nc 1e-07\n中国 3.02732068666\n"
	if buf.String() != want || n != int64(len(want)) {
		t.Errorf("WriteTo wrote %d bytes %q, want %d bytes %q", n, buf.String(), len(want), want)
	}
	// A first word starting with U+FEFF survives the round trip.
	tab, err = LoadIDF(strings.NewReader("\uFEFF\uFEFFx 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	tab.WriteTo(&buf)
	back, err := LoadIDF(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := back.Lookup("\uFEFFx"); !ok || v != 1 {
		t.Errorf("BOM-prefixed word lost: %v", entries(back))
	}
	// Write errors are returned.
	if _, err := tab.WriteTo(errWriter{}); err == nil {
		t.Errorf("WriteTo to a failing writer returned no error")
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

// Weight's hash table gives every word of the default table its own IDF,
// and the median to words it lacks.
func TestWeightTable(t *testing.T) {
	tab, err := DefaultIDF()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.slots) != 1<<19 {
		t.Errorf("%d slots, want 2^19 for %d words", len(tab.slots), tab.Len())
	}
	all := entries(tab)
	for w, v := range all {
		if got := tab.Weight(w); got != v {
			t.Fatalf("Weight(%q) = %v, want %v", w, got, v)
		}
		if got := tab.Weight(w + "x"); got != tab.Median() {
			if _, ok := all[w+"x"]; !ok {
				t.Fatalf("Weight(%q) = %v, want the median", w+"x", got)
			}
		}
	}
}

// Words that share a hash are told apart by their bytes, whatever order
// they come in; a word absent from the table with the same hash gets the
// median.
func TestWeightCollision(t *testing.T) {
	const h = 42 // every word below hashes to 42
	b := newIDFBuilder(8)
	for i, w := range []string{"x", "y", "z"} {
		if b.putHash(w, h, float64(i+1), 0) {
			t.Fatalf("put(%q): duplicate", w)
		}
	}
	if !b.putHash("y", h, 9, 0) {
		t.Errorf("put(y) again: not a duplicate")
	}
	b.putHash("w", slotHash("w"), 4, 0)
	tab := b.table()
	for _, tt := range []struct {
		word   string
		weight float64
		ok     bool
	}{{"x", 1, true}, {"y", 2, true}, {"z", 3, true}, {"v", 2.5, false}} {
		if got := tab.weight(tt.word, h); got != tt.weight {
			t.Errorf("weight(%q) = %v, want %v", tt.word, got, tt.weight)
		}
		if got, ok := tab.lookup(tt.word, h); ok != tt.ok || (ok && got != tt.weight) {
			t.Errorf("lookup(%q) = %v, %v", tt.word, got, ok)
		}
	}
	if tab.Weight("w") != 4 || tab.Median() != 2.5 {
		t.Errorf("Weight(w) = %v, Median = %v; want 4 and 2.5", tab.Weight("w"), tab.Median())
	}
	// A later source replaces an earlier one's word with the same hash.
	b.putHash("y", h, 7, 4)
	if got := b.table().weight("y", h); got != 7 {
		t.Errorf("replaced y: weight %v, want 7", got)
	}
}

func TestDefaultIDF(t *testing.T) {
	tab, err := DefaultIDF()
	if err != nil {
		t.Fatal(err)
	}
	// 258,826 Chinese words + 33,358 English words, no overlap.
	if tab.Len() != 292184 {
		t.Errorf("Len = %d, want 292184", tab.Len())
	}
	// The median of the merged table is a Chinese value: ln(1088899/9).
	if tab.Median() != 11.7034530746 {
		t.Errorf("Median = %v, want 11.7034530746", tab.Median())
	}
	known := []struct {
		word string
		idf  float64
	}{
		{"中国", 3.02732068666},
		{"北京", 4.66740230872},
		{"劳动防护", 13.900677652},
		{"the", 0.012678},
		{"apple", 5.002827},
		{"2018", 6.794587},
	}
	for _, k := range known {
		if v, ok := tab.Lookup(k.word); !ok || v != k.idf {
			t.Errorf("Lookup(%q) = %v, %v; want %v", k.word, v, ok, k.idf)
		}
	}
	zh, err := LoadIDF(strings.NewReader(zhIDF))
	if err != nil {
		t.Fatal(err)
	}
	en, err := LoadIDF(strings.NewReader(enIDF))
	if err != nil {
		t.Fatal(err)
	}
	if m := zh.Merge(en); !maps.Equal(entries(m), entries(tab)) || m.Median() != tab.Median() {
		t.Errorf("DefaultIDF differs from the merge of the two embedded tables")
	}
	if zh.Len()+en.Len() != tab.Len() {
		t.Errorf("the embedded tables share %d words", zh.Len()+en.Len()-tab.Len())
	}
	if zh.Median() != 11.9547675029 || en.Median() != 6.389121 {
		t.Errorf("medians zh %v en %v, want 11.9547675029 and 6.389121", zh.Median(), en.Median())
	}
	for _, w := range []string{"iphone", "neardup", "的"} {
		if _, ok := tab.Lookup(w); ok {
			t.Errorf("Lookup(%q) found a word that should be unknown", w)
		}
		if tab.Weight(w) != tab.Median() {
			t.Errorf("Weight(%q) = %v, want the median", w, tab.Weight(w))
		}
	}
}

func TestEmbeddedTablesParse(t *testing.T) {
	for name, data := range map[string]string{"idf.utf8": zhIDF, "en_idf.utf8": enIDF} {
		tab, err := LoadIDF(strings.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tab.Len() != strings.Count(data, "\n") {
			t.Errorf("%s: %d entries for %d lines", name, tab.Len(), strings.Count(data, "\n"))
		}
	}
}

func FuzzLoadIDF(f *testing.F) {
	for _, s := range []string{
		"a 1\nb 2\n",
		"\uFEFF中国 3.02732068666\r\n\n",
		"a\t1e-3\n b 2 \n",
		"a x",
		"a 1\na 2",
		"a -1",
		"\uFEFF\uFEFFx 1",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tab, err := LoadIDF(strings.NewReader(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "dict: idf table: ") {
				t.Fatalf("error %q lacks the prefix", err)
			}
			return
		}
		var buf bytes.Buffer
		if _, err := tab.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := LoadIDF(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("reloading %q (from %q): %v", buf.String(), s, err)
		}
		if !maps.Equal(entries(tab), entries(back)) || tab.Median() != back.Median() {
			t.Fatalf("round trip changed the table: %v → %v", entries(tab), entries(back))
		}
		for w, v := range entries(tab) {
			if got, ok := back.Lookup(w); !ok || got != v {
				t.Fatalf("Lookup(%q) after round trip = %v, %v", w, got, ok)
			}
		}
	})
}

func ExampleLoadIDF() {
	tab, err := LoadIDF(strings.NewReader("北京 4.67\n举行 5.51\n发布会 7.53\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	idf, ok := tab.Lookup("北京")
	fmt.Println(idf, ok)
	fmt.Println(tab.Median(), tab.Weight("iphone"))
	_, err = LoadIDF(strings.NewReader("北京 4.67\n举行\n"))
	fmt.Println(err)
	// Output:
	// 4.67 true
	// 5.51 5.51
	// dict: idf table: line 2: want "word idf", got one field "举行"
}

func ExampleDefaultIDF() {
	tab, err := DefaultIDF()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tab.Weight("北京"), tab.Weight("the"), tab.Weight("no-such-word"))
	// Output: 4.66740230872 0.012678 11.7034530746
}

func BenchmarkDefaultIDF(b *testing.B) {
	b.SetBytes(int64(len(zhIDF) + len(enIDF)))
	for b.Loop() {
		if _, err := DefaultIDF(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeight(b *testing.B) {
	tab, err := DefaultIDF()
	if err != nil {
		b.Fatal(err)
	}
	words := []string{"北京", "发布会", "the", "iphone", "中国科学院", "unknownword"}
	for b.Loop() {
		for _, w := range words {
			tab.Weight(w)
		}
	}
}

// BenchmarkLexiconLookup looks up 300 words a call, as the keyword
// extractor does for one article, taken in turn from all over the
// default lexicon so that most reads miss the caches: one at a time with
// Lookup, and together with LookupAll.
func BenchmarkLexiconLookup(b *testing.B) {
	stop, err := DefaultStopWords()
	if err != nil {
		b.Fatal(err)
	}
	lex, err := DefaultLexicon(stop)
	if err != nil {
		b.Fatal(err)
	}
	// The words in a stride order, their bytes packed together as an
	// article's tokens are.
	n := len(lex.t.idfs)
	var text []byte
	for i := 0; i < n; i++ {
		text = append(text, lex.t.word(int32(i*7919%n))...)
	}
	all, words := string(text), make([]string, n)
	for i := range words {
		w := lex.t.word(int32(i * 7919 % n))
		words[i], all = all[:len(w)], all[len(w):]
	}
	const batch = 300
	idfs, stops := make([]float64, batch), make([]bool, batch)
	for _, bm := range []struct {
		name   string
		lookup func(words []string)
	}{
		{"Lookup", func(words []string) {
			for i, w := range words {
				idfs[i], stops[i] = lex.Lookup(w)
			}
		}},
		{"LookupAll", func(words []string) { lex.LookupAll(words, idfs, stops) }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			off := 0
			for b.Loop() {
				if off+batch > n {
					off = 0
				}
				bm.lookup(words[off : off+batch])
				off += batch
			}
		})
	}
}

func TestLexicon(t *testing.T) {
	idf, err := LoadIDF(strings.NewReader("a 1\nb 2\nc 3\nz0 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	lex := NewLexicon(idf, StopWords{"b": {}, "zz": {}, "z0": {}})
	for _, tt := range []struct {
		word string
		idf  float64
		stop bool
	}{
		{"a", 1, false},
		{"b", 2, true},    // a stop word of the table keeps its IDF
		{"c", 3, false},   //
		{"zz", 1.5, true}, // a stop word the table lacks: the median
		{"z0", 0, true},   // IDF 0 and a stop word
		{"unknown", 1.5, false},
	} {
		if idf, stop := lex.Lookup(tt.word); idf != tt.idf || stop != tt.stop {
			t.Errorf("Lookup(%q) = %v, %v; want %v, %v", tt.word, idf, stop, tt.idf, tt.stop)
		}
		// LookupAll agrees, in a batch longer than its groups of 32.
		words := make([]string, 70)
		for i := range words {
			words[i] = tt.word
		}
		idfs, stops := make([]float64, len(words)), make([]bool, len(words))
		lex.LookupAll(words, idfs, stops)
		for i := range words {
			if idfs[i] != tt.idf || stops[i] != tt.stop {
				t.Fatalf("LookupAll: word %d %q = %v, %v; want %v, %v", i, tt.word, idfs[i], stops[i], tt.idf, tt.stop)
			}
		}
	}
	lex.LookupAll(nil, nil, nil) // nothing to look up
	if lex.Median() != 1.5 || idf.Median() != 1.5 {
		t.Errorf("Median: lexicon %v, table %v; want 1.5 for both", lex.Median(), idf.Median())
	}
	if w := idf.Weight("b"); w != 2 {
		t.Errorf("the table is changed: Weight(b) = %v", w)
	}
}

// Words of a lexicon that share a hash are told apart, stop marks
// included, whether they are in one of its tables (ASCII first bytes)
// or in both.
func TestLexiconCollision(t *testing.T) {
	const h = 42
	b := newIDFBuilder(8)
	for i, w := range []string{"x", "y", "z", "中", "国"} {
		b.putHash(w, h, float64(i+1), 0)
	}
	b.markStop("y", h)
	b.markStop("国", h)
	tab := b.table()
	tab.median = 2 // as NewLexicon sets it: the median of the table without the marks
	lex := newLexicon(tab)
	if n0, n1 := lex.parts[0].count(), lex.parts[1].count(); n0 != 3 || n1 != 2 {
		t.Errorf("the tables hold %d and %d words, want 3 (ASCII) and 2", n0, n1)
	}
	for _, tt := range []struct {
		word string
		idf  float64
		stop bool
	}{
		{"x", 1, false}, {"y", 2, true}, {"z", 3, false}, {"v", 2, false},
		{"中", 4, false}, {"国", 5, true}, {"人", 2, false}, {"", 2, false},
	} {
		if idf, stop := lex.lookup(tt.word, h); idf != tt.idf || stop != tt.stop {
			t.Errorf("lookup(%q) = %v, %v; want %v, %v", tt.word, idf, stop, tt.idf, tt.stop)
		}
	}
}

// count returns the number of words in p.
func (p *lexTable) count() int {
	n := 0
	for _, s := range p.slots {
		if s.hash != 0 {
			n++
		}
	}
	return n
}

// The default lexicon answers exactly what the default table and stop
// words answer, for every word of either.
func TestDefaultLexicon(t *testing.T) {
	idf, err := DefaultIDF()
	if err != nil {
		t.Fatal(err)
	}
	stop, err := DefaultStopWords()
	if err != nil {
		t.Fatal(err)
	}
	def, err := DefaultLexicon(stop)
	if err != nil {
		t.Fatal(err)
	}
	words := entries(idf)
	for w := range stop {
		words[w] = 0
	}
	for name, lex := range map[string]*Lexicon{"NewLexicon": NewLexicon(idf, stop), "DefaultLexicon": def} {
		if lex.Median() != idf.Median() {
			t.Errorf("%s: Median %v, want %v", name, lex.Median(), idf.Median())
		}
		var batch []string
		for w := range words {
			for _, w := range []string{w, w + "x"} {
				got, isStop := lex.Lookup(w)
				if want := idf.Weight(w); got != want || isStop != stop.Has(w) {
					t.Fatalf("%s: Lookup(%q) = %v, %v; want %v, %v", name, w, got, isStop, want, stop.Has(w))
				}
				batch = append(batch, w)
			}
		}
		// LookupAll answers the same for all of them at once.
		idfs, stops := make([]float64, len(batch)), make([]bool, len(batch))
		lex.LookupAll(batch, idfs, stops)
		for i, w := range batch {
			if want := idf.Weight(w); idfs[i] != want || stops[i] != stop.Has(w) {
				t.Fatalf("%s: LookupAll: %q = %v, %v; want %v, %v", name, w, idfs[i], stops[i], want, stop.Has(w))
			}
		}
	}
}

// slotHash: every byte of a word of 1 to 40 bytes changes it, and the
// 292,184 words of the default table (and its stop words) have 292,184
// distinct hashes, none 0, so that no lookup of theirs compares words.
func TestSlotHash(t *testing.T) {
	base := []byte("abcdefghijklmnopqrstuvwxyz0123456789ABCD")
	for n := 1; n <= len(base); n++ {
		w := string(base[:n])
		h := slotHash(w)
		for i := range n {
			b := []byte(w)
			b[i] ^= 0x20
			if slotHash(string(b)) == h {
				t.Errorf("slotHash(%q) == slotHash(%q)", b, w)
			}
		}
	}
	idf, err := DefaultIDF()
	if err != nil {
		t.Fatal(err)
	}
	stop, err := DefaultStopWords()
	if err != nil {
		t.Fatal(err)
	}
	words := entries(idf)
	for w := range stop {
		words[w] = 0
	}
	seen := make(map[uint64]string, len(words))
	for w := range words {
		h := slotHash(w)
		if o, ok := seen[h]; ok {
			t.Errorf("%q and %q share the hash %#x", o, w, h)
		}
		seen[h] = w
	}
	if len(seen) < 292184 {
		t.Errorf("%d distinct hashes, want at least 292,184", len(seen))
	}
}
