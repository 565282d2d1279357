package segment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/liuzl/da"
	"github.com/longbridgeapp/opencc"
)

// foldChain lists TradFold's passes: for each, its tables as OpenCC
// configuration and dictionary file names.
var foldChain = []struct {
	name  string
	dicts [][2]string // {conversion, file}
}{
	{"taiwan", [][2]string{{"tw2sp", "TWPhrasesRev.ocd2"}, {"tw2sp", "TWVariantsRevPhrases.ocd2"}, {"tw2sp", "TWVariantsRev.ocd2"}}},
	{"hongkong", [][2]string{{"hk2s", "HKVariantsRevPhrases.ocd2"}, {"hk2s", "HKVariantsRev.ocd2"}}},
	{"t2s", [][2]string{{"t2s", "TSPhrases.ocd2"}, {"t2s", "TSCharacters.ocd2"}}},
}

// openccDicts returns OpenCC's parsed tables by file name, from the
// given conversions.
func openccDicts(convs ...string) (map[string]*da.Dict, error) {
	out := make(map[string]*da.Dict)
	for _, conv := range convs {
		cc, err := opencc.New(conv)
		if err != nil {
			return nil, fmt.Errorf("segment: OpenCC %s: %w", conv, err)
		}
		for _, g := range cc.DictChains {
			for i, f := range g.Files {
				if i < len(g.Dicts) {
					out[f] = g.Dicts[i]
				}
			}
		}
	}
	return out, nil
}

// foldEntry is one key and its first value.
type foldEntry struct{ key, value string }

// dictEntries lists a parsed OpenCC table, in key order.
func dictEntries(d *da.Dict) ([]foldEntry, error) {
	var out []foldEntry
	for _, id := range d.Trie.PrefixPredict(nil, 0) {
		k, err := d.Trie.Key(id)
		if err != nil {
			return nil, err
		}
		v, err := d.Trie.Value(id)
		if err != nil {
			return nil, err
		}
		if v < 0 || v >= len(d.Values) || len(d.Values[v]) == 0 {
			return nil, fmt.Errorf("key %q: no value", k)
		}
		out = append(out, foldEntry{string(k), d.Values[v][0]})
	}
	slices.SortFunc(out, func(a, b foldEntry) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
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
//     (parsing STCharacters means parsing s2t, STPhrases and all, which
//     takes ten times as long as TradFold's own tables).
func foldChainEntries() ([][][]foldEntry, error) {
	dicts, err := openccDicts("tw2sp", "hk2s", "t2s")
	if err != nil {
		return nil, err
	}
	return foldChainFrom(dicts, func(key string) bool { return strings.Contains(foldDropped, key) })
}

// foldDropped are the single-character keys of the variant passes that
// TradFold leaves out (see foldChainEntries).
const foldDropped = "么緼藴輼醖"

// foldChainFrom returns the tables of TradFold's passes, leaving out the
// entries that Normalize changes and the variant entries whose
// single-character keys drop reports.
func foldChainFrom(dicts map[string]*da.Dict, drop func(key string) bool) ([][][]foldEntry, error) {
	get := func(file string) ([]foldEntry, error) {
		d, ok := dicts[file]
		if !ok {
			return nil, fmt.Errorf("segment: OpenCC has no table %s", file)
		}
		es, err := dictEntries(d)
		if err != nil {
			return nil, fmt.Errorf("segment: OpenCC %s: %w", file, err)
		}
		return es, nil
	}
	out := make([][][]foldEntry, len(foldChain))
	for p, pass := range foldChain {
		for _, cd := range pass.dicts {
			es, err := get(cd[1])
			if err != nil {
				return nil, err
			}
			kept := es[:0]
			for _, e := range es {
				if Normalize(e.key) != e.key || Normalize(e.value) != e.value || e.key == "" {
					continue
				}
				kept = append(kept, e)
			}
			out[p] = append(out[p], kept)
		}
	}
	for p := range len(out) - 1 {
		for d, es := range out[p] {
			kept := es[:0]
			for _, e := range es {
				if utf8RuneCount(e.key) == 1 && drop(e.key) {
					continue
				}
				kept = append(kept, e)
			}
			out[p][d] = kept
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

// buildPass makes a pass of the given tables.
func buildPass(tables [][]foldEntry) foldPass {
	var p foldPass
	for _, es := range tables {
		d := foldDict{m: make(map[string]string, len(es)), longest: make(map[rune]int)}
		for _, e := range es {
			n := utf8RuneCount(e.key)
			if n > maxKeyRunes {
				continue // OpenCC never matches it
			}
			d.m[e.key] = e.value
			var first rune
			for _, r := range e.key {
				first = r
				break
			}
			d.longest[first] = max(d.longest[first], n)
			p.start.add(first)
		}
		p.dicts = append(p.dicts, d)
	}
	return p
}

// loadFoldTables parses OpenCC's tables into TradFold's passes.
func loadFoldTables() (*foldTables, error) {
	chain, err := foldChainEntries()
	if err != nil {
		return nil, err
	}
	t := &foldTables{}
	for p, tables := range chain {
		pass := buildPass(tables)
		for d := range pass.dicts {
			pass.dicts[d].name = foldChain[p].dicts[d][1]
		}
		t.passes = append(t.passes, pass)
	}
	return t, nil
}
