package reuse

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// GramHash is XXH64 with seed 0 of the UTF-8 bytes (values checked with
// an independent implementation of XXH64: "" is ef46db3751d8e999, "abc"
// 44bc2cf5ad770999 in the xxHash reference).
func TestGramHash(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"abc", 0x44bc2cf5ad770999},
		{"helloworld!!", 0x74e940e80ac7691e},
		{"新华社北京十一月二十六日电记者", 0xe2e28f08c941e656},
	}
	for _, tt := range tests {
		if got := GramHash([]rune(tt.in)); got != tt.want {
			t.Errorf("GramHash(%q) = %016x, want %016x", tt.in, got, tt.want)
		}
	}
}

func mustText(t testing.TB, s string) *Text {
	t.Helper()
	x, err := NewText(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// Prints against robust winnowing computed by hand-written reference
// code outside this package (a naive window scan over an independent
// XXH64): hashes and positions as literals.
func TestPrints(t *testing.T) {
	tests := []struct {
		p    Params
		in   string
		want []Print
	}{
		{Params{3, 4, 32}, "The cat sat on the mat, the cat sat.", []Print{
			{0x3b6879497611c058, 1},
			{0x04f9d5747689c2d5, 5},
			{0x433e93ca8b59ad11, 8},
			{0x4b1b03a21f8b5f26, 11},
			{0x702bb4f7671b66ad, 15},
			{0x155227ee8c1ac9b2, 17},
			{0x3b6879497611c058, 19},
			{0x04f9d5747689c2d5, 23},
		}},
		// Equal hashes: the earlier pick stays while it is in the window.
		{Params{1, 3, 32}, "abababab", []Print{
			{0x78452aa11af39f9b, 1},
			{0x78452aa11af39f9b, 3},
			{0x78452aa11af39f9b, 5},
		}},
		// Fewer k-grams than a window: one fingerprint; fewer characters
		// than a k-gram: none.
		{Params{5, 10, 32}, "Short text.", []Print{{0x3f70ce5367771817, 1}}},
		{DefaultParams, "Short text.", nil},
		{DefaultParams, "", nil},
	}
	for _, tt := range tests {
		got := tt.p.Prints(mustText(t, tt.in))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v.Prints(%q) = %#v, want %#v", tt.p, tt.in, got, tt.want)
		}
	}
}

// The guarantee: a passage of L = Window+Gram−1 characters planted in
// two unrelated random texts yields a fingerprint both have; and the
// density is about 2/(Window+1).
func TestGuarantee(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		const letters = "abcdefghijklmnopqrstuvwxyz的一是不了人我在有他这为之大来以个中上们"
		rs := []rune(letters)
		var b strings.Builder
		for range n {
			b.WriteRune(rs[r.IntN(len(rs))])
		}
		return b.String()
	}
	var prints, chars int
	for _, p := range []Params{DefaultParams, {5, 10, 32}, {1, 1, 64}, {8, 93, 32}} {
		for range 200 {
			shared := word(p.Guarantee())
			a := mustText(t, word(r.IntN(300))+shared+word(r.IntN(300)))
			b := mustText(t, word(r.IntN(300))+shared+word(r.IntN(300)))
			pa, pb := p.Prints(a), p.Prints(b)
			if p == DefaultParams {
				prints += len(pa)
				chars += a.Len()
			}
			if !sharesHash(pa, pb) {
				t.Fatalf("%+v: texts sharing %q share no fingerprint", p, shared)
			}
		}
	}
	if d, want := float64(prints)/float64(chars), 2.0/(DefaultWindow+1); d < want*0.8 || d > want*1.2 {
		t.Errorf("density %.4f fingerprints a character, want about %.4f", d, want)
	}
}

func sharesHash(a, b []Print) bool {
	in := map[uint64]bool{}
	for _, p := range a {
		in[p.Hash] = true
	}
	for _, p := range b {
		if in[p.Hash] {
			return true
		}
	}
	return false
}

// FuzzPrints checks, for any text and parameters, that fingerprints are
// in order of position, their hashes those of the k-grams there, every
// window has one, and a passage of the text of L characters planted in
// another text shares a fingerprint with it.
func FuzzPrints(f *testing.F) {
	f.Add("The cat sat on the mat, the cat sat.", uint8(3), uint8(4), uint16(0))
	f.Add("新华社北京11月26日电 記者：ＡＢＣ。", uint8(2), uint8(5), uint16(3))
	f.Add("\xff\xfeab\u200bc", uint8(1), uint8(1), uint16(1))
	f.Fuzz(func(t *testing.T, s string, k, w uint8, at uint16) {
		p := Params{Gram: int(k%16) + 1, Window: int(w%40) + 1}
		x, err := NewText(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		ps := p.Prints(x)
		h := gramHashes(x, p.Gram)
		for i, pr := range ps {
			if pr.Pos < 0 || pr.Pos >= len(h) || h[pr.Pos] != pr.Hash {
				t.Fatalf("print %d %+v: not the hash of the k-gram there", i, pr)
			}
			if i > 0 && pr.Pos <= ps[i-1].Pos {
				t.Fatalf("prints out of order: %+v after %+v", pr, ps[i-1])
			}
		}
		for e := p.Window - 1; e < len(h); e++ {
			if !slices.ContainsFunc(ps, func(pr Print) bool { return pr.Pos > e-p.Window && pr.Pos <= e }) {
				t.Fatalf("window ending at %d has no fingerprint", e)
			}
		}
		if L := p.Guarantee(); x.Len() >= L {
			i := int(at) % (x.Len() - L + 1)
			other := mustText(t, fmt.Sprintf("前文 %s 後文", string(x.runes[i:i+L])))
			if !sharesHash(ps, p.Prints(other)) {
				t.Fatalf("a passage of %d characters at %d shares no fingerprint", L, i)
			}
		}
		for i := range x.runes {
			if st, en := x.Span(i, i+1); st < 0 || en > len(s) || st >= en {
				t.Fatalf("character %d: span %d..%d of %d bytes", i, st, en, len(s))
			}
		}
	})
}
