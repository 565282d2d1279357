package dict

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
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
type IDF struct {
	m      map[string]float64
	slots  []idfSlot // Weight's table; see buildSlots
	median float64
}

// idfSlot is one slot of Weight's open-addressing table: a word's hash
// (slotHash; 0 marks an empty slot) and its IDF, or NaN when two words of
// the table share the hash and Weight must ask the map.
type idfSlot struct {
	hash uint64
	idf  float64
}

// slotHash is the 64-bit XXH64 hash of word, with 0 (the empty slot)
// moved to 1.
func slotHash(word string) uint64 {
	if h := xxhash.Sum64String(word); h != 0 {
		return h
	}
	return 1
}

// buildSlots builds Weight's table for m: linear probing over a power of
// two at most three-quarters full, 16 bytes a slot, so that a lookup
// usually reads one cache line where the map reads three (its control
// word, the key's header and the key's bytes). The 292,184 words of the
// default table take 2^19 slots (56% full), 8 MiB.
func buildSlots(m map[string]float64) []idfSlot {
	n := 16
	for 3*n < 4*len(m) {
		n <<= 1
	}
	slots := make([]idfSlot, n)
	mask := uint64(n - 1)
	for w, v := range m {
		h := slotHash(w)
		for i := h & mask; ; i = (i + 1) & mask {
			if slots[i].hash == 0 {
				slots[i] = idfSlot{h, v}
				break
			}
			if slots[i].hash == h {
				slots[i].idf = math.NaN() // a collision: ask the map
				break
			}
		}
	}
	return slots
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

// parseIDF parses a jieba IDF table. Map keys are substrings of data: for
// the embedded tables that costs no copy at all.
func parseIDF(data string) (*IDF, error) {
	m := make(map[string]float64, strings.Count(data, "\n")+1)
	if err := parseIDFInto(m, data); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, ErrEmptyTable
	}
	return newIDF(m), nil
}

// parseIDFInto adds the entries of a jieba IDF table to m, replacing
// entries m already has; a word twice in data is an error.
func parseIDFInto(m map[string]float64, data string) error {
	seen := len(m) > 0
	var mine map[string]bool // words of data, when m is not empty
	if seen {
		mine = make(map[string]bool)
	}
	data = strings.TrimPrefix(data, "\uFEFF")
	for n := 1; data != ""; n++ {
		line := data
		if i := strings.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = ""
		}
		word, idf, ok, err := parseIDFLine(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if !ok {
			continue
		}
		dup := false
		if seen {
			dup = mine[word]
			mine[word] = true
		} else {
			_, dup = m[word]
		}
		if dup {
			return fmt.Errorf("line %d: duplicate word %q", n, word)
		}
		m[word] = idf
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

// newIDF wraps m and computes its median.
func newIDF(m map[string]float64) *IDF {
	vals := make([]float64, 0, len(m))
	for _, v := range m {
		vals = append(vals, v)
	}
	return &IDF{m: m, slots: buildSlots(m), median: median(vals)}
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
	m := make(map[string]float64, strings.Count(zhIDF, "\n")+strings.Count(enIDF, "\n"))
	if err := parseIDFInto(m, zhIDF); err != nil {
		return nil, fmt.Errorf("dict: embedded idf.utf8: %w", err)
	}
	// The same as zh.Merge(en), without building the two tables first.
	if err := parseIDFInto(m, enIDF); err != nil {
		return nil, fmt.Errorf("dict: embedded en_idf.utf8: %w", err)
	}
	return newIDF(m), nil
}

// Lookup returns the IDF of word and whether the table has it.
func (t *IDF) Lookup(word string) (idf float64, ok bool) {
	idf, ok = t.m[word]
	return idf, ok
}

// Weight returns the IDF of word, or Median() if the table does not have
// it. It finds word by its 64-bit XXH64 hash without comparing the bytes,
// so a word the table lacks gets a table word's IDF instead of the median
// if the two hashes are equal: with the default table, a chance of about
// 1 in 6×10^13 per lookup. (Words of the table that share a hash are
// detected when the table is built and looked up exactly.)
func (t *IDF) Weight(word string) float64 {
	h := slotHash(word)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s := t.slots[i]; s.hash {
		case h:
			if s.idf == s.idf { // not NaN
				return s.idf
			}
			if idf, ok := t.m[word]; ok {
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
func (t *IDF) Len() int { return len(t.m) }

// Merge returns a new table with the entries of t and other; where both
// have a word, other's IDF wins. The median is recomputed over the merged
// entries. Neither t nor other is changed; a nil other returns t.
func (t *IDF) Merge(other *IDF) *IDF {
	if other == nil {
		return t
	}
	m := make(map[string]float64, len(t.m)+len(other.m))
	for w, v := range t.m {
		m[w] = v
	}
	for w, v := range other.m {
		m[w] = v
	}
	return newIDF(m)
}

// WriteTo writes the table in the format LoadIDF reads: "word idf" lines
// sorted by word (byte order), each idf in the shortest form that parses
// back to the same float64. It implements io.WriterTo.
func (t *IDF) WriteTo(w io.Writer) (int64, error) {
	words := make([]string, 0, len(t.m))
	for word := range t.m {
		words = append(words, word)
	}
	slices.Sort(words)
	return writeTable(w, words, func(buf []byte, word string) []byte {
		return strconv.AppendFloat(buf, t.m[word], 'g', -1, 64)
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
