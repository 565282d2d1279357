package minhash

import (
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// Long sketches computed by an independent Python implementation of the
// algorithm documented on Long and ShingleHash (the top 8 bits of a
// shingle's hash pick the bucket, the low 56 compete, empty buckets
// borrow mix64(min + t·0x9e3779b97f4a7c15) from t buckets to the right,
// the low 8 bits are kept), for the texts of sketchVectors.
var longVectors = []struct {
	text string
	want string // the 256 values in hex, 32 a line
}{
	{"我来到北京清华大学", `
f12b3d160b4f59231f201c2cf567aaec149a66389a4bd599dd91e85cb92d27ab
a7b991ce3215b101878fb36f3309c226e61410872bd6f8dcbe6e4f810f7ce656
18463c15767f12e2e515ffae6afaedf049927d271ff58b1d7c2594ac39a00393
1a3ebaafc673af48120c2f7adc56317823981a3deeb168b59bf33f860fe59cbb
a03a90708de2f0da9dfa8af82ff34767ac33dfa206fc712b71bccebf36de8b71
660111d24eb5971b7d1fce790c53196ed2126832cc1d38f8dad7735126db5493
30fb3e93cab7e500f56b4a66bd339d5262396790ea86ceae4e64429e8119e202
00a69bc5f8ec9e18e716c7d94df543910352b8bc73fc07fd75179deb8712468d`},
	{"abc", `
a563a1cf65fa259031fb775e3aa5a559074f276f4f7b685c41d09fd18fb534a1
c9fc808543232726b8da658f14bd5bcc7af45786b3986044ef82b6f8df0523d4
b14391570279e0da606130864799900ae07b927aa4b9738701d0772068037ef0
9f76395f43c0d71ab8002db128811ec54dcbb36597803f9a0df8277834213b57
d3be3cb8b1e796a5dadc665c40555b3df10f430132fb8637d1f110b8e1d819bd
8a63d26563b3acdcd844f849538f90c41950864cb002f851e4f90c3c07d6d981
c3d795fbafae4276d49f4f0797ef682f61de932d760c0b9a2d4d581acafd705a
c3097d651a1cf795f681551fdf469dd4e49c1af7f39b9636e89c2c651aaefe44`},
	{"The quick brown fox jumps over the lazy dog.", `
6f24823326a582b5e13fc0884ddbf571d3b38d172659ead729d96622a5c2b3d6
f4479da623ee2ce2c734cb0b5b340e3c06edf650ebb36e564c493d20a7360d43
7c574f4fa13dea0cd87b2317fcfcc7ba4ddb59001df9aa0f18960b77df9f97a1
26564ef0fee0bc0694e365a28cc4736f25f7200605f82117fea4e02a6cf753cc
58aea5c8490f8aaf8163a3e4d41388c281e697bf4011c29db1b04192ede7736a
ce8dfd4825cbd504eedb9f7ae5fa5ae350281b0abb51790f015bd11692abce97
77419a9ece19f2f3f4400815b92800d94ef4ede8550d9c507182c324af61bc32
8f96c00e9ea1d14b967c74502c0951e1cb662fa53bd86a93de37aa5fa6dc4215`},
}

// TestLongVectors pins the stored format of Long: NewAll's Long, and
// its encoding, which is the values in order.
func TestLongVectors(t *testing.T) {
	for _, tt := range longVectors {
		want := strings.ReplaceAll(tt.want, "\n", "")
		_, l, _ := NewAll(tt.text)
		b, err := l.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(b); got != want {
			t.Errorf("NewAll(%q)'s Long encodes as\n%s\nwant\n%s", tt.text, got, want)
		}
	}
}

// NewAll's sketch and count are NewCount's, and its Long is the
// reference's (every shingle hashed by ShingleHash, as sketchReference
// does for the Sketch).
func TestNewAll(t *testing.T) {
	for _, text := range append([]string{"", "a", "abcdeabcde", "我来到北京清华大学"}, decodeCases...) {
		s, l, n := NewAll(text)
		cs, cn := NewCount(text)
		if s != cs || n != cn {
			t.Errorf("NewAll(%q) = sketch %s, count %d; NewCount gives %s, %d", text, sketchHex(s), n, sketchHex(cs), cn)
		}
		if want := longReference(text); l != want {
			t.Errorf("NewAll(%q)'s Long differs from the reference:\n%x\n%x", text, l[:], want[:])
		}
		if l.IsZero() != (text == "") {
			t.Errorf("NewAll(%q)'s Long: IsZero %v", text, l.IsZero())
		}
	}
}

// NewAllScratch gives NewAll's answers with one Scratch reused over
// texts of every size, in an order where each is sized for the text
// before it: long after short, short after long, empty, invalid UTF-8
// (stray continuation bytes are runes the set's sizing does not see, so
// that the set grows), and a set too large to keep.
func TestNewAllScratch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	texts := append([]string{"", "a", "abcdeabcde", "我来到北京清华大学"}, decodeCases...)
	texts = append(texts,
		string(syntheticText(r, 20000)),
		"abcdefgh",
		strayContinuations(r, 5000)+"abc",
		string(syntheticText(r, 300)),
		string(syntheticText(r, 1<<19)),
		"我来到北京清华大学",
	)
	var s Scratch
	for _, text := range texts {
		ws, wl, wn := NewAll(text)
		gs, gl, gn := NewAllScratch(text, &s)
		if gs != ws || gl != wl || gn != wn {
			t.Errorf("NewAllScratch of %d bytes (%.20q) = count %d, sketch %s; NewAll gives %d, %s", len(text), text, gn, sketchHex(gs), wn, sketchHex(ws))
		}
		// Shingles whose hashes share their top 32 bits count once: on
		// 2^19 runes, some 30 of them.
		if want := len(shingles(text)); len(text) < 1e5 && gn != want {
			t.Errorf("NewAllScratch of %d bytes (%.20q) counts %d shingles, want %d", len(text), text, gn, want)
		}
	}
	if len(s.set.slots) > maxKeptSlots {
		t.Errorf("the Scratch keeps %d slots after a text of 2^19 runes, want at most %d", len(s.set.slots), maxKeptSlots)
	}
}

// strayContinuations returns n random UTF-8 continuation bytes: n runes
// that runeStarts does not count, with about n distinct shingles.
func strayContinuations(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0x80 | byte(r.IntN(64))
	}
	return string(b)
}

func TestRuneStarts(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"我来到北京清华大学", 9},
		{"café au lait, 北京 and 𝄞!", 23},
		{"\x80\x80\xbf", 0}, // continuation bytes only
		{"\xe4\xb8", 1},     // a truncated character
		{"a\xffb\xfec", 5},  // invalid lead bytes count
		{"abcdefgh北京", 10},  // a word of ASCII, then the rest
		{"ééééé", 5},
	} {
		if got := runeStarts(tc.text); got != tc.want {
			t.Errorf("runeStarts(%q) = %d, want %d", tc.text, got, tc.want)
		}
		if utf8.ValidString(tc.text) && runeStarts(tc.text) != utf8.RuneCountInString(tc.text) {
			t.Errorf("runeStarts(%q) = %d, not its rune count %d", tc.text, runeStarts(tc.text), utf8.RuneCountInString(tc.text))
		}
	}
}

// longReference is the Long of text written plainly, like
// sketchReference.
func longReference(text string) Long {
	if text == "" {
		return Long{}
	}
	rs := textRunes(text)
	var m longMins
	for i := range m {
		m[i] = math.MaxUint64
	}
	if len(rs) < ShingleRunes {
		m.add(ShingleHash(rs))
	}
	for i := 0; i+ShingleRunes <= len(rs); i++ {
		m.add(ShingleHash(rs[i : i+ShingleRunes]))
	}
	return m.densify()
}

func TestLongJaccardBound(t *testing.T) {
	var a Long
	for i := range a {
		a[i] = uint8(i)
	}
	// The first 10 values differ, and values 130 and 250.
	c := a
	for i := range 10 {
		c[i] ^= 0x5a
	}
	c[130], c[250] = 0, 0
	for _, tc := range []struct {
		m    int
		want float64 // (agreeing - 1) / 255, agreeing counting every value past m
	}{
		{0, 1},
		{8, 247.0 / 255},
		{16, 245.0 / 255},
		{128, 245.0 / 255},
		{136, 244.0 / 255},
		{256, 243.0 / 255}, // all read: Jaccard
	} {
		if got := a.JaccardBound(&c, tc.m); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("JaccardBound(m=%d) = %v, want %v", tc.m, got, tc.want)
		}
	}
	if got, want := a.JaccardBound(&c, LongSize), a.Jaccard(&c); got != want {
		t.Errorf("JaccardBound(LongSize) = %v, Jaccard %v", got, want)
	}
	// An upper bound of Jaccard for any pair, and falling with m.
	rng := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		var x, y Long
		for i := range x {
			x[i], y[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
			if rng.IntN(4) == 0 {
				y[i] = x[i]
			}
		}
		j, last := x.Jaccard(&y), 2.0
		for m := 0; m <= LongSize; m += 8 {
			b := x.JaccardBound(&y, m)
			if b < j || b > last {
				t.Fatalf("JaccardBound(m=%d) = %v: Jaccard %v, bound at m-8 %v", m, b, j, last)
			}
			last = b
		}
	}
}

func TestLongJaccard(t *testing.T) {
	var a, b, zero Long
	for i := range a {
		a[i] = uint8(i)
		b[i] = uint8(i)
	}
	// n of 256 values agree: (n/256 - 1/256) / (255/256) = (n-1)/255.
	for _, tc := range []struct {
		differ int // values of b changed
		want   float64
	}{
		{0, 1},
		{1, 254.0 / 255},
		{64, 191.0 / 255},
		{128, 127.0 / 255},
		{255, 0},
		{256, 0}, // below chance: clamped
	} {
		c := b
		for i := range tc.differ {
			c[i] ^= 0x5a
		}
		if got := a.Jaccard(&c); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%d of 256 values differ: Jaccard %v, want %v", tc.differ, got, tc.want)
		}
		if got := c.Jaccard(&a); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%d of 256 values differ: Jaccard not symmetric: %v", tc.differ, got)
		}
	}
	// Agreeing values anywhere in a word are counted, and only those.
	c := a
	c[3], c[8+7], c[200] = 0, 0xff, 1
	if got, want := a.Jaccard(&c), 252.0/255; math.Abs(got-want) > 1e-12 {
		t.Errorf("3 scattered values differ: Jaccard %v, want %v", got, want)
	}
	if got := a.Jaccard(&zero); got != 0 {
		t.Errorf("Jaccard with the zero Long = %v, want 0", got)
	}
	if got := zero.Jaccard(&zero); got != 0 {
		t.Errorf("Jaccard of two zero Longs = %v, want 0", got)
	}
}

// The Long estimate is about twice as close to the exact Jaccard
// similarity as the Sketch's, on synthetic pairs like TestSketchAccuracy's
// of 1,000 and 3,000 runes (measured: mean absolute error 0.0154 and
// 0.0352).
func TestLongAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var sumLong, sumShort float64
	n := 0
	for _, size := range []int{1000, 3000} {
		for _, p := range []float64{0.01, 0.03, 0.06, 0.1, 0.15, 0.25} {
			for range 6 {
				base := syntheticText(r, size)
				other := perturb(r, base, p, true)
				exact := exactJaccard(string(base), string(other))
				s1, l1, _ := NewAll(string(base))
				s2, l2, _ := NewAll(string(other))
				sumLong += math.Abs(l1.Jaccard(&l2) - exact)
				sumShort += math.Abs(s1.Jaccard(s2) - exact)
				n++
			}
		}
	}
	mLong, mShort := sumLong/float64(n), sumShort/float64(n)
	t.Logf("mean absolute error over %d pairs: Long %.4f, Sketch %.4f", n, mLong, mShort)
	if mLong > 0.02 || mLong > 0.6*mShort {
		t.Errorf("Long's mean absolute error %.4f, want at most 0.02 and 0.6 of the Sketch's %.4f", mLong, mShort)
	}
}

func TestLongBinary(t *testing.T) {
	_, l, _ := NewAll("我来到北京清华大学")
	b, err := l.MarshalBinary()
	if err != nil || len(b) != LongEncodedSize {
		t.Fatalf("MarshalBinary: %d bytes, %v", len(b), err)
	}
	var back Long
	if err := back.UnmarshalBinary(b); err != nil || back != l {
		t.Fatalf("UnmarshalBinary(MarshalBinary(l)) = %x, %v", back[:], err)
	}
	if got, _ := l.AppendBinary([]byte{7}); len(got) != 1+LongEncodedSize || got[0] != 7 {
		t.Errorf("AppendBinary did not append after the prefix")
	}
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{nil, "long sketch of 0 bytes, want 256"},
		{b[:255], "long sketch of 255 bytes, want 256"},
		{append(b, 0), "long sketch of 257 bytes, want 256"},
		{make([]byte, LongEncodedSize), "long sketch of zeros only"},
	} {
		got := l
		err := got.UnmarshalBinary(tc.data)
		if !errors.Is(err, ErrEncoding) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("UnmarshalBinary(%d bytes) = %v, want ErrEncoding: %s", len(tc.data), err, tc.want)
		}
		if got != l {
			t.Errorf("UnmarshalBinary(%d bytes) changed the Long on error", len(tc.data))
		}
	}
}

func FuzzLongUnmarshal(f *testing.F) {
	_, l, _ := NewAll("abc")
	good, _ := l.MarshalBinary()
	f.Add(good)
	f.Add(make([]byte, LongEncodedSize))
	f.Add([]byte{})
	f.Add(good[:100])
	f.Fuzz(func(t *testing.T, data []byte) {
		var l Long
		if err := l.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrEncoding) {
				t.Fatalf("error %v does not wrap ErrEncoding", err)
			}
			if !l.IsZero() {
				t.Fatalf("UnmarshalBinary failed but set the Long")
			}
			return
		}
		back, err := l.MarshalBinary()
		if err != nil || string(back) != string(data) {
			t.Fatalf("MarshalBinary(UnmarshalBinary(% x)) = % x, %v", data, back, err)
		}
		if j := l.Jaccard(&l); j != 1 {
			t.Fatalf("Jaccard(l, l) = %v, want 1", j)
		}
	})
}

func FuzzNewAll(f *testing.F) {
	for _, s := range []string{"", "a", "abcdeabcde", "我来到北京清华大学", "\xff\xfe\xfd\xfc\xfb\xfa"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, l, n := NewAll(text)
		if cs, cn := NewCount(text); s != cs || n != cn {
			t.Fatalf("NewAll(%q)'s sketch or count differs from NewCount's", text)
		}
		if want := longReference(text); l != want {
			t.Fatalf("NewAll(%q)'s Long differs from the reference", text)
		}
	})
}

// sketch works a block of 512 runes at a time: texts whose ends fall on
// either side of a block's end, and of the second block's, give the
// reference's Sketch, Long and count.
func TestSketchBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 4, 5, 6, 508, 511, 512, 513, 515, 516, 517, 520, 1023, 1024, 1025, 1029, 3000} {
		text := string(syntheticText(r, n))
		s, l, c := NewAll(text)
		if want := sketchReference(text); s != want {
			t.Errorf("NewAll of %d runes: sketch %s, the reference gives %s", n, sketchHex(s), sketchHex(want))
		}
		if want := longReference(text); l != want {
			t.Errorf("NewAll of %d runes: the Long differs from the reference", n)
		}
		if want := len(shingles(text)); c != want {
			t.Errorf("NewAll of %d runes counts %d shingles, want %d", n, c, want)
		}
	}
}

// longMins.sketch derives the Sketch's minima from the Long's exactly as
// the Sketch's own minima would be taken (add), for random hashes and
// for those at the edges of the buckets and of the values, the hash
// math.MaxUint64 (whose Long value looks like an empty bucket's mark
// with its bucket's bits) included.
func TestLongMinsSketch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	edges := []uint64{0, 1, math.MaxUint64, math.MaxUint64 - 1, 1<<58 - 1, 1 << 58, 1<<56 - 1, 1 << 56, 63 << 58, 255 << 56}
	for n := range 300 {
		var hs []uint64
		switch {
		case n < len(edges):
			hs = []uint64{edges[n]}
		case n < 2*len(edges):
			hs = append(hs, edges...)
		default:
			for range r.IntN(2000) + 1 {
				hs = append(hs, r.Uint64())
			}
			hs = append(hs, edges[r.IntN(len(edges))])
		}
		var mins [Size]uint64
		var lm longMins
		for i := range mins {
			mins[i] = math.MaxUint64
		}
		for i := range lm {
			lm[i] = math.MaxUint64
		}
		for _, h := range hs {
			add(&mins, h)
			lm.add(h)
		}
		if got, want := lm.sketch(), densify(&mins); got != want {
			t.Fatalf("hashes %x: sketch from the Long's minima %s, want %s", hs[:min(len(hs), 4)], sketchHex(got), sketchHex(want))
		}
	}
}

func TestLongIsZero(t *testing.T) {
	for _, tt := range []struct {
		at   int // the value set to 0x01; -1: none
		want bool
	}{{-1, true}, {0, false}, {7, false}, {8, false}, {100, false}, {LongSize - 1, false}} {
		var l Long
		if tt.at >= 0 {
			l[tt.at] = 0x01
		}
		if got := l.IsZero(); got != tt.want {
			t.Errorf("IsZero with value %d set = %v, want %v", tt.at, got, tt.want)
		}
	}
}
