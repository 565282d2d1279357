package index

import (
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/simhash"
)

// local is the Shared of a store that one process owns (memstore,
// badgerstore): Ingest's protocol, run in memory beside the store. A
// document AppendRead writes is numbered from a counter, filed under its
// keys in an overlay of posting lists and given a state; it reaches the
// store only when Decide decides it, with its final record, in one
// Apply. So the store holds decided documents only, and a process killed
// mid-way leaves no undecided document behind: a record there without a
// state in the overlay is decided already, an original unless it names
// its cluster (Doc.Original).
//
// The overlay keeps every document written since the last moment no
// Ingest was running (begin, end): the documents an Ingest saw keep
// their numbers and states until it returns, then are forgotten, found
// again in the store as stateless decided documents.
//
// Numbers: written documents count up from firstFresh; a stateless
// document of the store that a write sees gets a number below it, lower
// than every written one, in no particular order (only being below
// matters: the decisions order matches by Similar's order, not by
// number). In a store whose postings carry its own numbers
// (NumberedRecords: memstore) that number is the store's, below
// firstLow, the same each time the document is seen, and Ingest reads
// the record under it; in the others it is a new one from firstLow up
// each time the document is seen.
//
// The overlay's posting lists are in one shard per core (rounded up to
// a power of 2), which AppendRead fills at once, a goroutine a shard,
// each list in number order: the part of a write that is serial is
// numbering it, so that many cores file many writes.
type local struct {
	x  *Index
	st Store
	nr NumberedRecords // st, if it is one

	mu   sync.Mutex
	next uint64        // the next written document's number
	low  atomic.Uint64 // the next stateless document's number
	byID map[string]uint64
	docs map[uint64]*ldoc
	// lists are the overlay's postings, in number order, in shards by
	// key (shard), which AppendRead fills on every core.
	lists  []listTable
	active int // Ingest calls running
	// pending counts the written documents pending (not decided, not
	// gone): forget keeps the overlay while there are any.
	pending int
	unsent  []Write // decided, to store when an Ingest ends
	// sent is the Writes of the store write running, spare those of one
	// done, cleared, for unsent to reuse (l.mu).
	sent, spare []Write

	// smu is held while the decided documents are stored: an Ingest
	// that ends finds its documents stored, by itself or by another.
	smu sync.Mutex
	// writing is the store write a deferred Ingest left running (see
	// end), nil when none is; it sends the write's error.
	writing chan error
}

// firstFresh is the first number of a written document: below it are
// the stateless documents seen. Below firstLow are the store's own
// numbers (Posting.Num), from firstLow up the numbers local hands out
// to the others.
const (
	firstFresh = 1 << 40
	firstLow   = 1 << 33
)

// storeNum reports whether n is the number of a stateless document by
// the store's own numbering (Posting.Num).
func storeNum(n uint64) bool { return n != 0 && n < firstLow }

// lkey is a Key as the overlay's table of lists holds it: 16 bytes.
type lkey [2]uint64

func lkeyOf(k Key) lkey {
	return lkey{uint64(k.Kind) | uint64(k.Table)<<8 | uint64(k.Bits)<<16, k.Value}
}

// hash spreads the bits of k over a listTable (a table key's value is
// a few bits of a fingerprint, and the shard's are the same).
func (k lkey) hash() uint64 {
	h := k[1] ^ k[0]*0x9e3779b97f4a7c15
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// listTable is one shard of the overlay's lists by key: open addressing
// with linear probing, at most half full, of 32 bits of each key's hash
// and the place of its list in ls, which holds the lists, with their
// keys, in the order they were made. Its slots are 8 bytes, where a Go
// map's would hold the key and the list (48 bytes): the slots of a
// batch of writes' keys stay in the cache, and a key not filed yet (most
// of them) is told from the others there. at finds a key's list or
// makes an empty one in one probe, where a map takes two (a read, then
// a write).
type listTable struct {
	slots []lslot // len a power of two
	ls    []lentry
}

// lslot is a slot of a listTable: the top 32 bits of a key's hash and
// 1 + the place of its list in ls, 0 when the slot is empty.
type lslot struct {
	tag, i uint32
}

// lentry is a list of a listTable and its key.
type lentry struct {
	k lkey
	l llist
}

// find returns the slot of k, or the empty slot where it goes.
func (t *listTable) find(k lkey) *lslot {
	h := k.hash()
	tag, mask := uint32(h>>32), uint64(len(t.slots)-1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := &t.slots[i]
		if e.i == 0 || e.tag == tag && t.ls[e.i-1].k == k {
			return e
		}
	}
}

// get returns the list under k, empty when there is none.
func (t *listTable) get(k lkey) llist {
	if len(t.ls) == 0 {
		return llist{}
	}
	if e := t.find(k); e.i != 0 {
		return t.ls[e.i-1].l
	}
	return llist{}
}

// at returns the list under k, for the caller to file a document in; an
// empty one, made, when there is none. The pointer is good until the
// next at.
func (t *listTable) at(k lkey) *llist {
	if 2*(len(t.ls)+1) > len(t.slots) {
		t.grow()
	}
	e := t.find(k)
	if e.i == 0 {
		t.ls = append(t.ls, lentry{k: k})
		*e = lslot{uint32(k.hash() >> 32), uint32(len(t.ls))}
	}
	return &t.ls[e.i-1].l
}

// grow doubles the table's slots.
func (t *listTable) grow() {
	t.slots = make([]lslot, max(1024, 2*len(t.slots)))
	mask := uint64(len(t.slots) - 1)
	for j := range t.ls {
		h := t.ls[j].k.hash()
		i := h & mask
		for t.slots[i].i != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = lslot{uint32(h >> 32), uint32(j + 1)}
	}
}

// reset empties the table, keeping its slots.
func (t *listTable) reset() {
	if len(t.ls) == 0 {
		return
	}
	clear(t.slots)
	clear(t.ls)
	t.ls = t.ls[:0]
}

// llist is one posting list of the overlay, in number order: its first
// document inline (most lists hold one), the others in more.
type llist struct {
	first *ldoc
	more  []*ldoc
}

// docs returns the list's documents: first, then more.
func (p *llist) docs(yield func(*ldoc) bool) {
	if p.first == nil || !yield(p.first) {
		return
	}
	for _, d := range p.more {
		if !yield(d) {
			return
		}
	}
}

// has reports whether a document of the list has the ID id.
func (p *llist) has(id string) bool {
	for d := range p.docs {
		if d.id == id {
			return true
		}
	}
	return false
}

// with returns the list with d added, last.
func (p llist) with(d *ldoc) llist {
	if p.first == nil {
		p.first = d
	} else {
		p.more = append(p.more, d)
	}
	return p
}

// ldoc is one document of the overlay.
type ldoc struct {
	num     uint64
	id      string
	status  Status
	markers []uint64
	// w is the write of a document written here (its record the
	// decided one once decided); nil for a stateless document.
	w *Write
	// gone: abandoned (its writer failed) or dropped (a duplicate not
	// kept): never stored, nothing under its number.
	gone bool
}

var _ Shared = (*local)(nil)

func newLocal(x *Index, st Store) *local {
	l := &local{x: x, st: st, next: firstFresh}
	l.nr, _ = st.(NumberedRecords)
	shards := 1 // a power of 2, for shard's mask
	for shards < runtime.GOMAXPROCS(0) {
		shards *= 2
	}
	l.lists = make([]listTable, shards)
	l.byID, l.docs = map[string]uint64{}, map[uint64]*ldoc{}
	l.reset()
	return l
}

func (l *local) reset() {
	clear(l.byID)
	clear(l.docs)
	for i := range l.lists {
		l.lists[i].reset()
	}
	l.low.Store(firstLow)
}

// shard returns the number of the shard of l.lists that holds the list
// under k: by the low bits of its value (a hash, or bits of a
// fingerprint) and its table.
func (l *local) shard(k Key) int {
	return int((k.Value ^ uint64(k.Table)) & uint64(len(l.lists)-1))
}

// list returns the overlay's list under k. l.mu is held.
func (l *local) list(k Key) llist {
	return l.lists[l.shard(k)].get(lkeyOf(k))
}

// begin and end bracket an Ingest. end stores the documents decided
// meanwhile (in one Apply: the store holds, in the order of the Ingest
// calls, whole calls' decisions), or, for a deferred Ingest, starts
// storing them and returns, the write running on until the next begin,
// end or flush. The overlay is forgotten at a begin or end when no
// other Ingest runs and no write is left running: every document in it
// is decided and stored, or gone.
func (l *local) begin(ctx context.Context) error {
	if err := l.wait(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active == 0 && l.writing == nil && len(l.unsent) == 0 {
		l.forget()
	}
	l.active++
	return nil
}

func (l *local) end(ctx context.Context, deferred bool) error {
	var err error
	if deferred {
		err = l.storeBeside(ctx)
	} else {
		err = l.store(ctx)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active--
	if err == nil && l.active == 0 && l.writing == nil && len(l.unsent) == 0 {
		l.forget()
	}
	return err
}

// storeBeside starts storing the decided documents not stored yet, in
// a goroutine, once the write started before is done.
func (l *local) storeBeside(ctx context.Context) error {
	l.smu.Lock()
	defer l.smu.Unlock()
	b, err := l.takeUnsent()
	if b == nil || err != nil {
		return err
	}
	done := make(chan error, 1)
	l.writing = done
	go func() {
		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(ProfileLabel, "write")))
		done <- l.st.Apply(context.WithoutCancel(ctx), b)
	}()
	return nil
}

// takeUnsent waits for the write started before, if any, and takes the
// decided documents not stored yet as a Batch (nil when there are none).
// l.smu is held.
func (l *local) takeUnsent() (*Batch, error) {
	if l.writing != nil {
		err := <-l.writing
		l.writing = nil
		l.done()
		if err != nil {
			return nil, err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.unsent) == 0 {
		return nil, nil
	}
	b := &Batch{Writes: l.unsent}
	l.sent, l.unsent, l.spare = l.unsent, l.spare, nil
	return b, nil
}

// done notes that the store write of l.sent is done: its Writes are
// spare, for the next decisions. l.smu is held.
func (l *local) done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.sent)
	if l.spare == nil {
		l.spare = l.sent[:0]
	}
	l.sent = nil
}

// wait waits for the write a deferred Ingest left running, if any, and
// returns its error.
func (l *local) wait() error {
	l.smu.Lock()
	defer l.smu.Unlock()
	if l.writing == nil {
		return nil
	}
	err := <-l.writing
	l.writing = nil
	l.done()
	return err
}

// flush stores what deferred Ingests left to store.
func (l *local) flush(ctx context.Context) error {
	if err := l.wait(); err != nil {
		return err
	}
	return l.store(ctx)
}

// forget resets the overlay, unless a document written outside an
// Ingest (a test of the protocol) is pending there. l.mu is held.
func (l *local) forget() {
	if l.pending == 0 {
		l.reset()
	}
}

// store stores the decided documents not stored yet.
func (l *local) store(ctx context.Context) error {
	l.smu.Lock()
	defer l.smu.Unlock()
	b, err := l.takeUnsent()
	if b == nil || err != nil {
		return err
	}
	err = l.st.Apply(ctx, b)
	l.done()
	return err
}

// abandon gives up the pending documents among nums (their Ingest
// failed): never stored, they count as duplicates for whoever waits for
// them.
func (l *local) abandon(nums []uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range nums {
		if d := l.docs[n]; d != nil && d.w != nil && d.status == StatusPending {
			d.status, d.gone = StatusDuplicate, true
			l.pending--
			delete(l.byID, d.id)
		}
	}
}

// Postings implements Store: the store's postings and the overlay's
// (documents written here, decided or not, that the store may not hold
// yet).
func (l *local) Postings(ctx context.Context, keys []Key) ([][]Posting, error) {
	ps, err := l.st.Postings(ctx, keys)
	return l.overlay(keys, ps, err)
}

// PostingsNear implements NearPostings: the store's postings near fps
// (see NearPostings) and the overlay's.
func (l *local) PostingsNear(ctx context.Context, keys []Key, fps []simhash.Fingerprint, k int) ([][]Posting, error) {
	ps, err := postingsNear(ctx, l.st, keys, fps, k)
	return l.overlay(keys, ps, err)
}

// overlay adds to the store's postings ps under keys the overlay's.
func (l *local) overlay(keys []Key, ps [][]Posting, err error) ([][]Posting, error) {
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, k := range keys {
		filed := l.list(k)
		for d := range filed.docs {
			if d.gone || slices.ContainsFunc(ps[i], func(p Posting) bool { return p.ID == d.id }) {
				continue
			}
			ps[i] = append(ps[i], Posting{ID: d.id, Fingerprint: fingerprintUnder(k, d.w)})
		}
	}
	return ps, nil
}

// fingerprintUnder is the fingerprint of w's posting under k: set in
// table lists only.
func fingerprintUnder(k Key, w *Write) (fp simhash.Fingerprint) {
	if k.Kind == KindTable {
		fp = w.Fingerprint
	}
	return fp
}

// Records implements Store: the overlay's records first.
func (l *local) Records(ctx context.Context, ids []string) ([][]byte, error) {
	return l.records(ctx, ids, nil)
}

// records is Records for the documents ids, seen under the numbers nums
// (nil: not known). A document seen under a stateless number (below
// firstFresh: see before and Reappend) has its record in the store, not
// in the overlay's writes, so it is read there without a lookup in the
// overlay: a batch's candidates are mostly such documents; under the
// store's own number (storeNum), it is read by that number.
func (l *local) records(ctx context.Context, ids []string, nums []uint64) ([][]byte, error) {
	out := make([][]byte, len(ids))
	var rest []string
	var at []int
	var byNum []uint64
	var byNumAt []int
	l.mu.Lock()
	for i, id := range ids {
		if nums != nil && l.nr != nil && storeNum(nums[i]) {
			byNum = append(byNum, nums[i])
			byNumAt = append(byNumAt, i)
			continue
		}
		if nums != nil && nums[i] >= firstFresh {
			// A written document, found by its number.
			if d := l.docs[nums[i]]; d != nil && d.w != nil && !d.gone && d.id == id {
				out[i] = d.w.Record
				continue
			}
		}
		if nums != nil && nums[i] < firstFresh && nums[i] != 0 {
			rest = append(rest, id)
			at = append(at, i)
			continue
		}
		if n, ok := l.byID[id]; ok {
			if d := l.docs[n]; d.w != nil {
				out[i] = d.w.Record
				continue
			}
		}
		rest = append(rest, id)
		at = append(at, i)
	}
	l.mu.Unlock()
	// The store's, readChunk × 4 at a time on every core: by number
	// (their slots and records are cache misses), then by ID.
	const chunk = 4 * readChunk
	numChunks := (len(byNum) + chunk - 1) / chunk
	chunks := numChunks + (len(rest)+chunk-1)/chunk
	errs := make([]error, chunks)
	parallelChunks(chunks, func(c int) {
		var recs [][]byte
		var err error
		var to []int
		if c < numChunks {
			lo, hi := c*chunk, min(len(byNum), (c+1)*chunk)
			recs, err = l.nr.RecordsByNum(ctx, byNum[lo:hi])
			to = byNumAt[lo:hi]
		} else {
			lo, hi := (c-numChunks)*chunk, min(len(rest), (c-numChunks+1)*chunk)
			recs, err = l.st.Records(ctx, rest[lo:hi])
			to = at[lo:hi]
		}
		if err != nil {
			errs[c] = err
			return
		}
		for j, r := range recs {
			out[to[j]] = r
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Apply, Claim, Stats and Close implement Store: the store's.
func (l *local) Apply(ctx context.Context, b *Batch) error { return l.st.Apply(ctx, b) }

func (l *local) Claim(ctx context.Context, v map[string][]byte) (map[string][]byte, error) {
	return l.st.Claim(ctx, v)
}

func (l *local) Stats(ctx context.Context) (StoreStats, error) { return l.st.Stats(ctx) }

func (l *local) Close() error { return l.st.Close() }

// storeView is what a write needs from the store, read before the
// overlay is locked: its record (to refuse a taken ID) and the postings
// under its keys.
type storeView struct {
	recs [][]byte
	ps   [][][]Posting
}

// read reads the store's view of ws, readChunk writes at a time on
// every core.
func (l *local) read(ctx context.Context, ws []Write) (*storeView, error) {
	v := &storeView{recs: make([][]byte, len(ws)), ps: make([][][]Posting, len(ws))}
	chunks := (len(ws) + readChunk - 1) / readChunk
	errs := make([]error, chunks)
	parallelChunks(chunks, func(c int) {
		ws := ws[c*readChunk : min(len(ws), (c+1)*readChunk)]
		ids := make([]string, len(ws))
		n := 0
		for i := range ws {
			n += len(ws[i].Keys)
		}
		keys, fps := make([]Key, 0, n), make([]simhash.Fingerprint, 0, n)
		for i := range ws {
			ids[i] = ws[i].ID
			keys = append(keys, ws[i].Keys...)
			for range ws[i].Keys {
				fps = append(fps, ws[i].Fingerprint)
			}
		}
		recs, err := l.st.Records(ctx, ids)
		if err != nil {
			errs[c] = err
			return
		}
		// Ingest keeps table postings within its distance, at most
		// the layout's.
		var all [][]Posting
		if l.x.layout != nil {
			all, err = postingsNear(ctx, l.st, keys, fps, l.x.layout.maxDist)
		} else {
			all, err = l.st.Postings(ctx, keys)
		}
		if err != nil {
			errs[c] = err
			return
		}
		copy(v.recs[c*readChunk:], recs)
		for i := range ws {
			ps := all[:len(ws[i].Keys)]
			all = all[len(ws[i].Keys):]
			for j := range ps {
				if recs[i] == nil {
					break // no record: no posting of its own
				}
				// The write's own posting (a write stored before) is
				// not before it: left out here, on every core, rather
				// than compared under the lock.
				ps[j] = slices.DeleteFunc(ps[j], func(p Posting) bool { return p.ID == ws[i].ID })
			}
			v.ps[c*readChunk+i] = ps
		}
		if l.nr != nil && l.x.layout != nil {
			l.x.dropUnconfirmableRead(ctx, l.nr, ws, v.ps[c*readChunk:c*readChunk+len(ws)], l.x.layout.maxDist)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return v, nil
}

// readChunk is how many writes read goes through in one read of the
// store.
const readChunk = 16

// before returns the postings under k, whose overlay list is filed
// (a few documents at most), that precede number n, the write id: the
// store's stateless documents (stored, from read, which left id's own
// out) and the overlay's documents below n. A stateless
// document gets a number below the written ones, a new one each time
// it is seen (States knows no state under it: an archived document),
// so that seeing it costs no lookup. l.mu is held.
func (l *local) before(k Key, filed *llist, stored []Posting, id string, n uint64) []Earlier {
	var out []Earlier
	for _, p := range stored {
		if filed.has(p.ID) {
			continue // in the overlay (stored since): below
		}
		num := p.Num
		if l.nr == nil || !storeNum(num) {
			num = l.low.Add(1) - 1
		}
		out = append(out, Earlier{Num: num, ID: p.ID, Fingerprint: p.Fingerprint})
	}
	for d := range filed.docs {
		if d.num >= n {
			break
		}
		if d.gone || d.id == id {
			continue
		}
		out = append(out, Earlier{Num: d.num, ID: d.id, Fingerprint: fingerprintUnder(k, d.w)})
	}
	return out
}

// AppendRead implements Shared: the writes go to the overlay, not to
// the store (Decide stores them).
func (l *local) AppendRead(ctx context.Context, ws []Write) ([]Appended, error) {
	for i := range ws {
		if ws[i].Replaces || ws[i].Record == nil {
			return nil, fmt.Errorf("index: %s: append-read: write %d: only new documents", l.x.name, i)
		}
		if err := CheckID(ws[i].ID); err != nil {
			return nil, fmt.Errorf("index: %s: append-read: write %d: %w", l.x.name, i, err)
		}
	}
	v, err := l.read(ctx, ws)
	if err != nil {
		return nil, err
	}
	out := make([]Appended, len(ws))
	docs := make([]*ldoc, len(ws))
	// The writes' documents, their Writes and their lists of what came
	// before, in one slab each, made before the lock.
	nkeys := 0
	for i := range ws {
		nkeys += len(ws[i].Keys)
	}
	befores := make([][]Earlier, nkeys)
	slab := make([]ldoc, len(ws))
	wslab := make([]Write, len(ws))
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range ws {
		w := &ws[i]
		nk := len(w.Keys)
		kb := befores[:nk:nk]
		befores = befores[nk:]
		if n, ok := l.byID[w.ID]; (ok && !l.docs[n].gone) || v.recs[i] != nil {
			continue
		}
		n := l.next
		l.next++
		out[i].Num = n
		out[i].Before = kb
		docs[i] = l.file(&slab[i], &wslab[i], n, w)
	}
	l.fileKeys(ws, docs, v.ps, out)
	return out, nil
}

// fileKeys files the new documents docs (nil: a write not written) of
// ws under their keys, in number order, noting in out what came before
// each under each key (before, given the store's postings ps): each
// shard of the lists in a goroutine of its own, so that the lists are
// filled on every core and each list in number order. l.mu is held.
func (l *local) fileKeys(ws []Write, docs []*ldoc, ps [][][]Posting, out []Appended) {
	spread(len(l.lists), func(s int) {
		lists := &l.lists[s]
		for i, d := range docs {
			if d == nil {
				continue
			}
			for j, k := range ws[i].Keys {
				if l.shard(k) != s {
					continue
				}
				// One probe for the list serves both: what came before
				// d under k, and d filed after it.
				filed := lists.at(lkeyOf(k))
				out[i].Before[j] = l.before(k, filed, ps[i][j], d.id, d.num)
				*filed = filed.with(d)
			}
		}
	})
}

// file adds the write w, number n, to the overlay, pending, as d (its
// write copied to dw), and returns d; the caller files it under its
// keys. l.mu is held.
func (l *local) file(d *ldoc, dw *Write, n uint64, w *Write) *ldoc {
	// The record and keys are the caller's (Ingest's own, fresh): kept,
	// not copied.
	*dw = Write{ID: w.ID, Record: w.Record, Fingerprint: w.Fingerprint, Keys: w.Keys}
	*d = ldoc{num: n, id: w.ID, status: StatusPending, w: dw}
	l.pending++
	l.docs[n] = d
	l.byID[d.id] = n
	return d
}

// Reappend implements Shared. A document of the overlay keeps its
// number. One the store holds is decided (the store holds only what
// Decide stored, or what was archived otherwise; an AppendRead is never
// cut short in one process): it gets a number below the written ones
// and its state from its record, a duplicate when the record names its
// cluster, else an original, and nothing before it (the store is not
// read: a run repeated reads its records only).
func (l *local) Reappend(ctx context.Context, ws []Write) ([]Appended, error) {
	// The overlay's documents need their postings; the others, their
	// records alone.
	l.mu.Lock()
	var filed []Write
	var at []int
	for i := range ws {
		if n, ok := l.byID[ws[i].ID]; ok && l.docs[n].w != nil && !l.docs[n].gone {
			filed, at = append(filed, ws[i]), append(at, i)
		}
	}
	l.mu.Unlock()
	v := &storeView{ps: make([][][]Posting, len(ws))}
	fv, err := l.read(ctx, filed)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		v.ps[i] = fv.ps[j]
	}
	ids := make([]string, len(ws))
	for i := range ws {
		ids[i] = ws[i].ID
	}
	if v.recs, err = l.st.Records(ctx, ids); err != nil {
		return nil, err
	}
	out := make([]Appended, len(ws))
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range ws {
		w := &ws[i]
		n, ok := l.byID[w.ID]
		if ok && l.docs[n].w != nil && !l.docs[n].gone {
			out[i].Num = n
			out[i].Before = make([][]Earlier, len(w.Keys))
			for j, k := range w.Keys {
				var stored []Posting
				if v.ps[i] != nil { // filed meanwhile: its stateless predecessors not read
					stored = v.ps[i][j]
				}
				filed := l.list(k)
				out[i].Before[j] = l.before(k, &filed, stored, w.ID, n)
			}
			continue
		}
		if v.recs[i] == nil {
			return nil, fmt.Errorf("index: %s: reappend %q: %w", l.x.name, w.ID, ErrNotFound)
		}
		doc, err := l.x.decode(w.ID, v.recs[i], false)
		if err != nil {
			return nil, err
		}
		if !ok {
			n = l.low.Add(1) - 1
			l.byID[w.ID] = n
			l.docs[n] = &ldoc{num: n, id: w.ID}
		}
		d := l.docs[n]
		d.status = StatusOriginal
		if doc.Original != "" {
			d.status = StatusDuplicate
		}
		out[i].Num = n
		out[i].Before = make([][]Earlier, len(w.Keys)) // decided: what came before does not matter
	}
	return out, nil
}

// state is d's State. l.mu is held.
func (d *ldoc) state() State {
	switch {
	case d == nil:
		return State{}
	case d.gone:
		return State{Status: StatusDuplicate}
	}
	return State{ID: d.id, Status: d.status, Markers: slices.Clone(d.markers)}
}

// States implements Shared. A number this process no longer knows (or
// never handed out) resolves to no document.
func (l *local) States(_ context.Context, nums []uint64) ([]State, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]State, len(nums))
	for i, n := range nums {
		out[i] = l.docs[n].state()
	}
	return out, nil
}

// Mark implements Shared.
func (l *local) Mark(_ context.Context, marks []Mark) ([]State, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]State, len(marks))
	for i, m := range marks {
		d := l.docs[m.Target]
		if d != nil && !d.gone && d.status == StatusPending && !slices.Contains(d.markers, m.By) {
			d.markers = append(d.markers, m.By)
		}
		out[i] = d.state()
		out[i].ID = "" // as a shared store answers: the state alone
	}
	return out, nil
}

// Decide implements Shared: the decided documents are stored when the
// Ingest that decides them ends (at once outside an Ingest), their
// states changed at once: in one process, whoever reads them reads the
// records from the overlay until then. A dropped duplicate is never
// stored.
func (l *local) Decide(ctx context.Context, ds []Decision) ([]State, error) {
	out := make([]State, len(ds))
	l.mu.Lock()
	for i, dc := range ds {
		d := l.docs[dc.Num]
		if d == nil {
			// No document: nothing to decide or store.
			out[i].Status = StatusDuplicate
			if dc.Original {
				out[i].Status = StatusOriginal
			}
			continue
		}
		if d.w == nil || d.gone || d.status != StatusPending {
			out[i] = d.state()
			out[i].ID = ""
			continue
		}
		switch {
		case dc.Original && !allIn(d.markers, dc.Dead):
			// A marker not known dead: still pending.
		case dc.Original:
			d.status = StatusOriginal
			l.pending--
			l.unsent = append(l.unsent, *d.w)
		default:
			d.status = StatusDuplicate
			l.pending--
			if dc.Record != nil {
				d.w.Record = slices.Clone(dc.Record)
				if dc.Keys != nil {
					d.w.Keys = slices.Clone(dc.Keys)
				}
			}
			if dc.Drop {
				d.gone = true
				delete(l.byID, d.id)
			} else {
				l.unsent = append(l.unsent, *d.w)
			}
		}
		out[i] = d.state()
		out[i].ID = ""
	}
	idle := l.active == 0
	l.mu.Unlock()
	if idle {
		// Not within an Ingest (a test of the protocol): stored now.
		if err := l.store(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// allIn reports whether every one of nums is in set.
func allIn(nums, set []uint64) bool {
	for _, n := range nums {
		if !slices.Contains(set, n) {
			return false
		}
	}
	return true
}

// InProcess returns the Shared that an Index over s uses when s is not
// a Shared itself (a store one process owns): Ingest's protocol run
// beside s in this process. The store conformance suite tests it on
// such stores; an Index makes its own, so use it only through one.
func InProcess(s Store) Shared {
	if sh, ok := s.(Shared); ok {
		return sh
	}
	return newLocal(&Index{store: s, name: storeName(s)}, s)
}

// SharedStore reports whether x's store is shared by several processes
// (a Shared of its own, such as redisstore), rather than owned by this
// one: the decisions are the same, but other writers wait for this
// one's, so writers decide in smaller batches.
func (x *Index) SharedStore() bool {
	_, ok := x.sh.(*local)
	return !ok
}

// Flush waits until the decisions of Ingest calls made with
// IngestOptions.Deferred are stored, and returns the error of storing
// them. Close flushes too.
func (x *Index) Flush(ctx context.Context) error {
	if l, ok := x.sh.(*local); ok {
		return l.flush(ctx)
	}
	return nil
}
