package dict

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// IDF is an inverse-document-frequency table: a weight per word and the
// median weight, which stands in for words the table does not know.
// An IDF is never modified after construction and is safe for concurrent
// use.
//
// The table holds no pointers but its three arrays and its text, so the
// garbage collector does not walk its 300,000 words on every cycle: word
// i is text[pos[i].off:][:pos[i].n] and its IDF idfs[i], and an
// open-addressing hash table (slots, with entries alongside) finds a word
// by its hash.
type IDF struct {
	text    string
	pos     []wordPos
	idfs    []float64
	slots   []idfSlot
	entries []int32 // entries[i] is the word of slots[i]
	median  float64
}

// wordPos is where a word is in IDF.text.
type wordPos struct{ off, n uint32 }

// idfSlot is one slot of the hash table: a word's hash (slotHash; 0 marks
// an empty slot) and its IDF, or NaN when two words of the table share the
// hash and Weight must compare the words.
type idfSlot struct {
	hash uint64
	idf  float64
}

// slotHash is the 64-bit hash of word the tables are keyed by, with 0
// (the empty slot) moved to 1. A word of 4 to 16 bytes (most words,
// English and Chinese) is hashed as four 4-byte words that cover it, at
// 0, (n/8)*4, n-4 and n-4-(n/8)*4, one of 1 to 3 bytes as its first,
// middle and last byte, the two halves keyed and multiplied into 128
// bits whose halves are folded (wyhash's construction for short keys,
// with its constants); a longer word by XXH64. Words of 4 to 16 bytes
// take one path: XXH64 for every word cost a mispredicted branch on
// the length class of many of the words of an English text (callgrind's
// branch simulation). The hash is not stored anywhere, and the tables
// are built in the process; their contents cannot make a lookup probe
// further than their longest cluster, whatever the text.
func slotHash(word string) uint64 {
	n := len(word)
	var a, b uint64
	switch {
	case n > 16:
		if h := xxhash.Sum64String(word); h != 0 {
			return h
		}
		return 1
	case n >= 4:
		o := n >> 3 << 2
		a = uint64(load32(word))<<32 | uint64(load32(word[o:]))
		b = uint64(load32(word[n-4:]))<<32 | uint64(load32(word[n-4-o:]))
	case n > 0:
		a = uint64(word[0])<<16 | uint64(word[n>>1])<<8 | uint64(word[n-1])
	}
	hi, lo := bits.Mul64(a^0xa0761d6478bd642f, b^0xe7037ed1a0b428db^uint64(n))
	if h := hi ^ lo; h != 0 {
		return h
	}
	return 1
}

// load32 is the first 4 bytes of t, little-endian.
func load32(t string) uint32 {
	t = t[:4]
	return uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24
}

// word returns the word of entry e.
func (t *IDF) word(e int32) string {
	p := t.pos[e]
	return t.text[p.off : p.off+p.n]
}

// idfBuilder makes an IDF: linear probing over a power of two at most
// three-quarters full, 16 bytes a slot, so that Weight usually reads one
// cache line where a map reads three (its control word, the key's header
// and the key's bytes). The 292,184 words of the default table take 2^19
// slots (56% full), 8 MiB.
type idfBuilder struct {
	text    []byte
	pos     []wordPos
	idfs    []float64
	slots   []idfSlot
	entries []int32
}

// newIDFBuilder returns a builder for at most n words.
func newIDFBuilder(n int) *idfBuilder {
	size := 16
	for 3*size < 4*n {
		size <<= 1
	}
	return &idfBuilder{slots: make([]idfSlot, size), entries: make([]int32, size)}
}

// put sets the IDF of word. An entry for word made before the entry
// number from is replaced; one made since is a duplicate, reported as
// dup without changing anything.
func (b *idfBuilder) put(word string, idf float64, from int) (dup bool) {
	return b.putHash(word, slotHash(word), idf, from)
}

// putHash is put with the word's hash given.
func (b *idfBuilder) putHash(word string, h uint64, idf float64, from int) (dup bool) {
	mask := uint64(len(b.slots) - 1)
	collided := false
	i := h & mask
	for ; b.slots[i].hash != 0; i = (i + 1) & mask {
		if b.slots[i].hash != h {
			continue
		}
		e := b.entries[i]
		p := b.pos[e]
		if string(b.text[p.off:p.off+p.n]) != word {
			b.slots[i].idf = math.NaN() // two words, one hash
			collided = true
			continue
		}
		if int(e) >= from {
			return true
		}
		b.idfs[e] = idf
		if !collided && b.slots[i].idf == b.slots[i].idf {
			b.slots[i].idf = idf
		}
		return false
	}
	e := int32(len(b.idfs))
	b.pos = append(b.pos, wordPos{uint32(len(b.text)), uint32(len(word))})
	b.text = append(b.text, word...)
	b.idfs = append(b.idfs, idf)
	b.slots[i], b.entries[i] = idfSlot{h, idf}, e
	if collided {
		b.slots[i].idf = math.NaN()
	}
	return false
}

// table finishes the IDF.
func (b *idfBuilder) table() *IDF {
	return &IDF{
		text:    string(b.text),
		pos:     slices.Clip(b.pos),
		idfs:    slices.Clip(b.idfs),
		slots:   b.slots,
		entries: b.entries,
		median:  median(slices.Clone(b.idfs)),
	}
}

// ErrEmptyTable is returned (wrapped) when an IDF table has no entries.
var ErrEmptyTable = errors.New("idf table has no entries")

// LoadIDF reads an IDF table in jieba's format: one "word idf" line per
// word, the two fields separated by spaces or tabs, idf a finite decimal
// number >= 0. Blank lines are skipped, "\r\n" line ends and a leading byte
// order mark are accepted. A line with another number of fields, an idf
// that does not parse or is negative, NaN or infinite, a word that is not
// valid UTF-8, or a word seen before is an error naming the line number.
// A table with no entries is an error too (ErrEmptyTable).
func LoadIDF(r io.Reader) (*IDF, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("dict: read idf table: %w", err)
	}
	t, err := parseIDF(string(data))
	if err != nil {
		return nil, fmt.Errorf("dict: idf table: %w", err)
	}
	return t, nil
}

// parseIDF parses a jieba IDF table.
func parseIDF(data string) (*IDF, error) {
	b := newIDFBuilder(strings.Count(data, "\n") + 1)
	if err := b.parse(data); err != nil {
		return nil, err
	}
	if len(b.idfs) == 0 {
		return nil, ErrEmptyTable
	}
	return b.table(), nil
}

// parse adds the entries of a jieba IDF table, replacing entries the
// builder already has; a word twice in data is an error.
func (b *idfBuilder) parse(data string) error {
	from := len(b.idfs)
	data = strings.TrimPrefix(data, "\uFEFF")
	n := 0
	for line := range strings.Lines(data) {
		n++
		line = strings.TrimSuffix(line, "\n")
		word, idf, ok, err := parseIDFLine(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if ok && len(b.text)+len(word) > math.MaxUint32 {
			return fmt.Errorf("line %d: more than 4 GiB of words", n)
		}
		if ok && b.put(word, idf, from) {
			return fmt.Errorf("line %d: duplicate word %q", n, word)
		}
	}
	return nil
}

// parseIDFLine parses one "word idf" line; ok is false for a blank line.
func parseIDFLine(line string) (word string, idf float64, ok bool, err error) {
	line = strings.TrimRight(line, "\r")
	f1, rest, found := cutField(line)
	if !found {
		return "", 0, false, nil
	}
	f2, rest, found := cutField(rest)
	if !found {
		return "", 0, false, fmt.Errorf("want \"word idf\", got one field %q", truncate(line))
	}
	if _, _, extra := cutField(rest); extra {
		return "", 0, false, fmt.Errorf("want \"word idf\", got more than two fields in %q", truncate(line))
	}
	if !utf8.ValidString(f1) {
		return "", 0, false, fmt.Errorf("word %q is not valid UTF-8", truncate(f1))
	}
	v, err := strconv.ParseFloat(f2, 64)
	if err != nil {
		return "", 0, false, fmt.Errorf("word %q: idf %q is not a number", truncate(f1), truncate(f2))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return "", 0, false, fmt.Errorf("word %q: idf %q is not a finite number >= 0", truncate(f1), truncate(f2))
	}
	return f1, v, true, nil
}

// cutField returns the first space- or tab-separated field of s and what
// follows it; found is false when s holds only separators.
func cutField(s string) (field, rest string, found bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i == len(s) {
		return "", "", false
	}
	j := i
	for j < len(s) && s[j] != ' ' && s[j] != '\t' {
		j++
	}
	return s[i:j], s[j:], true
}

// truncate shortens s for an error message.
func truncate(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// newIDF makes a table of the entries of m.
func newIDF(m map[string]float64) *IDF {
	b := newIDFBuilder(len(m))
	for w, v := range m {
		b.put(w, v, 0)
	}
	return b.table()
}

// median returns the median of vals (sorting vals): the middle value of an
// odd count, the mean of the two middle values of an even count, 0 for none.
func median(vals []float64) float64 {
	n := len(vals)
	if n == 0 {
		return 0
	}
	slices.Sort(vals)
	if n%2 == 1 {
		return vals[n/2]
	}
	return (vals[n/2-1] + vals[n/2]) / 2
}

// DefaultIDF returns the embedded Chinese table (cppjieba's idf.utf8,
// 258,826 words) merged with the embedded English table (en_idf.utf8).
// The two share no word. Its Median is the median over all entries of the
// merged table (the mean of the two middle values when the count is even),
// so it is dominated by the much larger Chinese table; see README.md
// for why that is a sound weight for unknown English words too.
//
// Each call parses the embedded text (about 100 ms); call it once and
// share the table.
func DefaultIDF() (*IDF, error) {
	b, err := defaultIDFBuilder(0)
	if err != nil {
		return nil, err
	}
	return b.table(), nil
}

// defaultIDFBuilder parses the embedded tables into a builder with room
// for extra more words.
func defaultIDFBuilder(extra int) (*idfBuilder, error) {
	b := newIDFBuilder(strings.Count(zhIDF, "\n") + strings.Count(enIDF, "\n") + 2 + extra)
	if err := b.parse(zhIDF); err != nil {
		return nil, fmt.Errorf("dict: embedded idf.utf8: %w", err)
	}
	// The same as zh.Merge(en), without building the two tables first.
	if err := b.parse(enIDF); err != nil {
		return nil, fmt.Errorf("dict: embedded en_idf.utf8: %w", err)
	}
	return b, nil
}

// Lookup returns the IDF of word and whether the table has it.
func (t *IDF) Lookup(word string) (idf float64, ok bool) {
	return t.lookup(word, slotHash(word))
}

// lookup is Lookup with the word's hash given.
func (t *IDF) lookup(word string, h uint64) (idf float64, ok bool) {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; t.slots[i].hash != 0; i = (i + 1) & mask {
		if t.slots[i].hash == h && t.word(t.entries[i]) == word {
			return t.idfs[t.entries[i]], true
		}
	}
	return 0, false
}

// Weight returns the IDF of word, or Median() if the table does not have
// it. It finds word by its 64-bit hash without comparing the bytes,
// so a word the table lacks gets a table word's IDF instead of the median
// if the two hashes are equal: with the default table, a chance of about
// 1 in 6×10^13 per lookup. (Words of the table that share a hash are
// detected when the table is built and compared.)
func (t *IDF) Weight(word string) float64 {
	return t.weight(word, slotHash(word))
}

// weight is Weight with the word's hash given.
func (t *IDF) weight(word string, h uint64) float64 {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s := t.slots[i]; s.hash {
		case h:
			if s.idf == s.idf { // not NaN
				return s.idf
			}
			if idf, ok := t.lookup(word, h); ok {
				return idf
			}
			return t.median
		case 0:
			return t.median
		}
	}
}

// Median returns the median IDF of the table (for an even number of
// entries, the mean of the two middle values): the weight of an unknown
// word.
func (t *IDF) Median() float64 { return t.median }

// Len returns the number of words in the table.
func (t *IDF) Len() int { return len(t.idfs) }

// Merge returns a new table with the entries of t and other; where both
// have a word, other's IDF wins. The median is recomputed over the merged
// entries. Neither t nor other is changed; a nil other returns t.
func (t *IDF) Merge(other *IDF) *IDF {
	if other == nil {
		return t
	}
	b := newIDFBuilder(t.Len() + other.Len())
	for e := range t.idfs {
		b.put(t.word(int32(e)), t.idfs[e], 0)
	}
	from := len(b.idfs)
	for e := range other.idfs {
		b.put(other.word(int32(e)), other.idfs[e], from)
	}
	return b.table()
}

// WriteTo writes the table in the format LoadIDF reads: "word idf" lines
// sorted by word (byte order), each idf in the shortest form that parses
// back to the same float64. It implements io.WriterTo.
func (t *IDF) WriteTo(w io.Writer) (int64, error) {
	order := make([]int32, len(t.idfs))
	for e := range order {
		order[e] = int32(e)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(t.word(a), t.word(b)) })
	words := make([]string, len(order))
	idf := make(map[string]float64, len(order))
	for i, e := range order {
		words[i] = t.word(e)
		idf[words[i]] = t.idfs[e]
	}
	return writeTable(w, words, func(buf []byte, word string) []byte {
		return strconv.AppendFloat(buf, idf[word], 'g', -1, 64)
	})
}

// writeTable writes one "word idf" line per word, in the order given,
// formatting each idf with appendIDF.
func writeTable(w io.Writer, words []string, appendIDF func(buf []byte, word string) []byte) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriter(cw)
	if len(words) > 0 && strings.HasPrefix(words[0], "\uFEFF") {
		// LoadIDF drops a leading byte order mark; write one so that a
		// first word that itself starts with U+FEFF survives.
		bw.WriteString("\uFEFF")
	}
	buf := make([]byte, 0, 64)
	for _, word := range words {
		buf = append(buf[:0], word...)
		buf = append(buf, ' ')
		buf = appendIDF(buf, word)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return cw.n, err
		}
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// A Lexicon is an IDF table and a stop-word list in one hash table, so
// that a keyword extractor learns a word's weight and whether it is a
// stop word with one lookup where the two lists take two (measured in
// the whole analysis of zh_news: the stop-word check cost 3% of it). A
// stop word's entry carries its IDF (the table's median when the table
// lacks it) with the sign bit set. A Lexicon is read-only and safe for
// concurrent use.
//
// Its words are split in two hash tables by their first byte: ASCII
// (English words, 34,000 of the default's 292,000, in 1 MiB) and the
// rest (Chinese, 8 MiB). A word is only ever in the table of its first
// byte, so the two answer what one table would; but the lookups of an
// English text stay in a table that the caches can hold, where in the
// one table of 8 MiB nearly every distinct word cost a read from memory
// (measured on en_reuters: LookupAll took 11% of the analysis).
type Lexicon struct {
	t     *IDF        // the words and their IDFs (stop words marked); its own slots are not kept
	parts [2]lexTable // by lexPart
}

// lexTable is one of a Lexicon's hash tables: linear probing over a
// power of two at most three-quarters full, as IDF's, its slots' IDFs
// with the stop marks.
type lexTable struct {
	slots   []idfSlot
	entries []int32 // entries[i] is the word of slots[i], in Lexicon.t
	mask    uint64
}

// lexPart is the table of word: 0 when it begins with an ASCII byte
// (or is empty), 1 otherwise.
func lexPart(word string) int {
	if word != "" && word[0] >= utf8.RuneSelf {
		return 1
	}
	return 0
}

// newLexicon splits the slots of t (stop words marked) into a Lexicon's
// two tables, copying each slot as it is: a NaN (words that share a
// hash) stays NaN, so that lookup compares the words, whether the
// words that share it are now in one table or in two. t's own slots
// are dropped.
func newLexicon(t *IDF) *Lexicon {
	var n [2]int
	for i, s := range t.slots {
		if s.hash != 0 {
			n[lexPart(t.word(t.entries[i]))]++
		}
	}
	l := &Lexicon{t: t}
	for p := range l.parts {
		size := 16
		for 3*size < 4*n[p] {
			size <<= 1
		}
		l.parts[p] = lexTable{slots: make([]idfSlot, size), entries: make([]int32, size), mask: uint64(size - 1)}
	}
	for i, s := range t.slots {
		if s.hash == 0 {
			continue
		}
		e := t.entries[i]
		p := &l.parts[lexPart(t.word(e))]
		j := s.hash & p.mask
		for p.slots[j].hash != 0 {
			j = (j + 1) & p.mask
		}
		p.slots[j], p.entries[j] = s, e
	}
	t.slots, t.entries = nil, nil
	return l
}

// NewLexicon merges idf and stop into a Lexicon. Its Median is idf's.
func NewLexicon(idf *IDF, stop StopWords) *Lexicon {
	b := newIDFBuilder(idf.Len() + len(stop))
	for e := range idf.idfs {
		b.put(idf.word(int32(e)), idf.idfs[e], 0)
	}
	return b.lexicon(idf.median, stop)
}

// DefaultLexicon returns the lexicon of DefaultIDF and stop, without
// building DefaultIDF first.
func DefaultLexicon(stop StopWords) (*Lexicon, error) {
	b, err := defaultIDFBuilder(len(stop))
	if err != nil {
		return nil, err
	}
	return b.lexicon(median(slices.Clone(b.idfs)), stop), nil
}

// lexicon adds the stop words to the table being built, with IDF med
// where it lacks them, marks them, and returns the lexicon with median
// med.
func (b *idfBuilder) lexicon(med float64, stop StopWords) *Lexicon {
	words := make([]string, 0, len(stop))
	for w := range stop {
		words = append(words, w)
	}
	slices.Sort(words) // the same table whatever the map's order
	for _, w := range words {
		h := slotHash(w)
		if b.slotOf(w, h) < 0 {
			b.putHash(w, h, med, len(b.idfs))
		}
		b.markStop(w, h)
	}
	t := b.table()
	t.median = med
	return newLexicon(t)
}

// slotOf returns the slot of word, whose hash is h, or -1 if the
// builder does not have it.
func (b *idfBuilder) slotOf(word string, h uint64) int {
	mask := uint64(len(b.slots) - 1)
	for i := h & mask; b.slots[i].hash != 0; i = (i + 1) & mask {
		if b.slots[i].hash == h {
			p := b.pos[b.entries[i]]
			if string(b.text[p.off:p.off+p.n]) == word {
				return int(i)
			}
		}
	}
	return -1
}

// markStop sets the sign bit of the IDF of word, whose hash is h, in its
// entry and its slot.
func (b *idfBuilder) markStop(word string, h uint64) {
	i := b.slotOf(word, h)
	if i < 0 {
		return
	}
	e := b.entries[i]
	b.idfs[e] = -math.Abs(b.idfs[e])
	if s := &b.slots[i]; s.idf == s.idf { // not NaN: no shared hash
		s.idf = b.idfs[e]
	}
}

// Lookup returns word's IDF (the median for a word the table lacks) and
// whether it is a stop word. Like IDF.Weight, it finds word by its hash.
func (l *Lexicon) Lookup(word string) (idf float64, stop bool) {
	return l.lookup(word, slotHash(word))
}

// LookupAll does Lookup for every word: idf[i], stop[i] =
// Lookup(words[i]). idf and stop must be at least as long as words.
//
// The Chinese table (8 MiB by default) is far larger than the caches,
// so nearly every distinct word of a Chinese text costs a read from
// memory. Lookup makes them one after another; LookupAll first hashes a
// group of words, then reads their first slots in a loop with nothing
// else in it, so that the processor has many of those reads in flight at
// once, and only then looks at what it read: 1.6× faster than Lookup in
// BenchmarkLexiconLookup, and in a CPU profile of the whole analysis of
// zh_news the lookups went from 8.9% to 3.3% of it.
func (l *Lexicon) LookupAll(words []string, idf []float64, stop []bool) {
	const group = 32
	var hs [group]uint64
	var ps [group]uint8
	var ss [group]idfSlot
	idf, stop = idf[:len(words)], stop[:len(words)]
	for len(words) > 0 {
		n := min(len(words), group)
		for i, w := range words[:n] {
			hs[i] = slotHash(w)
			ps[i] = uint8(lexPart(w))
		}
		for i, h := range hs[:n] {
			p := &l.parts[ps[i]&1]
			ss[i] = p.slots[h&p.mask]
		}
		for i, h := range hs[:n] {
			switch s := ss[i]; {
			case s.hash == h && s.idf == s.idf: // found at home, no shared hash
				idf[i], stop[i] = math.Abs(s.idf), math.Signbit(s.idf)
			case s.hash == 0:
				idf[i], stop[i] = l.t.median, false
			default:
				idf[i], stop[i] = l.lookup(words[i], h)
			}
		}
		words, idf, stop = words[n:], idf[n:], stop[n:]
	}
}

// lookup is Lookup with the word's hash given.
func (l *Lexicon) lookup(word string, h uint64) (idf float64, stop bool) {
	p := &l.parts[lexPart(word)]
	for i := h & p.mask; ; i = (i + 1) & p.mask {
		switch s := p.slots[i]; s.hash {
		case h:
			v := s.idf
			if v != v { // NaN: words share the hash
				var ok bool
				if v, ok = p.find(l.t, word, h, i); !ok {
					return l.t.median, false
				}
			}
			return math.Abs(v), math.Signbit(v)
		case 0:
			return l.t.median, false
		}
	}
}

// find returns the IDF of word, whose hash is h, from the slots of p
// probed from i on, and whether p has it.
func (p *lexTable) find(t *IDF, word string, h, i uint64) (float64, bool) {
	for ; p.slots[i].hash != 0; i = (i + 1) & p.mask {
		if p.slots[i].hash == h && t.word(p.entries[i]) == word {
			return t.idfs[p.entries[i]], true
		}
	}
	return 0, false
}

// Median returns the weight of a word the lexicon lacks.
func (l *Lexicon) Median() float64 { return l.t.median }
