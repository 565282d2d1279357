package segment

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalize returns the canonical form of s that every later stage works on:
// segmentation, TF-IDF keywords, content hashes and MinHash sketches are all
// computed over Normalize's output, so two texts that differ only in width,
// case, invisible characters or white space get the same fingerprints.
//
// The steps, in order:
//
//  1. Invalid UTF-8 bytes become U+FFFD (the replacement character).
//  2. Format characters (Unicode category Cf) are dropped. This covers the
//     zero-width space, non-joiner and joiner (U+200B–U+200D), the word joiner
//     U+2060, the byte order mark / zero-width no-break space U+FEFF, the soft
//     hyphen U+00AD and the bidirectional marks and embeddings.
//  3. Control characters (category Cc: C0, DEL and C1, including tab, CR and
//     LF) become a space.
//  4. NFKC: compatibility characters become their plain equivalents, so
//     full-width letters, digits and punctuation become ASCII ("ＡＢＣ１２３！"
//     → "ABC123!"), the ideographic space U+3000 becomes a space, ligatures
//     are split ("ﬁ" → "fi") and combining sequences are composed. The
//     ideographic full stop "。" becomes ".", as NFKC already does for its
//     half-width form and for the full-width "，！？：；（）": a reprint that
//     swaps Chinese and ASCII punctuation is then the same text.
//  5. Letters are lower-cased (unicode.ToLower, rune by rune).
//  6. Every run of white space (unicode.IsSpace) becomes one U+0020, and
//     leading and trailing white space is removed.
//
// The result is valid UTF-8, NFKC-normalised, and Normalize is idempotent:
// Normalize(Normalize(s)) == Normalize(s). Punctuation is kept; it is
// Cut, not Normalize, that splits text into words.
func Normalize(s string) string {
	if s == "" {
		return ""
	}
	if isPlainASCII(s) {
		return normalizeASCII(s)
	}
	// Steps 1 and 2 come before NFKC: dropping a format character between a
	// base letter and a combining mark must happen before composition, or a
	// second Normalize would compose what the first left apart. Step 3 is
	// done by finish (a control character is a starter, so NFKC never
	// composes across one).
	t := norm.NFKC.String(clean(s))
	out, lowered := finish(t)
	// NFKC and lower-casing do not always commute: "W\u030a" (W, combining
	// ring above) is NFKC, but there is only a lower-case precomposed letter,
	// so its lower-case form "w\u030a" composes to "ẘ". So when finish
	// lowered a non-ASCII letter, or an ASCII letter followed by a non-ASCII
	// character, check the result and repeat until it is stable. Text in
	// scripts without case, or ASCII with no combining marks, never takes
	// this path.
	for i := 0; lowered && i < 4 && !norm.NFKC.IsNormalString(out); i++ {
		out, lowered = finish(norm.NFKC.String(out))
	}
	return out
}

// isPlainASCII reports whether s is entirely printable ASCII or ASCII white
// space / control characters: text for which NFKC and the format-character
// rules are no-ops.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// normalizeASCII is Normalize for ASCII-only input: lower-case, controls and
// white space collapsed to single spaces, trimmed.
func normalizeASCII(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false // a space is pending
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f { // controls (incl. \t\n\v\f\r) and space
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// clean performs steps 1 and 2: invalid bytes become U+FFFD and format
// characters are dropped. It returns s itself when there is nothing to do.
func clean(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || isFormat(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case isFormat(r):
			// dropped
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isFormat reports whether r is a format character (category Cf), quickly
// for the common scripts.
func isFormat(r rune) bool {
	if r < 0xad || (0x2070 <= r && r < 0xfeff) {
		return false // no Cf in these ranges (checked by TestFastPaths)
	}
	return unicode.Is(unicode.Cf, r)
}

// caseless reports whether r is a character that finish leaves alone: not
// white space, not a control or format character, no lower-case mapping.
// True for kana, CJK ideographs and Hangul syllables (checked by
// TestFastPaths).
func caseless(r rune) bool {
	return (0x3040 <= r && r < 0xa000) || (0xac00 <= r && r < 0xd7a4)
}

// finish performs steps 5 and 6, and step 3 (controls) and 2 again for
// characters NFKC may have produced: lower-case, collapse white space, trim.
// lowered reports whether a non-ASCII letter, or an ASCII letter followed
// by a non-ASCII character, changed case.
func finish(s string) (out string, lowered bool) {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if c <= ' ' || c == 0x7f {
				space = b.Len() > 0
				continue
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
				if i < len(s) && s[i] >= utf8.RuneSelf {
					lowered = true
				}
			}
			b.WriteByte(c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		raw := s[i : i+size]
		i += size
		if caseless(r) {
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteString(raw)
			continue
		}
		switch {
		case r == utf8.RuneError && size == 1:
			raw = "\ufffd"
		case r == '\u3002': // ideographic full stop
			raw = "."
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = b.Len() > 0
			continue
		case isFormat(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if l := unicode.ToLower(r); l != r {
			b.WriteRune(l)
			lowered = true
			continue
		}
		b.WriteString(raw)
	}
	return b.String(), lowered
}
