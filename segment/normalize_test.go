package segment

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"ascii case and spaces", "  iPhone 16   Pro\t\n ", "iphone 16 pro"},
		{"full-width letters and digits", "ＡＢＣ ａｂｃ １２３", "abc abc 123"},
		{"full-width punctuation", "你好，世界！（测试）：；？", "你好,世界!(测试):;?"},
		{"ideographic full stop", "结束。Done｡", "结束.done."},
		{"ideographic space", "北京\u3000举行", "北京 举行"},
		{"zero-width characters", "北\u200b京\u200c举\u200d行\u2060了", "北京举行了"},
		{"BOM and soft hyphen", "\ufeffco\u00adoperate", "cooperate"},
		{"bidi marks", "a\u200eb\u202ec", "abc"},
		{"controls become spaces", "a\x00b\x1fc\x7fd\u0085e", "a b c d e"},
		{"CRLF and form feed", "line1\r\n\r\nline2\fend", "line1 line2 end"},
		{"no-break and em spaces", "a\u00a0b\u2003c\u2028d", "a b c d"},
		{"ligature and superscript", "ﬁnal x²", "final x2"},
		{"circled and compatibility ideograph", "①号 \uf900", "1号 豈"},
		{"combining sequence composed", "cafe\u0301", "café"},
		{"composes only once lower-cased", "W\u030a J\u030c", "ẘ ǰ"},
		{"format char between base and mark", "e\u200d\u0301", "é"},
		{"Greek and Cyrillic upper case", "ΑΘΗΝΑ МОСКВА", "αθηνα москва"},
		{"Turkish dotted I", "İstanbul", "istanbul"},
		{"half-width katakana", "ｶﾀｶﾅ", "カタカナ"},
		{"invalid UTF-8", "a\xffb\xc0", "a\ufffdb\ufffd"},
		{"only white space", " \t\u3000\u200b\n", ""},
		{"mixed", "ＩＰｈｏｎｅ　16 发布会在北京举行，Apple CEO 说...", "iphone 16 发布会在北京举行,apple ceo 说..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := Normalize(tt.want); got != tt.want {
				t.Errorf("Normalize(%q) = %q, not idempotent", tt.want, got)
			}
		})
	}
}

// The one-pass path agrees with the general path on every character it
// takes, alone and in context, and on random strings of them.
func TestNormalizeFastPath(t *testing.T) {
	var alphabet []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r < utf8.RuneSelf || (0x4e00 <= r && r <= 0x9fff) {
			alphabet = append(alphabet, r)
			continue
		}
		out, ascii := fastRune(r)
		if out == "" && ascii == 0 {
			continue
		}
		alphabet = append(alphabet, r)
		for _, s := range []string{string(r), "A" + string(r) + "b", "北" + string(r), string(r) + string(r) + " x", "e" + string(r) + "\u0301"} {
			got, ok := normalizeFast(s)
			if want := normalizeGeneral(s); ok && got != want {
				t.Errorf("normalizeFast(%q) = %q, general path %q", s, got, want)
			}
			if !ok && !strings.Contains(s, "\u0301") {
				t.Errorf("normalizeFast(%q) declined", s)
			}
		}
	}
	if len(alphabet) < 128+0x5200+100 {
		t.Fatalf("fast path takes only %d characters", len(alphabet))
	}
	var ascii, han, others []rune
	for _, r := range alphabet {
		switch {
		case r < utf8.RuneSelf:
			ascii = append(ascii, r)
		case 0x4e00 <= r && r <= 0x9fff:
			han = append(han, r)
		default:
			others = append(others, r)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		rs := make([]rune, rng.IntN(24))
		for i := range rs {
			set := [][]rune{ascii, ascii, han, others}[rng.IntN(4)]
			rs[i] = set[rng.IntN(len(set))]
		}
		s := string(rs)
		got, ok := normalizeFast(s)
		if want := normalizeGeneral(s); !ok || got != want {
			t.Fatalf("normalizeFast(%q) = %q, %v; general path %q", s, got, ok, want)
		}
	}
	for _, s := range []string{"cafe\u0301", "ｶﾀｶﾅ", "a\xffb", "x\u2028y", "⑴", "ǅ", "が"} {
		if _, ok := normalizeFast(s); ok {
			t.Errorf("normalizeFast(%q) took a character outside its set", s)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"iPhone 16 Pro 发布会在北京举行，Apple CEO 说...",
		"ＡＢＣ１２３！\u3000\u200b\ufeff\u00ad",
		"e\u200d\u0301 ᴬ ﬁ ① \uf900",
		"a\xffb\xc0\x00\r\n",
		"\u0345\u0399 \u1e9e ǅ",
		" a b  c\td e F g ", "中 文 字 a 中", "中\xe4\xb8", "x \xe4\xb8\xad \xe4\xb7\xbf", // the copied runs
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if fast, ok := normalizeFast(s); ok && fast != normalizeGeneral(s) {
			t.Fatalf("Normalize(%q): one-pass path %q, general path %q", s, fast, normalizeGeneral(s))
		}
		if !utf8.ValidString(n) {
			t.Fatalf("Normalize(%q) = %q, not valid UTF-8", s, n)
		}
		if n2 := Normalize(n); n2 != n {
			t.Fatalf("not idempotent: Normalize(%q) = %q, Normalize of that = %q", s, n, n2)
		}
		if strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Fatalf("Normalize(%q) = %q: untrimmed or uncollapsed space", s, n)
		}
	})
}

// The fast paths of Normalize agree with the Unicode tables.
func TestFastPaths(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if isFormat(r) != unicode.Is(unicode.Cf, r) {
			t.Errorf("isFormat(%U) = %v, unicode.Cf says %v", r, isFormat(r), !isFormat(r))
		}
		if 0x4e00 <= r && r <= 0x9fff && !unicode.Is(unicode.Han, r) {
			t.Errorf("%U is in the CJK Unified Ideographs fast path but is not Han", r)
		}
		if caseless(r) && (unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.ToLower(r) != r) {
			t.Errorf("caseless(%U) but finish would change it", r)
		}
	}
}

// TestNormalizeASCII covers normalizeASCII's eight-byte steps and the
// byte loop it falls back to: capitals at either end of a word of eight,
// two spaces or a tab in a block, a space at the start of a block after
// a space ending the one before, DEL, a run cut by a non-ASCII
// character, and leading and trailing white space.
func TestNormalizeASCII(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZ@[`{", "abcdefghijklmnopqrstuvwxyz@[`{"},
		{"ZYXWVUTS@[`{AZaz", "zyxwvuts@[`{azaz"},
		{"Reuters said on Monday it would", "reuters said on monday it would"},
		{"abcdefg  hijklmno", "abcdefg hijklmno"},
		{"abcdefg hijklmno pqrstuv", "abcdefg hijklmno pqrstuv"},
		{"abcdefgh ijklmnop", "abcdefgh ijklmnop"},
		{"abcdefg\t\tHIJKLMNOP\r\nq", "abcdefg hijklmnop q"},
		{"abcdefg\x7fhijklmnop", "abcdefg hijklmnop"},
		{"   leading and trailing   ", "leading and trailing"},
		{"\n\n\n\n\n\n\n\n\n\nabcdefgh", "abcdefgh"},
		{"abcdefgh\n\n\n\n\n\n\n\n\n\n", "abcdefgh"},
		{"abcdefgh 中文 ijklmnop", "abcdefgh 中文 ijklmnop"},
		{"abcdefghÉtéijklmnop qrst", "abcdefghétéijklmnop qrst"},
		{"ABCDEFGH\u3000IJKLMNOP", "abcdefgh ijklmnop"},
		{"\x00\x01\x1f ~}|{zyxwvu", "~}|{zyxwvu"},
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := normalizeGeneral(c.in); got != c.want {
			t.Errorf("normalizeGeneral(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
