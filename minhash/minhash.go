// Package minhash sketches texts for MinHash estimates of the Jaccard
// similarity of their character 5-gram sets, which confirm a SimHash
// candidate against the text itself.
//
// A SimHash match is a candidate, not a proof: different articles built
// from the same keywords can collide. New takes a text's set of
// character 5-grams (runes) and keeps a 64-value one-permutation MinHash
// of it (ShingleHash once per 5-gram: each rune hashed once and five
// combined; rotation densification for empty buckets, 16 bits per value,
// 128 bytes encoded); Sketch.Jaccard estimates the Jaccard similarity of
// two texts' 5-gram sets with a standard error of at most 0.0625
// (measured mean absolute error 0.021 on the zh_news reference pairs,
// 0.041 on en_docs'). Texts should be normalised the same way before
// sketching. NewAll also makes, in the same pass, a Long: 256 8-bit
// values of the same shingle hashes, whose estimate (standard error at
// most 0.032) confirms the candidates the Sketch finds.
//
// # Stored format
//
// Sketches are stored in archives and compared across processes, so
// ShingleHash, the bucket choice, the densification and the 16-bit
// truncation are part of the stored format; TestNewVectors pins them
// with hex literals, and TestLongVectors those of the Long.
package minhash

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unicode/utf8"
)

// Size is the number of values in a Sketch.
const Size = 64

// ShingleRunes is the length, in runes, of the shingles a Sketch is made
// of.
const ShingleRunes = 5

// Sketch is a MinHash sketch of a text's character 5-gram set, from
// which the Jaccard similarity of two texts' 5-gram sets is estimated.
// The zero Sketch stands for an empty text.
//
// It is made by one-permutation hashing with densification: every
// shingle (ShingleRunes consecutive runes) is hashed once, by ShingleHash;
// the top 6 bits of the hash pick one of the 64 buckets and the other
// 58 bits compete for the bucket's minimum. A bucket no shingle fell
// into borrows the minimum of the nearest non-empty bucket to its right
// (circularly, Shrivastava and Li's rotation densification) mixed with
// the distance it was borrowed over, so that two texts' borrowed values
// agree only when they borrow the same minimum from the same distance.
//
// Only the low 16 bits of each value are kept (b-bit MinHash); 0 is
// reserved for the zero Sketch and stored as 1. Two different minima
// therefore agree by chance with probability about 1/65535, which
// biases the Jaccard estimate up by (1-J)/65535 < 0.00002, far below
// its sampling error of sqrt(J(1-J)/64) (up to 0.0625). 32-bit values
// would double the size (256 bytes a text) to remove a bias that small.
type Sketch [Size]uint16

// New returns the sketch of text's set of character 5-grams. Text
// is taken as it is: callers normalise it first (the corpora's
// reference Jaccard values are over lower-cased text with white space
// collapsed). A text shorter than 5 runes is one shingle, the whole
// text; the empty text gives the zero Sketch. Bytes that are not valid
// UTF-8 count as one rune each.
//
// New makes one pass over text, hashing every rune once and every
// shingle from its runes' hashes.
func New(text string) Sketch {
	s, _, _ := sketch(text, nil, nil)
	return s
}

// NewCount returns the sketch of text, as New does, and the number of
// distinct shingles in text (the size of the set the sketch is of; 0
// for the empty text), which with two sketches' Jaccard estimate gives
// their containment (see Containment). Counting keeps every shingle in
// a hash set: it costs more than the sketch alone.
func NewCount(text string) (Sketch, int) {
	s, _, n := sketch(text, newShingleSet(text), nil)
	return s, n
}

// NewAll returns what NewCount does and the Long sketch of the same
// shingles, all from one pass over text: each shingle is hashed once,
// by ShingleHash, and the hash goes to both sketches and the count.
func NewAll(text string) (Sketch, Long, int) {
	return NewAllScratch(text, nil)
}

// Scratch is the working memory of NewAllScratch: the hash set that
// counts a text's distinct shingles, kept between calls so that they
// neither allocate it anew nor grow it (it is sized for the text before
// the pass). Its zero value is ready to use. A Scratch serves one call
// at a time; sync.Pool suits it.
type Scratch struct {
	set shingleSet
}

// maxKeptSlots bounds the set a Scratch keeps between calls (4 MiB): a
// set for a larger text is dropped after its call.
const maxKeptSlots = 1 << 20

// NewAllScratch is NewAll with its working memory taken from s (nil for
// fresh memory).
func NewAllScratch(text string, s *Scratch) (Sketch, Long, int) {
	if s == nil {
		s = new(Scratch)
	}
	s.set.reset(text)
	var l longMins
	sk, lg, n := sketch(text, &s.set, &l)
	if len(s.set.slots) > maxKeptSlots {
		s.set.slots = nil
	}
	return sk, lg, n
}

// newShingleSet returns an empty set with room for the shingles of text
// (see reset).
func newShingleSet(text string) *shingleSet {
	s := new(shingleSet)
	s.reset(text)
	return s
}

// sketch is New, counting the distinct shingles into set unless it is
// nil and making the Long sketch into long unless it is nil (the zero
// Long otherwise).
//
// Its loops are the analysis's hottest after the cut, so the work is
// done a block of runes at a time, in three functions whose loops keep
// their few variables in registers: hashRunes hashes the block's runes,
// shingleMins combines them into the shingles' hashes (in place) and
// takes the two sketches' minima, addShingles adds the shingles to the
// set.
func sketch(text string, set *shingleSet, long *longMins) (Sketch, Long, int) {
	if text == "" {
		return Sketch{}, Long{}, 0
	}
	var spare longMins // the Long's minima when no Long is asked for
	lm := long
	if lm == nil {
		lm = &spare
	}
	for i := range lm {
		lm[i] = math.MaxUint64
	}
	var slots []uint32
	distinct, zero := 0, false // the set's count, and whether it has the value 0
	if set != nil {
		slots = set.slots
	}
	// buf holds the hashes of the runes of a block after those of the
	// ShingleRunes-1 runes before it (0 before the text).
	var buf [carry + 512]uint64
	n := 0 // runes so far
	for off := 0; off < len(text); {
		var k int
		off, k = hashRunes(text, off, &buf)
		// The shingles end at the block's runes, but for the first
		// ShingleRunes-1 runes of the text; their hashes replace the
		// runes' from buf[0] on.
		first := carry + max(0, carry-n)
		n += k - carry
		hs := buf[first-carry : k]
		shingleMins(hs, lm)
		if set != nil && len(hs) > carry {
			slots, distinct, zero = addShingles(hs[:len(hs)-carry], slots, distinct, zero)
		}
		// The last runes' hashes go before the next block's.
		copy(buf[:carry], buf[k-carry:k])
	}
	if set != nil {
		set.slots = slots
		set.n = distinct
		if zero {
			set.n++
		}
	}
	var l Long
	if n < ShingleRunes {
		// One shingle, the whole text: its n runes' hashes are the last of
		// buf[:carry], after zeros that cannot be told from missing runes,
		// so the count is mixed in too.
		sh := combine(0, buf[0], buf[1], buf[2], buf[3]) ^ mix64(uint64(n))
		lm.add(sh)
		if long != nil {
			l = long.densify()
		}
		return lm.sketch(), l, 1
	}
	count := 0
	if set != nil {
		count = set.n
	}
	if long != nil {
		l = long.densify()
	}
	return lm.sketch(), l, count
}

// carry is the number of runes before a block whose hashes sketch keeps.
const carry = ShingleRunes - 1

// hashRunes hashes the runes of text from byte off into buf[carry:],
// until buf is full or the text ends, and returns the offset after the
// last rune hashed and the end of the hashes in buf. Each of sketch's
// loops is a function of its own, so that the compiler keeps each
// one's few variables in registers (in one function, it spilled them).
//
//go:noinline
func hashRunes(text string, off int, buf *[carry + 512]uint64) (int, int) {
	k := carry
	for k < len(buf) && off < len(text) {
		c := text[off]
		if c < utf8.RuneSelf {
			// ASCII, and the ASCII after it in a loop of its own, bounded
			// once by the room in buf and the text left.
			k, off = hashASCII(text, off, buf, k)
			continue
		}
		var h uint64
		if 0xe1 <= c && c <= 0xec && off+2 < len(text) && (text[off+1]^0x80)|(text[off+2]^0x80) < 0x40 {
			// Three bytes, U+1000 to U+CFFF (all CJK ideographs): after
			// these lead bytes every continuation byte is valid.
			h = runeHash(uint32(c&0x0f)<<12 | uint32(text[off+1]&0x3f)<<6 | uint32(text[off+2]&0x3f))
			off += 3
		} else {
			rr, w := utf8.DecodeRuneInString(text[off:])
			r := uint32(rr)
			if rr == utf8.RuneError && w == 1 {
				r = invalidByte + uint32(c)
			}
			h = runeHash(r)
			off += w
		}
		buf[k] = h
		k++
	}
	return off, k
}

// hashASCII hashes the run of ASCII bytes of text from off, at most
// until buf is full, into buf from k, and returns the next k and off.
func hashASCII(text string, off int, buf *[carry + 512]uint64, k int) (int, int) {
	t := text[off:min(len(text), off+len(buf)-k)]
	dst := buf[k:]
	dst = dst[:len(t)]
	j := 0
	for j < len(t) && t[j] < utf8.RuneSelf {
		dst[j] = asciiHash[t[j]&(utf8.RuneSelf-1)]
		j++
	}
	return k + j, off + j
}

// shingleMins replaces the rune hashes hs[i] (i >= carry) by the hashes
// of the shingles ending there, written to hs[i-carry], and takes the
// minima of the Long's buckets, from which longMins.sketch derives the
// Sketch's. With AVX-512 the hashes of the shingles are made eight at a
// time first (combineAVX512) and their minima taken after; otherwise,
// and for the last few, each shingle's hash and minimum in one loop.
//
//go:noinline
func shingleMins(hs []uint64, lm *longMins) {
	done := 0 // shingles made
	if hasAVX512 {
		if done = max(0, len(hs)-carry) &^ 7; done > 0 {
			combineAVX512(&hs[0], done)
			for _, sh := range hs[:done] {
				lb, lv := sh>>longShift, sh&longValueMask
				lm[lb] = min(lm[lb], lv)
			}
		}
	}
	rest := hs[done:]
	for i := carry; i < len(rest); i++ {
		sh := combine(rest[i-4], rest[i-3], rest[i-2], rest[i-1], rest[i])
		rest[i-carry] = sh
		lb, lv := sh>>longShift, sh&longValueMask
		lm[lb] = min(lm[lb], lv)
	}
}

// combineGeneric sets hs[j] to the hash of the shingle of the runes
// whose hashes are hs[j] to hs[j+carry], for every j < len(hs)-carry,
// in place.
func combineGeneric(hs []uint64) {
	for j := 0; j+carry < len(hs); j++ {
		hs[j] = combine(hs[j], hs[j+1], hs[j+2], hs[j+3], hs[j+4])
	}
}

// sketch returns the Sketch of the shingles whose Long minima m holds
// (math.MaxUint64 for an empty bucket). A Sketch bucket (the top 6 bits
// of a hash) is the union of four Long buckets (the top 8 bits), and
// the hashes of one bucket share their top bits, so that the least
// hash of a bucket is the least of its low bits: the Sketch's minimum
// of bucket b is the least of the hashes (bucket and value) of the
// minima of Long buckets 4b to 4b+3, the Sketch's low 58 bits of it.
// One minimum a shingle rather than two.
func (m *longMins) sketch() Sketch {
	// An empty Long bucket's math.MaxUint64 stays that with its bucket's
	// bits set, at least every hash; the bucket is empty when all four
	// are (the hash math.MaxUint64 itself is a value of 2^56-1 in Long
	// bucket 255).
	var mins [Size]uint64
	for b := range mins {
		lb := uint64(4 * b)
		q := (*[4]uint64)(m[4*b:])
		v := min(lb<<longShift|q[0], (lb+1)<<longShift|q[1], (lb+2)<<longShift|q[2], (lb+3)<<longShift|q[3])
		mins[b] = math.MaxUint64
		if q[0]&q[1]&q[2]&q[3] != math.MaxUint64 {
			mins[b] = v & valueMask
		}
	}
	return densify(&mins)
}

// addShingles adds the shingle hashes shs to the set slots (open
// addressing, at most half full: grown when more than half full)
// holding distinct values other than 0, zero saying whether it has the
// value 0, and returns the set and its counts. A value's probe sequence
// is its home slot i, the other slot of i's pair (i^1), then the slots
// after the pair in order (linear probing over pairs).
//
// Nearly always one of the first two slots holds nothing or the
// shingle itself, so that case takes no branch that depends on the
// data: the first of the two that does is chosen by a conditional move,
// written whatever it held, and the count goes up by whether it was
// empty. A shingle that was new and one seen before then cost the same,
// where a branch on which it was mispredicted for a large share of them
// (English repeats its 5-grams): the set took 12% of the analysis of
// en_reuters. Only a pair holding two other values takes a branch to
// the probing loop.
//
//go:noinline
func addShingles(shs []uint64, slots []uint32, distinct int, zero bool) ([]uint32, int, bool) {
	for {
		n, d, z := addUntilFull(shs, slots, distinct)
		distinct, zero = d, zero || z
		if n == len(shs) {
			return slots, distinct, zero
		}
		slots = grown(slots)
		shs = shs[n:]
	}
}

// addUntilFull adds the shingle hashes shs to the set as addShingles
// does, until one fills it to more than half, and returns the number it
// added, the set's count and whether it saw the value 0.
func addUntilFull(shs []uint64, slots []uint32, distinct int) (int, int, bool) {
	mask := uint32(len(slots) - 1)
	full := len(slots)/2 - 1 // more than this many values is more than half full
	zero := false
	for k, sh := range shs {
		sv := uint32(sh >> 32)
		if sv == 0 { // kept apart (0 marks an empty slot); next to never
			zero = true
			continue
		}
		i := sv & mask
		s0, s1 := slots[i&mask], slots[(i^1)&mask]
		j, s := i, s0
		if min(s0^sv, s0) != 0 { // s0 != sv && s0 != 0: a conditional move
			j, s = i^1, s1
		}
		if min(s^sv, s) != 0 {
			// Other values in both: probe on.
			for j = (i&^1 + 2) & mask; ; j = (j + 1) & mask {
				if s = slots[j&mask]; s == sv || s == 0 {
					break
				}
			}
		}
		// s is 0 or sv.
		slots[j&mask] = sv
		fresh := 0
		if s != sv {
			fresh = 1
		}
		distinct += fresh
		if distinct > full {
			return k + 1, distinct, zero
		}
	}
	return len(shs), distinct, zero
}

// shingleSet counts distinct shingles by the top 32 bits of their
// hashes (two of 10^4 shingles share them with probability 10^-2, one
// shingle too few): open addressing with linear probing (in sketch's
// loop), doubled when half full. 0 marks an empty slot, so the value 0
// is kept apart.
type shingleSet struct {
	slots []uint32
	n     int
}

// reset empties the set and sizes it for the shingles of text: a slot
// for every two of them at most, so that the set is at most half full
// without growing. A text has at most as many shingles as runes, and
// as many runes as bytes that are not UTF-8 continuation bytes, but for
// stray continuation bytes (each a rune of its own), for which sketch
// still grows the set.
func (s *shingleSet) reset(text string) {
	size := max(256, 1<<bits.Len(uint(2*runeStarts(text))))
	if cap(s.slots) >= size {
		s.slots = s.slots[:size]
		clear(s.slots)
	} else {
		s.slots = make([]uint32, size)
	}
	s.n = 0
}

// runeStarts returns the number of bytes of s that are not UTF-8
// continuation bytes (10xxxxxx): its number of runes when it is valid
// UTF-8. Eight bytes at a time: a byte's bit 7 set and bit 6 clear.
func runeStarts(s string) int {
	cont := 0
	i := 0
	for ; i+8 <= len(s); i += 8 {
		t := s[i : i+8]
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		cont += bits.OnesCount64(w &^ (w << 1) & 0x8080808080808080)
	}
	for ; i < len(s); i++ {
		if s[i]&0xc0 == 0x80 {
			cont++
		}
	}
	return len(s) - cont
}

// grown returns the set's slots rehashed into twice as many, each
// value in the first empty slot of its probe sequence (see
// addShingles).
//
//go:noinline
func grown(old []uint32) []uint32 {
	slots := make([]uint32, 2*len(old))
	mask := uint32(len(slots) - 1)
	for _, v := range old {
		if v == 0 {
			continue
		}
		i := v & mask
		switch {
		case slots[i] == 0:
		case slots[i^1] == 0:
			i ^= 1
		default:
			for i = (i&^1 + 2) & mask; slots[i] != 0; i = (i + 1) & mask {
			}
		}
		slots[i] = v
	}
	return slots
}

// ShingleHash is the hash New gives the shingle of the runes rs (at
// most ShingleRunes of them; fewer only for a text that short). It is
// part of the stored format of a Sketch. Each rune r (a byte b that is
// not valid UTF-8: r = 0x110000 + b) hashes to
//
//	g(r) = mix64(r × 0x9e3779b97f4a7c15 + 0x632be59bd9b4e019)
//
// where mix64 is MurmurHash3's 64-bit finaliser, and the shingle of the
// runes r1 ... r5 to
//
//	mix64(rotl(g(r1), 0) ^ rotl(g(r2), 13) ^ rotl(g(r3), 26) ^ rotl(g(r4), 39) ^ rotl(g(r5), 52))
//
// (a shorter text's runes take the last places, the first being 0, and
// mix64(count) is xored into the result). Hashing each rune once and
// combining five words is about five times faster than hashing the
// shingle's bytes, and both g and mix64 are bijections, so distinct
// runes never share a hash.
func ShingleHash(rs []rune) uint64 {
	var g [ShingleRunes]uint64
	for _, r := range rs {
		g[0], g[1], g[2], g[3], g[4] = g[1], g[2], g[3], g[4], runeHash(uint32(r))
	}
	h := combine(g[0], g[1], g[2], g[3], g[4])
	if len(rs) < ShingleRunes {
		h ^= mix64(uint64(len(rs)))
	}
	return h
}

// invalidByte + b stands for the byte b that is not valid UTF-8: beyond
// every rune, so it is hashed apart from U+FFFD and from other bytes.
const invalidByte = 0x110000

// runeHash is g(r) of ShingleHash.
func runeHash(r uint32) uint64 {
	return mix64(uint64(r)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019)
}

// asciiHash[c] is runeHash(c), looked up rather than mixed for ASCII. It
// is filled once, when the package is initialised, and only read after
// that.
var asciiHash = func() (t [utf8.RuneSelf]uint64) {
	for c := range t {
		t[c] = runeHash(uint32(c))
	}
	return t
}()

// combine is a shingle's hash from its runes' hashes, oldest first.
func combine(g0, g1, g2, g3, g4 uint64) uint64 {
	return mix64(g0 ^ bits.RotateLeft64(g1, 13) ^ bits.RotateLeft64(g2, 26) ^
		bits.RotateLeft64(g3, 39) ^ bits.RotateLeft64(g4, 52))
}

const (
	bucketShift = 64 - 6 // Size == 1<<6
	valueMask   = 1<<bucketShift - 1
)

// densify fills the empty buckets (math.MaxUint64) and keeps 16 bits of
// every value. At least one bucket is non-empty.
func densify(mins *[Size]uint64) Sketch {
	var s Sketch
	for i := range mins {
		s[i] = uint16(filled(mins[:], i))
		if s[i] == 0 {
			s[i] = 1
		}
	}
	return s
}

// filled returns the minimum of bucket i of mins, or for an empty bucket
// (math.MaxUint64) the minimum of the nearest non-empty bucket to its
// right, circularly, mixed with the distance t it was borrowed over
// (rotation densification, part of the stored format of both sketches).
// At least one bucket is non-empty.
func filled(mins []uint64, i int) uint64 {
	v := mins[i]
	if v != math.MaxUint64 {
		return v
	}
	t := uint64(1)
	for mins[(i+int(t))%len(mins)] == math.MaxUint64 {
		t++
	}
	// The bits kept must change with t, so mix the borrowed value and
	// the distance rather than add t times a constant.
	return mix64(mins[(i+int(t))%len(mins)] + t*0x9e3779b97f4a7c15)
}

// mix64 is the 64-bit finaliser of MurmurHash3.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// IsZero reports whether s is the zero Sketch, the sketch of the empty
// text. New never returns it for a non-empty text.
func (s Sketch) IsZero() bool { return s == Sketch{} }

// Jaccard returns the estimated Jaccard similarity of the 5-gram sets s
// and t were made from: the fraction of their values that agree, from 0
// to 1 in steps of 1/64. Its standard error is about sqrt(J(1-J)/64).
// It is 0 when either sketch is zero: an empty text confirms nothing.
func (s Sketch) Jaccard(t Sketch) float64 {
	if s.IsZero() || t.IsZero() {
		return 0
	}
	n := 0
	for i := range s {
		if s[i] == t[i] {
			n++
		}
	}
	return float64(n) / Size
}

// Containment estimates how much of the smaller of two shingle sets
// the other holds, max(|A∩B|/|A|, |A∩B|/|B|), from the estimated
// Jaccard similarity j of their sketches and their sizes na and nb
// (NewCount): |A∩B| = j(|A|+|B|)/(1+j). It is at most 1, and 0 when
// a size is not positive. A text that is mostly the other's (a
// truncation, or the other with a header added) has a containment
// near 1 where its Jaccard similarity is only the ratio of the sizes.
func Containment(j float64, na, nb int) float64 {
	if na <= 0 || nb <= 0 || j <= 0 {
		return 0
	}
	inter := j * float64(na+nb) / (1 + j)
	return min(1, inter/float64(min(na, nb)))
}

// EncodedSize is the length of a Sketch's binary encoding.
const EncodedSize = 2 * Size

// ErrEncoding is wrapped by the error UnmarshalBinary returns for data
// that is not a sketch's encoding.
var ErrEncoding = errors.New("minhash: invalid sketch encoding")

// AppendBinary appends the EncodedSize-byte encoding of s to b: its
// values in order, each as 2 bytes little-endian. It never fails.
func (s Sketch) AppendBinary(b []byte) ([]byte, error) {
	for _, v := range s {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b, nil
}

// MarshalBinary returns the EncodedSize-byte encoding of s (see
// AppendBinary). It never fails.
func (s Sketch) MarshalBinary() ([]byte, error) {
	return s.AppendBinary(make([]byte, 0, EncodedSize))
}

// UnmarshalBinary sets s from its encoding. The data must be exactly
// EncodedSize long and either all zero (the zero Sketch) or free of
// zero values, as New makes them; otherwise the error wraps
// ErrEncoding and s is unchanged.
func (s *Sketch) UnmarshalBinary(data []byte) error {
	if len(data) != EncodedSize {
		return fmt.Errorf("%w: %d bytes, want %d", ErrEncoding, len(data), EncodedSize)
	}
	var t Sketch
	zeros := 0
	for i := range t {
		t[i] = binary.LittleEndian.Uint16(data[2*i:])
		if t[i] == 0 {
			zeros++
		}
	}
	if zeros != 0 && zeros != Size {
		return fmt.Errorf("%w: %d of %d values are 0", ErrEncoding, zeros, Size)
	}
	*s = t
	return nil
}
