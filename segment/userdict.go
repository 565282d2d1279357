package segment

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// userWord is one usable entry of a user dictionary.
type userWord struct {
	word string
	freq int    // 0: not given
	tag  string // "" : not given
}

// readUserDict reads and checks the user dictionary at path (see
// Options.UserDict), folding its words with fold when it is not nil.
// Errors name the path and, for content, the line.
func readUserDict(path string, fold Folder) ([]userWord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("segment: user dictionary: %w", err)
	}
	words, err := parseUserDict(string(data))
	if err != nil {
		return nil, fmt.Errorf("segment: user dictionary %s: %w", path, err)
	}
	if fold != nil {
		for i := range words {
			if words[i].word, err = fold.Fold(words[i].word); err != nil {
				return nil, fmt.Errorf("segment: user dictionary %s: %w", path, err)
			}
		}
	}
	return words, nil
}

// parseUserDict parses a user dictionary; see Options.UserDict.
func parseUserDict(data string) ([]userWord, error) {
	var out []userWord
	data = strings.TrimPrefix(data, "\uFEFF")
	n := 0
	for line := range strings.Lines(data) {
		n++
		line = strings.TrimSuffix(line, "\n")
		if !utf8.ValidString(line) {
			return nil, fmt.Errorf("line %d: not valid UTF-8", n)
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) > 3 {
			return nil, fmt.Errorf("line %d: want \"word [freq] [tag]\", got %d fields in %q", n, len(f), line)
		}
		uw := userWord{word: Normalize(f[0])}
		switch len(f) {
		case 2:
			if freq, ok := parseFreq(f[1]); ok {
				uw.freq = freq
			} else {
				uw.tag = f[1]
			}
		case 3:
			freq, ok := parseFreq(f[1])
			if !ok {
				return nil, fmt.Errorf("line %d: frequency %q of %q is not an integer from 1 to %d", n, f[1], f[0], maxFreq)
			}
			uw.freq, uw.tag = freq, f[2]
		}
		if uw.word == "" || !allHan(uw.word) {
			continue // can never match: Cut sends only Han runs to the dictionary
		}
		out = append(out, uw)
	}
	return out, nil
}

// maxFreq bounds user frequencies: cppjieba reads them with atoi into an int.
const maxFreq = 1<<31 - 1

// parseFreq parses a frequency: a decimal integer from 1 to maxFreq.
func parseFreq(s string) (int, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 1 || v > maxFreq {
		return 0, false
	}
	return int(v), true
}

// allHan reports whether every rune of s is a Han character.
func allHan(s string) bool {
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}

// cppjiebaUserDict renders words in the format cppjieba's user dictionary
// loader reads: "word" (default weight) or "word freq tag". (cppjieba reads
// a two-field line as "word tag", so a frequency always comes with a tag.)
func cppjiebaUserDict(words []userWord) []byte {
	var b strings.Builder
	for _, w := range words {
		b.WriteString(w.word)
		if w.freq > 0 {
			tag := w.tag
			if tag == "" {
				tag = "x"
			}
			fmt.Fprintf(&b, " %d %s", w.freq, tag)
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
