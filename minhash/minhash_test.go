package minhash

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/testfixtures/corpora"
)

// Sketches computed by an independent Python implementation of the
// algorithm documented on Sketch and ShingleHash.
var sketchVectors = []struct {
	text string
	want string // the 64 values in hex
}{
	{"我来到北京清华大学", "8bf7 ec50 4f23 91af 3844 d2df 7591 826f 8333 e009 49c2 6726 52e6 4c9a 4056 c308 " +
		"6dc6 f952 1588 ce7b 3dd0 7352 5625 2f2f 923d 8826 24f2 9747 5bca db09 fedb bf5f " +
		"c6dc 31f0 d6f6 b5d5 4721 9a6c bb77 e71a cbb3 31fd cb1f 9d09 cdd1 6a9b 98be 3346 " +
		"6f5a 6e66 8ead e5c7 ceef 32d0 1374 51d6 2a42 6fb4 6182 7f14 7a01 5ef5 660a a10e"},
	{"abc", "6c50 e23b 8ebf 9994 95a9 8a35 06ba cd08 8016 ee9e b622 4e2b a05c 2f14 4338 a9b7 " +
		"1fb1 9e6f 0ba2 f4f3 2e7b 6b39 c8a3 1a89 4fa6 627b 341a a7ff 3daa ff34 f0a5 923e " +
		"9164 078a e28b f7a9 064b af26 48a3 6417 c82c 145e a4be dfd5 1e5e 78ca 2854 e0cd " +
		"ee97 e8e5 e9d3 7103 106d c4f5 fe7c b3af dbfa d45a c23b c161 3a87 c92b 1fa2 243a"},
	{"The quick brown fox jumps over the lazy dog.", "ae24 a626 110f b971 f18d e367 8a66 87d0 5acb 4d47 5575 9c3e e066 05b3 8fd6 220d " +
		"9157 08eb 3c17 97c7 6359 5daa b79b ecf2 d2f0 d2e0 59a2 538c 4ca7 47c3 1fe0 a86c " +
		"ddcf ed9e cc04 4e8a 8109 86d8 7641 3618 d1ad 5f07 4a30 f6e4 7528 7d0f 0fd1 60ab " +
		"18f7 c7b1 2815 be95 77fb e650 ee71 23bc ed96 dc45 2f50 a496 c166 c4d8 3b37 9d54"},
}

func sketchHex(s Sketch) string {
	var b strings.Builder
	for i, v := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%04x", v)
	}
	return b.String()
}

func TestNewVectors(t *testing.T) {
	for _, tt := range sketchVectors {
		if got := sketchHex(New(tt.text)); got != tt.want {
			t.Errorf("New(%q) =\n%s\nwant\n%s", tt.text, got, tt.want)
		}
	}
}

// A byte that is not UTF-8 is a rune of its own, apart from U+FFFD and
// from other such bytes; ShingleHash is the hash of New's shingles.
func TestSketchRunes(t *testing.T) {
	if New("abcd\xff") == New("abcd\ufffd") || New("abcd\xff") == New("abcd\xfe") {
		t.Errorf("an invalid byte hashes like U+FFFD or like another invalid byte")
	}
	h := ShingleHash([]rune("北京清华大"))
	if got := New("北京清华大"); got[h>>58] != max(uint16(h), 1) {
		t.Errorf("bucket %d of New = %04x, ShingleHash gives %04x", h>>58, got[h>>58], uint16(h))
	}
	if ShingleHash([]rune("abc")) == ShingleHash([]rune("\x00\x00abc")) {
		t.Errorf("a 3-rune text hashes like the 5-rune shingle that ends with it")
	}
}

// sketchReference is New written plainly: the text's runes (a byte
// that is not UTF-8 standing for invalidByte + itself), every window of
// ShingleRunes of them hashed by ShingleHash, the minima densified.
func sketchReference(text string) Sketch {
	if text == "" {
		return Sketch{}
	}
	rs := textRunes(text)
	var mins [Size]uint64
	for i := range mins {
		mins[i] = math.MaxUint64
	}
	if len(rs) < ShingleRunes {
		add(&mins, ShingleHash(rs))
	}
	for i := 0; i+ShingleRunes <= len(rs); i++ {
		add(&mins, ShingleHash(rs[i:i+ShingleRunes]))
	}
	return densify(&mins)
}

// add takes h into the minima of a Sketch's buckets, as the format
// defines them: the top 6 bits of h pick the bucket, the low 58 bits
// compete for its minimum.
func add(mins *[Size]uint64, h uint64) {
	b, v := h>>bucketShift, h&valueMask
	if v < mins[b] {
		mins[b] = v
	}
}

// textRunes returns the runes of text as New reads them: a byte that is
// not UTF-8 stands for invalidByte + itself.
func textRunes(text string) []rune {
	var rs []rune
	for off := 0; off < len(text); {
		r, w := utf8.DecodeRuneInString(text[off:])
		if r == utf8.RuneError && w == 1 {
			r = rune(invalidByte + uint32(text[off]))
		}
		rs = append(rs, r)
		off += w
	}
	return rs
}

// decodeCases are texts around New's decoding shortcuts: ASCII,
// three-byte sequences with every kind of lead byte, sequences cut short
// at the end or by a byte that does not continue them, surrogates,
// overlong forms and four-byte runes.
var decodeCases = []string{
	"hello, world",
	"\u1000\u4e00\u9fff\ucfff\ud7ff\ue000\uffff\u0800\u0fff abc",
	"abcd\xe4\xb8",                 // cut short at the end
	"abcd\xe4\xb8\xadx\xe4",        // one valid, one cut short
	"abcd\xe4(\xad\xe4\xb8(",       // a lead byte not continued
	"abcd\xed\xa0\x80\xed\x9f\xbf", // a surrogate, then U+D7FF
	"abcd\xe0\x80\x80\xe0\xa0\x80", // overlong, then U+0800
	"abcd\xef\xbf\xbf\xef\xbf\xbd", // U+FFFF, U+FFFD
	"abcd😀𝄞\xf0\x9f\x98",
	"新华社北京10月30日电 金庸（原名查良镛）30日在香港逝世，享年94岁。",
}

func TestNewReference(t *testing.T) {
	for _, text := range decodeCases {
		if got, want := New(text), sketchReference(text); got != want {
			t.Errorf("New(%q) =\n%s\nthe reference gives\n%s", text, sketchHex(got), sketchHex(want))
		}
	}
	for c := range utf8.RuneSelf {
		if got, want := asciiHash[c], runeHash(uint32(c)); got != want {
			t.Errorf("asciiHash[%#x] = %#x, runeHash gives %#x", c, got, want)
		}
	}
}

func TestSketchZero(t *testing.T) {
	z := New("")
	if !z.IsZero() || z != (Sketch{}) {
		t.Fatalf("New(\"\") = %v, want the zero Sketch", z)
	}
	for _, text := range []string{"a", " ", "\x00", "\xff", "ab", "abcd", "abcde", "abcdef", "我", "我来到北京清华大学"} {
		s := New(text)
		if s.IsZero() {
			t.Errorf("New(%q).IsZero() = true", text)
		}
		if slices.Contains(s[:], 0) {
			t.Errorf("New(%q) has a 0 value: %v", text, s)
		}
		if j := s.Jaccard(z); j != 0 {
			t.Errorf("Jaccard(%q, zero) = %v, want 0", text, j)
		}
		if j := z.Jaccard(s); j != 0 {
			t.Errorf("Jaccard(zero, %q) = %v, want 0", text, j)
		}
		if j := s.Jaccard(s); j != 1 {
			t.Errorf("Jaccard(%q, itself) = %v, want 1", text, j)
		}
	}
	if j := z.Jaccard(z); j != 0 {
		t.Errorf("Jaccard(zero, zero) = %v, want 0", j)
	}
}

func TestSketchJaccard(t *testing.T) {
	const text = "我来到北京清华大学，看见了许多美丽的风景和来自世界各地的同学。"
	tests := []struct {
		a, b     string
		min, max float64
	}{
		// Same 5-gram set: the sketches are equal.
		{text, text, 1, 1},
		{text + "|" + text, text + "|" + text + "|" + text, 1, 1},
		{"abcabcabc", "abcabcabcabc", 1, 1}, // both {abcab, bcabc, cabca}
		// Disjoint 5-gram sets: only chance agreements (p ~ 1/65535).
		{"abc", "abd", 0, 1.0 / 64},
		{"abcd", "abcde", 0, 1.0 / 64}, // one shingle each, different
		{text, "The quick brown fox jumps over the lazy dog.", 0, 1.0 / 64},
	}
	for _, tt := range tests {
		a, b := New(tt.a), New(tt.b)
		j := a.Jaccard(b)
		if j < tt.min || j > tt.max {
			t.Errorf("Jaccard(%q, %q) = %v, want in [%v, %v]", tt.a, tt.b, j, tt.min, tt.max)
		}
		if j2 := b.Jaccard(a); j2 != j {
			t.Errorf("Jaccard not symmetric: %v vs %v", j, j2)
		}
	}
}

// shingles returns the set of character 5-grams of text, as New
// defines them.
func shingles(text string) map[string]struct{} {
	set := make(map[string]struct{})
	var starts []int
	for i := range text {
		starts = append(starts, i)
	}
	starts = append(starts, len(text))
	n := len(starts) - 1
	if n == 0 {
		return set
	}
	if n < ShingleRunes {
		set[text] = struct{}{}
		return set
	}
	for i := 0; i+ShingleRunes <= n; i++ {
		set[text[starts[i]:starts[i+ShingleRunes]]] = struct{}{}
	}
	return set
}

func exactJaccard(a, b string) float64 {
	sa, sb := shingles(a), shingles(b)
	inter := 0
	for s := range sa {
		if _, ok := sb[s]; ok {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// syntheticText returns n runes drawn from a Zipf-like distribution over
// 600 common CJK characters with punctuation, a stand-in for news text.
func syntheticText(r *rand.Rand, n int) []rune {
	const punct = "，。、；："
	out := make([]rune, n)
	for i := range out {
		if r.IntN(12) == 0 {
			out[i] = []rune(punct)[r.IntN(len([]rune(punct)))]
			continue
		}
		// rank ~ exp(uniform): a few characters are very common.
		rank := int(math.Exp(r.Float64()*math.Log(600))) - 1
		out[i] = rune(0x4e00 + rank*7)
	}
	return out
}

// perturb edits a fraction p of the positions of text: replacing,
// deleting or inserting a rune, or, when blocks is set, moving whole
// runs of 20 runes.
func perturb(r *rand.Rand, text []rune, p float64, blocks bool) []rune {
	out := make([]rune, 0, len(text)+len(text)/4)
	for i := 0; i < len(text); i++ {
		if r.Float64() >= p {
			out = append(out, text[i])
			continue
		}
		if blocks {
			// Drop a run of 20 runes, or replace it with fresh text.
			if r.IntN(2) == 0 {
				out = append(out, syntheticText(r, 20)...)
			}
			i += 19
			continue
		}
		switch r.IntN(3) {
		case 0: // replace
			out = append(out, syntheticText(r, 1)...)
		case 1: // delete
		default: // insert
			out = append(out, syntheticText(r, 1)...)
			out = append(out, text[i])
		}
	}
	return out
}

// TestSketchAccuracy compares estimates with exact Jaccard similarities
// on perturbed synthetic texts spanning J from about 0 to 1.
func TestSketchAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var sumErr, maxErr float64
	var n, outside int
	for _, size := range []int{30, 300, 3000} {
		for _, p := range []float64{0, 0.002, 0.01, 0.03, 0.06, 0.1, 0.15, 0.25, 0.4} {
			for _, blocks := range []bool{false, true} {
				for range 6 {
					base := syntheticText(r, size)
					other := perturb(r, base, p, blocks)
					exact := exactJaccard(string(base), string(other))
					est := New(string(base)).Jaccard(New(string(other)))
					e := math.Abs(est - exact)
					sumErr += e
					maxErr = max(maxErr, e)
					n++
					if e > 0.15 {
						outside++
						t.Logf("size %d p %v blocks %v: exact %.3f, estimate %.3f", size, p, blocks, exact, est)
					}
				}
			}
		}
	}
	mae := sumErr / float64(n)
	t.Logf("%d pairs: mean absolute error %.4f, max %.4f, %d outside ±0.15", n, mae, maxErr, outside)
	// sqrt(J(1-J)/64) <= 0.0625 is the standard error of one estimate; its
	// mean absolute value is at most 0.05.
	if mae > 0.05 {
		t.Errorf("mean absolute error %.4f > 0.05", mae)
	}
	// 0.15 is 2.4 standard errors at worst (J = 0.5): allow 2%.
	if float64(outside) > 0.02*float64(n) {
		t.Errorf("%d of %d estimates off by more than 0.15", outside, n)
	}
}

type corpusDoc struct {
	ID, Text string
}

// readCorpus reads the shared corpus name ("zh_news"); when it is absent
// it skips t, or fails it in CI (see corpora.Require).
func readCorpus(t testing.TB, name string) map[string]string {
	t.Helper()
	path := filepath.Join(corpora.Require(t, name+".jsonl.gz"), name+".jsonl.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	docs := make(map[string]string)
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<26)
	for line := 1; sc.Scan(); line++ {
		var d corpusDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		docs[d.ID] = d.Text
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return docs
}

// normalizeLikeReference lower-cases text and collapses white space, as
// the corpora's reference Jaccard values were computed.
func normalizeLikeReference(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// TestSketchCorpusPairs checks estimates against the reference Jaccard
// similarities of the pairs listed in the shared corpora (J >= 0.5),
// and that random other pairs (J < 0.5) get low estimates.
func TestSketchCorpusPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a corpus")
	}
	if raceEnabled {
		// Decoding the corpora takes over 30 s under the race detector,
		// and there is no concurrency here to check.
		t.Skip("slow under the race detector")
	}
	for _, name := range []string{"zh_news", "en_docs"} {
		t.Run(name, func(t *testing.T) {
			dir := corpora.Require(t, name+".pairs.jsonl.gz")
			f, err := os.Open(filepath.Join(dir, name+".pairs.jsonl.gz"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			docs := readCorpus(t, name)
			zr, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			sketches := make(map[string]Sketch)
			sketch := func(id string) Sketch {
				s, ok := sketches[id]
				if !ok {
					text, found := docs[id]
					if !found {
						t.Fatalf("%s: pair names unknown document %q", name, id)
					}
					s = New(normalizeLikeReference(text))
					sketches[id] = s
				}
				return s
			}
			var ref, est []float64
			listed := make(map[[2]string]bool)
			dec := json.NewDecoder(zr)
			for {
				var p struct {
					A, B string
					J    float64 `json:"jaccard_char5"`
				}
				if err := dec.Decode(&p); err != nil {
					if !errors.Is(err, io.EOF) {
						t.Fatalf("%s pairs: %v", name, err)
					}
					break
				}
				listed[[2]string{p.A, p.B}], listed[[2]string{p.B, p.A}] = true, true
				ref = append(ref, p.J)
				est = append(est, sketch(p.A).Jaccard(sketch(p.B)))
			}
			if len(ref) == 0 {
				t.Fatalf("%s: no pairs", name)
			}
			var sumErr, maxErr float64
			outside := 0
			for i := range ref {
				e := math.Abs(est[i] - ref[i])
				sumErr += e
				maxErr = max(maxErr, e)
				if e > 0.15 {
					outside++
				}
			}
			mae := sumErr / float64(len(ref))
			corr := pearson(ref, est)

			// Random unlisted pairs have J < 0.5, mostly near 0.
			ids := make([]string, 0, len(docs))
			for id := range docs {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			r := rand.New(rand.NewPCG(7, 7))
			var sumLow float64
			high, nLow := 0, 0
			for range 600 {
				a, b := ids[r.IntN(len(ids))], ids[r.IntN(len(ids))]
				if a == b || listed[[2]string{a, b}] {
					continue
				}
				j := sketch(a).Jaccard(sketch(b))
				sumLow += j
				nLow++
				if j >= 0.5+0.15 {
					high++
				}
			}
			t.Logf("%s: %d pairs (J >= 0.5): mean absolute error %.4f, max %.4f, %d outside ±0.15, Pearson r %.3f; "+
				"%d random unlisted pairs: mean estimate %.4f, %d at >= 0.65",
				name, len(ref), mae, maxErr, outside, corr, nLow, sumLow/float64(nLow), high)
			if mae > 0.06 {
				t.Errorf("mean absolute error %.4f > 0.06", mae)
			}
			if corr < 0.7 {
				t.Errorf("Pearson correlation %.3f < 0.7", corr)
			}
			if high > 0 {
				t.Errorf("%d random pairs with J < 0.5 estimated at >= 0.65", high)
			}
		})
	}
}

func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

func TestSketchBinary(t *testing.T) {
	s := New("我来到北京清华大学")
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != EncodedSize {
		t.Fatalf("MarshalBinary: %d bytes, want %d", len(b), EncodedSize)
	}
	// Little-endian: first value 0x8bf7, last 0xa10e.
	if b[0] != 0xf7 || b[1] != 0x8b || b[126] != 0x0e || b[127] != 0xa1 {
		t.Errorf("MarshalBinary = % x..., want f7 8b ... 0e a1", b[:4])
	}
	prefix := []byte("key:")
	ab, err := s.AppendBinary(prefix)
	if err != nil || string(ab[:4]) != "key:" || string(ab[4:]) != string(b) {
		t.Errorf("AppendBinary = %q, %v", ab, err)
	}
	var back Sketch
	if err := back.UnmarshalBinary(b); err != nil || back != s {
		t.Errorf("UnmarshalBinary(MarshalBinary(s)) = %v, %v; want %v", back, err, s)
	}
	var zero Sketch
	zb, _ := zero.MarshalBinary()
	back = s
	if err := back.UnmarshalBinary(zb); err != nil || !back.IsZero() {
		t.Errorf("UnmarshalBinary(zeros) = %v, %v; want the zero Sketch", back, err)
	}

	bad := [][]byte{nil, b[:127], append(slices.Clone(b), 0), make([]byte, 256)}
	oneZero := slices.Clone(b)
	oneZero[10], oneZero[11] = 0, 0
	bad = append(bad, oneZero)
	for _, data := range bad {
		got := s
		err := got.UnmarshalBinary(data)
		if !errors.Is(err, ErrEncoding) {
			t.Errorf("UnmarshalBinary(%d bytes) error = %v, want ErrEncoding", len(data), err)
		}
		if got != s {
			t.Errorf("UnmarshalBinary(%d bytes) changed the sketch on error", len(data))
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	good, _ := New("abc").MarshalBinary()
	f.Add(good)
	f.Add(make([]byte, EncodedSize))
	f.Add([]byte{})
	f.Add(good[:100])
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Sketch
		if err := s.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrEncoding) {
				t.Fatalf("error %v does not wrap ErrEncoding", err)
			}
			return
		}
		back, err := s.MarshalBinary()
		if err != nil || string(back) != string(data) {
			t.Fatalf("MarshalBinary(UnmarshalBinary(% x)) = % x, %v", data, back, err)
		}
		if j := s.Jaccard(s); j != 1 && !s.IsZero() {
			t.Fatalf("Jaccard(s, s) = %v", j)
		}
	})
}

func FuzzNew(f *testing.F) {
	for _, s := range []string{"", "a", "abcde", "我来到北京清华大学", "\xff\xfe\xfd\xfc\xfb\xfa", "a\xe4\xb8b"} {
		f.Add(s)
	}
	for _, s := range decodeCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := New(text)
		if want := sketchReference(text); s != want {
			t.Fatalf("New(%q) =\n%s\nthe reference gives\n%s", text, sketchHex(s), sketchHex(want))
		}
		if s.IsZero() != (text == "") {
			t.Fatalf("New(%q).IsZero() = %v", text, s.IsZero())
		}
		if text != "" && slices.Contains(s[:], 0) {
			t.Fatalf("New(%q) has a 0 value", text)
		}
		if New(text) != s {
			t.Fatalf("New(%q) not deterministic", text)
		}
		// The sketch depends on the shingle set only.
		if utf8.RuneCountInString(text) >= ShingleRunes {
			twice := text + "\x00" + text
			if New(twice) != New(twice+"\x00"+text) {
				t.Fatalf("New differs on equal shingle sets of %q", text)
			}
		}
	})
}

var (
	sinkSketch Sketch
	sinkLong   Long
)

// BenchmarkNew times New, NewCount (the sketch and the set size that
// containment needs), NewAll (those and the Long, what Analyze makes)
// and NewAllScratch (NewAll with a Scratch reused, as Analyze calls it)
// on the first zh_news article of at least 3,000 bytes and the first
// en_reuters article of at least 1,500, in id order, and on repeated
// English.
func BenchmarkNew(b *testing.B) {
	first := func(corpus string, size int) string {
		docs := readCorpus(b, corpus)
		ids := make([]string, 0, len(docs))
		for id := range docs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			if len(docs[id]) >= size {
				return normalizeLikeReference(docs[id])
			}
		}
		b.Fatalf("%s has no article of %d bytes", corpus, size)
		return ""
	}
	en := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 70)
	for _, in := range []struct{ name, text string }{
		{"zh_news", first("zh_news", 3000)},
		{"en_reuters", first("en_reuters", 1500)},
		{"en", en},
	} {
		b.Run(fmt.Sprintf("%s/%dB", in.name, len(in.text)), func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				sinkSketch = New(in.text)
			}
		})
		b.Run(fmt.Sprintf("%s/%dB/count", in.name, len(in.text)), func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				sinkSketch, _ = NewCount(in.text)
			}
		})
		b.Run(fmt.Sprintf("%s/%dB/all", in.name, len(in.text)), func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				sinkSketch, sinkLong, _ = NewAll(in.text)
			}
		})
		b.Run(fmt.Sprintf("%s/%dB/scratch", in.name, len(in.text)), func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			var s Scratch
			for b.Loop() {
				sinkSketch, sinkLong, _ = NewAllScratch(in.text, &s)
			}
		})
	}
}

// BenchmarkJaccard times the two estimates a confirmation makes: the
// Sketch's and the Long's.
func BenchmarkJaccard(b *testing.B) {
	s, l, _ := NewAll("我来到北京清华大学")
	t, m, _ := NewAll("我来到北京大学")
	var sink float64
	b.Run("sketch", func(b *testing.B) {
		for b.Loop() {
			sink += s.Jaccard(t)
		}
	})
	b.Run("long", func(b *testing.B) {
		for b.Loop() {
			sink += l.Jaccard(&m)
		}
	})
	_ = sink
}

func TestNewCount(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 1},
		{"abcdef", 2},
		{"aaaaaaaaaa", 1},
		{"abcdeabcde", 5}, // abcde bcdea cdeab deabc eabcd, then abcde again
		{"我来到北京清华大学", 5},
		{"我来到北京我来到北京", 5},
		{"a\xffb\xfec", 1},
	} {
		s, n := NewCount(tc.text)
		if n != tc.want {
			t.Errorf("NewCount(%q) counts %d shingles, want %d", tc.text, n, tc.want)
		}
		if s != New(tc.text) {
			t.Errorf("NewCount(%q)'s sketch differs from New's", tc.text)
		}
	}
	// Enough distinct shingles to grow the set several times.
	r := rand.New(rand.NewPCG(1, 2))
	text := string(syntheticText(r, 20000))
	if _, n := NewCount(text); n != len(shingles(text)) {
		t.Errorf("NewCount of 20,000 synthetic runes counts %d shingles, want %d", n, len(shingles(text)))
	}
}

func TestContainment(t *testing.T) {
	for _, tc := range []struct {
		j      float64
		na, nb int
		want   float64
	}{
		{1, 100, 100, 1},
		{0.5, 100, 100, 2.0 / 3}, // |A∩B| = 0.5·200/1.5
		{0.7, 70, 100, 1},        // A, 70% of B, inside B
		{0.6, 70, 100, 0.6 * 170 / 1.6 / 70},
		{0.35, 100, 70, 0.35 * 170 / 1.35 / 70},
		{0.3, 25, 100, 1}, // 28.8 of 25: capped
		{0, 100, 100, 0},
		{0.8, 0, 100, 0}, // a size unknown
		{0.8, 100, -1, 0},
	} {
		if got := Containment(tc.j, tc.na, tc.nb); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Containment(%v, %d, %d) = %v, want %v", tc.j, tc.na, tc.nb, got, tc.want)
		}
	}
}

func FuzzNewCount(f *testing.F) {
	for _, s := range []string{"", "a", "abcdeabcde", "我来到北京清华大学", "\xff\xfe\xfd\xfc\xfb\xfa", "aaaaaaaaaaaa"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, n := NewCount(text)
		if s != New(text) {
			t.Fatalf("NewCount(%q)'s sketch differs from New's", text)
		}
		if want := len(shingles(text)); n != want {
			t.Fatalf("NewCount(%q) counts %d shingles, want %d", text, n, want)
		}
	})
}

// BenchmarkNewAllCorpus times NewAllScratch, as Analyze calls it, over
// the first 300 articles (in id order) of en_reuters and of zh_news,
// normalised as the corpora's reference values are: a whole pass a
// benchmark iteration, so that the set's and the sketches' per-text work
// counts as it does in the analysis of many short texts.
func BenchmarkNewAllCorpus(b *testing.B) {
	for _, corpus := range []string{"en_reuters", "zh_news"} {
		docs := readCorpus(b, corpus)
		ids := make([]string, 0, len(docs))
		for id := range docs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		texts := make([]string, 0, 300)
		size := 0
		for _, id := range ids[:min(300, len(ids))] {
			texts = append(texts, normalizeLikeReference(docs[id]))
			size += len(texts[len(texts)-1])
		}
		b.Run(corpus, func(b *testing.B) {
			b.SetBytes(int64(size))
			var s Scratch
			for b.Loop() {
				for _, t := range texts {
					sinkSketch, sinkLong, _ = NewAllScratch(t, &s)
				}
			}
		})
	}
}
