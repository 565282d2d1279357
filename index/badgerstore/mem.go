package badgerstore

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime/pprof"
	"slices"
	"sync"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore/internal/tablecheck"
	"github.com/neardup/neardup/internal/workers"
	"github.com/neardup/neardup/simhash"
)

// Postings in memory (Options.MemPostings).
//
// A posting read from Badger is a prefix seek in the memtables and in a
// table of every level of the LSM tree, and resolving its number to an
// ID a point read more: about 21 prefix reads an article and one read
// a candidate, which grew with the archive (bench/README.md). A batch
// run that owns the archive keeps, instead, a copy of the table, band
// and content postings of a numbered store, and the ID of each
// document number, in flat tables in memory: built at Open from the
// store (a sequential read of its keys, which Badger keeps sorted) and
// kept up to date by Apply once each of its transactions is committed.
// The copy is a cache of what Badger holds, never written anywhere:
// the records, and every posting, are still written to Badger, so a
// process killed at any moment loses nothing more than without it.
// Passage postings (package reuse) are read from Badger as before.
//
// A lean store's copy holds each document's record too, as Badger
// holds it (index.BatchRecord: hashes, band digests, content-set size,
// confirmation sketch, cluster; 358.5 bytes on average at 4×10^5
// documents of the scale corpus), built at Open from the 'd' keys: the
// engine reads the records of an article's candidates by number
// (index.NumberedRecords) to turn most of them down in place and to
// confirm the rest, and a point read in Badger for each, which seeks in
// every level of the LSM tree, was a fifth of the CPU of `dedup
// --index` at 4×10^5 documents (bench/README.md). A whole record,
// which can hold the text, is read from Badger.
//
// Each posting list kind (a SimHash table, a band, the content hashes)
// is one memList: sorted runs of (key value, document number), with the
// fingerprint beside them in a table's, and a map of the postings added
// since the last merge; a deleted posting's number becomes 0 in place.
// The key value is the Badger key's prefix past its kind and table
// bytes, read as a big-endian integer, so that a list answers exactly
// the prefix reads Badger would.

// memKind names one posting list kind of the memory copy: the key's
// kind, its table or band byte (0 for content keys) and the length of
// its value in bytes.
type memKind struct {
	kind  index.Kind
	table uint8
	width uint8
}

// memKindOf returns the memKind and key value of the Badger key prefix
// of k (appendPrefix), and false for a kind the copy does not keep.
func memKindOf(prefix []byte) (memKind, uint64, bool) {
	var start int
	switch index.Kind(prefix[0]) {
	case index.KindTable, index.KindBand:
		start = 2
	case index.KindContent:
		start = 1
	default:
		return memKind{}, 0, false
	}
	v := prefix[start:]
	if len(v) > 8 {
		return memKind{}, 0, false
	}
	var val uint64
	for _, b := range v {
		val = val<<8 | uint64(b)
	}
	mk := memKind{kind: index.Kind(prefix[0]), width: uint8(len(v))}
	if start == 2 {
		mk.table = prefix[1]
	}
	return mk, val, true
}

// memList is the postings of one memKind: runs sorted by value (vals,
// nums, and fps in a table's list), and the additions since they were
// merged, in an addTable.
type memList struct {
	table bool
	vals  []uint64
	fps   []uint64 // table lists only
	nums  []uint32 // 0: deleted
	dead  int      // deleted postings in the runs
	added addTable
	// mergeMin is the fewest additions merged into the runs at once
	// (more when the runs are long: an eighth of them).
	mergeMin int
	// starts[b] is where the values whose top bits (the value >> shift)
	// are b start in the runs, and starts[b+1] where they end: a value
	// is looked up in its bucket, not in the whole runs.
	starts []uint32
	shift  uint
	// ops are memPostings.apply's changes to the list, in order, until
	// it makes them.
	ops []memOp
}

// memOp is a change to a memList: the posting of document num under
// val (fp its fingerprint, for a table list), added or (del) removed.
type memOp struct {
	val, fp uint64
	num     uint32
	del     bool
}

// do makes the changes queued on l, in order.
func (l *memList) do() {
	for _, op := range l.ops {
		if op.del {
			l.remove(op.val, op.num)
		} else {
			l.add(op.val, op.fp, op.num)
		}
	}
	if cap(l.ops) > memKeptOps {
		l.ops = nil // a large write's: not kept for the next
	} else {
		l.ops = l.ops[:0]
	}
}

// addTable holds a memList's postings added since its last merge: open
// addressing with linear probing of (value, number) in 12-byte slots,
// with the fingerprint of each slot beside them in a table list's. It
// holds no pointer, so that the collector does not scan it, and makes
// no allocation a posting; a Go map of slices by value did both (111
// MB of the 1,016 MB in use 100 s into `dedup --index` of 10^6
// articles, bench/README.md "what dedup --index holds in its heap").
type addTable struct {
	slots []addSlot
	fps   []uint64 // by slot; nil in a band or content list's
	n     int
}

// addSlot is an addTable's slot: the value's low and high 32 bits and
// the document number, 0 when the slot is empty.
type addSlot struct {
	lo, hi, num uint32
}

func (e *addSlot) val() uint64 { return uint64(e.hi)<<32 | uint64(e.lo) }

// home is where the probe for val starts in t (Fibonacci hashing: a
// table list's values are block values shifted left, a band's hashes).
func (t *addTable) home(val uint64) uint64 {
	return (val * 0x9e3779b97f4a7c15) >> (64 - (bits.Len(uint(len(t.slots))) - 1))
}

// add adds the posting of num under val, with its fingerprint fp when
// table (the table's fps are kept).
func (t *addTable) add(val, fp uint64, num uint32, table bool) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow(table)
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.home(val); ; i = (i + 1) & mask {
		if e := &t.slots[i]; e.num == 0 {
			*e = addSlot{uint32(val), uint32(val >> 32), num}
			if table {
				t.fps[i] = fp
			}
			t.n++
			return
		}
	}
}

func (t *addTable) grow(table bool) {
	old, oldFps := t.slots, t.fps
	t.slots, t.n = make([]addSlot, max(64, 2*len(old))), 0
	if table {
		t.fps = make([]uint64, len(t.slots))
	}
	for i := range old {
		if e := &old[i]; e.num != 0 {
			var fp uint64
			if table {
				fp = oldFps[i]
			}
			t.add(e.val(), fp, e.num, table)
		}
	}
}

// each calls fn with the slot of each posting under val.
func (t *addTable) each(val uint64, fn func(i int)) {
	if t.n == 0 {
		return
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.home(val); t.slots[i].num != 0; i = (i + 1) & mask {
		if t.slots[i].val() == val {
			fn(int(i))
		}
	}
}

// remove deletes the posting of num under val and reports whether there
// was one: the entries after it move back so that no probe sequence is
// broken.
func (t *addTable) remove(val uint64, num uint32) bool {
	if t.n == 0 {
		return false
	}
	mask := uint64(len(t.slots) - 1)
	i := t.home(val)
	for ; t.slots[i].num != 0; i = (i + 1) & mask {
		if e := &t.slots[i]; e.num == num && e.val() == val {
			break
		}
	}
	if t.slots[i].num == 0 {
		return false
	}
	t.n--
	for j := (i + 1) & mask; t.slots[j].num != 0; j = (j + 1) & mask {
		// The entry at j may move to the hole at i unless its home lies
		// cyclically in (i, j].
		h := t.home(t.slots[j].val())
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i] = t.slots[j]
			if t.fps != nil {
				t.fps[i] = t.fps[j]
			}
			i = j
		}
	}
	t.slots[i] = addSlot{}
	return true
}

// memPost is one posting of an addTable, as a merge takes it.
type memPost struct {
	val, fp uint64
	num     uint32
}

// sorted returns the postings of t ordered by value, then number.
func (t *addTable) sorted() []memPost {
	ps := make([]memPost, 0, t.n)
	for i := range t.slots {
		if e := &t.slots[i]; e.num != 0 {
			p := memPost{val: e.val(), num: e.num}
			if t.fps != nil {
				p.fp = t.fps[i]
			}
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b memPost) int {
		if c := cmp.Compare(a.val, b.val); c != 0 {
			return c
		}
		return cmp.Compare(a.num, b.num)
	})
	return ps
}

// newMemList returns the list of a memKind whose values are width
// bytes: 2^16 buckets by their top 16 bits (fewer for narrower ones).
func newMemList(table bool, width uint8, mergeMin int) *memList {
	bits := min(16, 8*uint(width))
	return &memList{table: table, mergeMin: mergeMin, shift: 8*uint(width) - bits, starts: make([]uint32, 1<<bits+1)}
}

// index computes starts from the runs.
func (l *memList) index() {
	b := 0
	for i, v := range l.vals {
		for top := int(v >> l.shift); b <= top; b++ {
			l.starts[b] = uint32(i)
		}
	}
	for ; b < len(l.starts); b++ {
		l.starts[b] = uint32(len(l.vals))
	}
}

// first returns the index in the runs of the first posting under val,
// or where it would be.
func (l *memList) first(val uint64) int {
	top := val >> l.shift
	if top+1 >= uint64(len(l.starts)) {
		return len(l.vals)
	}
	lo, hi := int(l.starts[top]), int(l.starts[top+1])
	i, _ := slices.BinarySearch(l.vals[lo:hi], val)
	return lo + i
}

// find appends to ps the postings under val, leaving out a table
// posting more than k bits from fp when k >= 0.
func (l *memList) find(val uint64, fp simhash.Fingerprint, k, at int, ps []numPosting) []numPosting {
	for i := l.first(val); i < len(l.vals) && l.vals[i] == val; i++ {
		n := l.nums[i]
		if n == 0 {
			continue
		}
		p := numPosting{num: uint64(n), at: at}
		if l.table {
			p.fp = simhash.Fingerprint(l.fps[i])
			if k >= 0 && fp.Distance(p.fp) > k {
				continue
			}
		}
		ps = append(ps, p)
	}
	l.added.each(val, func(j int) {
		p := numPosting{num: uint64(l.added.slots[j].num), at: at}
		if l.table {
			p.fp = simhash.Fingerprint(l.added.fps[j])
			if k >= 0 && fp.Distance(p.fp) > k {
				return
			}
		}
		ps = append(ps, p)
	})
	return ps
}

// add adds the posting of num under val.
func (l *memList) add(val, fp uint64, num uint32) {
	l.added.add(val, fp, num, l.table)
	if l.added.n >= max(l.mergeMin, len(l.vals)/8) {
		l.merge()
	}
}

// remove removes the posting of num under val, if there is one.
func (l *memList) remove(val uint64, num uint32) {
	for i := l.first(val); i < len(l.vals) && l.vals[i] == val; i++ {
		if l.nums[i] == num {
			l.nums[i] = 0
			l.dead++
			return
		}
	}
	l.added.remove(val, num)
}

// merge merges the additions into the runs, dropping deleted postings.
func (l *memList) merge() {
	add := l.added.sorted()
	n := len(l.vals) - l.dead + len(add)
	vals, nums := make([]uint64, 0, n), make([]uint32, 0, n)
	var fps []uint64
	if l.table {
		fps = make([]uint64, 0, n)
	}
	j := 0
	take := func(a memPost) {
		vals, nums = append(vals, a.val), append(nums, a.num)
		if l.table {
			fps = append(fps, a.fp)
		}
	}
	for i, v := range l.vals {
		for ; j < len(add) && add[j].val < v; j++ {
			take(add[j])
		}
		if l.nums[i] == 0 {
			continue
		}
		vals, nums = append(vals, v), append(nums, l.nums[i])
		if l.table {
			fps = append(fps, l.fps[i])
		}
	}
	for ; j < len(add); j++ {
		take(add[j])
	}
	l.vals, l.nums, l.fps, l.dead = vals, nums, fps, 0
	l.added = addTable{}
	l.index()
}

// memBytes keeps a string of bytes for each document number (its ID,
// or its lean record) in chunks of bytes that are never written again
// once a string is in them, so that a string handed out pointing into
// a chunk stays valid, whatever is set or dropped later. A string
// dropped or set again leaves its old bytes behind, unused: a batch
// run replaces few documents.
type memBytes struct {
	chunks [][]byte
	at     []uint64 // by number: chunk (26 bits), offset (22), length (16); 0: none
	bytes  int64    // the bytes of the chunks written
}

const (
	memChunk   = 4 << 20
	memOffBits = 22
	memLenBits = 16
	// memMaxLen is the longest string a memBytes keeps.
	memMaxLen = 1<<memLenBits - 1
)

// place makes room for n bytes (1 to memMaxLen) as num's and returns
// them to be filled.
func (m *memBytes) place(num uint64, n int) []byte {
	last := len(m.chunks) - 1
	if last < 0 || len(m.chunks[last])+n > cap(m.chunks[last]) {
		m.chunks = append(m.chunks, make([]byte, 0, memChunk))
		last++
	}
	off := len(m.chunks[last])
	m.chunks[last] = m.chunks[last][:off+n]
	m.bytes += int64(n)
	if uint64(len(m.at)) <= num {
		m.at = slices.Grow(m.at, int(num)+1-len(m.at))[:num+1]
	}
	m.at[num] = uint64(last)<<(memOffBits+memLenBits) | uint64(off)<<memLenBits | uint64(n)
	return m.chunks[last][off : off+n : off+n]
}

// setString makes id num's string (an ID: 1 to memMaxLen bytes).
func (m *memBytes) setString(num uint64, id string) {
	copy(m.place(num, len(id)), id)
}

// set makes b num's string if it is 1 to memMaxLen bytes long, and
// reports whether it did; num has none otherwise.
func (m *memBytes) set(num uint64, b []byte) bool {
	if len(b) == 0 || len(b) > memMaxLen {
		m.drop(num)
		return false
	}
	copy(m.place(num, len(b)), b)
	return true
}

// drop forgets num's string.
func (m *memBytes) drop(num uint64) {
	if num < uint64(len(m.at)) {
		m.at[num] = 0
	}
}

// get returns num's string, nil when it has none. It points into a
// chunk, not copied, and its capacity is its length, so that appending
// to it copies.
func (m *memBytes) get(num uint64) []byte {
	if num >= uint64(len(m.at)) || m.at[num] == 0 {
		return nil
	}
	a := m.at[num]
	c, off, n := a>>(memOffBits+memLenBits), (a>>memLenBits)&(1<<memOffBits-1), a&(1<<memLenBits-1)
	return m.chunks[c][off : off+n : off+n]
}

// id returns num's string as an ID, "" when it has none, not copied.
func (m *memBytes) id(num uint64) string {
	b := m.get(num)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// memPostings is the memory copy of a numbered store's postings, IDs
// and, in a lean store, records (see above). mu guards it: Apply writes
// under it, after each of its transactions commits, and reads share it.
type memPostings struct {
	mu    sync.RWMutex
	lists map[memKind]*memList
	ids   memBytes
	// recs holds the record of each number that has an ID, as the
	// store keeps it (without the number), when keepRecs; a record
	// longer than memMaxLen is read from Badger.
	recs     memBytes
	keepRecs bool
	// stale says that a write failed after some of it may have been
	// committed: the copy no longer says what the store holds, and the
	// store reads Badger until it is built again.
	stale bool
	// mergeMin is memList.mergeMin of the lists.
	mergeMin int
	// parallelMin is the fewest changes to the lists that apply makes
	// on every core; busy holds the lists an apply changes.
	parallelMin int
	busy        []*memList
}

func newMemPostings(keepRecs bool) *memPostings {
	return &memPostings{lists: map[memKind]*memList{}, mergeMin: memMergeMin, parallelMin: memParallelOps, keepRecs: keepRecs}
}

// memMergeMin is memPostings.mergeMin: 16,384 postings (a test sets
// fewer).
const memMergeMin = 1 << 14

// memParallelOps is memPostings.parallelMin: a write of fewer changes
// (a service's single document) is applied in its goroutine (a test
// sets fewer). memKeptOps is the most changes a list's queue keeps room
// for between applies.
const (
	memParallelOps = 1024
	memKeptOps     = 4096
)

// list returns the list of mk, made if it is not there.
func (m *memPostings) list(mk memKind) *memList {
	l := m.lists[mk]
	if l == nil {
		l = newMemList(mk.kind == index.KindTable, mk.width, m.mergeMin)
		m.lists[mk] = l
	}
	return l
}

// memWrite is one write of an Apply as the memory copy needs it: its
// number before (0: none) and after (0: deleted), and its record as the
// store keeps it (lean, without the number).
type memWrite struct {
	w        *index.Write
	old, num uint64
	rec      []byte
}

// apply applies ws, committed, to the copy: the IDs and records in
// order, then each list's changes, in order, the lists on every core
// (they are independent): the copy's merges and adds were about 6 µs
// of a document's CPU in the store's write, the lane that bounds a
// dedup --index on many cores (bench/README.md).
func (m *memPostings) apply(ws []memWrite) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var prefix []byte
	ops := 0
	queue := func(k index.Key, op memOp) {
		prefix = appendPrefix(prefix[:0], k)
		mk, val, ok := memKindOf(prefix)
		if !ok {
			return
		}
		l := m.list(mk)
		if len(l.ops) == 0 {
			m.busy = append(m.busy, l)
		}
		op.val = val
		l.ops = append(l.ops, op)
		ops++
	}
	for _, mw := range ws {
		w := mw.w
		if mw.old != 0 {
			for _, k := range w.OldKeys {
				queue(k, memOp{num: uint32(mw.old), del: true})
			}
			if mw.num != mw.old {
				m.ids.drop(mw.old)
				m.recs.drop(mw.old)
			}
		}
		if mw.num == 0 {
			continue
		}
		m.ids.setString(mw.num, w.ID)
		if m.keepRecs {
			m.recs.set(mw.num, mw.rec)
		}
		for _, k := range w.Keys {
			queue(k, memOp{fp: uint64(w.Fingerprint), num: uint32(mw.num)})
		}
	}
	busy := m.busy
	if ops < m.parallelMin {
		for _, l := range busy {
			l.do()
		}
	} else {
		ctx := pprof.WithLabels(context.Background(), pprof.Labels(index.ProfileLabel, "parallel"))
		workers.Each(ctx, len(busy), func(i int) { busy[i].do() })
	}
	clear(busy)
	m.busy = busy[:0]
}

// buildMem builds the memory copy from the store: its 'n' keys, its
// table, band and content posting keys, read in key order, and in a
// lean store its records ('d' keys).
func (s *Store) buildMem() (_ *memPostings, err error) {
	defer s.recoverTo("reading postings into memory", &err)
	if s.next > math.MaxUint32 {
		return nil, fmt.Errorf("index: %s: %d documents numbered: postings in memory hold at most %d", s.dir, s.next-1, uint32(math.MaxUint32))
	}
	m := newMemPostings(s.lean)
	err = s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		prefix := []byte{kindNum}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 256})
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			key := item.Key()
			if len(key) != 1+numLen {
				it.Close()
				return fmt.Errorf("%w: number key %x: want 'n' and %d bytes", ErrCorrupt, key, numLen)
			}
			num := readNum(key[1:])
			err := item.Value(func(v []byte) error {
				if len(v) == 0 || len(v) > math.MaxUint16 {
					return fmt.Errorf("%w: number %d: ID of %d bytes", ErrCorrupt, num, len(v))
				}
				m.ids.set(num, v)
				return nil
			})
			if err != nil {
				it.Close()
				return err
			}
		}
		it.Close()
		if err := s.shadow.CheckRead(tabs, prefix, false); err != nil {
			return err
		}
		for _, kind := range []index.Kind{index.KindTable, index.KindBand, index.KindContent} {
			if err := s.scanPostings(txn, tabs, m, kind); err != nil {
				return err
			}
		}
		if m.keepRecs {
			if err := s.scanRecords(txn, tabs, m); err != nil {
				return err
			}
		}
		for _, l := range m.lists {
			l.index()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index: %s: reading postings into memory: %w", s.dir, err)
	}
	return m, nil
}

// scanPostings reads every posting key of kind into m, in key order:
// each list's runs come out sorted.
func (s *Store) scanPostings(txn *badger.Txn, tabs []*tablecheck.Table, m *memPostings, kind index.Kind) error {
	prefix := []byte{byte(kind)}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	var last memKind
	var l *memList
	for it.Rewind(); it.Valid(); it.Next() {
		key := it.Item().Key()
		tail := numLen
		if kind == index.KindTable {
			tail += 8
		}
		head := 1
		if kind != index.KindContent {
			head = 2
		}
		if len(key) < head+1+tail || len(key) > head+8+tail {
			return fmt.Errorf("%w: posting key %x: %d bytes", ErrCorrupt, key, len(key))
		}
		mk, val, _ := memKindOf(key[:len(key)-tail])
		if l == nil || mk != last {
			l, last = m.list(mk), mk
		}
		if n := len(l.vals); n > 0 && l.vals[n-1] > val {
			return fmt.Errorf("%w: posting key %x out of order", ErrCorrupt, key)
		}
		num := readNum(key[len(key)-numLen:])
		if num == 0 || num > math.MaxUint32 {
			return fmt.Errorf("%w: posting key %x: document number %d", ErrCorrupt, key, num)
		}
		l.vals, l.nums = append(l.vals, val), append(l.nums, uint32(num))
		if kind == index.KindTable {
			l.fps = append(l.fps, binary.BigEndian.Uint64(key[len(key)-tail:]))
		}
	}
	return s.shadow.CheckRead(tabs, prefix, false)
}

// scanRecords reads into m the record of each document whose number
// has its ID: the record RecordsByNum would read from Badger.
func (s *Store) scanRecords(txn *badger.Txn, tabs []*tablecheck.Table, m *memPostings) (err error) {
	prefix := []byte{kindDoc}
	defer s.named(tabs, prefix, false, &err)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		id := item.Key()[1:]
		err := item.Value(func(v []byte) error {
			if len(v) == 0 && item.ValueSize() > 0 {
				return s.valueErr(item)
			}
			num, rec, err := splitDocValue(v)
			if err != nil {
				return fmt.Errorf("document %q: %w", id, err)
			}
			if string(m.ids.get(num)) == string(id) {
				m.recs.set(num, rec)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return s.shadow.CheckRead(tabs, prefix, false)
}

// postingNum is Posting.Num of the document numbered num: num, or 0
// above the 2^32 − 1 that index.Posting allows.
func postingNum(num uint64) uint64 {
	if num > math.MaxUint32 {
		return 0
	}
	return num
}

// memPostingsOf reads into out the postings of the keys the memory copy
// m keeps, as postingsOf does from Badger, and returns the keys left to
// read from Badger with the others' Kind 0, or nil when none is left.
func (s *Store) memPostingsOf(m *memPostings, keys []index.Key, fps []simhash.Fingerprint, k int, out [][]index.Posting) []index.Key {
	var rest []index.Key
	var prefix []byte
	var ps []numPosting
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.stale {
		return keys
	}
	for i, key := range keys {
		prefix = appendPrefix(prefix[:0], key)
		mk, val, ok := memKindOf(prefix)
		if !ok {
			if rest == nil {
				rest = make([]index.Key, len(keys))
			}
			rest[i] = key
			continue
		}
		if key.Kind == index.KindContent && !s.mayContain(key.Value) {
			continue // the content filter answers first, as for Badger (Stats counts it)
		}
		l := m.lists[mk]
		if l == nil {
			continue
		}
		var fp simhash.Fingerprint
		if fps != nil {
			fp = fps[i]
		}
		ps = l.find(val, fp, k, i, ps[:0])
		for _, p := range ps {
			if id := m.ids.id(p.num); id != "" {
				out[i] = append(out[i], index.Posting{ID: id, Fingerprint: p.fp, Num: postingNum(p.num)})
			}
		}
	}
	return rest
}

// RecordsByNum implements index.NumberedRecords: the number's ID (from
// the memory copy, or its 'n' key), then its record, which must carry
// the same number (a document replaced since has another). A lean
// store that keeps its postings in memory keeps its records there too
// and reads none from Badger.
func (s *Store) RecordsByNum(_ context.Context, nums []uint64) (_ [][]byte, err error) {
	defer s.recoverTo("reading records", &err)
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	out := make([][]byte, len(nums))
	if !s.numbered {
		return out, nil
	}
	ids := make([]string, len(nums))
	fromMem, rest := false, len(nums)
	if m := s.mem.Load(); m != nil {
		m.mu.RLock()
		if !m.stale {
			fromMem, rest = true, 0
			for i, n := range nums {
				if ids[i] = m.ids.id(n); ids[i] == "" {
					continue // no document has the number
				}
				if out[i] = m.recs.get(n); out[i] == nil {
					rest++
				}
			}
		}
		m.mu.RUnlock()
	}
	if rest == 0 {
		return out, nil
	}
	err = s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		for i, n := range nums {
			if n == 0 || n > maxNum || out[i] != nil {
				continue
			}
			id := ids[i]
			if id == "" && fromMem {
				continue
			}
			if id == "" {
				v, err := s.getNamed(txn, tabs, numKey(n))
				switch {
				case errors.Is(err, badger.ErrKeyNotFound):
					continue
				case err != nil:
					return fmt.Errorf("index: %s: reading document number %d: %w", s.dir, n, err)
				}
				id = string(v)
			}
			num, rec, err := s.docOf(txn, tabs, id)
			if err != nil {
				return err
			}
			if num == n {
				out[i] = rec
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Nums implements index.NumberedRecords: the numbers the records of
// ids carry (0 in a store whose postings end in IDs).
func (s *Store) Nums(_ context.Context, ids []string) (_ []uint64, err error) {
	defer s.recoverTo("reading records", &err)
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	out := make([]uint64, len(ids))
	if !s.numbered {
		return out, nil
	}
	err = s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		for i, id := range ids {
			s.bmu.RLock()
			maybe := s.ids.mayContain(xxhash.Sum64String(id))
			s.bmu.RUnlock()
			if !maybe {
				continue
			}
			num, _, err := s.docOf(txn, tabs, id)
			if err != nil {
				return err
			}
			out[i] = num
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// docOf reads the number and record of id in a numbered store; 0 and
// nil when it has none.
func (s *Store) docOf(txn *badger.Txn, tabs []*tablecheck.Table, id string) (uint64, []byte, error) {
	v, err := s.getNamed(txn, tabs, docKey(id))
	var ce *corruptError
	switch {
	case errors.Is(err, badger.ErrKeyNotFound):
		return 0, nil, nil
	case errors.As(err, &ce):
		if ce.Damage.ID == "" {
			ce.Damage.ID = id
		}
		return 0, nil, ce
	case err != nil:
		return 0, nil, fmt.Errorf("index: %s: reading document %q: %w", s.dir, id, err)
	}
	num, rec, err := splitDocValue(v)
	if err != nil {
		return 0, nil, fmt.Errorf("index: %s: reading document %q: %w", s.dir, id, err)
	}
	return num, rec, nil
}

// logMem notes, when the store keeps postings in memory, that the
// transaction being filled writes w, numbered old before and num after,
// with the record rec as the store keeps it (Badger holds it until the
// commit; nobody changes it). wmu is held.
func (s *Store) logMem(w *index.Write, old, num uint64, rec []byte) {
	if s.mem.Load() != nil {
		s.memLog = append(s.memLog, memWrite{w: w, old: old, num: num, rec: rec})
	}
}

// dropMem stops using the memory copy of the postings: a write failed,
// and the copy may not say what the store holds. Postings and
// PostingsNear read Badger from then on.
func (s *Store) dropMem() {
	if m := s.mem.Swap(nil); m != nil {
		m.mu.Lock()
		m.stale = true
		m.mu.Unlock()
	}
}

// rebuildFromMem rebuilds the filters (see rebuildBloom) from the memory
// copy m and the writes of the transactions Apply has begun to commit
// (memFlight), not from Badger, and reports whether it did: false when m
// is stale. The copy holds every content, band and ID key the store
// holds; a transaction in flight may hold more, which it adds. Reading
// them from Badger, which decompressed every table's blocks again at
// each doubling of the archive, was 4% of the CPU of `dedup --index`
// of 10^6 articles into a new archive (bench/README.md). Callers hold
// wmu, as rebuildBloom's do (Open's has no copy yet).
func (s *Store) rebuildFromMem(m *memPostings, capacity int64) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.stale {
		return false
	}
	var hashes, ids, bands []uint64
	var prefix []byte
	for mk, l := range m.lists {
		if mk.kind != index.KindContent && mk.kind != index.KindBand || mk.width != 8 {
			continue
		}
		each := func(val uint64) {
			if mk.kind == index.KindContent {
				hashes = append(hashes, val)
				return
			}
			prefix = binary.BigEndian.AppendUint64(append(prefix[:0], byte(index.KindBand), mk.table), val)
			bands = append(bands, bandHash(prefix))
		}
		for i, v := range l.vals {
			if l.nums[i] != 0 {
				each(v)
			}
		}
		for i := range l.added.slots {
			if e := &l.added.slots[i]; e.num != 0 {
				each(e.val())
			}
		}
	}
	for num := range m.ids.at {
		if id := m.ids.get(uint64(num)); id != nil {
			ids = append(ids, xxhash.Sum64(id))
		}
	}
	for _, ws := range s.memFlight {
		for _, mw := range ws {
			if mw.num == 0 {
				continue
			}
			ids = append(ids, xxhash.Sum64String(mw.w.ID))
			for _, k := range mw.w.Keys {
				switch k.Kind {
				case index.KindContent:
					hashes = append(hashes, k.Value)
				case index.KindBand:
					prefix = appendPrefix(prefix[:0], k)
					bands = append(bands, bandHash(prefix))
				}
			}
		}
	}
	// The documents as Apply counts them: those committed and those in
	// flight, as Badger's read (which waits for the commits) would.
	s.installFilters(capacity, s.docs.Load(), hashes, ids, bands)
	return true
}
