package segment

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup/dict"
)

// foldChain lists TradFold's passes: for each, its tables, OpenCC
// dictionary files embedded in package dict, in order of precedence (the
// conversion chains of OpenCC's tw2sp, hk2s and t2s).
var foldChain = []struct {
	name  string
	files []string
}{
	{"taiwan", []string{dict.OpenCCTWPhrasesRev, dict.OpenCCTWVariantsRevPhrases, dict.OpenCCTWVariantsRev}},
	{"hongkong", []string{dict.OpenCCHKVariantsRevPhrases, dict.OpenCCHKVariantsRev}},
	{"t2s", []string{dict.OpenCCTSPhrases, dict.OpenCCTSCharacters}},
}

// foldEntry is one key and its first value.
type foldEntry = dict.OpenCCEntry

// openccTables parses the embedded OpenCC files of TradFold's passes, by
// file name.
func openccTables() (map[string][]foldEntry, error) {
	out := make(map[string][]foldEntry)
	for _, pass := range foldChain {
		for _, name := range pass.files {
			if _, ok := out[name]; ok {
				continue
			}
			text, ok := dict.OpenCCText(name)
			if !ok {
				return nil, fmt.Errorf("segment: no OpenCC table %s", name)
			}
			es, err := dict.ParseOpenCC(text)
			if err != nil {
				return nil, fmt.Errorf("segment: OpenCC %s: %w", name, err)
			}
			out[name] = es
		}
	}
	return out, nil
}

// foldChainEntries returns the tables of TradFold's passes as lists of
// entries, with the entries TradFold leaves out already left out:
//
//   - a key or value that Normalize changes (a key that normalised text
//     cannot hold, such as upper-case Latin; TradFold's output must be
//     normalised);
//   - in the variant passes, a single-character key that simplified
//     Chinese uses (a key of STCharacters) whose value the last pass
//     (t2s) does not take back to it: 么 → 幺 would change simplified
//     text. These keys are foldDropped, which TestFoldDropped computes
//     from a copy of STCharacters in testdata (STCharacters itself
//     is not embedded: the fold does not need it).
func foldChainEntries() ([][][]foldEntry, error) {
	tables, err := openccTables()
	if err != nil {
		return nil, err
	}
	return foldChainFrom(tables, func(key string) bool { return strings.Contains(foldDropped, key) })
}

// foldDropped are the single-character keys of the variant passes that
// TradFold leaves out (see foldChainEntries).
const foldDropped = "么緼藴輼醖"

// foldChainFrom returns the tables of TradFold's passes from the parsed
// OpenCC files, leaving out the entries that Normalize changes and the
// variant entries whose single-character keys drop reports.
func foldChainFrom(tables map[string][]foldEntry, drop func(key string) bool) ([][][]foldEntry, error) {
	out := make([][][]foldEntry, len(foldChain))
	for p, pass := range foldChain {
		for _, name := range pass.files {
			es, ok := tables[name]
			if !ok {
				return nil, fmt.Errorf("segment: no OpenCC table %s", name)
			}
			var kept []foldEntry
			for _, e := range es {
				if Normalize(e.Key) != e.Key || Normalize(e.Value) != e.Value || e.Key == "" {
					continue
				}
				if p < len(foldChain)-1 && utf8RuneCount(e.Key) == 1 && drop(e.Key) {
					continue
				}
				kept = append(kept, e)
			}
			out[p] = append(out[p], kept)
		}
	}
	return out, nil
}

func utf8RuneCount(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

// buildPass makes a pass of the given tables (at most maxPassDicts).
func buildPass(tables [][]foldEntry) (foldPass, error) {
	if len(tables) > maxPassDicts {
		return foldPass{}, fmt.Errorf("segment: a fold pass of %d tables, more than %d", len(tables), maxPassDicts)
	}
	p := foldPass{startIdx: new([1 << 16]uint16), starts: make([]foldStart, 1)}
	for d, es := range tables {
		m := make(map[string]string, len(es))
		for _, e := range es {
			n := utf8RuneCount(e.Key)
			if n > maxKeyRunes {
				continue // OpenCC never matches it
			}
			var first rune
			for _, r := range e.Key {
				first = r
				break
			}
			st := p.start(first)
			if st == nil {
				if len(p.starts) == 1<<16-1 {
					return foldPass{}, fmt.Errorf("segment: a fold pass of more than 65,535 first characters")
				}
				p.starts = append(p.starts, foldStart{})
				k := uint16(len(p.starts) - 1)
				if first < 1<<16 {
					p.startIdx[first] = k
					p.startBits[first>>6] |= 1 << (first & 63)
				} else {
					if p.startAstral == nil {
						p.startAstral = make(map[rune]uint16)
					}
					p.startAstral[first] = k
				}
				st = &p.starts[k]
			}
			st.lens[d] |= 1 << n
			if n == 1 {
				st.one[d] = e.Value
			} else {
				m[e.Key] = e.Value
			}
		}
		p.dicts = append(p.dicts, foldDict{m: m})
	}
	return p, nil
}

// loadFoldTables parses OpenCC's tables into TradFold's passes.
func loadFoldTables() (*foldTables, error) {
	chain, err := foldChainEntries()
	if err != nil {
		return nil, err
	}
	t := &foldTables{}
	for _, tables := range chain {
		for _, es := range tables {
			for _, e := range es {
				if strings.ContainsFunc(e.Key+e.Value, func(r rune) bool { return r < utf8.RuneSelf }) {
					t.asciiInTables = true
				}
			}
		}
	}
	for p, tables := range chain {
		pass, err := buildPass(tables)
		if err != nil {
			return nil, err
		}
		for d := range pass.dicts {
			pass.dicts[d].name = foldChain[p].files[d]
		}
		t.passes = append(t.passes, pass)
	}
	return t, nil
}
