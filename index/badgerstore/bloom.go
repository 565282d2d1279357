package badgerstore

import (
	"math"
	"math/bits"

	"github.com/neardup/neardup/index"
)

// counterMax is the value at which a 4-bit counter saturates.
const counterMax = 15

// minBloomCapacity is the smallest capacity a filter is sized for.
const minBloomCapacity = 1024

// countingBloom is a counting Bloom filter over 64-bit content hashes:
// m 4-bit saturating counters packed two to a byte (counter i is the low
// nibble of byte i/2 when i is even, the high nibble when odd) and k
// positions per hash by double hashing, g_i = h1 + i·h2, mapped onto
// [0, m) by multiply-shift.
//
// Counters below 15 hold exact counts. A counter that reaches 15 sticks:
// deletes do not decrement it, since it may stand for more than 15
// hashes, and only a rebuild from the store brings it down. A sticky
// counter can only cause false positives, never false negatives.
//
// countingBloom is not safe for concurrent use; Index guards it.
type countingBloom struct {
	bloomShape
	cells     []byte
	saturated int64 // counters at counterMax
	stuck     int64 // decrements skipped at saturated counters since the filter was built
}

// bloomShape is the size of a Bloom filter and where a key goes in it.
type bloomShape struct {
	m        uint64  // counters (or bits)
	k        int     // hashes per key
	capacity int64   // keys the filter is sized for
	fpRate   float64 // target false-positive rate at capacity
}

// newBloomShape sizes a filter for capacity keys at false-positive rate
// p: m = -n·ln p / ln²2 positions (even) and k = m/n·ln 2 hashes.
func newBloomShape(capacity int64, p float64) bloomShape {
	if capacity < minBloomCapacity {
		capacity = minBloomCapacity
	}
	m := uint64(math.Ceil(-float64(capacity) * math.Log(p) / (math.Ln2 * math.Ln2)))
	m += m & 1 // whole bytes of counters
	k := int(math.Round(float64(m) / float64(capacity) * math.Ln2))
	k = max(1, min(k, 32))
	return bloomShape{m: m, k: k, capacity: capacity, fpRate: p}
}

// newCountingBloom sizes a counting filter for capacity keys at
// false-positive rate p.
func newCountingBloom(capacity int64, p float64) *countingBloom {
	s := newBloomShape(capacity, p)
	return &countingBloom{bloomShape: s, cells: make([]byte, s.m/2)}
}

// positions calls f with the k positions of h.
func (b *bloomShape) positions(h uint64, f func(uint64)) {
	h1 := h
	h2 := mix64(h) | 1
	for i := 0; i < b.k; i++ {
		hi, _ := bits.Mul64(h1, b.m)
		f(hi)
		h1 += h2
	}
}

// mix64 is the SplitMix64 finaliser, giving the second hash.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (b *countingBloom) get(i uint64) byte {
	return b.cells[i/2] >> (4 * (i & 1)) & 0xf
}

func (b *countingBloom) set(i uint64, v byte) {
	s := 4 * (i & 1)
	b.cells[i/2] = b.cells[i/2]&^(0xf<<s) | v<<s
}

// add counts one more key with hash h.
func (b *countingBloom) add(h uint64) {
	b.positions(h, func(i uint64) {
		if c := b.get(i); c < counterMax {
			b.set(i, c+1)
			if c+1 == counterMax {
				b.saturated++
			}
		}
	})
}

// remove counts one key with hash h fewer. Saturated counters are left
// alone (and counted in stuck); zero counters, which would mean removing
// a key never added, are left at zero.
func (b *countingBloom) remove(h uint64) {
	b.positions(h, func(i uint64) {
		switch c := b.get(i); c {
		case 0:
		case counterMax:
			b.stuck++
		default:
			b.set(i, c-1)
		}
	})
}

// mayContain reports whether a key with hash h may have been added:
// false means certainly not.
func (b *countingBloom) mayContain(h uint64) bool {
	in := true
	b.positions(h, func(i uint64) {
		if in && b.get(i) == 0 {
			in = false
		}
	})
	return in
}

// bytes returns the memory the counters take.
func (b *countingBloom) bytes() int64 { return int64(len(b.cells)) }

// idFilter is a plain Bloom filter over document IDs (their XXH64),
// with the same sizing and positions as countingBloom but one bit per
// position. Add consults it before reading an ID's old record: an ID
// the filter has never seen is new, and a batch of new documents needs
// no reads. Deletes leave their bits set, which can only cause a
// needless read. idFilter is not safe for concurrent use; Index guards
// it with wmu.
type idFilter struct {
	bloomShape
	bits []uint64
}

func newIDFilter(capacity int64, p float64) *idFilter {
	s := newBloomShape(capacity, p)
	return &idFilter{bloomShape: s, bits: make([]uint64, (s.m+63)/64)}
}

func (f *idFilter) add(h uint64) {
	f.positions(h, func(i uint64) { f.bits[i/64] |= 1 << (i % 64) })
}

func (f *idFilter) mayContain(h uint64) bool {
	in := true
	f.positions(h, func(i uint64) {
		if in && f.bits[i/64]&(1<<(i%64)) == 0 {
			in = false
		}
	})
	return in
}

// newBandFilter sizes a band filter for capacity documents: their
// index.Bands band keys each at bandFalsePositive. It is an idFilter
// over the band keys' prefixes (bandHash): deletes leave their bits set,
// which can only cause a needless read.
func newBandFilter(capacity int64) *idFilter {
	return newIDFilter(max(capacity, minBloomCapacity)*index.Bands, bandFalsePositive)
}
