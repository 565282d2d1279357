package memstore

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
	"sync"
)

// The store's tables hold numbers, not pointers: documents are numbered
// from 1 (0 marks an empty slot), their slots in fixed chunks, their
// IDs and records in large byte chunks, and posting lists are sorted
// runs of (key value, document number), or of document numbers by key
// value, each with an open-addressing table of the newest. The garbage
// collector sees a few hundred large objects whatever the number of
// documents, and scans none of their contents.

// chunkSize is the size of the byte chunks IDs and records are kept
// in; a larger entry gets a chunk of its own.
const chunkSize = 4 << 20

// arena keeps byte strings in chunks that are never written again once
// a string is in them: a slice of a chunk, handed to a reader, stays
// valid and unchanged for as long as the reader keeps it.
type arena struct {
	chunks [][]byte
	spare  []byte // the rest of the block the last chunks were cut from
	bytes  int64  // bytes of the chunks in use
}

// blockChunks is how many chunks the arena allocates at once (a block
// of 64 MiB) once it holds as many: a block's 2 MiB pages can be huge
// (adviseHuge), where a chunk's 4 MiB would often hold only one.
const blockChunks = 16

// chunk returns a new empty chunk for an entry of n bytes.
func (a *arena) chunk(n int) []byte {
	if n > chunkSize {
		return make([]byte, 0, n)
	}
	if len(a.chunks) < blockChunks {
		return make([]byte, 0, chunkSize)
	}
	if len(a.spare) < chunkSize {
		a.spare = adviseHuge(make([]byte, blockChunks*chunkSize))
	}
	c := a.spare[:0:chunkSize]
	a.spare = a.spare[chunkSize:]
	return c
}

// add appends pre (nothing, or a document's fingerprint), id, the
// length of rec and rec, one after the other, and returns where id is:
// its chunk and offset (pre is just before it).
func (a *arena) add(pre []byte, id string, rec []byte) (chunk, off uint32) {
	n := len(pre) + len(id) + binary.MaxVarintLen64 + len(rec)
	last := len(a.chunks) - 1
	if last < 0 || len(a.chunks[last])+n > cap(a.chunks[last]) {
		a.chunks = append(a.chunks, a.chunk(n))
		last++
	}
	c := append(a.chunks[last], pre...)
	off = uint32(len(c))
	c = append(c, id...)
	c = binary.AppendUvarint(c, uint64(len(rec)))
	a.chunks[last] = append(c, rec...)
	a.bytes += int64(len(a.chunks[last])) - int64(off) + int64(len(pre))
	return uint32(last), off
}

// A document's slot is where its entry is in the arena (see pack): its
// ID, the length of its record as a uvarint, and its record, after its
// fingerprint (which its table postings carry) in a store that keeps
// records as they are given; a lean store reads the fingerprint from
// its own record (see Store.fingerprint).

// A slot's at packs the entry's chunk (26 bits), its offset in the
// chunk (22 bits: chunks of chunkSize are filled, a larger entry gets
// a chunk of its own at offset 0) and the length of the ID (16 bits).
const (
	offBits   = 22
	idLenBits = 16
	maxChunks = 1<<(64-offBits-idLenBits) - 1
)

func pack(chunk, off uint32, idLen int) uint64 {
	return uint64(chunk)<<(offBits+idLenBits) | uint64(off)<<idLenBits | uint64(idLen)
}

func unpack(at uint64) (chunk, off, idLen uint32) {
	return uint32(at >> (offBits + idLenBits)), uint32(at>>idLenBits) & (1<<offBits - 1), uint32(at) & (1<<idLenBits - 1)
}

// gone is the at of a deleted document's slot.
const gone = ^uint64(0)

// slotBits is the log2 of the number of slots in a chunk of slots: the
// slots are kept in fixed chunks, so that their table never grows by
// copying and has no room unused but in its last chunk.
const slotBits = 16

// slots holds the documents' slots; document n is slot n-1.
type slots struct {
	chunks [][]uint64
	spare  []uint64 // the rest of the block the last chunks were cut from
	n      int
}

func (t *slots) at(n uint32) *uint64 {
	i := n - 1
	return &t.chunks[i>>slotBits][i&(1<<slotBits-1)]
}

// add appends a slot and returns its document number.
func (t *slots) add(sl uint64) uint32 {
	if t.n&(1<<slotBits-1) == 0 {
		if len(t.spare) == 0 {
			// After the first blockChunks chunks, blockChunks at a
			// time, for huge pages (see arena.chunk).
			n := 1 << slotBits
			if len(t.chunks) >= blockChunks {
				n *= blockChunks
			}
			t.spare = adviseHuge(make([]uint64, n))
		}
		t.chunks = append(t.chunks, t.spare[:1<<slotBits:1<<slotBits])
		t.spare = t.spare[1<<slotBits:]
	}
	t.chunks[t.n>>slotBits][t.n&(1<<slotBits-1)] = sl
	t.n++
	return uint32(t.n)
}

// idTable maps IDs to document numbers: an open-addressing table with
// linear probing of document numbers, which are compared by the IDs in
// the arena when their tags (8 bits of the ID's hash, idTag) agree.
type idTable struct {
	slots []uint32 // len a power of two; 0 is empty
	tags  []uint8  // the tag of each slot's ID
	n     int
}

// hashTable is a multimap of 64-bit key values to document numbers:
// open addressing with linear probing, a key value once per document
// that has it. It holds a postTable's newest postings. A slot keeps its
// key value and document side by side (12 bytes, no padding), so that
// a probe of a taken slot reads one cache line, not one in an array of
// keys and another in an array of documents.
type hashTable struct {
	slots []htSlot
	n     int
}

// htSlot is a hashTable's slot: the key value's low and high 32 bits
// and the document, 0 when the slot is empty.
type htSlot struct {
	lo, hi, doc uint32
}

func (e *htSlot) key() uint64 { return uint64(e.hi)<<32 | uint64(e.lo) }

// mix spreads the bits of a key value over the table.
func mix(v uint64) uint64 {
	v ^= v >> 33
	v *= 0xff51afd7ed558ccd
	v ^= v >> 33
	v *= 0xc4ceb9fe1a85ec53
	v ^= v >> 33
	return v
}

// maxLoad is the fraction of a hashTable's slots in use above which it
// doubles: a half, so that a lookup of a value that is not there (most
// of a band's) ends after a probe or two. A hashTable holds only the
// postings not yet merged, a 32nd of a run's at most.
const maxLoad = 0.5

func (t *hashTable) grow() {
	old := t.slots
	t.slots, t.n = adviseHuge(make([]htSlot, max(1024, 2*len(old)))), 0
	for i := range old {
		if e := &old[i]; e.doc != 0 {
			t.add(e.key(), e.doc)
		}
	}
}

// keepSlots is the most slots (768 KiB) a hashTable keeps, cleared,
// when a merge empties it: a table that small is filled and merged
// again and again while its run is short, and growing it from 1,024
// slots each time rehashed each posting about once. A larger one is
// dropped, as the postings of a long run's merge are few against the
// run's, and the memory it would keep between merges is not.
const keepSlots = 1 << 16

// reset empties t after a merge.
func (t *hashTable) reset() {
	if len(t.slots) > keepSlots {
		*t = hashTable{}
		return
	}
	clear(t.slots)
	t.n = 0
}

func (t *hashTable) add(v uint64, d uint32) {
	if float64(t.n+1) > maxLoad*float64(len(t.slots)) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := mix(v) & mask; ; i = (i + 1) & mask {
		e := &t.slots[i]
		if e.doc == 0 {
			*e = htSlot{uint32(v), uint32(v >> 32), d}
			t.n++
			return
		}
		if e.doc == d && e.key() == v {
			return
		}
	}
}

// each calls fn with each document under v.
func (t *hashTable) each(v uint64, fn func(uint32)) {
	if t.n == 0 {
		return
	}
	mask := uint64(len(t.slots) - 1)
	for i := mix(v) & mask; t.slots[i].doc != 0; i = (i + 1) & mask {
		if e := &t.slots[i]; e.key() == v {
			fn(e.doc)
		}
	}
}

// taken reports whether the slot where a lookup of v starts is taken:
// when it is not, no document is under v.
func (t *hashTable) taken(v uint64) bool {
	return t.n != 0 && t.slots[mix(v)&uint64(len(t.slots)-1)].doc != 0
}

// remove deletes the posting of d under v, shifting the entries after
// it back so that no probe sequence is broken.
func (t *hashTable) remove(v uint64, d uint32) {
	if t.n == 0 {
		return
	}
	mask := uint64(len(t.slots) - 1)
	i := mix(v) & mask
	for ; t.slots[i].doc != 0; i = (i + 1) & mask {
		if e := &t.slots[i]; e.doc == d && e.key() == v {
			break
		}
	}
	if t.slots[i].doc == 0 {
		return
	}
	t.n--
	for j := (i + 1) & mask; t.slots[j].doc != 0; j = (j + 1) & mask {
		// The entry at j may move to the hole at i unless its home lies
		// cyclically in (i, j].
		h := mix(t.slots[j].key()) & mask
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = htSlot{}
}

// posting is a hashTable's posting as a run's merge takes it: h is
// the key value as the run orders it (see sorted), d the document.
type posting struct {
	h uint64
	d uint32
}

// sorted returns the postings of t whose documents gone does not
// report deleted (all of them with gone nil), each with key(v) for its
// value v, ordered by that and then by document: what a run's merge
// folds in.
func (t *hashTable) sorted(gone func(uint32) bool, key func(uint64) uint64) []posting {
	add := make([]posting, 0, t.n)
	for i := range t.slots {
		if e := &t.slots[i]; e.doc != 0 && (gone == nil || !gone(e.doc)) {
			add = append(add, posting{key(e.key()), e.doc})
		}
	}
	return sortPostings(add)
}

// comparePostings orders postings by h, then document.
func comparePostings(a, b posting) int {
	if c := cmp.Compare(a.h, b.h); c != 0 {
		return c
	}
	return cmp.Compare(a.d, b.d)
}

// sortPostings returns ps ordered by h, then document (in a new slice
// when ps has two or more): counted into about len(ps) buckets by h's
// top bits, then each bucket sorted, by insertion when it is small. A
// postTable's h are uniform, a keyRun's nearly, so that a bucket holds
// one or two postings, and the sort takes a pass or two over them.
func sortPostings(ps []posting) []posting {
	if len(ps) < 2 {
		return ps
	}
	var or uint64
	for _, p := range ps {
		or |= p.h
	}
	b := bits.Len(uint(len(ps)))
	shift := max(0, bits.Len64(or)-b) // h>>shift is below 2^b
	ends := make([]int32, 1<<b+1)
	for _, p := range ps {
		ends[p.h>>shift+1]++
	}
	for i := 1; i < len(ends); i++ {
		ends[i] += ends[i-1]
	}
	out := make([]posting, len(ps))
	for _, p := range ps {
		k := p.h >> shift
		out[ends[k]] = p
		ends[k]++ // ends[k] is now where bucket k+1 starts; once filled, where bucket k ends
	}
	begin := 0
	for _, end := range ends[:1<<b] {
		if bk := out[begin:end]; len(bk) > 12 {
			slices.SortFunc(bk, comparePostings)
		} else {
			for i := 1; i < len(bk); i++ {
				for j := i; j > 0 && comparePostings(bk[j], bk[j-1]) < 0; j-- {
					bk[j], bk[j-1] = bk[j-1], bk[j]
				}
			}
		}
		begin = int(end)
	}
	return out
}

// runBits is the widest table key kept in a keyRun, whose index has
// 2^runBits+1 entries at most. A wider table key goes into a postTable.
const runBits = 18

// keyRun holds the postings of one SimHash table whose keys have at
// most runBits bits: a run of document numbers grouped by key value
// (start[v] is where value v's begin, 4 bytes a posting) with the fold
// of each document's fingerprint beside it (2 bytes a posting), and the
// newest postings in a hashTable, merged into the run like a
// postTable's. Its postings carry the documents' fingerprints from
// their slots; the folds let a query within a distance leave out most
// of a key value's postings without reading their slots (see fold).
type keyRun struct {
	start  []uint32 // 1<<bits+1 offsets into docs
	docs   []uint32
	folds  []uint16 // folds[i] is the fold of docs[i]'s fingerprint
	recent hashTable
}

// fold folds a 64-bit fingerprint onto 16 bits, the XOR of its four
// 16-bit blocks. Folding is linear in XOR and a bit of the fold is the
// parity of four bits of the fingerprint, so the distance between two
// folds is at most that between the fingerprints: a posting whose fold
// is more than k bits from the query's is more than k bits from it.
// Under a key of one 16-bit block (the default layout) the block agrees
// and the fold differs in the XOR of the other three: for a posting
// unrelated to the query, 16 random bits, within 3 bits of the query's
// with probability 697/65,536, about 1%.
func fold(fp uint64) uint16 { return uint16(fp ^ fp>>16 ^ fp>>32 ^ fp>>48) }

func newKeyRun(bits uint8) *keyRun { return &keyRun{start: make([]uint32, 1<<bits+1)} }

func (r *keyRun) add(v uint64, d uint32) { r.recent.add(v, d) }

// A probe is one key's lookup in a list, in three steps that
// Store.postingsOf takes for all the keys of a read, one step for every
// key before the next, so that the cache misses of different keys
// overlap instead of following one another: begin reads where the
// key's postings are in the run (a postTable's directory, a keyRun's
// index) and whether the recent table's first slot for it is taken;
// next reads the run's posting where the search starts; finish goes
// through the postings, mostly from the cache by then.
type probe struct {
	l      *list
	v      uint64 // the key value
	h      uint64 // postTable: mix(v)
	a, b   int    // the run's postings under v (keyRun), or under h's top bits (postTable)
	i      int    // postTable: where the search for h starts
	first  uint64 // what next read of the run
	recent bool   // the recent table's first slot for v is taken
}

// each calls fn with each document under v, which is below 2^bits.
func (r *keyRun) each(v uint64, fn func(uint32)) {
	p := probe{v: v}
	r.begin(&p)
	r.next(&p)
	r.finish(&p, fn)
}

// eachNear is each that leaves out the run's documents whose fold is
// more than k bits from q (the fold of the query's fingerprint); fn
// sees the others, and every recent document, and checks them.
func (r *keyRun) eachNear(v uint64, q uint16, k int, fn func(uint32)) {
	p := probe{v: v}
	r.begin(&p)
	r.next(&p)
	r.finishNear(&p, q, k, fn)
}

// begin is the first step of a probe (see probe) of p.v, which is
// below 2^bits.
func (r *keyRun) begin(p *probe) {
	p.a, p.b = int(r.start[p.v]), int(r.start[p.v+1])
	p.recent = r.recent.taken(p.v)
}

// next is the second step of a probe: it reads the first of the run's
// documents under p.v and its fold.
func (r *keyRun) next(p *probe) {
	if p.a < p.b {
		p.first = uint64(r.docs[p.a]) | uint64(r.folds[p.a])<<32
	}
}

// finish calls fn with each document under p.v.
func (r *keyRun) finish(p *probe, fn func(uint32)) {
	for _, d := range r.docs[p.a:p.b] {
		fn(d)
	}
	if p.recent {
		r.recent.each(p.v, fn)
	}
}

// finishNear is finish that leaves out the run's documents whose fold
// is more than k bits from q (see eachNear).
func (r *keyRun) finishNear(p *probe, q uint16, k int, fn func(uint32)) {
	folds := r.folds[p.a:p.b]
	for i, d := range r.docs[p.a:p.b] {
		if bits.OnesCount16(folds[i]^q) <= k {
			fn(d)
		}
	}
	if p.recent {
		r.recent.each(p.v, fn)
	}
}

// remove is postTable.remove: the caller deletes d.
func (r *keyRun) remove(v uint64, d uint32) { r.recent.remove(v, d) }

func (r *keyRun) full() bool { return r.recent.n >= max(minMerge, len(r.docs)/mergeShare) }

// merge is postTable.merge; fp returns the fingerprint of a recent
// document, whose fold the run keeps.
func (r *keyRun) merge(gone func(uint32) bool, fp func(uint32) uint64) {
	add := r.recent.sorted(gone, func(v uint64) uint64 { return v })
	n := len(add) + len(r.docs)
	if gone != nil {
		for _, d := range r.docs {
			if gone(d) {
				n--
			}
		}
	}
	start, docs, folds := make([]uint32, len(r.start)), adviseHuge(make([]uint32, 0, n)), adviseHuge(make([]uint16, 0, n))
	if gone == nil {
		// The run copied in stretches, each recent posting after the
		// run's under its value.
		src := uint32(0)
		for _, p := range add {
			at := r.start[p.h+1]
			docs, folds = append(docs, r.docs[src:at]...), append(folds, r.folds[src:at]...)
			src = at
			docs, folds = append(docs, p.d), append(folds, fold(fp(p.d)))
			start[p.h+1]++
		}
		docs, folds = append(docs, r.docs[src:]...), append(folds, r.folds[src:]...)
		for v := 1; v < len(start); v++ {
			start[v] += start[v-1]
		}
		for v := range start {
			start[v] += r.start[v]
		}
		r.start, r.docs, r.folds = start, docs, folds
		r.recent.reset()
		return
	}
	j := 0
	for v := range uint64(len(start) - 1) {
		start[v] = uint32(len(docs))
		for i := r.start[v]; i < r.start[v+1]; i++ {
			if d := r.docs[i]; gone == nil || !gone(d) {
				docs, folds = append(docs, d), append(folds, r.folds[i])
			}
		}
		for ; j < len(add) && add[j].h == v; j++ {
			docs, folds = append(docs, add[j].d), append(folds, fold(fp(add[j].d)))
		}
	}
	start[len(start)-1] = uint32(len(docs))
	r.start, r.docs, r.folds = start, docs, folds
	r.recent.reset()
}

// hashID hashes an ID for the idTable.
func hashID(seed maphash.Seed, id []byte) uint64 {
	return maphash.Bytes(seed, id)
}

// postTable holds the postings of one kind of key whose values are
// nearly unique (a sketch band, or the content hash): most of them in
// a sorted run without empty slots, the newest in a hashTable, which
// merge folds into the run when it holds a 32nd as many.
//
// The run is ordered by h = mix(v), a bijection of the key value, and
// then by document. start[t] is where the postings whose h has t in its
// top dirBits bits begin, so that a posting keeps only h's other 48
// bits and its document: postingSize bytes, where a hashTable's 12
// bytes at a load of 0.53 to 0.8 took 15 to 23. As h is uniform, a
// lookup guesses the place of its value among those of its top bits
// from the value and looks on from there, in the cache line or two
// about it.
//
// The run is kept in pages of pagePostings postings (see pagePool), all
// full but the last, so that a merge writes the new run into the pages
// the old one is done with: at 10^7 documents a band's run is 100 MB,
// merged each time it grows by a 32nd, and writing every merge into new
// memory had the kernel clear 5 KB a document, 4–5% of the CPU of a
// dedup near the end.
type postTable struct {
	start  []uint32 // nil while the run is empty, else 1<<dirBits+1 offsets into it
	run    pagedRun // postingSize bytes a posting, h's low 48 bits then its document, little-endian
	recent hashTable
	pool   *pagePool // the store's; nil: pages of the table's own
}

// postingSize is the size of a posting in a postTable's run.
const postingSize = 10

// dirBits is the number of top bits of h that postTable.start indexes.
const dirBits = 16

// minMerge is the fewest postings a recent table holds before it is
// merged into its run, and mergeShare the share of the run's length it
// may hold (1/mergeShare).
const (
	minMerge   = 1 << 12
	mergeShare = 32
)

// len returns the number of postings in the run.
func (t *postTable) len() int { return t.run.n }

// rem returns the low 48 bits of the h of the run's posting i.
func (t *postTable) rem(i int) uint64 {
	e := t.run.at(i)
	return uint64(binary.LittleEndian.Uint32(e)) | uint64(binary.LittleEndian.Uint16(e[4:]))<<32
}

// doc returns the document of the run's posting i.
func (t *postTable) doc(i int) uint32 {
	return binary.LittleEndian.Uint32(t.run.at(i)[6:])
}

func (t *postTable) add(v uint64, d uint32) { t.recent.add(v, d) }

// each calls fn with each document under v.
func (t *postTable) each(v uint64, fn func(uint32)) {
	p := probe{v: v}
	t.begin(&p)
	t.next(&p)
	t.finish(&p, fn)
}

// begin is the first step of a probe (see probe): it reads the
// directory's bounds of the postings under p.v's top bits.
func (t *postTable) begin(p *probe) {
	p.h = mix(p.v)
	if t.start != nil {
		p.a, p.b = int(t.start[p.h>>48]), int(t.start[p.h>>48+1])
	}
	p.recent = t.recent.taken(p.v)
}

// next is the second step of a probe: it guesses the place of h's
// remainder among the b-a postings, as if their values were evenly
// spread, and reads that posting's remainder.
func (t *postTable) next(p *probe) {
	if p.a < p.b {
		r := p.h & (1<<48 - 1)
		p.i = p.a + int(((r>>16)*uint64(p.b-p.a))>>32)
		p.first = t.rem(p.i)
	}
}

// finish calls fn with each document under p.v: it looks on from the
// guess to the postings of h's remainder.
func (t *postTable) finish(p *probe, fn func(uint32)) {
	if a, b := p.a, p.b; a < b {
		r := p.h & (1<<48 - 1)
		i := p.i
		if p.first < r {
			for i++; i < b && t.rem(i) < r; i++ {
			}
		} else {
			for i > a && t.rem(i-1) >= r {
				i--
			}
		}
		for ; i < b && t.rem(i) == r; i++ {
			fn(t.doc(i))
		}
	}
	if p.recent {
		t.recent.each(p.v, fn)
	}
}

// remove deletes the posting of d under v when it is among the recent
// ones. The caller deletes d: its postings in the run stay until the
// next merge, and readers skip them as they skip any deleted
// document's.
func (t *postTable) remove(v uint64, d uint32) { t.recent.remove(v, d) }

// full reports whether the recent postings are due to be merged.
func (t *postTable) full() bool { return t.recent.n >= max(minMerge, t.len()/mergeShare) }

// merge folds the recent postings into a new run, leaving out those of
// the documents gone reports deleted; with gone nil, it keeps them all
// (the caller knows of too few deleted documents for a purge to pay:
// it reads every posting's slot).
func (t *postTable) merge(gone func(uint32) bool) {
	if gone == nil {
		t.mergeAll()
		return
	}
	add := t.recent.sorted(gone, mix)
	n := len(add) + t.len()
	if gone != nil {
		for i := range t.len() {
			if gone(t.doc(i)) {
				n--
			}
		}
	}
	w := runWriter{pool: t.pool, max: n}
	start := make([]uint32, 1<<dirBits+1)
	out := func(h uint64, d uint32) {
		w.put(h, d)
		start[h>>48+1]++
	}
	j := 0
	for top := range uint64(1 << dirBits) {
		if t.start != nil {
			for i := int(t.start[top]); i < int(t.start[top+1]); i++ {
				t.run.doneBelow(i, t.pool)
				d := t.doc(i)
				if gone != nil && gone(d) {
					continue
				}
				h := top<<48 | t.rem(i)
				for ; j < len(add) && (add[j].h < h || add[j].h == h && add[j].d <= d); j++ {
					if add[j].h != h || add[j].d != d {
						out(add[j].h, add[j].d)
					}
				}
				out(h, d)
			}
		}
		for ; j < len(add) && add[j].h>>48 == top; j++ {
			out(add[j].h, add[j].d)
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	t.run.doneBelow(t.run.n, t.pool)
	t.start, t.run = start, w.run
	t.recent.reset()
}

// mergeAll is merge that keeps every posting: the run's postings are
// copied in stretches, between the places of the recent ones, which a
// binary search among those of their top bits finds. A recent posting
// the run holds already is left out, as merge leaves it out.
func (t *postTable) mergeAll() {
	add := t.recent.sorted(nil, mix)
	n := t.len()
	w := runWriter{pool: t.pool, max: n + len(add)}
	start := make([]uint32, 1<<dirBits+1)
	src := 0 // the run's postings before src are copied
	for _, p := range add {
		top, r := p.h>>48, p.h&(1<<48-1)
		lo, hi := src, src
		if t.start != nil {
			lo, hi = max(src, int(t.start[top])), int(t.start[top+1])
		}
		// The first of the run's postings of top bits top at or after
		// (r, p.d) in the run's order.
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if rm := t.rem(m); rm < r || rm == r && t.doc(m) < p.d {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < n && t.rem(lo) == r && t.doc(lo) == p.d && (t.start == nil || lo < int(t.start[top+1])) {
			continue
		}
		w.copy(&t.run, src, lo)
		src = lo
		t.run.doneBelow(src, t.pool)
		w.put(p.h, p.d)
		start[top+1]++
	}
	w.copy(&t.run, src, n)
	t.run.doneBelow(n, t.pool)
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	if t.start != nil {
		for i := range start {
			start[i] += t.start[i]
		}
	}
	t.start, t.run = start, w.run
	t.recent.reset()
}

// pagePostings is how many postings a page of a postTable's run holds
// (640 KiB), and blockPages how many pages a pagePool allocates at
// once: a block of 10 MiB, whose 2 MiB pages can be huge (adviseHuge).
const (
	pageShift    = 16
	pagePostings = 1 << pageShift
	pageBytes    = pagePostings * postingSize
	blockPages   = 16
)

// pagedRun is a postTable's run: posting i in pages[i>>pageShift]. A
// run of fewer than pagePostings postings has one page of its size;
// a longer one, pages of pageBytes, all full but the last.
type pagedRun struct {
	pages [][]byte
	n     int
	done  int // pages before done were handed back (doneBelow): the run is being merged
}

// at returns the bytes of posting i.
func (r *pagedRun) at(i int) []byte {
	o := (i & (pagePostings - 1)) * postingSize
	return r.pages[i>>pageShift][o : o+postingSize]
}

// doneBelow hands the pages that hold only postings before i (every
// page, for i = r.n) back to pool: a merge has read them for the last
// time.
func (r *pagedRun) doneBelow(i int, pool *pagePool) {
	all := i >= r.n
	for ; r.done < len(r.pages) && (all || (r.done+1)<<pageShift <= i); r.done++ {
		pool.put(r.pages[r.done])
		r.pages[r.done] = nil
	}
}

// pagePool keeps the pages of a store's runs that merges are done
// with, for the next merge to write its run into: a merge takes about
// as many pages as it gives back, and pages that are used again are
// neither cleared by the kernel nor left to the garbage collector. It
// is safe for concurrent use: lists merge on several cores (see
// Store.applyLists).
type pagePool struct {
	mu     sync.Mutex
	free   [][]byte
	spare  []byte // the rest of the last block
	blocks int    // blocks made
}

// get returns an empty page of pageBytes.
func (p *pagePool) get() []byte {
	if p == nil {
		return make([]byte, 0, pageBytes)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		pg := p.free[n-1]
		p.free = p.free[:n-1]
		return pg[:0]
	}
	if len(p.spare) < pageBytes {
		p.spare = adviseHuge(make([]byte, blockPages*pageBytes))
		p.blocks++
	}
	pg := p.spare[:0:pageBytes]
	p.spare = p.spare[pageBytes:]
	return pg
}

// put takes back a page a run is done with; a run's page of its own
// size (a short run's) is left to the garbage collector.
func (p *pagePool) put(pg []byte) {
	if p != nil && cap(pg) == pageBytes {
		p.mu.Lock()
		p.free = append(p.free, pg)
		p.mu.Unlock()
	}
}

// runWriter writes a new run, posting after posting, of at most max
// postings.
type runWriter struct {
	pool *pagePool
	max  int
	run  pagedRun
}

// room returns the page the next posting goes into.
func (w *runWriter) room() *[]byte {
	r := &w.run
	if k := len(r.pages) - 1; k >= 0 && len(r.pages[k]) < cap(r.pages[k]) {
		return &r.pages[k]
	}
	if w.max < pagePostings {
		r.pages = append(r.pages, make([]byte, 0, w.max*postingSize))
	} else {
		r.pages = append(r.pages, w.pool.get())
	}
	return &r.pages[len(r.pages)-1]
}

// put appends the posting (h, d).
func (w *runWriter) put(h uint64, d uint32) {
	pg := w.room()
	*pg = binary.LittleEndian.AppendUint32(*pg, uint32(h))
	*pg = binary.LittleEndian.AppendUint16(*pg, uint16(h>>32))
	*pg = binary.LittleEndian.AppendUint32(*pg, d)
	w.run.n++
}

// copy appends the postings from to to of r.
func (w *runWriter) copy(r *pagedRun, from, to int) {
	for from < to {
		pg := w.room()
		n := min(to-from, (cap(*pg)-len(*pg))/postingSize, pagePostings-from&(pagePostings-1))
		o := (from & (pagePostings - 1)) * postingSize
		*pg = append(*pg, r.pages[from>>pageShift][o:o+n*postingSize]...)
		from += n
		w.run.n += n
	}
}
