package index

import (
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"

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
func skimRecord(b []byte) (s skim, ok bool) {
	d := decoder{b: b}
	if v := d.bytes(1, "version"); v == nil || v[0] != recordVersion {
		return skim{}, false
	}
	if p := d.bytes(16, "hashes"); p != nil {
		s.fingerprint = simhash.Fingerprint(binary.BigEndian.Uint64(p))
		s.contentHash = binary.BigEndian.Uint64(p[8:])
	}
	d.varint("added seconds")
	if nsec := d.uvarint("added nanoseconds"); nsec >= 1e9 {
		return skim{}, false
	}
	d.bytes(d.length("title length", 1), "title")
	for range d.length("keyword count", 9) {
		d.bytes(d.length("keyword length", 1), "keyword")
		d.bytes(8, "keyword weight")
	}
	switch n := d.uvarint("sketch size"); {
	case d.err != nil:
	case n == minhash.Size:
		s.sketch = d.bytes(2*minhash.Size, "sketch") != nil
	case n == Bands:
		s.sketch = d.bytes(Bands, "band digests") != nil
	case n != 0:
		return skim{}, false
	}
	d.bytes(d.length("job length", 1), "job")
	d.uvarint("seq")
	d.fields(func(tag uint64, p []byte, start int) {
		switch tag {
		case fieldShingles:
			v, k := binary.Uvarint(p)
			if k != len(p) || v == 0 || v > math.MaxInt32 {
				d.off = start
				d.fail("content-set size field %x", p)
				return
			}
			s.shingles = int(v)
		case fieldLong:
			if len(p) != minhash.LongEncodedSize {
				d.off = start
				d.fail("confirmation sketch field: %d bytes", len(p))
				return
			}
			s.long = (*minhash.Long)(p)
		}
	})
	if d.err != nil {
		return skim{}, false
	}
	return s, true
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
	if r.contentHash == d.ContentHash || d.Fingerprint.Distance(r.fingerprint) <= k {
		return false
	}
	if !r.sketch || r.long == nil || r.long.IsZero() || d.Sketch.IsZero() || d.Long.IsZero() {
		return false
	}
	return !confirmedLong(d.Long.JaccardBound(r.long, m), d.Shingles, r.shingles, x.minContent)
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
	if d.Sketch.IsZero() || d.Long.IsZero() || len(seen) == 0 {
		return seen
	}
	// Each store number once, in the order seen: at[p] is the index in
	// nums of seen[p]'s number, -1 for a document of this call. The
	// numbers are told apart by an open-addressing table of indices
	// into nums (plus one; 0 is an empty slot), at most half full.
	size := 1 << bits.Len(uint(2*len(seen)-1))
	ix := make([]int32, len(seen)+size)
	at, table := ix[:len(seen)], ix[len(seen):]
	nums := make([]uint64, 0, len(seen))
	mask := uint64(size - 1)
	for p, e := range seen {
		at[p] = -1
		if !storeNum(e.Num) {
			continue
		}
		h := e.Num * 0x9e3779b97f4a7c15 >> 32
		for i := h & mask; ; i = (i + 1) & mask {
			if j := table[i]; j == 0 {
				nums = append(nums, e.Num)
				table[i], at[p] = int32(len(nums)), int32(len(nums)-1)
				break
			} else if nums[j-1] == e.Num {
				at[p] = j - 1
				break
			}
		}
	}
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
	sks := make([]skim, len(nums))
	out := make([]bool, len(nums))
	rest := 0 // sks[:rest]: the skims of what is left, at[…] their indices
	var restAt []int32
	for i := range nums {
		sk, ok := skimRecord(recs[i])
		switch {
		case !ok:
		case x.unconfirmableBy(d, &sk, k, firstValues):
			out[i] = true
		case sk.long != nil:
			sks[rest] = sk
			restAt = append(restAt, int32(i))
			rest++
		}
	}
	var sum byte
	for _, sk := range sks[:rest] {
		for v := firstValues; v < minhash.LongSize; v += 64 {
			sum += sk.long[v]
		}
		sum += sk.long[minhash.LongSize-1]
	}
	runtime.KeepAlive(sum)
	dropped := false
	for r, i := range restAt {
		out[i] = x.unconfirmable(d, &sks[r], k)
	}
	for _, o := range out {
		dropped = dropped || o
	}
	if !dropped {
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
