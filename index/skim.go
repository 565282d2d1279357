package index

import (
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"slices"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// skim is what confirm needs of a stored record to turn a candidate
// down, read in place (see skimRecord).
type skim struct {
	fingerprint simhash.Fingerprint
	contentHash uint64
	sketch      bool // the record has a sketch (or its band digests)
	shingles    int
	long        *minhash.Long // the record's confirmation sketch, in the record; nil: none
}

// skimRecord reads a record's hashes, whether it has a sketch, its
// content-set size and its confirmation sketch without decoding the
// rest or copying anything. It checks the head as decodeRecord does;
// of the optional fields it reads only those two. ok is false for a
// record it cannot read (decodeRecord then says what is wrong).
//
// It runs for every candidate the in-place filter reads, a hundred an
// article at 10^7 documents, so it reads with a bare offset (skimmer)
// rather than through decoder, whose calls name what they read for
// its errors.
func skimRecord(b []byte) (s skim, ok bool) {
	if len(b) < 17 || b[0] != recordVersion {
		return skim{}, false
	}
	s.fingerprint = simhash.Fingerprint(binary.BigEndian.Uint64(b[1:]))
	s.contentHash = binary.BigEndian.Uint64(b[9:])
	k := skimmer{b: b, off: 17}
	k.skipVarint() // added seconds
	if nsec := k.uvarint(); nsec >= 1e9 {
		return skim{}, false
	}
	k.skip(k.length(1)) // title
	for range k.length(9) {
		k.skip(k.length(1)) // keyword
		k.skip(8)           // its weight
	}
	switch n := k.uvarint(); {
	case k.off < 0:
	case n == minhash.Size:
		k.skip(2 * minhash.Size)
		s.sketch = k.off >= 0
	case n == Bands:
		k.skip(Bands)
		s.sketch = k.off >= 0
	case n != 0:
		return skim{}, false
	}
	k.skip(k.length(1)) // job
	k.skipVarint()      // seq
	for last := uint64(0); k.off >= 0 && k.off < len(b); {
		tag := k.uvarint()
		n := k.length(1)
		start := k.off
		k.skip(n)
		if k.off < 0 || tag <= last {
			return skim{}, false
		}
		last = tag
		p := b[start:k.off]
		switch tag {
		case fieldShingles:
			v, m := binary.Uvarint(p)
			if m != len(p) || v == 0 || v > math.MaxInt32 {
				return skim{}, false
			}
			s.shingles = int(v)
		case fieldLong:
			if len(p) != minhash.LongEncodedSize {
				return skim{}, false
			}
			s.long = (*minhash.Long)(p)
		}
	}
	if k.off < 0 {
		return skim{}, false
	}
	return s, true
}

// skimmer reads a record as decoder does, without saying what is
// wrong: off is -1 once a read failed, and every read after returns 0.
type skimmer struct {
	b   []byte
	off int
}

func (k *skimmer) uvarint() uint64 {
	if k.off < 0 {
		return 0
	}
	if k.off < len(k.b) && k.b[k.off] < 0x80 { // most of a record's
		k.off++
		return uint64(k.b[k.off-1])
	}
	v, n := binary.Uvarint(k.b[k.off:])
	if n <= 0 {
		k.off = -1
		return 0
	}
	k.off += n
	return v
}

// skipVarint skips a varint or uvarint (the same bytes make one): of
// up to 8 bytes, found in one load, else as uvarint finds it.
func (k *skimmer) skipVarint() {
	if k.off >= 0 && len(k.b)-k.off >= 8 {
		// The top bit of each byte that ends a varint.
		if m := ^binary.LittleEndian.Uint64(k.b[k.off:]) & 0x8080808080808080; m != 0 {
			k.off += bits.TrailingZeros64(m)/8 + 1
			return
		}
	}
	k.uvarint()
}

// length is decoder.length: a count of items of at least min bytes
// each that the rest of the record can hold.
func (k *skimmer) length(min int) int {
	v := k.uvarint()
	if k.off < 0 {
		return 0
	}
	if rest := uint64(len(k.b) - k.off); v > rest || v*uint64(min) > rest {
		k.off = -1
		return 0
	}
	return int(v)
}

func (k *skimmer) skip(n int) {
	switch {
	case k.off < 0:
	case n > len(k.b)-k.off:
		k.off = -1
	default:
		k.off += n
	}
}

// unconfirmable reports whether confirm turns down the stored document
// r as a match of d, whatever r's record says of its cluster: r is no
// exact copy of d, is farther than k bits from it, and, both having
// sketches and confirmation sketches, is not Confirmed. Only what a
// record never changes decides, so a candidate turned down here stays
// down after the call decides its cluster.
func (x *Index) unconfirmable(d *Doc, r *skim, k int) bool {
	return x.unconfirmableBy(d, r, k, minhash.LongSize)
}

// unconfirmableBy is unconfirmable reading only the first m values of
// the confirmation sketches (a multiple of 8): true when even the rest
// agreeing could not confirm r (see minhash.Long.JaccardBound; confirm's
// rule only gets harder to meet as the Jaccard estimate falls), false
// when r is kept or the rest must be read to tell.
func (x *Index) unconfirmableBy(d *Doc, r *skim, k, m int) bool {
	q := docSkim(d)
	return q.filters() && x.turnsDown(&q, r, k, m)
}

// docSkim is d as skimRecord reads its record.
func docSkim(d *Doc) skim {
	return skim{fingerprint: d.Fingerprint, contentHash: d.ContentHash,
		sketch: !d.Sketch.IsZero(), shingles: d.Shingles, long: &d.Long}
}

// filters reports whether the in-place filter can turn candidates down
// as matches of the document q: it has a sketch and a confirmation
// sketch.
func (q *skim) filters() bool {
	return q.sketch && q.long != nil && !q.long.IsZero()
}

// turnsDown is unconfirmableBy for a document q that filters: whether
// confirm turns r down as a match of q, by the first m values of the
// confirmation sketches.
func (x *Index) turnsDown(q, r *skim, k, m int) bool {
	if r.contentHash == q.contentHash || q.fingerprint.Distance(r.fingerprint) <= k {
		return false
	}
	if !r.sketch || r.long == nil || r.long.IsZero() {
		return false
	}
	return !confirmedLong(q.long.JaccardBound(r.long, m), q.shingles, r.shingles, x.minContent)
}

// numTable tells store numbers apart: nums holds each number added
// once, in the order first added, and table, indices into nums (plus
// one; 0 is an empty slot) by open addressing, at most half full.
type numTable struct {
	table []int32
	nums  []uint64
}

// newNumTable returns a numTable for at most n numbers.
func newNumTable(n int) numTable {
	return numTable{table: make([]int32, 1<<bits.Len(uint(2*max(n, 1)-1))), nums: make([]uint64, 0, n)}
}

// add adds num and returns its index in t.nums.
func (t *numTable) add(num uint64) int32 {
	mask := uint64(len(t.table) - 1)
	for i := (num * 0x9e3779b97f4a7c15 >> 32) & mask; ; i = (i + 1) & mask {
		if j := t.table[i]; j == 0 {
			t.nums = append(t.nums, num)
			t.table[i] = int32(len(t.nums))
			return int32(len(t.nums) - 1)
		} else if t.nums[j-1] == num {
			return j - 1
		}
	}
}

// firstValues is how many values of a candidate's confirmation sketch
// dropUnconfirmable reads before it reads the rest: of the candidates
// that share a band with an article of the synthetic corpus at 10^6
// and are turned down, 96.6% are turned down by their first 128 values
// (99.7% by 192), so that the last two cache lines of most sketches
// are never read. NumberedRecords stores that read records ahead
// (memstore) read as far as these values.
const firstValues = 128

// dropUnconfirmable leaves out of seen, the documents d saw, those of
// the store (under its own numbers) that confirm would turn down,
// reading their records in place. In a large archive most of what an
// article sees through its sketch bands are articles that share a
// sentence or two with it: at 10^7 documents of the synthetic corpus
// (bench/README.md) about a hundred an article, and decoding each
// record to turn it down cost more than the article's analysis.
func (x *Index) dropUnconfirmable(ctx context.Context, nr NumberedRecords, d *Doc, seen []Earlier, k int) []Earlier {
	q := docSkim(d)
	if !q.filters() || len(seen) == 0 {
		return seen
	}
	// Each store number once, in the order seen: at[p] is the index in
	// nt.nums of seen[p]'s number, -1 for a document of this call.
	nt := newNumTable(len(seen))
	at := make([]int32, len(seen))
	for p, e := range seen {
		at[p] = -1
		if storeNum(e.Num) {
			at[p] = nt.add(e.Num)
		}
	}
	nums := nt.nums
	if len(nums) == 0 {
		return seen
	}
	recs, err := nr.RecordsByNum(ctx, nums)
	if err != nil || len(recs) != len(nums) {
		return seen // fetch reads them again and reports the error
	}
	// First by the first values of the sketches; then the rest of the
	// sketches of what is left, read ahead in a step of their own (see
	// memstore's RecordsByNum), for the others.
	type left struct {
		i  int // in nums
		sk skim
	}
	out := make([]bool, len(nums))
	var rest []left
	for i := range nums {
		sk, ok := skimRecord(recs[i])
		switch {
		case !ok:
		case x.turnsDown(&q, &sk, k, firstValues):
			out[i] = true
		case sk.long != nil:
			rest = append(rest, left{i, sk})
		}
	}
	var sum byte
	for _, l := range rest {
		for v := firstValues; v < minhash.LongSize; v += 64 {
			sum += l.sk.long[v]
		}
		sum += l.sk.long[minhash.LongSize-1]
	}
	runtime.KeepAlive(sum)
	for _, l := range rest {
		out[l.i] = x.turnsDown(&q, &l.sk, k, minhash.LongSize)
	}
	if !slices.Contains(out, true) {
		return seen
	}
	kept := seen[:0]
	for p, e := range seen {
		if at[p] < 0 || !out[at[p]] {
			kept = append(kept, e)
		}
	}
	return kept
}

// dropUnconfirmableRead is dropUnconfirmable for the writes ws of a
// read of the store, as soon as their postings are read (ps[i], those
// under ws[i]'s keys, as local.read returns them): it leaves out the
// postings of the store's documents that confirm would turn down as
// matches of the write, judged by its record, which holds what
// dropUnconfirmable reads of a Doc. What it leaves out never reaches
// the write's lists of what came before it: no Earlier is made for it,
// nor looked up in the overlay, nor copied as a candidate, and the
// records of all the writes' postings are read in one call, while the
// postings' slots are still in the cache. k is at least the distance
// the caller decides with: a candidate farther than that and turned
// down here would be turned down later.
func (x *Index) dropUnconfirmableRead(ctx context.Context, nr NumberedRecords, ws []Write, ps [][][]Posting, k int) {
	qs := make([]skim, len(ws))
	n := 0
	for i := range ws {
		if q, ok := skimRecord(ws[i].Record); ok && q.filters() {
			qs[i] = q
			for _, list := range ps[i] {
				n += len(list)
			}
		}
	}
	if n == 0 {
		return
	}
	// The store's numbers once each; at lists their indices in nt.nums
	// in the order the loops below meet the postings.
	nt := newNumTable(n)
	at := make([]int32, 0, n)
	for i := range ws {
		if qs[i].long == nil {
			continue
		}
		for _, list := range ps[i] {
			for _, p := range list {
				if storeNum(p.Num) {
					at = append(at, nt.add(p.Num))
				}
			}
		}
	}
	if len(nt.nums) == 0 {
		return
	}
	recs, err := nr.RecordsByNum(ctx, nt.nums)
	if err != nil || len(recs) != len(nt.nums) {
		return // the candidates' fetch reads them again and says what is wrong
	}
	sks := make([]skim, len(recs))
	ok := make([]bool, len(recs))
	for j, r := range recs {
		sks[j], ok[j] = skimRecord(r)
	}
	for i := range ws {
		q := &qs[i]
		if q.long == nil {
			continue
		}
		for j, list := range ps[i] {
			kept := list[:0]
			for _, p := range list {
				if storeNum(p.Num) {
					m := at[0]
					at = at[1:]
					if r := &sks[m]; ok[m] && (x.turnsDown(q, r, k, firstValues) || x.turnsDown(q, r, k, minhash.LongSize)) {
						continue
					}
				}
				kept = append(kept, p)
			}
			ps[i][j] = kept
		}
	}
}
