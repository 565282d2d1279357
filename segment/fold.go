package segment

import (
	"math/bits"
	"strings"
	"sync"
	"unicode/utf8"
)

// A Folder maps normalised text to a canonical spelling of it: step 7 of
// NormalizeFold, between Normalize and Cut. Fold's input is Normalize's
// output, and its output must be Normalize's output too, and a fixed point:
// Fold of Fold's output is that output. Implementations are safe for
// concurrent use.
type Folder interface {
	Fold(s string) (string, error)
}

// NormalizeFold is Normalize followed by step 7: the folder f (nil: none),
// for instance a *TradFold that folds traditional Chinese to simplified.
// Like Normalize, it is idempotent: NormalizeFold(NormalizeFold(s, f), f)
// equals NormalizeFold(s, f). It fails only when f does.
func NormalizeFold(s string, f Folder) (string, error) {
	n := Normalize(s)
	if f == nil {
		return n, nil
	}
	return f.Fold(n)
}

// TradFold folds traditional Chinese to simplified Chinese with OpenCC's
// phrase and character tables, so that a traditional reprint of a
// simplified article is cut into the words of the original and has the
// same character n-grams wherever OpenCC's conversion is exact (on news,
// about 1 character in 800 of a copy comes out other than in the
// original, in s2t, s2tw, s2hk and s2twp alike; TestTradFoldNews).
//
// The conversion is OpenCC's: its dictionary files (OpenCC's, Apache-2.0,
// as the Go port github.com/longbridgeapp/opencc v0.3.13 shipped them;
// embedded in package dict, see dict/README.md), parsed by
// dict.ParseOpenCC, and its algorithm, in three passes over the text, each
// of which replaces, from left to right, the longest key of the first
// table that has one starting at the current character (keys of at most
// 10 characters), as OpenCC's conversion chains do (TestTradFoldGolden:
// the same output as that port's Convert on 750 texts):
//
//  1. Taiwan phrasing and variants (tw2sp's TWPhrasesRev: 軟體 → 软件,
//     資訊 → 信息; TWVariantsRevPhrases; TWVariantsRev),
//  2. Hong Kong variants (hk2s's HKVariantsRevPhrases, then HKVariantsRev),
//  3. traditional to simplified (t2s: TSPhrases, then TSCharacters).
//
// Taiwan phrasing costs some exactness on copies without it (资讯 in a
// simplified original comes back as 信息 from an s2t copy: on news, 1
// character in 800 of s2t, s2tw and s2hk copies comes out other than in
// the original, against 1 in 20,000 without TWPhrasesRev), but without it
// an s2twp copy of technical text (软件, 文件, 菜单, 默认, …) is no near
// duplicate of its original: 8 of 18 found in the zh_docs_traditional
// scenario, 18 of 18 with it. A variant entry that would change a
// character of simplified Chinese (a key of OpenCC's STCharacters, such
// as 么 → 幺 in TWVariantsRev) is left out unless the third pass takes the
// character back, so that folding a simplified text changes it little.
//
// A text without a traditional character (one of TradChars: the
// characters the three passes change on their own, but for the 24 that
// simplified Chinese writes too, those OpenCC's t2s may leave as they
// are: 著 as in 著名, which TWVariantsRev changes to 着 on its own; 乾 as
// in 乾隆; 抬) is left as it is without converting it, so simplified and
// English text costs one scan (HasTradChar: about 2% of the analysis of
// simplified Chinese, by instruction counts, bench/foldcount.sh), and
// simplified 著名 stays 著名. A text with one is converted whole: 3% of
// the zh_news articles, simplified news, have one (霑, 査, 們 in a
// quotation), and cost the conversion. Fold repeats the conversion while
// its output still has a traditional character and changes (OpenCC's t2s is not quite
// idempotent), at most four times, converting again only the runs
// between ASCII bytes that the last conversion changed (no key or value
// has an ASCII byte, so that gives the same text; TestTradFoldRuns);
// TestTradFoldNews checks that this reaches a fixed point on news in
// every variant.
//
// The tables are parsed when the first text with a traditional character
// arrives (BenchmarkTradFoldLoad: 20 ms, up to 60 ms on a loaded 2-core
// machine; never in init). A TradFold is safe for concurrent use.
type TradFold struct {
	once   sync.Once
	tables *foldTables
	err    error
}

// TradFoldVersion names the fold's rules and tables, for an analyzer ID: it
// changes whenever TradFold's output can change for some input. The
// tables are still "opencc-go v0.3.13"'s: the files that module embedded,
// now embedded in dict, parse to the same entries (TestFoldTablesDigest).
const TradFoldVersion = "t2s-2 opencc-go v0.3.13 tw-phrases tw-variants hk-variants ts"

// NewTradFold returns a TradFold. Its tables are parsed by the first Fold
// of a text with a traditional character, or by Load.
func NewTradFold() (*TradFold, error) {
	return &TradFold{}, nil
}

// Load parses the tables now, if no Fold has. It returns the error every
// later Fold of a traditional text would.
func (f *TradFold) Load() error {
	f.once.Do(func() { f.tables, f.err = loadFoldTables() })
	return f.err
}

// Fold returns s with its traditional Chinese folded to simplified. s is
// Normalize's output; so is the result. s itself is returned when it has
// no traditional character.
func (f *TradFold) Fold(s string) (string, error) {
	if !HasTradChar(s) {
		return s, nil
	}
	if err := f.Load(); err != nil {
		return "", err
	}
	return f.tables.fold(s), nil
}

// fold is the conversion of s repeated while its output changes and has a
// traditional character, at most four times in all.
func (t *foldTables) fold(s string) string {
	out := t.convert(s)
	if out == s {
		// Nothing changed (a simplified text with a character such as 著
		// that only some phrases change): converting again would not.
		return s
	}
	if t.asciiInTables {
		return t.repeat(out)
	}
	return t.repeatRuns(s, out)
}

// repeat converts out again while it has a traditional character and
// changes, at most three times.
func (t *foldTables) repeat(out string) string {
	for range 3 {
		if !HasTradChar(out) {
			break
		}
		again := t.convert(out)
		if again == out {
			break
		}
		out = again
	}
	return out
}

// repeatRuns is repeat(out), where out is the conversion of s, for tables
// none of whose keys and values has an ASCII byte. No match of a pass
// then spans an ASCII byte, so the conversion of a text is that of each
// of its runs of other bytes, and out is s with each run replaced by its
// conversion. A run that the last conversion left as it was is a fixed
// point: only the runs that changed are converted again (the sentences
// where a traditional character was, not the whole text).
func (t *foldTables) repeatRuns(s, out string) string {
	sr, or := nonASCIIRuns(s), nonASCIIRuns(out)
	if len(sr) != len(or) {
		return t.repeat(out) // cannot happen: see above
	}
	type run struct {
		text          string
		changed, trad bool
	}
	runs := make([]run, len(or))
	for i, r := range or {
		text := out[r[0]:r[1]]
		runs[i] = run{text: text, changed: text != s[sr[i][0]:sr[i][1]], trad: HasTradChar(text)}
	}
	again := false // a run changed after the first conversion
	for range 3 {
		trad := false
		for i := range runs {
			trad = trad || runs[i].trad
		}
		if !trad {
			break
		}
		changed := false
		for i := range runs {
			r := &runs[i]
			if !r.changed {
				continue
			}
			c := t.convert(r.text)
			if r.changed = c != r.text; r.changed {
				r.text, r.trad, changed = c, HasTradChar(c), true
			}
		}
		if !changed {
			break
		}
		again = true
	}
	if !again {
		return out
	}
	var b strings.Builder
	b.Grow(len(out) + len(out)/8)
	prev := 0
	for i, r := range or {
		b.WriteString(out[prev:r[0]])
		b.WriteString(runs[i].text)
		prev = r[1]
	}
	b.WriteString(out[prev:])
	return b.String()
}

// nonASCIIRuns returns the maximal runs of bytes ≥ 0x80 of s, as
// [start, end) pairs.
func nonASCIIRuns(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && s[j] >= utf8.RuneSelf {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// maxKeyRunes is the longest key OpenCC's conversion looks for: it
// matches keys against the next 10 characters.
const maxKeyRunes = 10

// foldTables are the passes of TradFold's conversion.
type foldTables struct {
	passes []foldPass
	// asciiInTables is set when a key or value has an ASCII byte (none
	// does): fold then converts whole texts again (repeat, not
	// repeatRuns).
	asciiInTables bool
}

// maxPassDicts is the most tables a pass has.
const maxPassDicts = 3

// foldPass is one pass: its tables in order of precedence, and for each
// character that starts a key of one of them, the lengths of those keys.
type foldPass struct {
	dicts []foldDict
	// startBits has the bit of every character of the Basic Multilingual
	// Plane that starts a key: tradScan skips the others.
	startBits [1 << 16 / 64]uint64
	// starts[startIdx[r]] (BMP) or starts[startAstral[r]] describes the
	// keys starting with r; index 0 means none.
	startIdx    *[1 << 16]uint16
	startAstral map[rune]uint16
	starts      []foldStart
}

// foldStart describes the keys that start with a character: for each
// table of the pass, bit n of lens is set when the table has a key of n
// characters starting with it, and one is the value of the
// one-character key.
type foldStart struct {
	lens [maxPassDicts]uint16
	one  [maxPassDicts]string
}

// foldDict is one OpenCC table: its keys and their first values.
type foldDict struct {
	name string
	m    map[string]string
}

func (t *foldTables) convert(s string) string {
	for i := range t.passes {
		s = t.passes[i].convert(s)
	}
	return s
}

// start returns what starts with r, or nil.
func (p *foldPass) start(r rune) *foldStart {
	var k uint16
	if r < 1<<16 {
		k = p.startIdx[r]
	} else {
		k = p.startAstral[r]
	}
	if k == 0 {
		return nil
	}
	return &p.starts[k]
}

// convert replaces, from left to right, the longest key of the first
// table that has a key starting at the current character, as OpenCC's
// Convert does for one group of a conversion chain. It returns s itself
// when nothing changes, and allocates only when something does.
func (p *foldPass) convert(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	var ends [maxKeyRunes + 1]int
	for i := 0; i < len(s); {
		// Skip ASCII and the characters of three bytes that start no key,
		// then look at the next character.
		if i += tradScan(s[i:], &p.startBits); i >= len(s) {
			break
		}
		r, size := decodeRune(s[i:])
		st := p.start(r)
		if st == nil || (r == utf8.RuneError && size == 1) {
			i += size
			continue
		}
		// ends[n] is where the n characters from i end (0: not that many).
		ends[1] = i + size
		known := 1
		matched := false
		for d := range p.dicts {
			lens := st.lens[d]
			for lens != 0 {
				n := bits.Len16(lens) - 1
				lens &^= 1 << n
				for ; known < n; known++ {
					e := ends[known]
					if e >= len(s) {
						break
					}
					_, sz := decodeRune(s[e:])
					ends[known+1] = e + sz
				}
				if n > known {
					continue
				}
				var v string
				if n == 1 {
					v = st.one[d]
				} else {
					var ok bool
					if v, ok = p.dicts[d].m[s[i:ends[n]]]; !ok {
						continue
					}
				}
				if v != s[i:ends[n]] {
					if b.Cap() == 0 {
						b.Grow(len(s) + len(s)/8)
					}
					b.WriteString(s[done:i])
					b.WriteString(v)
					done = ends[n]
				}
				i = ends[n]
				matched = true
				break
			}
			if matched {
				break
			}
		}
		if !matched {
			i += size
		}
	}
	if b.Cap() == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// decodeRune is utf8.DecodeRuneInString with the case of three bytes
// (all of CJK but the rare extensions) decoded inline.
func decodeRune(s string) (rune, int) {
	if len(s) >= 3 && s[0]&0xf0 == 0xe0 && (s[1]^0x80)|(s[2]^0x80) < 0x40 {
		r := rune(s[0]&0x0f)<<12 | rune(s[1]&0x3f)<<6 | rune(s[2]&0x3f)
		if r >= 0x800 && (r < 0xd800 || r >= 0xe000) { // not overlong, not a surrogate
			return r, 3
		}
	}
	return utf8.DecodeRuneInString(s)
}

// runeSet is a set of characters: a bitmap of the Basic Multilingual
// Plane and a map of the others.
type runeSet struct {
	bmp    [1 << 16 / 64]uint64
	astral map[rune]bool
}

func (rs *runeSet) add(r rune) {
	if r < 1<<16 {
		rs.bmp[r>>6] |= 1 << (r & 63)
		return
	}
	if rs.astral == nil {
		rs.astral = make(map[rune]bool)
	}
	rs.astral[r] = true
}

func (rs *runeSet) has(r rune) bool {
	if r < 1<<16 {
		return rs.bmp[r>>6]&(1<<(r&63)) != 0
	}
	return rs.astral[r]
}

var (
	tradSetOnce sync.Once
	tradSet     runeSet
)

// HasTradChar reports whether s has a traditional character: one of
// TradChars. It is the cheap scan that spares simplified text the
// conversion (tradScan): ASCII is skipped eight bytes at a time where it
// runs on, and a character of three bytes (the Basic Multilingual Plane:
// all of CJK but the rare extensions) is one bit of a bitmap indexed by
// its bytes; only other characters and the bitmap's hits are decoded.
// Invalid UTF-8 is never taken for a character.
func HasTradChar(s string) bool {
	tradSetOnce.Do(func() {
		for _, r := range TradChars {
			tradSet.add(r)
		}
	})
	for i := 0; i < len(s); {
		i += tradScan(s[i:], &tradSet.bmp)
		if i >= len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if tradSet.has(r) && (r != utf8.RuneError || size > 1) {
			return true
		}
		i += size
	}
	return false
}

// tradScan returns the length of the longest prefix of s made of ASCII
// and of characters of three bytes whose bits in bmp are clear: where
// HasTradChar has to look closer (a possible traditional character,
// another character or invalid UTF-8), or len(s); the conversion skips
// with it too (foldPass.startBits). It calls nothing, so that its loop
// keeps everything in registers.
func tradScan(s string, bmp *[1 << 16 / 64]uint64) int {
	i := 0
	for i < len(s)-2 {
		c := s[i]
		if c&0xf0 == 0xe0 { // the first of three bytes
			b1, b2 := s[i+1], s[i+2]
			// Two continuation bytes, and the character c&0x0f<<12 |
			// b1&0x3f<<6 | b2&0x3f is not in the bitmap (word r>>6, bit
			// r&63).
			if (b1^0x80)|(b2^0x80) >= 0x40 || bmp[(uint(c&0x0f)<<6|uint(b1&0x3f))&(1<<10-1)]>>(b2&0x3f)&1 != 0 {
				return i
			}
			i += 3
			continue
		}
		if c >= utf8.RuneSelf {
			return i
		}
		i++
		// ASCII runs on: eight bytes at a time (one load on machines that
		// allow it).
		for i < len(s)-7 {
			t := s[i : i+8]
			w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
				uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
			if w&0x8080808080808080 != 0 {
				break
			}
			i += 8
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}
