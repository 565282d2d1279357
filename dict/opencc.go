package dict

import (
	_ "embed" // for go:embed
	"fmt"
	"slices"
	"strings"
)

// OpenCC's dictionary files, as embedded (see README.md for their
// provenance): the tables that segment.TradFold folds traditional Chinese
// to simplified with.
const (
	OpenCCTWPhrasesRev         = "TWPhrasesRev.txt"         // Taiwan phrasing to mainland: 軟體 → 软件
	OpenCCTWVariantsRevPhrases = "TWVariantsRevPhrases.txt" // Taiwan variants in phrases
	OpenCCTWVariantsRev        = "TWVariantsRev.txt"        // Taiwan variant characters
	OpenCCHKVariantsRevPhrases = "HKVariantsRevPhrases.txt" // Hong Kong variants in phrases
	OpenCCHKVariantsRev        = "HKVariantsRev.txt"        // Hong Kong variant characters
	OpenCCTSPhrases            = "TSPhrases.txt"            // traditional to simplified phrases
	OpenCCTSCharacters         = "TSCharacters.txt"         // traditional to simplified characters
)

var (
	//go:embed data/opencc/TWPhrasesRev.txt
	openccTWPhrasesRev string
	//go:embed data/opencc/TWVariantsRevPhrases.txt
	openccTWVariantsRevPhrases string
	//go:embed data/opencc/TWVariantsRev.txt
	openccTWVariantsRev string
	//go:embed data/opencc/HKVariantsRevPhrases.txt
	openccHKVariantsRevPhrases string
	//go:embed data/opencc/HKVariantsRev.txt
	openccHKVariantsRev string
	//go:embed data/opencc/TSPhrases.txt
	openccTSPhrases string
	//go:embed data/opencc/TSCharacters.txt
	openccTSCharacters string
)

// OpenCCText returns the embedded OpenCC dictionary file name (one of the
// OpenCC… constants) as a string, without copying it, and whether it is
// embedded.
func OpenCCText(name string) (string, bool) {
	switch name {
	case OpenCCTWPhrasesRev:
		return openccTWPhrasesRev, true
	case OpenCCTWVariantsRevPhrases:
		return openccTWVariantsRevPhrases, true
	case OpenCCTWVariantsRev:
		return openccTWVariantsRev, true
	case OpenCCHKVariantsRevPhrases:
		return openccHKVariantsRevPhrases, true
	case OpenCCHKVariantsRev:
		return openccHKVariantsRev, true
	case OpenCCTSPhrases:
		return openccTSPhrases, true
	case OpenCCTSCharacters:
		return openccTSCharacters, true
	}
	return "", false
}

// OpenCCNames lists the embedded OpenCC dictionary files.
func OpenCCNames() []string {
	return []string{OpenCCTWPhrasesRev, OpenCCTWVariantsRevPhrases, OpenCCTWVariantsRev,
		OpenCCHKVariantsRevPhrases, OpenCCHKVariantsRev, OpenCCTSPhrases, OpenCCTSCharacters}
}

// OpenCCEntry is a key of an OpenCC dictionary and its first value, the
// one OpenCC's conversion writes.
type OpenCCEntry struct{ Key, Value string }

// ParseOpenCC parses an OpenCC text dictionary: one "key<TAB>value1
// value2 …" line per key. It returns the entries in byte order of their
// keys, each with its first value.
//
// Lines are read as the Go port of OpenCC that neardup took these files
// from (github.com/longbridgeapp/opencc, through github.com/liuzl/da) read
// them, so that the tables are the same: a line is trimmed of white space
// at both ends and split at tabs; a line with fewer than two fields is
// skipped; with two, the values are the second field split at white
// space; with more, the values are the fields after the first. A key
// given twice takes its last line. Unlike that port, a last line without
// a newline is read too (none of the embedded files has one), and an
// empty first value (a line "key<TAB><TAB>value") is an error rather than
// a conversion to nothing.
func ParseOpenCC(text string) ([]OpenCCEntry, error) {
	m := make(map[string]string)
	line := 0
	for rest := text; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		line++
		items := strings.Split(strings.TrimSpace(l), "\t")
		if len(items) < 2 {
			continue
		}
		value := items[1]
		if len(items) == 2 {
			// The last field of a trimmed line: it ends in other than
			// white space, so it has a first value.
			value = strings.Fields(value)[0]
		}
		if value == "" {
			return nil, fmt.Errorf("dict: OpenCC line %d: key %q has an empty first value", line, items[0])
		}
		m[items[0]] = value
	}
	out := make([]OpenCCEntry, 0, len(m))
	for k, v := range m {
		out = append(out, OpenCCEntry{k, v})
	}
	slices.SortFunc(out, func(a, b OpenCCEntry) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}
