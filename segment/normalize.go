package segment

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

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
//
// Step 7, a Folder such as TradFold (traditional Chinese to simplified),
// is NormalizeFold's: Normalize leaves the script as it is.
func Normalize(s string) string {
	if out, ok := normalizeFast(s); ok {
		return out
	}
	return normalizeGeneral(s)
}

// normalizeGeneral is Normalize by the definition, for any text.
func normalizeGeneral(s string) string {
	if s == "" {
		return ""
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

// normalizeFast is Normalize in one pass for text made only of the
// characters of news in Chinese and Western languages: ASCII, CJK
// ideographs, Latin-1 letters, full-width ASCII forms, the common CJK and
// typographic punctuation, and white space (the set is fastRune's). None
// of these composes with its neighbours under NFKC, so each is mapped on
// its own. It reports false at the first character outside the set, and
// Normalize then takes the general path. TestNormalizeFastPath checks
// that the two paths agree.
func normalizeFast(s string) (string, bool) {
	if s == "" {
		return "", true
	}
	// One byte more than s, for the space an ASCII run may write before
	// it: the output of ASCII and ideographs is never longer than s,
	// and buf grows for the few replacements that are.
	buf := make([]byte, 0, len(s)+1)
	space := false // a space is pending
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i, buf, space = normalizeASCII(s, i, buf, space)
			continue
		}
		if ideographAt(s, i) {
			// A run of CJK Unified Ideographs, copied as it is.
			j := i + 3
			for ideographAt(s, j) {
				j += 3
			}
			if space {
				buf = append(buf, ' ')
				space = false
			}
			buf = append(buf, s[i:j]...)
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size == 1 {
			return "", false // invalid UTF-8
		}
		i += size
		out, ascii := fastRune(r)
		switch {
		case ascii != 0:
			// Full-width ASCII, as the ASCII byte would be.
			if ascii <= ' ' || ascii == 0x7f {
				space = len(buf) > 0
				continue
			}
			if space {
				buf = append(buf, ' ')
				space = false
			}
			if 'A' <= ascii && ascii <= 'Z' {
				ascii += 'a' - 'A'
			}
			buf = append(buf, ascii)
		case out == "":
			return "", false
		case out == " ":
			space = len(buf) > 0
		case out == drop:
		default:
			if space {
				buf = append(buf, ' ')
				space = false
			}
			if out == keep {
				out = s[i-size : i]
			}
			buf = append(buf, out...)
		}
	}
	if len(buf) == 0 {
		return "", true
	}
	return unsafe.String(&buf[0], len(buf)), true
}

// normalizeASCII normalises the run of ASCII bytes of s from i, appending
// them to buf after a pending space (space), and returns the offset after
// the run, buf and whether a space is pending after it. Every byte is
// written, lowered or as a space (asciiOut), and the length goes on by
// one unless the byte is a space after a space or at the start of the
// output: no branch but the loop's, where a branch on the class of each
// byte was mispredicted at every word's end (the most mispredicted
// branches of an English analysis). A space written last is taken back
// and left pending, as normalizeFast's other paths leave it.
func normalizeASCII(s string, i int, buf []byte, space bool) (int, []byte, bool) {
	n := len(buf)
	if cap(buf)-n < len(s)-i+1 {
		buf = slices.Grow(buf, len(s)-i+1)
	}
	out := buf[n : n+len(s)-i+1]
	k := 0
	// last: whether the byte before out[k] is a space, or there is none.
	last := uint8(1)
	if space {
		out[0] = ' '
		k = 1
	} else if n > 0 {
		last = 0
	}
	t := s[i:]
	j := 0
	for j < len(t) {
		if j+8 <= len(t) {
			// Eight bytes at once when they need no more than lowering:
			// ASCII without controls, DEL, two spaces in a row, or a
			// space after a space (or at the start).
			w := uint64(t[j]) | uint64(t[j+1])<<8 | uint64(t[j+2])<<16 | uint64(t[j+3])<<24 |
				uint64(t[j+4])<<32 | uint64(t[j+5])<<40 | uint64(t[j+6])<<48 | uint64(t[j+7])<<56
			const hi = 0x8080808080808080
			if w&hi != 0 {
				break // not ASCII: the byte loop below ends the run
			}
			// With every byte below 0x80 no sum carries into the next.
			ctl := (^(w + 0x6060606060606060) | (w + 0x0101010101010101)) & hi // < 0x20, 0x7f
			sp := ^(w + 0x5f5f5f5f5f5f5f5f) & hi                               // <= 0x20
			if ctl|sp&(sp>>8|uint64(last)<<7) == 0 {
				caps := ((w + 0x3f3f3f3f3f3f3f3f) ^ (w + 0x2525252525252525)) & hi // 'A' to 'Z'
				binary.LittleEndian.PutUint64(out[k:], w|caps>>2)
				k += 8
				j += 8
				last = uint8(sp >> 63)
				continue
			}
		}
		// A byte at a time, up to eight.
		e := min(len(t), j+8)
		for ; j < e && t[j] < utf8.RuneSelf; j++ {
			out[k] = asciiOut[t[j]]
			sp := asciiSpace[t[j]]
			k += int(1 - sp&last)
			last = sp
		}
		if j < e {
			break
		}
	}
	for ; j < len(t) && t[j] < utf8.RuneSelf; j++ {
		out[k] = asciiOut[t[j]]
		sp := asciiSpace[t[j]]
		k += int(1 - sp&last)
		last = sp
	}
	if k > 0 && out[k-1] == ' ' {
		k--
		space = true
	} else {
		space = false
	}
	return i + j, buf[:n+k], space
}

// asciiOut is the byte an ASCII byte becomes: a capital's small letter,
// a space for white space and controls (and DEL), itself otherwise; and
// asciiSpace is 1 for those that become a space. Both have 256
// entries, so that a byte indexes them without a bounds check.
var asciiOut, asciiSpace = func() (out, sp [256]uint8) {
	for c := range utf8.RuneSelf {
		switch {
		case c <= ' ' || c == 0x7f:
			out[c], sp[c] = ' ', 1
		case 'A' <= c && c <= 'Z':
			out[c] = byte(c) + 'a' - 'A'
		default:
			out[c] = byte(c)
		}
	}
	return out, sp
}()

// plainASCII reports for each byte whether it is ASCII that Normalize
// leaves as it is: not white space, a control or a capital.
var plainASCII = func() (t [256]bool) {
	for c := '!'; c < 0x7f; c++ {
		t[c] = !('A' <= c && c <= 'Z')
	}
	return t
}()

// fastRune's answers for a character that stays as it is and for one
// that is dropped.
const (
	keep = "="
	drop = "-"
)

// fastRune says how normalizeFast writes the non-ASCII rune r: as the
// ASCII byte ascii when that is not 0, else as out: keep (r itself), " "
// (white space), drop, another replacement, or "" when r is not in the
// fast path's set.
func fastRune(r rune) (out string, ascii byte) {
	switch {
	case 0xff01 <= r && r <= 0xff5e: // full-width ASCII forms
		return "", byte(r - 0xfee0)
	case 0x3400 <= r && r <= 0x4dbf: // CJK Extension A
		return keep, 0
	case 0xc0 <= r && r <= 0xde && r != 0xd7: // Latin-1 capitals
		return string(r + 0x20), 0
	case 0xdf <= r && r <= 0xff && r != 0xf7: // Latin-1 small letters
		return keep, 0
	case r == 0xa0 || r == 0x3000 || (0x2000 <= r && r <= 0x200a) || (0x80 <= r && r <= 0x9f):
		return " ", 0 // no-break, ideographic and typographic spaces; C1 controls
	case 0x391 <= r && r <= 0x3a9 && r != 0x3a2: // Greek capitals
		return string(unicode.ToLower(r)), 0
	case 0x3b1 <= r && r <= 0x3c9, // Greek small letters
		0x2500 <= r && r <= 0x257f: // box drawing
		return keep, 0
	case 0x2460 <= r && r <= 0x2473: // ① to ⑳
		return strconv.Itoa(int(r - 0x245f)), 0
	}
	switch r {
	case 0x3002: // 。
		return ".", 0
	case 0x2026: // …
		return "...", 0
	case 0xffe5: // ￥
		return "¥", 0
	case 0x2103: // ℃
		return "°c", 0
	case 0x2122: // ™
		return "tm", 0
	case 0xad, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff: // soft hyphen, zero-width characters
		return drop, 0
	case 0x3001, // 、
		0x3008, 0x3009, 0x300a, 0x300b, 0x300c, 0x300d, 0x300e, 0x300f, 0x3010, 0x3011, // 〈〉《》「」『』【】
		0x3014, 0x3015, // 〔〕
		0x2018, 0x2019, 0x201c, 0x201d, // ‘’“”
		0x2010, 0x2013, 0x2014, 0x2015, 0x2022, // ‐ – — ― •
		0xa3, 0xa5, 0xa7, 0xa9, 0xab, 0xae, 0xb0, 0xb1, 0xb6, 0xb7, 0xbb, 0xd7, 0xf7, // £¥§©«®°±¶·»×÷
		0x2236, 0x2219, 0x2260, 0x2264, 0x2265, // ∶∙≠≤≥
		0x2190, 0x2191, 0x2192, 0x2193, // ←↑→↓
		0x25a0, 0x25a1, 0x25aa, 0x25b2, 0x25b3, 0x25bc, 0x25bd, 0x25c6, 0x25cb, 0x25ce, 0x25cf, 0x2605, 0x2606, // ■□▪▲△▼▽◆○◎●★☆
		0xfffd: // the replacement character
		return keep, 0
	}
	return "", 0
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
