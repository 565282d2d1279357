package input

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// Encoding names used by DecodeText and Options.Encoding.
const (
	encAuto    = "auto"
	encUTF8    = "utf-8"
	encGBK     = "gbk"
	encGB18030 = "gb18030"
	encUTF16LE = "utf-16le"
	encUTF16BE = "utf-16be"
)

// canonicalEncoding maps an encoding name as a user may spell it to one of
// encAuto, encUTF8, encGBK and encGB18030.
func canonicalEncoding(name string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "auto":
		return encAuto, nil
	case "utf-8", "utf8":
		return encUTF8, nil
	case "gbk", "gb2312", "cp936":
		return encGBK, nil
	case "gb18030":
		return encGB18030, nil
	}
	return "", fmt.Errorf("unknown encoding %q (want auto, utf-8, gbk or gb18030)", name)
}

// encodingError is an undecodable byte sequence at Offset of the input.
type encodingError struct {
	What   string // e.g. "invalid UTF-8"
	Offset int
}

func (e *encodingError) Error() string { return fmt.Sprintf("%s at byte %d", e.What, e.Offset) }

// DecodeText decodes b to a UTF-8 string. It returns the text, the name of
// the encoding it was decoded from ("utf-8", "gb18030", "gbk", "utf-16le" or
// "utf-16be") and an error for bytes that are not valid in that encoding.
// A byte-order mark is removed.
//
// encoding is "auto" (or ""), "utf-8", "gbk" (also "gb2312", "cp936") or
// "gb18030". With "auto":
//   - a UTF-16 byte-order mark selects UTF-16;
//   - valid UTF-8 is UTF-8;
//   - otherwise b is decoded as GB18030 (a superset of GBK and GB2312) and
//     accepted only if every byte sequence is valid and mapped, there are no
//     control characters other than white space, and most non-ASCII
//     characters are Chinese: CJK ideographs and punctuation, and at least
//     60% of them encoded in the GB2312 area (the common characters). Text
//     in Latin-1 or another legacy encoding fails these tests;
//   - otherwise the error is "invalid UTF-8 (not GBK/GB18030 either) at byte
//     N", N being the offset in b of the first byte that is not UTF-8.
//
// Forced encodings apply as given, even to bytes that are also valid in
// another encoding; invalid or unmapped sequences are an error naming their
// byte offset, never replaced silently.
func DecodeText(b []byte, encoding string) (string, string, error) {
	enc, err := canonicalEncoding(encoding)
	if err != nil {
		return "", "", err
	}
	switch enc {
	case encAuto:
		if len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF) {
			return decodeUTF16(b)
		}
		body, bom := trimUTF8BOM(b)
		if utf8.Valid(body) {
			return string(body), encUTF8, nil
		}
		if s, ok := decodeGBPlausible(body); ok {
			return s, encGB18030, nil
		}
		return "", "", &encodingError{"invalid UTF-8 (not GBK/GB18030 either)", bom + invalidUTF8Offset(body)}
	case encUTF8:
		body, bom := trimUTF8BOM(b)
		if !utf8.Valid(body) {
			return "", "", &encodingError{"invalid UTF-8", bom + invalidUTF8Offset(body)}
		}
		return string(body), encUTF8, nil
	default:
		s, bad := decodeGB(b, enc == encGB18030)
		if bad >= 0 {
			name := "GBK"
			if enc == encGB18030 {
				name = "GB18030"
			}
			return "", "", &encodingError{"invalid " + name, bad}
		}
		return strings.TrimPrefix(s, "\uFEFF"), enc, nil
	}
}

// trimUTF8BOM removes a UTF-8 byte-order mark and returns its length.
func trimUTF8BOM(b []byte) ([]byte, int) {
	if bytes.HasPrefix(b, utf8BOM) {
		return b[len(utf8BOM):], len(utf8BOM)
	}
	return b, 0
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// invalidUTF8Offset returns the offset of the first byte of b that does not
// start a valid UTF-8 sequence, or len(b).
func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// decodeUTF16 decodes b, which starts with a UTF-16 byte-order mark.
func decodeUTF16(b []byte) (string, string, error) {
	le := b[0] == 0xFF
	name := encUTF16BE
	if le {
		name = encUTF16LE
	}
	if len(b)%2 != 0 {
		return "", "", &encodingError{"invalid UTF-16 (odd number of bytes)", len(b) - 1}
	}
	unit := func(i int) rune {
		if le {
			return rune(b[i]) | rune(b[i+1])<<8
		}
		return rune(b[i])<<8 | rune(b[i+1])
	}
	var sb strings.Builder
	sb.Grow(len(b) / 2 * 3)
	for i := 2; i < len(b); i += 2 {
		r := unit(i)
		switch {
		case utf16.IsSurrogate(r):
			if r < 0xDC00 && i+3 < len(b) {
				if d := utf16.DecodeRune(r, unit(i+2)); d != unicode.ReplacementChar {
					sb.WriteRune(d)
					i += 2
					continue
				}
			}
			return "", "", &encodingError{"invalid UTF-16 (unpaired surrogate)", i}
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String(), name, nil
}

// gbNext returns the length of the character at the start of src (not
// empty) as the golang.org/x/text GBK/GB18030 decoder consumes it, and
// whether that sequence is well formed (it may still be unmapped, which the
// decoder reports as U+FFFD).
func gbNext(src []byte, gb18030 bool) (size int, ok bool) {
	c0 := src[0]
	switch {
	case c0 <= 0x80: // ASCII, and 0x80 is the euro sign (code page 936)
		return 1, true
	case c0 == 0xFF:
		return 1, false
	}
	if len(src) < 2 {
		return 1, false
	}
	switch c1 := src[1]; {
	case 0x40 <= c1 && c1 < 0x7F, 0x80 <= c1 && c1 < 0xFF:
		return 2, true
	case gb18030 && 0x30 <= c1 && c1 < 0x40:
		if len(src) < 4 {
			return 1, false
		}
		c2, c3 := src[2], src[3]
		if c2 < 0x81 || c2 == 0xFF || c3 < 0x30 || c3 >= 0x3A {
			return 1, false
		}
		r := ((rune(c0-0x81)*10+rune(c1-0x30))*126+rune(c2-0x81))*10 + rune(c3-0x30)
		if r >= 39420 && (r < 189000 || r-189000 >= 0x100000) {
			return 1, false
		}
		return 4, true
	}
	return 1, false
}

// decodeGB decodes b as GBK or GB18030. It returns the offset of the first
// invalid or unmapped sequence, or -1.
func decodeGB(b []byte, gb18030 bool) (string, int) {
	s, _, bad := decodeGBStats(b, gb18030)
	return s, bad
}

// gbStats counts characters of a GB18030 text.
type gbStats struct {
	nonASCII int // multi-byte characters
	gb2312   int // two-byte characters in the GB2312 area (A1–F7, A1–FE)
	chinese  int // CJK ideographs, CJK punctuation, full-width forms
	controls int // C0 controls other than \t \n \v \f \r, and DEL
}

// decodeGBStats decodes b and walks the input and output in step, so as
// to find the offset of the first sequence that is malformed or unmapped.
func decodeGBStats(b []byte, gb18030 bool) (string, gbStats, int) {
	var st gbStats
	dec := simplifiedchinese.GBK.NewDecoder()
	if gb18030 {
		dec = simplifiedchinese.GB18030.NewDecoder()
	}
	out, err := dec.Bytes(b)
	if err != nil { // not expected: the decoder replaces what it cannot decode
		return "", st, 0
	}
	j := 0
	for i := 0; i < len(b); {
		size, ok := gbNext(b[i:], gb18030)
		r, n := utf8.DecodeRune(out[j:])
		if !ok || n == 0 || r == utf8.RuneError && !(size == 4 && n == 3) {
			return "", st, i
		}
		switch {
		case size == 1:
			if r < 0x20 && r != '\t' && r != '\n' && r != '\v' && r != '\f' && r != '\r' || r == 0x7F {
				st.controls++
			}
		default:
			st.nonASCII++
			if size == 2 && b[i] >= 0xA1 && b[i] <= 0xF7 && b[i+1] >= 0xA1 {
				st.gb2312++
			}
			if isChinese(r) {
				st.chinese++
			}
		}
		i += size
		j += n
	}
	if j != len(out) {
		return "", st, len(b)
	}
	return string(out), st, -1
}

// isChinese reports whether r is a CJK ideograph, CJK punctuation or a
// full-width form.
func isChinese(r rune) bool {
	return unicode.Is(unicode.Han, r) ||
		r >= 0x3000 && r <= 0x303F || // CJK symbols and punctuation
		r >= 0xFF00 && r <= 0xFFEF || // half-width and full-width forms
		r >= 0x2000 && r <= 0x206F // general punctuation: “” ‘’ — …
}

// decodeGBPlausible decodes b as GB18030 if it looks like Chinese text.
func decodeGBPlausible(b []byte) (string, bool) {
	s, st, bad := decodeGBStats(b, true)
	if bad >= 0 || st.controls > 0 || st.nonASCII == 0 {
		return "", false
	}
	if st.gb2312*10 < st.nonASCII*6 || st.chinese*2 < st.nonASCII {
		return "", false
	}
	return strings.TrimPrefix(s, "\uFEFF"), true
}
