// Package memstore keeps an index.Store in memory. Nothing is persisted;
// it is for deduplicating a corpus in one run and for tests. It is safe
// for concurrent use: readers share a lock, Apply takes it alone, and
// changes the posting lists of a large batch on every core.
//
// It holds no pointer per document (see flat.go): the documents are
// numbered, their IDs and records are kept in large byte chunks, and
// the posting lists are sorted runs of document numbers, so that ten
// million documents are a few thousand objects to the garbage
// collector, none of which it scans. Beyond its ID and record, a
// document of the default layout takes about 200 bytes: an 8-byte
// slot, its fingerprint (8 bytes, in its entry; a lean store reads it
// from its record), 5 to 10 in the ID table, 6 in each of the 4 SimHash
// tables and 10 for each of its 17 sketch band and content postings. A replaced or
// deleted document's ID and record stay in their chunk until the store
// is closed: it is made for runs that add.
package memstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"unsafe"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/workers"
	"github.com/neardup/neardup/simhash"
)

// Store is an in-memory index.Store.
type Store struct {
	mu     sync.RWMutex
	closed bool
	seed   maphash.Seed
	data   arena
	docs   slots
	ids    idTable
	live   int64
	dels   int64 // documents deleted or replaced
	lists  map[listKey]*list
	// listCache caches lists' entries by a hash of their keys (see
	// listOf): a document's 21 keys are each a map lookup otherwise.
	// Filled under the write lock, read under either.
	listCache [64]listEntry
	meta      map[string][]byte
	lean      bool   // keep records without what explains a match
	buf       []byte // a lean record while Apply makes it
	pre       [8]byte
	probes    sync.Pool // of *[]probe, for postingsOf
	busy      []*list   // the lists an Apply changes
	pages     pagePool  // the pages of the postTables' runs that merges are done with
}

// listKey names the posting lists of one kind of key: a SimHash table
// of so many bits, a sketch band, or the content hash.
type listKey struct {
	kind  index.Kind
	table uint8
	bits  uint8
}

// listEntry is an entry of Store.listCache.
type listEntry struct {
	k listKey
	l *list
}

// at returns the index in Store.listCache of the entry of lk: SimHash
// tables 0–15 in entries 0–15, bands 0–31 in 16–47 and the content
// hash in 48, so that the lists of any layout of at most 16 tables and
// 32 bands each have an entry of their own (a hash of the key put two
// of the default layout's 21 lists in one entry, which sent 4 of each
// document's lookups to the map). Other keys share the rest.
func (lk listKey) at() int {
	switch lk.kind {
	case index.KindTable:
		return int(lk.table & 15)
	case index.KindBand:
		return 16 + int(lk.table&31)
	case index.KindContent:
		return 48
	}
	return 49 + int(uint(lk.kind)+uint(lk.table))%15
}

// listOf returns the lists of lk, nil when there are none. s.mu is held.
func (s *Store) listOf(lk listKey) *list {
	if e := &s.listCache[lk.at()]; e.l != nil && e.k == lk {
		return e.l
	}
	return s.lists[lk]
}

// list is the posting lists of one listKey: a keyRun when its keys are
// table keys of at most runBits bits, a postTable otherwise.
type list struct {
	run    *keyRun
	table  postTable
	purged int64    // Store.dels when the run last left out deleted documents' postings
	ops    []listOp // an Apply's changes to the list, in order, until it makes them
}

// listOp is a change to a list: the posting of document n under value
// v, added or (del) removed.
type listOp struct {
	v   uint64
	n   uint32
	del bool
}

// New returns an empty store.
func New() *Store {
	s := &Store{seed: maphash.MakeSeed(), lists: make(map[listKey]*list), meta: make(map[string][]byte)}
	s.probes.New = func() any { return new([]probe) }
	return s
}

// NewLean returns an empty store that keeps each record without the
// fields that only explain a match to a person: the title, keywords
// and kept text, and, when the record has a confirmation sketch, with
// band digests for its 64-value sketch (index.BatchRecord). It is for
// one batch run, whose matches nobody reads back for them; matches from
// it have no title and no keywords, and its documents are confirmed
// only against queries with a confirmation sketch.
func NewLean() *Store {
	s := New()
	s.lean = true
	return s
}

// Open returns an index over a new, empty Store, for the common case of
// deduplicating in memory.
func Open(ctx context.Context, opts *index.Options) (*index.Index, error) {
	return index.New(ctx, New(), opts)
}

// String names the store in error messages.
func (s *Store) String() string { return "memory" }

var errClosed = fmt.Errorf("index: memory: %w", index.ErrClosed)

// entry returns the ID and record of document n (numbered from 1), as
// slices of the arena, which never changes them: the ID can be made a
// string without a copy.
func (s *Store) entry(n uint32) (id string, rec []byte) {
	return s.entryAt(*s.docs.at(n))
}

// entryAt is entry of the document whose slot holds at.
func (s *Store) entryAt(at uint64) (id string, rec []byte) {
	chunk, off, idLen := unpack(at)
	c := s.data.chunks[chunk][off:]
	recLen, k := binary.Uvarint(c[idLen:])
	end := int(idLen) + k + int(recLen)
	return unsafe.String(unsafe.SliceData(c), int(idLen)), c[int(idLen)+k : end : end]
}

// lookup returns the number of the document id, or 0.
func (s *Store) lookup(id string) uint32 {
	t := &s.ids
	if t.n == 0 {
		return 0
	}
	mask := uint64(len(t.slots) - 1)
	h := maphash.String(s.seed, id)
	tag := idTag(h)
	for i := h & mask; t.slots[i] != 0; i = (i + 1) & mask {
		// The tag spares reading the IDs of most other documents on
		// the way (two cache misses each: slot and arena).
		if n := t.slots[i]; t.tags[i] == tag && s.idOf(n) == id {
			return n
		}
	}
	return 0
}

// idTag is the tag of an ID of hash h in the ID table: bits its slot's
// index does not use.
func idTag(h uint64) uint8 { return uint8(h >> 56) }

func (s *Store) idOf(n uint32) string {
	chunk, off, idLen := unpack(*s.docs.at(n))
	return unsafe.String(&s.data.chunks[chunk][off], int(idLen))
}

// fingerprint returns the fingerprint of document n, 0 when it is
// deleted (its postings are skipped).
func (s *Store) fingerprint(n uint32) uint64 {
	at := *s.docs.at(n)
	if at == gone {
		return 0
	}
	return s.fingerprintAt(at)
}

// fingerprintAt returns the fingerprint of the document whose entry is
// at at: in a lean store, bytes 1 to 8 of its record (Apply checked
// them), else the 8 bytes before its ID.
func (s *Store) fingerprintAt(at uint64) uint64 {
	chunk, off, idLen := unpack(at)
	c := s.data.chunks[chunk]
	if !s.lean {
		return binary.BigEndian.Uint64(c[off-8:])
	}
	c = c[off+idLen:]
	_, k := binary.Uvarint(c)
	return binary.BigEndian.Uint64(c[k+1:])
}

// deleted reports whether document n is deleted.
func (s *Store) deleted(n uint32) bool { return *s.docs.at(n) == gone }

// insertID files document n under its ID, which is not filed.
func (s *Store) insertID(n uint32) {
	t := &s.ids
	if 4*(t.n+1) > 3*len(t.slots) {
		old := t.slots
		t.slots, t.n = adviseHuge(make([]uint32, max(1024, 2*len(old)))), 0
		t.tags = adviseHuge(make([]uint8, len(t.slots)))
		for _, m := range old {
			if m != 0 {
				s.insertID(m)
			}
		}
	}
	mask := uint64(len(t.slots) - 1)
	h := maphash.String(s.seed, s.idOf(n))
	i := h & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i], t.tags[i] = n, idTag(h)
	t.n++
}

// removeID takes document n, which is filed, out of the ID table.
func (s *Store) removeID(n uint32) {
	t := &s.ids
	mask := uint64(len(t.slots) - 1)
	home := func(m uint32) uint64 { return maphash.String(s.seed, s.idOf(m)) & mask }
	i := home(n)
	for t.slots[i] != n {
		i = (i + 1) & mask
	}
	t.n--
	for j := (i + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		h := home(t.slots[j])
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i], t.tags[i] = t.slots[j], t.tags[j]
			i = j
		}
	}
	t.slots[i], t.tags[i] = 0, 0
}

// Postings implements index.Store.
func (s *Store) Postings(_ context.Context, keys []index.Key) ([][]index.Posting, error) {
	return s.postingsOf(keys, nil, -1)
}

// PostingsNear implements index.NearPostings: under a table key it
// leaves out the documents whose fingerprint, kept in their slots, is
// more than k bits from fps[i], so that the far postings of a key (most
// of them in a large archive) cost no ID and no comparison in the
// Index.
func (s *Store) PostingsNear(_ context.Context, keys []index.Key, fps []simhash.Fingerprint, k int) ([][]index.Posting, error) {
	if len(fps) != len(keys) {
		return nil, fmt.Errorf("index: memory: postings near: %d fingerprints for %d keys", len(fps), len(keys))
	}
	return s.postingsOf(keys, fps, k)
}

// postingsOf is Postings and PostingsNear: with fps, it leaves out the
// table postings more than k bits from fps[i].
func (s *Store) postingsOf(keys []index.Key, fps []simhash.Fingerprint, k int) ([][]index.Posting, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	out := make([][]index.Posting, len(keys))
	// Each key's lookup in three steps, each taken for every key
	// before the next (see probe).
	pp := s.probes.Get().(*[]probe)
	ps := slices.Grow((*pp)[:0], len(keys))[:len(keys)] // zeroed: cleared when put back
	defer func() {
		clear(ps)
		*pp = ps
		s.probes.Put(pp)
	}()
	for i, key := range keys {
		l := s.listOf(listKey{key.Kind, key.Table, key.Bits})
		p := &ps[i]
		switch {
		case l == nil:
		case l.run != nil:
			if key.Value < uint64(len(l.run.start)-1) {
				p.l, p.v = l, key.Value
				l.run.begin(p)
			}
		default:
			p.l, p.v = l, key.Value
			l.table.begin(p)
		}
	}
	for i := range ps {
		switch p := &ps[i]; {
		case p.l == nil:
		case p.l.run != nil:
			p.l.run.next(p)
		default:
			p.l.table.next(p)
		}
	}
	// The documents of all the keys, those of keys[i] being
	// docs[ends[i-1]:ends[i]]; then their slots, in a step of their own
	// so that the slots' cache misses overlap (see RecordsByNum).
	docs := make([]uint32, 0, 4*len(keys))
	add := func(n uint32) { docs = append(docs, n) }
	ends := make([]int, len(keys))
	for i, key := range keys {
		if p := &ps[i]; p.l != nil {
			switch {
			case p.l.run == nil:
				p.l.table.finish(p, add)
			case fps != nil && key.Kind == index.KindTable:
				p.l.run.finishNear(p, fold(uint64(fps[i])), k, add)
			default:
				p.l.run.finish(p, add)
			}
		}
		ends[i] = len(docs)
	}
	ats := make([]uint64, len(docs))
	for j, n := range docs {
		ats[j] = *s.docs.at(n)
	}
	// The table postings' fingerprints, from their entries: a step of
	// its own again.
	tfps := make([]uint64, len(docs))
	from := 0
	for i, key := range keys {
		if key.Kind == index.KindTable {
			for j := from; j < ends[i]; j++ {
				if ats[j] != gone {
					tfps[j] = s.fingerprintAt(ats[j])
				}
			}
		}
		from = ends[i]
	}
	// The postings of all the keys, out[i] being hits[bounds[i]:bounds[i+1]].
	hits := make([]index.Posting, 0, len(docs))
	bounds := make([]int, len(keys)+1)
	j := 0
	for i, key := range keys {
		bounds[i] = len(hits)
		near := fps != nil && key.Kind == index.KindTable
		for ; j < ends[i]; j++ {
			at := ats[j]
			if at == gone {
				continue // a posting the writes left behind
			}
			fp := simhash.Fingerprint(tfps[j]) // 0 but for a table key
			if near && fp.Distance(fps[i]) > k {
				continue
			}
			chunk, off, idLen := unpack(at)
			hits = append(hits, index.Posting{ID: unsafe.String(&s.data.chunks[chunk][off], int(idLen)), Fingerprint: fp, Num: uint64(docs[j])})
		}
	}
	bounds[len(keys)] = len(hits)
	for i := range keys {
		if a, b := bounds[i], bounds[i+1]; a < b {
			out[i] = hits[a:b:b]
		}
	}
	return out, nil
}

// Records implements index.Store. The records are the store's own: the
// caller must not modify them.
func (s *Store) Records(_ context.Context, ids []string) ([][]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	out := make([][]byte, len(ids))
	for i, id := range ids {
		if n := s.lookup(id); n != 0 {
			_, out[i] = s.entry(n)
		}
	}
	return out, nil
}

// RecordsByNum implements index.NumberedRecords: the documents are
// read from their slots, their IDs not looked up.
//
// In a large store nearly every slot and record read is a cache miss,
// and the caller reads every record it asks for (index's in-place
// filter: a hundred an article at 10^7 documents). So it reads in
// three steps, each taken for all the numbers before the next: the
// slots; the cache lines of the first touchSpan bytes of each entry
// past its ID; then the records' lengths, from the cache. The loads of
// one step do not depend on each other, so their misses overlap
// instead of following one another.
func (s *Store) RecordsByNum(_ context.Context, nums []uint64) ([][]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	out := make([][]byte, len(nums))
	ats := make([]uint64, len(nums))
	for i, n := range nums {
		ats[i] = gone
		if n != 0 && n <= uint64(s.docs.n) {
			ats[i] = *s.docs.at(uint32(n))
		}
	}
	var sum byte
	for _, at := range ats {
		if at == gone {
			continue
		}
		chunk, off, idLen := unpack(at)
		c := s.data.chunks[chunk][off+idLen:]
		c = c[:min(len(c), touchSpan)]
		for j := 0; j < len(c); j += 64 {
			sum += c[j]
		}
		sum += c[len(c)-1]
	}
	runtime.KeepAlive(sum)
	for i, at := range ats {
		if at != gone {
			_, out[i] = s.entryAt(at)
		}
	}
	return out, nil
}

// touchSpan is how far into an entry (from the end of its ID)
// RecordsByNum loads every cache line: the length and head of a lean
// record of the default analysis (at most 61 bytes) and the first 128
// values of its confirmation sketch, which is what index's in-place
// filter reads of most records (the rest of the record, about 130
// bytes, it reads of a few).
const touchSpan = 192

// Nums implements index.NumberedRecords.
func (s *Store) Nums(_ context.Context, ids []string) ([]uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	out := make([]uint64, len(ids))
	for i, id := range ids {
		out[i] = uint64(s.lookup(id))
	}
	return out, nil
}

var _ index.NumberedRecords = (*Store)(nil)

// Apply implements index.Store. The store keeps copies of the IDs and
// records: a caller's ID is often a slice of a much larger input line,
// which the store would otherwise keep alive. It drops the postings of
// a write without a record (index.Store allows either).
func (s *Store) Apply(_ context.Context, b *index.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	for i := range b.Writes {
		w := &b.Writes[i]
		if err := index.CheckID(w.ID); err != nil {
			return fmt.Errorf("index: memory: write %d: %w", i, err)
		}
		if uint64(len(w.Record)) > 1<<32-1-uint64(len(w.ID)) {
			return fmt.Errorf("index: memory: write %d (id %q): record of %d bytes: want below 4 GB", i, w.ID, len(w.Record))
		}
		for _, k := range w.Keys {
			if k.Kind == index.KindTable && (k.Bits > 64 || k.Bits < 64 && k.Value>>k.Bits != 0) {
				return fmt.Errorf("index: memory: write %d (id %q): table key %v: value wider than its %d bits", i, w.ID, k, k.Bits)
			}
		}
	}
	err := s.applyWrites(b)
	// The postings of the writes applied, even when one failed: their
	// documents are in the store.
	s.applyLists()
	return err
}

// applyWrites stores the documents of b's writes, in order, and queues
// their postings' changes on their lists (applyLists makes them). It
// stops at the first write that fails. s.mu is held.
func (s *Store) applyWrites(b *index.Batch) error {
	for i := range b.Writes {
		w := &b.Writes[i]
		n := s.lookup(w.ID)
		if n != 0 {
			for _, k := range w.OldKeys {
				s.queue(k, n, true)
			}
			s.removeID(n)
			*s.docs.at(n) = gone
			s.live--
			s.dels++
		}
		if w.Record == nil {
			continue
		}
		if s.docs.n >= 1<<32-1 || len(s.data.chunks) >= maxChunks {
			return fmt.Errorf("index: memory: write %d (id %q): the store holds its most documents, %d", i, w.ID, s.docs.n)
		}
		rec := w.Record
		if s.lean {
			var err error
			if s.buf, err = index.BatchRecord(s.buf[:0], rec, w.ID); err != nil {
				return fmt.Errorf("index: memory: write %d: %w", i, err)
			}
			rec = s.buf
			// The record's fingerprint is the write's: the slot's
			// postings take it from the record (see fingerprintAt).
			if fp := binary.BigEndian.Uint64(rec[1:9]); fp != uint64(w.Fingerprint) {
				return fmt.Errorf("index: memory: write %d (id %q): the record's fingerprint is %016x, the write's %016x", i, w.ID, fp, uint64(w.Fingerprint))
			}
		}
		var pre []byte
		if !s.lean {
			pre = binary.BigEndian.AppendUint64(s.pre[:0], uint64(w.Fingerprint))
		}
		c, off := s.data.add(pre, w.ID, rec)
		n = s.docs.add(pack(c, off, len(w.ID)))
		s.insertID(n)
		s.live++
		for _, k := range w.Keys {
			s.queue(k, n, false)
		}
	}
	return nil
}

// parallelOps is the fewest postings' changes an Apply spreads over the
// cores: fewer (a service's single document) are made in its goroutine.
const parallelOps = 1024

// keptOps is the most changes a list's queue keeps room for between
// Applies: a batch of dedup's (256 documents) reuses it, a bulk load's
// does not keep its room.
const keptOps = 4096

// applyLists makes the changes queued on the lists, and merges those
// whose recent postings are due. The lists are independent, so that
// they are changed on every core, each list's changes in order: at
// 10^6 documents the merges and the recent tables' adds were 5 µs of
// a document's CPU, in one goroutine, beside the engine, which bound
// the speed of a dedup on many cores (bench/README.md). The
// documents' slots and records, which the merges read, do not change
// meanwhile. s.mu is held.
func (s *Store) applyLists() {
	busy := s.busy
	defer func() {
		clear(busy)
		s.busy = busy[:0]
	}()
	ops := 0
	for _, l := range busy {
		ops += len(l.ops)
	}
	if ops < parallelOps {
		for _, l := range busy {
			s.applyList(l)
		}
		return
	}
	ctx := pprof.WithLabels(context.Background(), pprof.Labels(index.ProfileLabel, "parallel"))
	workers.Each(ctx, len(busy), func(i int) { s.applyList(busy[i]) })
}

// applyList makes the changes queued on l, in order, and merges its
// recent postings when they are due. It touches nothing of the store
// but l and, in a merge, the page pool (which locks), so that lists
// are applied concurrently. s.mu is held.
func (s *Store) applyList(l *list) {
	for _, op := range l.ops {
		switch {
		case op.del && l.run != nil:
			l.run.remove(op.v, op.n)
		case op.del:
			l.table.remove(op.v, op.n)
		case l.run != nil:
			l.run.add(op.v, op.n) // Apply checked that it has at most runBits bits
		default:
			l.table.add(op.v, op.n)
		}
	}
	if cap(l.ops) > keptOps {
		l.ops = nil // a large Apply's: not kept for the next
	} else {
		l.ops = l.ops[:0]
	}
	var full bool
	var runLen int
	if l.run != nil {
		full, runLen = l.run.full(), len(l.run.docs)
	} else {
		full, runLen = l.table.full(), l.table.len()
	}
	if !full {
		return
	}
	// The run holds at most s.dels-l.purged postings of deleted
	// documents: purged when they may be an eighth of it.
	var gone func(uint32) bool
	if d := s.dels - l.purged; d > 0 && 8*d >= int64(runLen) {
		gone, l.purged = s.deleted, s.dels
	}
	if l.run != nil {
		l.run.merge(gone, s.fingerprint)
	} else {
		l.table.merge(gone)
	}
}

// queue queues the change of document n's posting under k, added or
// (del) removed, on k's list, made if it is added to and there is
// none. s.mu is held.
func (s *Store) queue(k index.Key, n uint32, del bool) {
	lk := listKey{k.Kind, k.Table, k.Bits}
	l := s.listOf(lk)
	if l == nil {
		if del {
			return
		}
		l = &list{}
		if k.Kind == index.KindTable && k.Bits <= runBits {
			l.run = newKeyRun(k.Bits)
		} else {
			l.table.pool = &s.pages
		}
		s.lists[lk] = l
	}
	s.listCache[lk.at()] = listEntry{lk, l}
	if len(l.ops) == 0 {
		s.busy = append(s.busy, l)
	}
	l.ops = append(l.ops, listOp{k.Value, n, del})
}

// Claim implements index.Store.
func (s *Store) Claim(_ context.Context, values map[string][]byte) (map[string][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	out := make(map[string][]byte, len(values))
	for name, v := range values {
		if _, ok := s.meta[name]; !ok {
			s.meta[name] = slices.Clone(v)
		}
		out[name] = slices.Clone(s.meta[name])
	}
	return out, nil
}

// Stats implements index.Store.
func (s *Store) Stats(context.Context) (index.StoreStats, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return index.StoreStats{}, errClosed
	}
	return index.StoreStats{Docs: s.live}, nil
}

// Close releases the store's memory. Later calls fail.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.data, s.docs, s.ids, s.lists, s.meta, s.listCache = arena{}, slots{}, idTable{}, nil, nil, [64]listEntry{}
	s.pages.free, s.pages.spare, s.pages.blocks = nil, nil, 0
	return nil
}

// ScanRecords implements index.RecordScanner. The store's writes wait
// while it runs.
func (s *Store) ScanRecords(ctx context.Context, fn func(id string, rec []byte) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return errClosed
	}
	for n := uint32(1); int(n) <= s.docs.n; n++ {
		if s.deleted(n) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(s.entry(n)); err != nil {
			return err
		}
	}
	return nil
}
