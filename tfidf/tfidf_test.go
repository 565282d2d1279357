package tfidf

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
)

type table map[string]float64

func (t table) Weight(w string) float64 {
	if v, ok := t[w]; ok {
		return v
	}
	return 5 // the "median"
}

func TestCandidate(t *testing.T) {
	for _, tc := range []struct {
		tok  string
		want bool
	}{
		{"北京", true},
		{"京", false},    // one-rune CJK
		{"a", false},    // one rune
		{"go", true},    // Latin word
		{"16", false},   // number
		{"3.14", false}, // number with separator
		{"2,000", false},
		{"，", false},
		{"——", false}, // punctuation only
		{"  ", false},
		{"g2", true},
		{"2018年", true},
		{"iphone", true},
		{"Zx", true},
		{"@a", true}, // a letter after a symbol
		{"[", false},
		{"a\xff", true}, // an invalid byte is a rune
		{"北", false},
		{"北\xff", true},
		{"\xe4\xb8\xad\xff", true},
		{"\xe4\xb8", false}, // two invalid bytes, no letter
		{"é1", true},
		{"①②", false},
	} {
		if got := Candidate(tc.tok); got != tc.want {
			t.Errorf("Candidate(%q) = %v, want %v", tc.tok, got, tc.want)
		}
	}
}

// candidateReference is Candidate without its shortcuts: every rune
// decoded.
func candidateReference(tok string) bool {
	n, letter := 0, false
	for _, r := range tok {
		n++
		letter = letter || unicode.IsLetter(r)
	}
	return n >= 2 && letter
}

func FuzzCandidate(f *testing.F) {
	for _, s := range []string{"北京", "京", "go", "16", "3.14", "é1", "\xe4\xb8", "北\xff", "@a", "①②", "ǅx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		if got, want := Candidate(tok), candidateReference(tok); got != want {
			t.Fatalf("Candidate(%q) = %v, the reference says %v", tok, got, want)
		}
	})
}

func TestAdaptiveN(t *testing.T) {
	for _, tc := range []struct{ distinct, want int }{
		{0, 1}, {1, 1}, {10, 10}, {256, 256}, {257, 256}, {100000, 256},
	} {
		if got := AdaptiveN(tc.distinct); got != tc.want {
			t.Errorf("AdaptiveN(%d) = %d, want %d", tc.distinct, got, tc.want)
		}
	}
}

func TestExtract(t *testing.T) {
	idf := table{"北京": 2, "清华大学": 8, "来到": 4, "大学": 4}
	stop := func(w string) bool { return w == "我们" }
	toks := []string{"我们", "来到", "北京", "，", "北京", "的", "清华大学", "16", "大学", "新词", "北京", "来到"}
	e := Extractor{IDF: idf, Stop: stop, TopN: 4}
	got := e.Extract(toks)
	// Weights are (1 + ln count) × IDF; 新词 is unknown and gets 5.
	// TopN 4 drops 大学 (4). Ties: see TestSortKeywordsDeterministic.
	want := []Keyword{
		{"清华大学", 8},
		{"来到", (1 + math.Log(2)) * 4},
		{"新词", 5},
		{"北京", (1 + math.Log(3)) * 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Extract = %v, want %v", got, want)
	}
	// One Lookup in place of IDF and Stop gives the same keywords.
	lookup := Extractor{TopN: 4, Lookup: func(words []string, idfs []float64, stops []bool) {
		for i, w := range words {
			idfs[i], stops[i] = idf.Weight(w), stop(w)
		}
	}}
	if got := lookup.Extract(toks); !reflect.DeepEqual(got, want) {
		t.Errorf("Extract with Lookup = %v, want %v", got, want)
	}
	e.TopN = 0 // adaptive: fewer candidates than MinN, so all are kept
	if got := e.Extract(toks); len(got) != 5 || got[4] != (Keyword{"大学", 4}) {
		t.Errorf("adaptive Extract = %v, want all 5 keywords ending in 大学 4", got)
	}
	if got := e.Extract(nil); len(got) != 0 {
		t.Errorf("Extract(nil) = %v, want none", got)
	}
}

func TestSortKeywordsDeterministic(t *testing.T) {
	kw := []Keyword{{"b", 1}, {"a", 1}, {"c", 2}, {"aa", 1}}
	SortKeywords(kw)
	want := []Keyword{{"c", 2}, {"a", 1}, {"aa", 1}, {"b", 1}}
	if !reflect.DeepEqual(kw, want) {
		t.Errorf("SortKeywords = %v, want %v", kw, want)
	}
}

func ExampleExtractor_Extract() {
	idf := table{"simhash": 9, "fingerprint": 7}
	e := Extractor{IDF: idf, TopN: 3}
	for _, k := range e.Extract([]string{"simhash", " ", "fingerprint", ",", "simhash", "42", "article"}) {
		fmt.Printf("%s %.0f\n", k.Word, k.Weight) // simhash: (1 + ln 2) × 9
	}
	// Output:
	// simhash 15
	// fingerprint 7
	// article 5
}

func BenchmarkExtract(b *testing.B) {
	toks := make([]string, 0, 2000)
	idf := table{}
	for i := 0; i < 2000; i++ {
		w := fmt.Sprintf("word%d", i%600)
		toks = append(toks, w, " ")
		idf[w] = float64(i%13) + 1
	}
	e := Extractor{IDF: idf}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Extract(toks)
	}
}

func TestSortKeywordsTies(t *testing.T) {
	// Ties, -0, and weights a float64 apart.
	near := math.Nextafter(3, 4) // 3 + 2^-51
	kw := []Keyword{
		{"k", 1}, {"b", 3}, {"j", near}, {"a", 3}, {"z", 0}, {"y", math.Copysign(0, -1)},
		{"m", 2}, {"c", 3}, {"l", 1}, {"x", 0.5}, {"d", 7}, {"e", 2.5}, {"n", 2},
	}
	SortKeywords(kw)
	var got []string
	for _, k := range kw {
		got = append(got, k.Word)
	}
	want := []string{"d", "j", "a", "b", "c", "e", "m", "n", "k", "l", "x", "y", "z"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SortKeywords order = %v, want %v", got, want)
	}
}

// count keeps first-occurrence order and exact counts while its table
// grows: 1,000 distinct words in 1,003 tokens outgrow the 512 slots it
// starts with twice.
func TestCountGrows(t *testing.T) {
	var toks []string
	for i := range 1000 {
		toks = append(toks, fmt.Sprintf("w%d", i))
	}
	toks = append(toks, "w999", "w0", "w0", "的") // a one-rune token is skipped
	var s Scratch
	s.count([]string{"w5", "w5", "x"}) // the table a small text leaves is cleared
	kw := s.count(toks)
	if len(kw) != 1000 {
		t.Fatalf("count: %d distinct words, want 1000", len(kw))
	}
	for i, k := range kw {
		want := 1.0
		switch i {
		case 0:
			want = 3
		case 999:
			want = 2
		}
		if k.Word != fmt.Sprintf("w%d", i) || k.Weight != want {
			t.Fatalf("count: entry %d = %v, want w%d %v", i, k, i, want)
		}
	}
}

// One Scratch serves texts of every size in turn and gives what fresh
// memory gives, and the keywords of one call are not changed by the next.
func TestExtractScratch(t *testing.T) {
	idf := table{"北京": 2, "清华大学": 8, "来到": 4, "大学": 4}
	e := Extractor{IDF: idf, Stop: func(w string) bool { return w == "我们" }}
	texts := [][]string{
		{"我们", "来到", "北京", "，", "北京", "的", "清华大学", "16", "大学", "新词", "北京", "来到"},
		{"北京", "大学"},
		{},
		{"我们", "的"},
	}
	var long []string
	for i := range 700 {
		long = append(long, fmt.Sprintf("词%d", i%350))
	}
	texts = append(texts, long, texts[0], texts[1])
	var s Scratch
	var kept [][]Keyword
	for i, toks := range texts {
		got := e.ExtractScratch(toks, &s)
		if want := e.Extract(toks); !reflect.DeepEqual(got, want) {
			t.Errorf("text %d: ExtractScratch = %v, Extract = %v", i, got, want)
		}
		kept = append(kept, got)
	}
	for i, toks := range texts {
		if want := e.Extract(toks); !reflect.DeepEqual(kept[i], want) {
			t.Errorf("text %d: keywords changed by later calls: %v, want %v", i, kept[i], want)
		}
	}
	for i, k := range s.kw[:cap(s.kw)] {
		if k.Word != "" {
			t.Fatalf("the scratch keeps word %d, %q", i, k.Word)
		}
	}
}

// sortKeywords sorts as compareKeywords does, on slices short and long,
// with many equal weights, weights a float64 apart (which share a key but
// for the index bits), zeros of both signs, and a negative weight (which
// takes the plain sort). One Scratch serves every size in turn.
func TestSortKeywordsKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	weights := []float64{0, math.Copysign(0, -1), 1, 2.5, 3, math.Nextafter(3, 4), math.Nextafter(3, 2), 5.93, 1e-300, 1e300}
	var s Scratch
	for _, n := range []int{0, 1, 2, 15, 16, 17, 64, 255, 256, 257, 1000, 1 << 16, 1<<16 + 1} {
		for trial := range 3 {
			kw := make([]Keyword, n)
			for i := range kw {
				w := weights[rng.IntN(len(weights))]
				if trial == 1 {
					w = float64(rng.IntN(4)) * (1 + math.Log(float64(1+rng.IntN(3)))) // ties, as counts × IDF give
				}
				kw[i] = Keyword{Word: fmt.Sprintf("w%d", rng.IntN(2*n+1)), Weight: w}
			}
			if trial == 2 && n > 0 {
				kw[rng.IntN(n)].Weight = -1
			}
			want := slices.Clone(kw)
			slices.SortStableFunc(want, compareKeywords)
			got := slices.Clone(kw)
			sortKeywords(got, &s)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d trial %d: sortKeywords differs from compareKeywords' order", n, trial)
			}
		}
	}
	for i, k := range s.sorted[:cap(s.sorted)] {
		if k.Word != "" {
			t.Fatalf("the scratch keeps word %d, %q", i, k.Word)
		}
	}
}

// BenchmarkSortKeywords sorts the keywords of an article (256 words, a
// third of them sharing the median IDF as unknown words do), against a
// comparison sort through compareKeywords.
func BenchmarkSortKeywords(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	kw := make([]Keyword, 256)
	for i := range kw {
		idf := 5.93
		if rng.IntN(3) > 0 {
			idf = 2 + 10*rng.Float64()
		}
		kw[i] = Keyword{Word: fmt.Sprintf("词%d", i), Weight: idf * (1 + math.Log(float64(1+rng.IntN(2))))}
	}
	work := make([]Keyword, len(kw))
	b.Run("keys", func(b *testing.B) {
		var s Scratch
		for b.Loop() {
			copy(work, kw)
			sortKeywords(work, &s)
		}
	})
	b.Run("compare", func(b *testing.B) {
		for b.Loop() {
			copy(work, kw)
			slices.SortFunc(work, compareKeywords)
		}
	})
}

// FuzzSortKeywords checks sortKeywords against compareKeywords' order on
// keywords made from the input, three bytes each: the weight (a small
// multiple of 1/4, or a zero of either sign, or 3 and its neighbours),
// and a word of up to 15 copies of one byte, so that many words share
// their first 8 bytes.
func FuzzSortKeywords(f *testing.F) {
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
	f.Add(bytes.Repeat([]byte{7, 'a', 9, 7, 'a', 10, 7, 'b', 9}, 8))
	specials := []float64{0, math.Copysign(0, -1), 3, math.Nextafter(3, 4), math.Nextafter(3, 2)}
	var s Scratch
	f.Fuzz(func(t *testing.T, data []byte) {
		seen := map[string]bool{}
		var kw []Keyword
		for ; len(data) >= 3; data = data[3:] {
			w := float64(data[0]%32) / 4
			if data[0] >= 224 {
				w = specials[int(data[0]-224)%len(specials)]
			}
			word := strings.Repeat(string(data[1:2]), 1+int(data[2]%15))
			if !seen[word] { // an article's keywords are distinct words
				seen[word] = true
				kw = append(kw, Keyword{word, w})
			}
		}
		want := slices.Clone(kw)
		slices.SortFunc(want, compareKeywords)
		sortKeywords(kw, &s)
		if !slices.Equal(kw, want) {
			t.Fatalf("sortKeywords = %v, want %v", kw, want)
		}
	})
}

// count's token hash: every byte of a token of 1 to 40 bytes changes
// it, and the top 32 bits (the table's tag and slot) of 53,404 distinct
// short tokens collide at most a few times (0.33 pairs expected of a
// random hash).
func TestWordHash(t *testing.T) {
	k := newWordSeed()
	base := []byte("abcdefghijklmnopqrstuvwxyz0123456789ABCD")
	for n := 1; n <= len(base); n++ {
		w := string(base[:n])
		h := k.hash(w)
		if k.hash(strings.Clone(w)) != h {
			t.Fatalf("hash(%q) differs between two copies", w)
		}
		for i := range n {
			b := []byte(w)
			b[i] ^= 0x20
			if k.hash(string(b)) == h {
				t.Errorf("hash(%q) == hash(%q)", b, w)
			}
		}
	}
	tags := make(map[uint64]string)
	collisions := 0
	letters := "abcdefghijklmnopqrstuvwxyz"
	add := func(w string) {
		tag := k.hash(w) >> 32
		if o, ok := tags[tag]; ok && o != w {
			collisions++
		}
		tags[tag] = w
	}
	for _, a := range letters {
		for _, b := range letters {
			add(string(a) + string(b))
			for _, c := range letters {
				add(string(a) + string(b) + string(c))
				add("发" + string(a) + string(b) + string(c))
				add(string(a) + string(b) + string(c) + "ing")
			}
		}
	}
	if collisions > 5 {
		t.Errorf("%d tag collisions among %d tokens", collisions, len(tags))
	}
}
