package index

import (
	"fmt"
	"math/big"

	"github.com/neardup/neardup/docid"
	"github.com/neardup/neardup/simhash"
)

// Layout limits. See the package documentation for the argument.
const (
	// MaxTables is the largest number of tables (C(Blocks, MaxDistance))
	// a layout may have: every fingerprint is written once per table.
	MaxTables = 64
	// MinKeyBits is the fewest fingerprint bits a table key may carry. A
	// table key of n bits selects about 1/2^n of the index, so fewer than
	// 8 bits would make every query read a large part of it.
	MinKeyBits = 8
	// MaxIDLen is the longest document ID in bytes: docid.MaxLen, the
	// rule every layer shares (Badger keys are at most 65000 bytes and a
	// table key carries up to 18 bytes besides the ID; see badgerstore).
	MaxIDLen = docid.MaxLen
)

// run is a contiguous range of fingerprint bits that one table key
// copies: the bits selected by mask after shifting right by shift.
type run struct {
	shift uint
	width uint
}

// table is one combination of blocks.
type table struct {
	blocks []int // block numbers, ascending
	runs   []run // the blocks as contiguous bit ranges, most significant first
	bits   int   // total bits in the table key
	bytes  int   // bytes of the packed table key: ceil(bits/8)
}

// layout is a validated (blocks, maxDistance) pair and its tables.
type layout struct {
	blocks, maxDist int
	start, width    []int   // bit offset from the most significant bit, and width, of each block
	tables          []table // every combination of blocks-maxDist blocks, in lexicographic order
	cover           [][]int // cover[k]: the tables a query of distance k must read
}

// newLayout validates blocks and maxDist and builds the tables.
func newLayout(blocks, maxDist int) (*layout, error) {
	switch {
	case blocks < 1 || blocks > 64:
		return nil, fmt.Errorf("%w: %d blocks: want 1 to 64", ErrLayout, blocks)
	case maxDist < 0:
		return nil, fmt.Errorf("%w: max distance %d: want at least 0", ErrLayout, maxDist)
	case maxDist >= blocks:
		return nil, fmt.Errorf("%w: max distance %d with %d blocks: fingerprints %d bits apart may differ in every block, so the pigeonhole argument needs more blocks than bits (max distance < blocks)",
			ErrLayout, maxDist, blocks, maxDist)
	}
	if n := new(big.Int).Binomial(int64(blocks), int64(maxDist)); n.Cmp(big.NewInt(MaxTables)) > 0 {
		return nil, fmt.Errorf("%w: %d blocks with max distance %d make C(%d,%d) = %v tables: at most %d allowed",
			ErrLayout, blocks, maxDist, blocks, maxDist, n, MaxTables)
	}
	l := &layout{blocks: blocks, maxDist: maxDist}
	base, extra := 64/blocks, 64%blocks
	off := 0
	for i := 0; i < blocks; i++ {
		w := base
		if i < extra {
			w++
		}
		l.start = append(l.start, off)
		l.width = append(l.width, w)
		off += w
	}
	keep := blocks - maxDist
	if bits := keep * base; bits < MinKeyBits {
		return nil, fmt.Errorf("%w: %d blocks with max distance %d give table keys of %d bits: at least %d needed",
			ErrLayout, blocks, maxDist, bits, MinKeyBits)
	}
	combinations(blocks, keep, func(c []int) {
		t := table{blocks: append([]int(nil), c...)}
		for _, b := range c {
			t.bits += l.width[b]
			end := l.start[b] + l.width[b]
			if n := len(t.runs); n > 0 && 64-int(t.runs[n-1].shift) == l.start[b] {
				// Adjacent to the previous block: extend its run.
				r := &t.runs[n-1]
				r.width += uint(l.width[b])
				r.shift = uint(64 - end)
				continue
			}
			t.runs = append(t.runs, run{shift: uint(64 - end), width: uint(l.width[b])})
		}
		t.bytes = (t.bits + 7) / 8
		l.tables = append(l.tables, t)
	})
	l.cover = make([][]int, maxDist+1)
	for k := 0; k <= maxDist; k++ {
		l.cover[k] = l.coverFor(k)
	}
	return l, nil
}

// coverFor picks the tables a query of distance k must read: for every
// set D of k blocks in which a neighbour may differ, at least one chosen
// table must avoid D, so that the neighbour agrees with the query on that
// whole table key. Reading every table always works; for k below the
// layout's maximum, fewer suffice (for k = 0 one table does). The choice
// is greedy, which is enough: correctness only needs the cover property,
// which the loop checks for every D.
func (l *layout) coverFor(k int) []int {
	var sets [][]int // the uncovered difference sets
	combinations(l.blocks, k, func(c []int) { sets = append(sets, append([]int(nil), c...)) })
	avoids := func(t table, d []int) bool {
		for _, b := range t.blocks {
			for _, x := range d {
				if b == x {
					return false
				}
			}
		}
		return true
	}
	var chosen []int
	for len(sets) > 0 {
		best, bestN := -1, 0
		for ti, t := range l.tables {
			n := 0
			for _, d := range sets {
				if avoids(t, d) {
					n++
				}
			}
			if n > bestN {
				best, bestN = ti, n
			}
		}
		if best < 0 {
			// Unreachable for k <= maxDist: the complement of any k
			// blocks holds at least blocks-maxDist blocks, hence a table.
			return allTables(len(l.tables))
		}
		chosen = append(chosen, best)
		rest := sets[:0]
		for _, d := range sets {
			if !avoids(l.tables[best], d) {
				rest = append(rest, d)
			}
		}
		sets = rest
	}
	sortInts(chosen)
	return chosen
}

func allTables(n int) []int {
	t := make([]int, n)
	for i := range t {
		t[i] = i
	}
	return t
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// combinations calls f with every k-subset of 0..n-1, in lexicographic
// order. f must not keep the slice.
func combinations(n, k int, f func([]int)) {
	c := make([]int, k)
	for i := range c {
		c[i] = i
	}
	for {
		f(c)
		i := k - 1
		for i >= 0 && c[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		c[i]++
		for j := i + 1; j < k; j++ {
			c[j] = c[j-1] + 1
		}
	}
}

// tableKey returns the bits of fp that table t keeps, concatenated and
// right-aligned.
func (l *layout) tableKey(t int, fp simhash.Fingerprint) uint64 {
	var v uint64
	for _, r := range l.tables[t].runs {
		v = v<<r.width | uint64(fp)>>r.shift&(1<<r.width-1)
	}
	return v
}

// key returns the Key of fp in table t.
func (l *layout) key(t int, fp simhash.Fingerprint) Key {
	return Key{Kind: KindTable, Table: uint8(t), Bits: uint8(l.tables[t].bits), Value: l.tableKey(t, fp)}
}

// String describes the layout the way error messages name it.
func (l *layout) String() string {
	return fmt.Sprintf("%d blocks, max distance %d (%d tables)", l.blocks, l.maxDist, len(l.tables))
}

// MaxLayoutDistance is the largest distance LayoutFor lays an index out
// for: 11 blocks, C(11, 9) = 55 tables of 10-bit keys (10 would need 66
// tables, or keys shorter than MinKeyBits).
const MaxLayoutDistance = 9

// LayoutFor returns the layout (Options.Blocks and MaxDistance) of a
// new index that answers distances up to k, 0 ≤ k ≤ MaxLayoutDistance:
// the default, 4 blocks answering up to 3, for k ≤ 3, and k+2 blocks
// (C(k+2, 2) tables of two blocks each) above.
func LayoutFor(k int) (blocks, maxDistance int) {
	if k <= DefaultMaxDistance {
		return DefaultBlocks, DefaultMaxDistance
	}
	return k + 2, k
}
