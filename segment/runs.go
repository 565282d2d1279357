package segment

import (
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"
)

// SplitRuns calls fn, in text order, for every run of text that Cut turns
// into tokens. A run is one of:
//
//   - a Han run (han == true): a maximal run of Han characters
//     (unicode.Han, e.g. 北京, 〇, 々), which Cut hands to the dictionary
//     segmenter;
//   - a word (han == false): a maximal run of letters (unicode.IsLetter),
//     digits and other numbers (unicode.IsNumber) that are not Han, which Cut
//     emits whole. Latin, Cyrillic, Greek, Hangul and so on are words, and
//     letters and digits stay together: "iphone16", "16", "café",
//     "kb5034441" are single words. Hiragana and katakana are the exception:
//     a run of either is a word of its own, apart from anything else, so
//     "タワーは" gives "タワー" and "は".
//
// A combining mark (unicode.IsMark) and the prolonged sound mark "ー"
// continue the run they follow; at the start of a run they begin a word.
// Every other character (white space, punctuation, symbols, U+FFFD)
// separates runs and is never reported, so "3.14" gives the words "3" and
// "14", and "don't" gives "don" and "t".
//
// SplitRuns does not normalise; it is meant for Normalize's output, on which
// words are lower-case. Invalid UTF-8 bytes separate runs.
func SplitRuns(text string, fn func(run string, han bool)) {
	for i := 0; i < len(text); {
		start, end, han := nextRun(text, i)
		if start < 0 {
			return
		}
		fn(text[start:end], han)
		i = end
	}
}

// nextRun finds the first run of text at or after byte i, as SplitRuns
// reports them: its bounds and whether it is a Han run; start is -1 when
// there is none.
func nextRun(text string, i int) (start, end int, han bool) {
	kind := kindSep
	start = -1
	// The common case first: ASCII separators, then an ASCII word that
	// ends at ASCII (or at the end of the text).
	for i < len(text) && asciiKind[text[i]] == kindSep {
		i++ // mostly one space: a loop that predicts well
	}
	if i < len(text) && asciiKind[text[i]] == kindWord {
		kind, start = kindWord, i
		i = asciiSkip(text, i, kindWord)
		if i == len(text) || text[i] < utf8.RuneSelf {
			return start, i, false
		}
		// A character that is not ASCII may continue the word.
	}
	for i < len(text) {
		var k, size int
		switch c := text[i]; {
		case c < utf8.RuneSelf:
			k, size = int(asciiKind[c]), 1
		case ideographAt(text, i):
			k, size = kindHan, 3
		default:
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			if k = classifyCached(r, size); k == kindMark {
				if kind != kindSep {
					i += size
					continue
				}
				k = kindWord
				if r == prolongedSoundMark {
					k = kindKatakana
				}
			}
		}
		if k != kind {
			if kind != kindSep {
				return start, i, kind == kindHan
			}
			kind, start = k, i
		}
		i += size
		// The rest of a stretch of ASCII letters and digits, of other
		// ASCII or of CJK ideographs in a loop of its own: the same
		// kind, so the same run (or no run).
		switch kind {
		case kindWord, kindSep:
			for i < len(text) && int(asciiKind[text[i]]) == kind {
				i++
			}
		case kindHan:
			for ideographAt(text, i) {
				i += 3
			}
		}
	}
	if kind != kindSep {
		return start, len(text), kind == kindHan
	}
	return -1, len(text), false
}

// asciiSkip returns the offset of the first byte of text from i that is
// not ASCII of the kind k (kindWord: letters and digits; kindSep: the
// other ASCII), or len(text). Eight bytes at a time, the first byte of
// another kind found by its bit in a mask: a loop a byte at a time
// mispredicted its exit at the end of nearly every word and space of an
// English text.
func asciiSkip(text string, i int, k uint8) int {
	flip := uint64(0) // other bytes are letters and digits (k == kindSep) ...
	if k == kindWord {
		flip = hiBits // ... or not
	}
	for i+8 <= len(text) {
		t := text[i : i+8]
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		// other: the top bit of every byte that is not ASCII of kind k.
		other := (asciiWords(w) ^ flip | w) & hiBits
		if other != 0 {
			return i + bits.TrailingZeros64(other)>>3
		}
		i += 8
	}
	for i < len(text) && asciiKind[text[i]] == k {
		i++
	}
	return i
}

// hiBits is the top bit of every byte of a word.
const hiBits = 0x8080808080808080

// asciiWords returns the top bit of every byte of w whose low 7 bits
// are an ASCII letter or digit (the top bit of w's bytes is ignored).
// No sum carries from one byte into the next: every byte is below 0x80
// and every addend at most 0x80.
func asciiWords(w uint64) uint64 {
	const ones = 0x0101010101010101
	x := w &^ hiBits
	// ge(x, c): the top bit of every byte of x at least c.
	ge := func(x uint64, c uint64) uint64 { return (x + (0x80-c)*ones) & hiBits }
	y := x | 0x20*ones // lower case: only letters land in 'a' to 'z'
	letter := ge(y, 'a') &^ ge(y, 'z'+1)
	digit := ge(x, '0') &^ ge(x, '9'+1)
	return letter | digit
}

// asciiKind is classify's answer for each ASCII byte: kindWord for
// letters and digits, kindSep for the others; kindNonASCII for the bytes
// of other characters, which nextRun decodes.
var asciiKind = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = kindNonASCII
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			t[c] = kindWord
		default:
			t[c] = kindSep
		}
	}
	return t
}()

// Rune classes for SplitRuns. A run is a maximal sequence of one class
// other than kindSep; kindMark joins the run before it.
const (
	kindSep = iota
	kindWord
	kindHan
	kindHiragana
	kindKatakana
	kindMark
	kindNonASCII // in asciiKind only: not ASCII
)

// prolongedSoundMark is "ー" (U+30FC), which lengthens the kana before it.
const prolongedSoundMark = '\u30fc'

// ideographAt reports whether s[i:] begins with a CJK Unified Ideograph,
// U+4E00 to U+9FFF: three bytes, E4 B8..BF xx or E5..E9 xx xx.
func ideographAt(s string, i int) bool {
	if i+2 >= len(s) {
		return false
	}
	c := s[i]
	return (c == 0xe4 && s[i+1] >= 0xb8 || 0xe5 <= c && c <= 0xe9) &&
		s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80
}

// bmpKinds is classify's answer for every character of the Basic
// Multilingual Plane, made the first time a text has a character that
// is neither ASCII nor a CJK ideograph (64 KiB, about 5 ms): the
// punctuation of Chinese text (“”、《》—) took classify a search of
// several Unicode tables each, 7% of the analysis of zh_news by
// instruction counts.
var (
	bmpKindsOnce sync.Once
	bmpKinds     *[1 << 16]uint8
)

// classifyCached is classify, looked up for the Basic Multilingual
// Plane.
func classifyCached(r rune, size int) int {
	if r >= 1<<16 || size == 1 { // beyond the BMP, or an invalid byte
		return classify(r, size)
	}
	bmpKindsOnce.Do(func() {
		var t [1 << 16]uint8
		for c := range t {
			t[c] = uint8(classify(rune(c), utf8.RuneLen(rune(c))))
		}
		bmpKinds = &t
	})
	return int(bmpKinds[r])
}

// classify sorts one rune for SplitRuns. size is its encoded length (1 for
// an invalid byte decoded as RuneError).
func classify(r rune, size int) int {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			return kindWord
		default:
			return kindSep
		}
	}
	switch {
	case 0x4e00 <= r && r <= 0x9fff: // CJK Unified Ideographs, all Han
		return kindHan
	case r == utf8.RuneError && size == 1:
		return kindSep
	case unicode.Is(unicode.Han, r):
		return kindHan
	case unicode.Is(unicode.Hiragana, r):
		return kindHiragana
	case unicode.Is(unicode.Katakana, r):
		return kindKatakana
	case r == prolongedSoundMark || unicode.IsMark(r):
		return kindMark
	case unicode.IsLetter(r), unicode.IsNumber(r):
		return kindWord
	default:
		return kindSep
	}
}
