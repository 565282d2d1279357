package tablecheck

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/fb"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
)

// This file finds the damage that Badger reads as missing keys.
//
// Badger verifies a block's checksum whenever it reads the block
// (ChecksumVerificationMode OnBlockRead), but neither of its read paths
// passes the error on: a table iterator that cannot read a block only
// stops (table/iterator.go: seekHelper and next keep the error in the
// unexported field err, and Valid is false), the merge iterator under
// badger.Iterator then drops that table as if it had ended, and Get
// skips it (level_handler.go, levelHandler.get: "if !it.Valid() {
// continue }"). A value in the value log that cannot be read is logged
// and returned as nil with no error (iterator.go, Item.yieldItemValue:
// "Don't return error if we cannot read the value. Just log the
// error."). So a block damaged after Open (a long-running serve, a file
// overwritten between Open and a read) would make Postings and Records
// miss documents silently.
//
// The store therefore verifies the checksums of the blocks Badger read
// a second time, on mappings of its own of the same files (which see
// what Badger's see): it keeps a copy of each table's block index (the
// first key, offset and length of every block; about 40 bytes a 4 KiB
// block), finds the blocks that may hold the keys a read asked for by a
// binary search, and computes their checksums as Badger does. Postings
// checks the blocks of every table whose key range holds the prefix it
// read; Records, Claim and the metadata reads the blocks holding the
// key in the tables Badger's Get reads (those whose range and Bloom
// filter may hold it). A compressed table (a store with Options.Compress,
// or an index written with Badger's default options) has checksums of
// the uncompressed blocks: a block is read whole once with Badger's
// table iterator, which stops at a block it cannot read, and then
// checked by a CRC of its compressed bytes (checkCompressed). A record in
// the value log that reads as empty is damage in the value log, named by
// Badger's log line about it. One table's index (Bloom filter, block
// offsets and keys, which Badger reads from the file at every read) is
// verified every IndexCheckEvery reads.
//
// Badger deletes a table after a compaction once its own readers are
// done (they hold references the store cannot take) and empties the
// file first: a read of the store's mapping of it then faults, which
// debug.SetPanicOnFault turns into a panic that the check recovers, the
// table being gone (its keys are in the compaction's tables, which the
// next read lists).
//
// Not covered: a compaction that reads a damaged block drops its keys
// (and the rest of its table) from the tables it writes, silently
// (levels.go, subcompact: "for ; it.Valid(); it.Next()"; the
// ConcatIterator moves to the next table when one stops), and the damaged
// table is deleted. Only a writer compacts.
//
// What it costs: BenchmarkReadCheck, and the README.

// Table is the store's own handle on one of Badger's tables.
type Table struct {
	id     uint64
	name   string // the file name, e.g. "000001.sst"
	t      *table.Table
	data   []byte      // the mapped file
	blocks *blockIndex // nil only when IterateOnly says so
	// sums are, for a compressed table, the CRC-32C of each block's
	// bytes on disk (compressed) once the block was read whole and its
	// checksum verified, plus one; 0 until then (see checkCompressed).
	sums  []atomic.Uint64
	index footer                 // where the index is, and its checksum at open
	bad   atomic.Pointer[Damage] // the index was found damaged
	close func()
	err   error // the table could not be opened
}

// Shadows are the store's handles on the tables Badger reads,
// refreshed from Badger's list of tables when it changes (a memtable
// flushed, a compaction). A read-only store's tables never change: its
// list is taken once.
type Shadows struct {
	dir      string
	readOnly bool
	mu       sync.RWMutex
	tabs     []*Table      // by ID
	listed   atomic.Bool   // tabs are Badger's list for good (a read-only store's)
	reads    atomic.Uint64 // views taken, for checkIndex
	// compression is that of the tables Badger writes after Open
	// (its options'): none unless SetCompression says otherwise.
	compression options.CompressionType
}

// SetCompression says that the tables Badger writes from now on are
// compressed with c (the store's Badger options). Call it before the
// first View.
func (sh *Shadows) SetCompression(c options.CompressionType) {
	sh.mu.Lock()
	sh.compression = c
	sh.mu.Unlock()
}

// View returns the handles on the tables of db, opening new ones and
// closing those Badger dropped. The caller calls release when done with
// them. A table that cannot be opened is an error naming it; one whose
// file is gone (compacted away since Badger listed it) is left out.
func (sh *Shadows) View(db *badger.DB) ([]*Table, func(), error) {
	sh.mu.RLock()
	if !sh.listed.Load() {
		// Badger's list of tables, about 100 ns a table. It reads each
		// table's index, and panics on a damaged one: the read lock is
		// released, and the damage is named by the handles' copy of
		// the indexes when they show it.
		infos, perr := tableList(db)
		if perr != nil {
			for _, st := range sh.tabs {
				if d := st.checkIndex(); d != nil {
					sh.mu.RUnlock()
					return nil, nil, &Error{Dir: sh.dir, Damage: *d}
				}
			}
			sh.mu.RUnlock()
			return nil, nil, &Error{Dir: sh.dir, Damage: Damage{File: "(Badger's table list)", Block: -1, Err: perr}}
		}
		if !sh.same(infos) {
			sh.mu.RUnlock()
			sh.mu.Lock()
			sh.refresh(infos)
			sh.mu.Unlock()
			sh.mu.RLock()
		}
		if sh.readOnly {
			sh.listed.Store(true)
		}
	}
	for _, st := range sh.tabs {
		if st.err != nil {
			sh.mu.RUnlock()
			return nil, nil, &Error{Dir: sh.dir, Damage: Damage{File: st.name, Block: -1, Err: st.err}}
		}
	}
	if n := sh.reads.Add(1); n%IndexCheckEvery == 0 && len(sh.tabs) > 0 {
		// A damaged index fails the reads of the table (checkRead).
		sh.tabs[int(n/IndexCheckEvery%uint64(len(sh.tabs)))].checkIndex()
	}
	return sh.tabs, sh.mu.RUnlock, nil
}

// same reports whether sh holds the tables of infos. The caller holds
// sh.mu.
func (sh *Shadows) same(infos []badger.TableInfo) bool {
	if len(infos) != len(sh.tabs) {
		return false
	}
	for _, ti := range infos {
		if _, ok := slices.BinarySearchFunc(sh.tabs, ti.ID, func(st *Table, id uint64) int { return cmp.Compare(st.id, id) }); !ok {
			return false
		}
	}
	return true
}

// refresh opens the tables of infos that sh does not hold and closes
// those it holds that infos does not list. The caller holds sh.mu for
// writing.
func (sh *Shadows) refresh(infos []badger.TableInfo) {
	held := make(map[uint64]*Table, len(sh.tabs))
	for _, st := range sh.tabs {
		held[st.id] = st
	}
	tabs := make([]*Table, 0, len(infos))
	for _, ti := range infos {
		if st := held[ti.ID]; st != nil {
			tabs = append(tabs, st)
			delete(held, ti.ID)
			continue
		}
		// Tables written since Open are compressed as the store's
		// Badger options say (SetCompression).
		st := openShadow(sh.dir, ti.ID, sh.compression)
		if errors.Is(st.err, fs.ErrNotExist) || errors.Is(st.err, errEmptyTable) {
			// Deleted by a compaction since Badger listed it.
			continue
		}
		tabs = append(tabs, st)
	}
	for _, st := range held {
		st.release()
	}
	slices.SortFunc(tabs, func(a, b *Table) int { return cmp.Compare(a.id, b.id) })
	sh.tabs = tabs
}

// Close closes every handle.
func (sh *Shadows) Close() {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for _, st := range sh.tabs {
		st.release()
	}
	sh.tabs = nil
}

// openShadow opens the table id of dir, compressed with c.
func openShadow(dir string, id uint64, c options.CompressionType) *Table {
	name := table.IDToFilename(id)
	st := &Table{id: id, name: name}
	st.t, st.data, st.close, st.err = openTable(filepath.Join(dir, name), c)
	if st.err != nil {
		return st
	}
	st.err = func() (err error) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if r := recover(); r != nil {
				err = PanicError(r)
				if isFault(r) {
					err = fmt.Errorf("%w: truncated while read", fs.ErrNotExist) // deleted by Badger
				}
			}
		}()
		if st.index, err = readFooter(st.data); err != nil {
			return err
		}
		if st.blocks, err = readBlockIndex(st.data); err == nil && st.t.CompressionType() != options.None {
			st.sums = make([]atomic.Uint64, len(st.blocks.off))
		}
		return err
	}()
	if st.err != nil {
		st.release()
	}
	return st
}

// IterateOnly makes the checks of sh read every table as a compressed
// one, with Badger's table iterator, for the tests of that path (this
// package's tables are uncompressed). It reports whether every table
// had a block index.
func (sh *Shadows) IterateOnly() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	all := true
	for _, st := range sh.tabs {
		if st.blocks == nil {
			all = false
		}
		st.blocks = nil
	}
	return all
}

// BloomFilter returns where the Bloom filter of the table file data is
// (for the tests that damage it): data[off:off+n].
func BloomFilter(data []byte) (off, n int, err error) {
	f, err := readFooter(data)
	if err != nil {
		return 0, 0, err
	}
	bloom := fb.GetRootAsTableIndex(data[f.from:f.to], 0).BloomFilterBytes()
	i := bytes.Index(data[f.from:f.to], bloom)
	if len(bloom) == 0 || i < 0 {
		return 0, 0, errors.New("no Bloom filter")
	}
	return f.from + i, len(bloom), nil
}

func (st *Table) release() {
	if st.close != nil {
		st.close()
		st.close = nil
	}
}

// comparePrefix compares the part of key (with its version) as long as
// prefix with prefix, as Badger picks the tables of a prefix iterator.
func comparePrefix(key, prefix []byte) int {
	key = y.ParseKey(key)
	if len(key) > len(prefix) {
		key = key[:len(prefix)]
	}
	return bytes.Compare(key, prefix)
}

// CheckRead reads again, from each of tabs that may hold them, the
// blocks Badger read for the keys starting with prefix (point: for the
// key prefix alone, as Badger's Get reads it) and returns the first
// damage found as an error wrapping index.ErrCorrupt.
func (sh *Shadows) CheckRead(tabs []*Table, prefix []byte, point bool) error {
	for _, st := range tabs {
		t := st.t
		if comparePrefix(t.Smallest(), prefix) > 0 || comparePrefix(t.Biggest(), prefix) < 0 {
			continue
		}
		if d := st.bad.Load(); d != nil {
			return &Error{Dir: sh.dir, Damage: *d}
		}
		if d := st.checkMapped(prefix, point); d != nil {
			return &Error{Dir: sh.dir, Damage: *d}
		}
	}
	return nil
}

// checkMapped is check (after the table's Bloom filter, for point),
// where a read of the mapped file that faults means that Badger deleted
// the table since it was listed (it empties a table file before it
// removes it; its own readers hold references that keep it, which the
// store cannot take): the table is skipped, its keys having moved to
// the tables a compaction wrote, which the next read lists.
func (st *Table) checkMapped(prefix []byte, point bool) (d *Damage) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if isFault(r) {
				d = nil
				return
			}
			d = st.panicDamage(prefix, r)
		}
	}()
	if point && len(prefix) > 0 && st.t.DoesNotHave(y.Hash(prefix)) {
		return nil
	}
	return st.check(prefix, point)
}

// check verifies the checksums of the blocks of st that may hold keys
// starting with prefix (point: the key prefix), the blocks Badger read
// for them, and returns the first damage found.
func (st *Table) check(prefix []byte, point bool) (d *Damage) {
	bi := st.blocks
	if bi == nil {
		return st.checkIter(prefix, point)
	}
	n := len(bi.off)
	// From the block before the first that starts at or after prefix
	// (Badger's seek starts in it or in the next one) to the last that
	// starts within the range of prefix (with the key itself for point).
	b := max(0, bi.search(prefix)-1)
	for {
		if st.sums != nil {
			if err := st.checkCompressed(b); err != nil {
				return &Damage{File: st.name, Block: b, Err: err}
			}
		} else if err := verifyBlock(st.data, int(bi.off[b]), int(bi.size[b])); err != nil {
			return &Damage{File: st.name, Block: b, Err: err}
		}
		b++
		if b == n {
			return nil
		}
		next := bi.first(b)
		if point && bytes.Compare(next, prefix) > 0 || !point && bytes.Compare(next[:min(len(next), len(prefix))], prefix) > 0 {
			return nil
		}
	}
}

// checkCompressed verifies block b of a compressed table, whose
// checksum covers the block before compression: the first time, by
// reading it whole with Badger's table iterator (which decompresses it
// and verifies its checksum), remembering a CRC-32C of its bytes on
// disk; later, by that CRC alone, which is about 20 times cheaper than
// decompressing it again, and reads it whole again only when the CRC
// differs (the file changed since). A read of a compressed store
// checks every block it touched again, so decompressing each time cost
// half of dedup --index's CPU (bench/README.md, 2026-11-27).
func (st *Table) checkCompressed(b int) error {
	bi := st.blocks
	off, size := int(bi.off[b]), int(bi.size[b])
	if off < 0 || size <= 0 || off+size > len(st.data) {
		return errBlock
	}
	sum := uint64(crc32.Checksum(st.data[off:off+size], y.CastagnoliCrcTable)) + 1
	if st.sums[b].Load() == sum {
		return nil
	}
	if !st.blockReads(y.KeyWithTs(bi.first(b), bi.vers[b])) {
		return errBlock
	}
	st.sums[b].Store(sum)
	return nil
}

// blockIndex is a copy of the block index of a table: each block's
// first key (without its version, and the version), offset and
// length, for a binary search in memory (Badger's is a flatbuffer in
// the mapped file).
type blockIndex struct {
	keys      []byte
	ends      []uint32 // block b's first key is keys[ends[b-1]:ends[b]]
	heads     []uint64 // the first 8 bytes of each first key, zero-padded, compared first
	vers      []uint64 // the first key's version
	off, size []uint32
}

// head returns the first 8 bytes of k, big-endian, zero-padded.
func head(k []byte) uint64 {
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

// search returns the first block whose first key is at or after key.
// The heads, 8 bytes a block, keep the binary search in the caches.
func (bi *blockIndex) search(key []byte) int {
	h := head(key)
	return sort.Search(len(bi.heads), func(b int) bool {
		if bh := bi.heads[b]; bh != h {
			return bh > h
		}
		return bytes.Compare(bi.first(b), key) >= 0
	})
}

func (bi *blockIndex) first(b int) []byte {
	from := uint32(0)
	if b > 0 {
		from = bi.ends[b-1]
	}
	return bi.keys[from:bi.ends[b]]
}

// readBlockIndex reads the block index of the table file data (a
// table Badger has opened, whose index checksum it verified): the file
// ends in the index, its length (4 bytes), its checksum and the
// checksum's length (4 bytes).
func readBlockIndex(data []byte) (*blockIndex, error) {
	f, err := readFooter(data)
	if err != nil {
		return nil, err
	}
	ix := fb.GetRootAsTableIndex(data[f.from:f.to], 0)
	bi := &blockIndex{}
	var ko fb.BlockOffset
	for b := range ix.OffsetsLength() {
		if !ix.Offsets(&ko, b) {
			return nil, fmt.Errorf("block %d: no offset", b)
		}
		k := ko.KeyBytes()
		if len(k) < 8 {
			return nil, fmt.Errorf("block %d: first key %q is shorter than its version", b, k)
		}
		bi.keys = append(bi.keys, y.ParseKey(k)...)
		bi.heads = append(bi.heads, head(y.ParseKey(k)))
		bi.vers = append(bi.vers, y.ParseTs(k))
		bi.ends = append(bi.ends, uint32(len(bi.keys)))
		bi.off = append(bi.off, ko.Offset())
		bi.size = append(bi.size, ko.Len())
	}
	return bi, nil
}

// footer is where a table file's index is and its checksum, as Badger
// read them when it opened the table: the file ends in the index, its
// length (4 bytes), its checksum and the checksum's length (4 bytes).
type footer struct {
	from, to int // the index is data[from:to]
	algo     pb.Checksum_Algorithm
	sum      uint64
}

func readFooter(data []byte) (footer, error) {
	pos := len(data) - 4
	if pos < 0 {
		return footer{}, errors.New("no footer")
	}
	n := int(binary.BigEndian.Uint32(data[pos:]))
	if n > pos-4 {
		return footer{}, errors.New("footer: checksum length out of range")
	}
	pos -= n
	algo, sum, ok := parseChecksum(data[pos : pos+n])
	if !ok {
		return footer{}, errors.New("footer: the index's checksum does not parse")
	}
	n = int(binary.BigEndian.Uint32(data[pos-4:]))
	if n > pos-4 {
		return footer{}, errors.New("footer: index length out of range")
	}
	return footer{from: pos - 4 - n, to: pos - 4, algo: algo, sum: sum}, nil
}

// checksum computes Badger's checksum of data with algo.
func checksum(data []byte, algo pb.Checksum_Algorithm) (uint64, bool) {
	switch algo {
	case pb.Checksum_CRC32C:
		return uint64(crc32.Checksum(data, y.CastagnoliCrcTable)), true
	case pb.Checksum_XXHash64:
		return xxhash.Sum64(data), true
	}
	return 0, false
}

// IndexCheckEvery is how many reads go by between two verifications of
// a table's index (one table a time, in turn).
const IndexCheckEvery = 256

// checkIndex verifies the checksum of the index of st (the block
// offsets and first keys, the Bloom filter) against the one it had when
// the table was opened. Badger reads the index from the mapped file at
// every read, and a damaged one can make it skip the table (the Bloom
// filter) or read the wrong block, silently; this is too costly for
// every read (about 0.1 ms for a table of 40 MB), so view does it every
// IndexCheckEvery reads for one table. A damaged index stays damage for
// every later read of the table.
func (st *Table) checkIndex() (d *Damage) {
	if d := st.bad.Load(); d != nil {
		return d
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if !isFault(r) {
				panic(r)
			}
			d = nil // deleted by Badger: see checkMapped
		}
	}()
	if sum, ok := checksum(st.data[st.index.from:st.index.to], st.index.algo); ok && sum == st.index.sum {
		return nil
	}
	d = &Damage{File: st.name, Block: -1, Err: errors.New("its index (block offsets and keys, Bloom filter) changed since the archive was opened: its checksum does not match")}
	st.bad.Store(d)
	return d
}

// errBlock is the damage of a block whose checksum does not match.
var errBlock = errors.New("unreadable (a checksum or its structure does not match)")

// verifyBlock verifies the checksum of the uncompressed block of size
// bytes at off in the table file data, as Badger does when it reads it
// (table.Table.block): the block ends in its checksum (a protocol
// buffer: algorithm, sum) and the checksum's length (4 bytes), and the
// checksum covers the rest.
func verifyBlock(data []byte, off, size int) error {
	if off < 0 || size < 8 || off+size > len(data) {
		return errBlock
	}
	blk := data[off : off+size]
	n := int(binary.BigEndian.Uint32(blk[size-4:]))
	if n > size-8 {
		return errBlock
	}
	algo, sum, ok := parseChecksum(blk[size-4-n : size-4])
	if !ok {
		return errBlock
	}
	if got, ok := checksum(blk[:size-4-n], algo); !ok || got != sum {
		return errBlock
	}
	return nil
}

// parseChecksum decodes Badger's pb.Checksum (field 1: the algorithm,
// field 2: the sum, both varints; zero values are left out) without
// allocating.
func parseChecksum(b []byte) (pb.Checksum_Algorithm, uint64, bool) {
	var algo, sum uint64
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, 0, false
		}
		b = b[n:]
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, 0, false
		}
		b = b[n:]
		switch tag {
		case 1<<3 | 0:
			algo = v
		case 2<<3 | 0:
			sum = v
		default:
			return 0, 0, false
		}
	}
	return pb.Checksum_Algorithm(algo), sum, true
}

// checkIter is check for a compressed table, whose checksums cover the
// uncompressed blocks: it reads the keys of st that start with prefix
// (point: the first key at or after prefix) with Badger's table
// iterator, which stops at a block it cannot read.
func (st *Table) checkIter(prefix []byte, point bool) (d *Damage) {
	t := st.t
	it := t.NewIterator(0)
	defer it.Close()
	seek := y.KeyWithTs(prefix, math.MaxUint64)
	it.Seek(seek)
	if !it.Valid() {
		if y.CompareKeys(seek, t.Biggest()) > 0 {
			return nil // past the table's last key
		}
		return st.damage(seek)
	}
	if point {
		return nil
	}
	var last []byte
	for {
		k := it.Key()
		if !bytes.HasPrefix(y.ParseKey(k), prefix) || bytes.Equal(k, t.Biggest()) {
			return nil
		}
		last = append(last[:0], k...)
		it.Next()
		if !it.Valid() {
			return st.damage(last)
		}
	}
}

// damage names the block that a read from key on could not read: the
// block holding key or the next one.
func (st *Table) damage(key []byte) *Damage {
	d := &Damage{File: st.name, Block: -1, Err: errors.New("unreadable (a checksum or its structure does not match)")}
	firsts := st.t.KeySplits(math.MaxInt32, nil) // every block's first key
	b := 0
	for b+1 < len(firsts) && y.CompareKeys([]byte(firsts[b+1]), key) <= 0 {
		b++
	}
	it := st.t.NewIterator(0)
	defer it.Close()
	for end := min(b+2, len(firsts)); b < end; b++ {
		it.Seek([]byte(firsts[b]))
		if !it.Valid() {
			d.Block = b
			return d
		}
	}
	return d
}

// ValueLog remembers the value-log files of the values Badger could
// not read, from its log lines: Badger logs the key and the error and
// returns an empty value (iterator.go, Item.yieldItemValue).
type ValueLog struct {
	mu    sync.Mutex
	files map[string]string // fmt.Sprint(key) → the value log's file name
}

// unreadableValue matches Badger's log line about a value it could not
// read: the key, and the value log's number in the value pointer.
var unreadableValue = regexp.MustCompile(`^Unable to read: Key: (\[[0-9 ]*\]), .*Fid:([0-9]+)`)

// Note records the file of an "Unable to read" log line of Badger's.
func (vd *ValueLog) Note(msg string) {
	if vd == nil {
		return
	}
	m := unreadableValue.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	fid, err := strconv.ParseUint(m[2], 10, 32)
	if err != nil {
		return
	}
	vd.mu.Lock()
	defer vd.mu.Unlock()
	if vd.files == nil || len(vd.files) > 1000 {
		vd.files = map[string]string{}
	}
	vd.files[m[1]] = fmt.Sprintf("%06d.vlog", fid)
}

// File returns the value log that Badger last failed to read the value
// of key from, or "value log" when it did not say.
func (vd *ValueLog) File(key []byte) string {
	vd.mu.Lock()
	defer vd.mu.Unlock()
	if f := vd.files[fmt.Sprint(key)]; f != "" {
		return f
	}
	return "value log"
}

// tableList returns Badger's list of tables, or the panic of a damaged
// table's index as an error.
func tableList(db *badger.DB) (infos []badger.TableInfo, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = PanicError(r)
		}
	}()
	return db.Tables(), nil
}

// panicDamage names the block of st that a check of prefix panicked in
// (r, a panic of Badger's table code on a damaged block): the block
// that may hold the prefix, or the next one, whichever cannot be read;
// else the panic, the table named.
func (st *Table) panicDamage(prefix []byte, r any) *Damage {
	key := y.KeyWithTs(prefix, math.MaxUint64)
	d := func() (d *Damage) {
		defer func() {
			if recover() != nil {
				d = nil
			}
		}()
		firsts := st.t.KeySplits(math.MaxInt32, nil) // every block's first key
		b := 0
		for b+1 < len(firsts) && y.CompareKeys([]byte(firsts[b+1]), key) <= 0 {
			b++
		}
		for end := min(b+2, len(firsts)); b < end; b++ {
			if !st.blockReads([]byte(firsts[b])) {
				return &Damage{File: st.name, Block: b, Err: errBlock}
			}
		}
		return nil
	}()
	if d == nil {
		d = &Damage{File: st.name, Block: -1, Err: PanicError(r)}
	}
	return d
}

// blockReads reports whether Badger's table iterator reads the block
// whose first key is first, without failing or panicking.
func (st *Table) blockReads(first []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	it := st.t.NewIterator(0)
	defer it.Close()
	it.Seek(first)
	return it.Valid()
}
