package reuse

import (
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/segment"
)

// Text is an article as passages are compared: its characters after the
// analysis's normalisation and fold (see the package doc), each with the
// bytes of the original text it came from.
type Text struct {
	src   string
	runes []rune
	start []int32 // start[i]: the first byte, in src, of the character runes[i] came from
	end   []int32 // end[i]: the byte after it
}

// NewText returns the compared characters of s: each character of s is
// normalised on its own as segment.Normalize normalises it (NFKC, lower
// case, "。" as "."), white space and format characters are dropped,
// and, when fold is not nil (the analyzer folds: segment.TradFold), the
// result is folded. It fails only when fold does. Offsets are int32: a
// text of 2 GB or more is refused by the archive long before.
func NewText(s string, fold segment.Folder) (*Text, error) {
	t := &Text{src: s}
	n := len(s)/2 + 1
	t.runes = make([]rune, 0, n)
	t.start = make([]int32, 0, n)
	t.end = make([]int32, 0, n)
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c <= ' ' || c == 0x7f:
			case 'A' <= c && c <= 'Z':
				t.add(rune(c+'a'-'A'), i-1, i)
			default:
				t.add(rune(c), i-1, i)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		from := i
		i += size
		if 0x4e00 <= r && r <= 0x9fff { // CJK Unified Ideographs: NFKC leaves them, no case
			t.add(r, from, i)
			continue
		}
		var norm string
		if size == 1 { // invalid UTF-8: Normalize makes it U+FFFD
			norm = "\ufffd"
		} else {
			norm = segment.Normalize(string(buf[:utf8.EncodeRune(buf[:], r)]))
		}
		for _, nr := range norm {
			if unicode.IsSpace(nr) || unicode.Is(unicode.Cf, nr) {
				continue
			}
			t.add(nr, from, i)
		}
	}
	if fold != nil {
		if err := t.fold(fold); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *Text) add(r rune, start, end int) {
	t.runes = append(t.runes, r)
	t.start = append(t.start, int32(start))
	t.end = append(t.end, int32(end))
}

// fold folds t's characters with f: the whole text at once, as the
// analysis folds it, when that keeps the number of characters (OpenCC's
// phrases nearly always do), so that each folded character keeps its
// offsets; otherwise each traditional character on its own.
func (t *Text) fold(f segment.Folder) error {
	s := string(t.runes)
	if !segment.HasTradChar(s) {
		return nil
	}
	out, err := f.Fold(s)
	if err != nil {
		return err
	}
	if utf8.RuneCountInString(out) == len(t.runes) {
		i := 0
		for _, r := range out {
			t.runes[i] = r
			i++
		}
		return nil
	}
	var buf [utf8.UTFMax]byte
	for i, r := range t.runes {
		one := string(buf[:utf8.EncodeRune(buf[:], r)])
		if !segment.HasTradChar(one) {
			continue
		}
		o, err := f.Fold(one)
		if err != nil {
			return err
		}
		if or, n := utf8.DecodeRuneInString(o); n == len(o) {
			t.runes[i] = or
		}
	}
	return nil
}

// Len returns the number of compared characters.
func (t *Text) Len() int { return len(t.runes) }

// String returns the compared characters, for tests and messages.
func (t *Text) String() string { return string(t.runes) }

// Span returns the bytes of the original text that the characters i to
// j (exclusive) came from.
func (t *Text) Span(i, j int) (start, end int) {
	if i >= j {
		return 0, 0
	}
	return int(t.start[i]), int(t.end[j-1])
}
