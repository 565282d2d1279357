package dedup

import (
	"reflect"
	"testing"
)

func TestSharedPassages(t *testing.T) {
	tests := []struct {
		name     string
		a, b     string
		minChars int
		wantA    []Span
		wantB    []Span
	}{
		{"nothing shared", "abcdefgh", "ijklmnop", 0, nil, nil},
		{"shorter than a gram", "abcd", "abcd", 0, nil, nil},
		{"one gram", "xxabcdeyy", "abcde", 0, []Span{{2, 7}}, []Span{{0, 5}}},
		{"identical", "hello world", "hello world", 0, []Span{{0, 11}}, []Span{{0, 11}}},
		// 金庸先生 逝世 (3 bytes a character): 金庸先生逝 is shared.
		{"chinese", "新华社电金庸先生逝世", "金庸先生逝去", 0, []Span{{12, 27}}, []Span{{0, 15}}},
		// Two passages of a kept, the edit between them not marked.
		{"two passages", "abcdefg123hijklmn", "abcdefg-X-hijklmn", 0, []Span{{0, 7}, {10, 17}}, []Span{{0, 7}, {10, 17}}},
		{"min chars drops the short one", "abcdefg123hijklmnopq", "abcdefg-X-hijklmnopq", 8, []Span{{10, 20}}, []Span{{10, 20}}},
		// White space is skipped: the passage runs on across the break.
		{"across a line break", "abc\n de", "abcde", 0, []Span{{0, 7}}, []Span{{0, 5}}},
		// Case and width are folded.
		{"case and width", "ＡＢＣde", "abcDE", 0, []Span{{0, 11}}, []Span{{0, 5}}},
		{"overlapping grams merge", "aaaaaaa", "aaaaa", 0, []Span{{0, 7}}, []Span{{0, 5}}},
		{"empty", "", "abcde", 0, nil, nil},
		// Invalid UTF-8 is a character a byte, equal only to itself.
		{"invalid utf-8", "ab\xffcd", "ab\xffcdx", 0, []Span{{0, 5}}, []Span{{0, 5}}},
		{"invalid byte differs", "ab\xffcd", "ab\xfecd", 0, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sa, sb := SharedPassages(tt.a, tt.b, tt.minChars)
			if !reflect.DeepEqual(sa, tt.wantA) || !reflect.DeepEqual(sb, tt.wantB) {
				t.Errorf("SharedPassages(%q, %q) = %v, %v; want %v, %v", tt.a, tt.b, sa, sb, tt.wantA, tt.wantB)
			}
		})
	}
}

// FuzzSharedPassages checks that the spans are in order, disjoint, on
// character boundaries and within the texts, that a text shares all of
// itself, and that the marked passages of a hold only 5-grams that b
// has (checked by comparing the folded characters).
func FuzzSharedPassages(f *testing.F) {
	f.Add("新华社北京10月30日电 金庸逝世", "金庸逝世，新华社北京10月30日电", 0)
	f.Add("abc\xffdefg", "ABCDEFG", 3)
	f.Add("", "", 0)
	f.Fuzz(func(t *testing.T, a, b string, minChars int) {
		minChars %= 50
		sa, sb := SharedPassages(a, b, minChars)
		check := func(name, s string, spans []Span) {
			boundary := map[int]bool{len(s): true} // where range starts a character
			for i := range s {
				boundary[i] = true
			}
			prev := 0
			for _, sp := range spans {
				if sp.Start < prev || sp.End <= sp.Start || sp.End > len(s) {
					t.Fatalf("%s: spans %v of a %d-byte text: out of order or range", name, spans, len(s))
				}
				if !boundary[sp.Start] || !boundary[sp.End] {
					t.Fatalf("%s: span %v not on character boundaries of %q", name, sp, s)
				}
				if n := len(chars(s[sp.Start:sp.End])); n < max(minChars, PassageGram) {
					t.Fatalf("%s: span %v of %q has %d characters, want at least %d", name, sp, s, n, max(minChars, PassageGram))
				}
				prev = sp.End
			}
		}
		check("a", a, sa)
		check("b", b, sb)
		if (sa == nil) != (sb == nil) {
			t.Fatalf("a shares %v with b, b shares %v with a", sa, sb)
		}
		// Every gram in a marked passage of a, when the passage is a's
		// alone, is checked against b's grams by brute force.
		bs := grams(chars(b))
		for _, sp := range sa {
			gs := grams(chars(a[sp.Start:sp.End]))
			if len(gs) == 0 {
				continue
			}
			found := false
			for _, g := range bs {
				if g == gs[0] {
					found = true
				}
			}
			if !found {
				t.Fatalf("passage %q of a starts with a gram b does not have", a[sp.Start:sp.End])
			}
		}
		self, _ := SharedPassages(a, a, 0)
		if n := len(chars(a)); n >= PassageGram && (len(self) != 1 || len(chars(a[self[0].Start:self[0].End])) != n) {
			t.Fatalf("a shares %v with itself, want one passage of its %d characters", self, n)
		}
	})
}
