package dedup

import (
	"unicode"
	"unicode/utf8"
)

// PassageGram is the length, in characters, of the n-grams two texts
// must share for SharedPassages to mark them: the content sketch's
// shingles (package minhash) are character 5-grams too.
const PassageGram = 5

// A Span is a passage of a text: the bytes Start to End (exclusive).
type Span struct {
	Start, End int
}

// SharedPassages returns the passages of a and of b that the other text
// has too, so that a reader sees what was copied: every character of a
// that lies in a character 5-gram b also has is marked, and so is every
// such character of b; neighbouring marked characters make one passage,
// and passages of fewer than minChars characters are left out (0 keeps
// them all). The spans are byte offsets into a and b, in order and
// disjoint; each starts and ends on a character boundary.
//
// Characters are compared as the analysis compares them, one at a time:
// white space and format characters are skipped (so a passage runs on
// across a line break), upper case is lowered and full-width ASCII is
// folded to ASCII. Traditional and simplified characters are not folded,
// so a traditional reprint of a simplified article shares little here
// even when the analysis finds it. Invalid UTF-8 counts as one
// character a byte.
func SharedPassages(a, b string, minChars int) (sa, sb []Span) {
	ca, cb := chars(a), chars(b)
	ga, gb := grams(ca), grams(cb)
	inB := make(map[gram]struct{}, len(gb))
	for _, g := range gb {
		inB[g] = struct{}{}
	}
	inA := make(map[gram]struct{}, len(ga))
	for _, g := range ga {
		inA[g] = struct{}{}
	}
	return spans(ca, ga, inB, minChars), spans(cb, gb, inA, minChars)
}

// char is one compared character of a text: its folded rune and where it
// is.
type char struct {
	r          rune
	start, end int
}

// gram is a character 5-gram, as its folded runes.
type gram [PassageGram]rune

// chars returns the compared characters of s.
func chars(s string) []char {
	out := make([]char, 0, len(s)/2)
	for i, r := range s {
		n := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, n = utf8.DecodeRuneInString(s[i:])
			if n == 1 {
				r = -1 - rune(s[i]) // one character a byte, equal only to the same byte
			}
		}
		if r >= 0 && (unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)) {
			continue
		}
		out = append(out, char{r: fold(r), start: i, end: i + n})
	}
	return out
}

// fold lowers r and folds full-width ASCII to ASCII.
func fold(r rune) rune {
	if r >= 0xff01 && r <= 0xff5e {
		r -= 0xfee0
	}
	return unicode.ToLower(r)
}

// grams returns the n-grams of cs: grams[i] starts at cs[i].
func grams(cs []char) []gram {
	if len(cs) < PassageGram {
		return nil
	}
	out := make([]gram, len(cs)-PassageGram+1)
	for i := range out {
		for j := range PassageGram {
			out[i][j] = cs[i+j].r
		}
	}
	return out
}

// spans marks the characters of cs covered by a gram of gs that other
// holds, and returns the runs of at least minChars marked characters as
// byte spans.
func spans(cs []char, gs []gram, other map[gram]struct{}, minChars int) []Span {
	var out []Span
	run, end := -1, -1 // the first character of the current run; the end of the marked characters
	flush := func(to int) {
		if run >= 0 && to-run >= max(minChars, 1) {
			out = append(out, Span{cs[run].start, cs[to-1].end})
		}
		run = -1
	}
	for i := range cs {
		if i < len(gs) {
			if _, ok := other[gs[i]]; ok {
				if run < 0 {
					run = i
				}
				end = max(end, i+PassageGram)
			}
		}
		if run >= 0 && i+1 >= end {
			flush(i + 1)
		}
	}
	return out
}
