package badgerstore

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore/internal/tablecheck"
	"github.com/neardup/neardup/simhash"
)

// Bulk loading.
//
// Add goes through Badger's write path: every key is appended to the
// write-ahead log and inserted into the memtable, a skiplist, in the
// random order of its fingerprint blocks; on a 2-core machine that
// costs about 2.5 µs a key, 6 or more keys a document, and caps Add at
// about 30,000 documents a second (see the README). Load instead sorts
// the keys itself and has Badger's StreamWriter write them straight into
// sorted tables of the bottom level, which is several times faster and
// leaves nothing to compact. It is for filling a new index from an
// archive of fingerprints.
//
// Load reads the documents a chunk of LoadChunk at a time, sorts each
// kind of key of the chunk (the band keys, the content-hash keys, the
// records and each table's keys: one stream each) and writes every
// sorted stream to a run file in a temporary directory inside the index
// directory. At the end it merges each stream's runs into the
// StreamWriter, the metadata stream first, so that an interrupted Load
// still leaves a database recognised as an index. The streams cover
// disjoint key ranges ('b' < 'c' < 'd' < 'm' < 't' 0 < 't' 1 …), as
// the StreamWriter requires. When an ID occurs in several documents the
// last one wins: within a chunk before sorting, across chunks while the
// records are merged, which also lists the losing documents so that the
// merges of the other streams skip their keys.

// LoadChunk is the most documents Load sorts in memory at a time.
const LoadChunk = 1 << 20

// loadTmp is the directory, inside the store directory, where Load keeps
// its run files. Open removes one left by a Load that did not finish.
const loadTmp = "neardup-load.tmp"

// loadNumbered is the file in loadTmp that says the Load writes a
// numbered store.
const loadNumbered = "numbered"

// loadMeta is the file in loadTmp that holds the store's metadata
// ('m' keys: format, layout, analyzer, ...) while Load rewrites the
// database: the StreamWriter drops everything before it writes, and its
// tables land in no fixed order, so a Load cut short may leave
// documents without the metadata table. Open puts the metadata back
// from this file (checkMeta). Its format is a run file's (writeKVs).
const loadMeta = "meta"

// writeLoadMeta writes kvs to path, as a run file is written
// (writeKVs), and syncs it and its directory.
func writeLoadMeta(path string, kvs [][2][]byte) error {
	return writeKVs(path, len(kvs), func(i int, dst []byte) ([]byte, []byte) {
		return append(dst, kvs[i][0]...), kvs[i][1]
	}, true)
}

// readLoadMeta reads a file writeLoadMeta wrote; a file cut short (the
// process died while writing it, before Load dropped anything) gives
// nil.
func readLoadMeta(b []byte) [][2][]byte {
	var kvs [][2][]byte
	for len(b) > 0 {
		var kv [2][]byte
		for i := range kv {
			n, w := binary.Uvarint(b)
			if w <= 0 || uint64(len(b)-w) < n {
				return nil
			}
			kv[i], b = b[w:w+int(n)], b[w+int(n):]
		}
		kvs = append(kvs, kv)
	}
	return kvs
}

// Load implements index.Loader: it fills a store that holds no
// documents, writing Badger's tables directly instead of going through
// its log and memtable (see above). For large numbers of documents it is
// several times faster than Apply, and the store it leaves needs no
// compaction. A store that already holds documents gets
// index.ErrNotEmpty. If several writes share an ID, the last wins. Load
// returns the number of documents stored (after an error, the number the
// store holds). It needs memory for LoadChunk documents and temporary
// disk space, in the store directory, about the size of the index.
//
// Load excludes every other method of s while it runs, and its writes
// are durable when it returns. If it fails, or the process dies, while
// it writes the tables, the store holds part of the documents, possibly
// a document without all of its keys; adding the same documents again
// (the store is no longer empty) replaces them whole.
func (s *Store) Load(ctx context.Context, writes iter.Seq[*index.Write]) (_ int64, err error) {
	s.life.Lock()
	defer s.life.Unlock()
	if s.closed {
		return 0, fmt.Errorf("index: %s: %w", s.dir, ErrClosed)
	}
	if s.readOnly {
		return 0, fmt.Errorf("index: %s: load: %w", s.dir, ErrReadOnly)
	}
	if n := s.docs.Load(); n != 0 {
		return 0, fmt.Errorf("index: %s: load: %w: it holds %d documents", s.dir, ErrNotEmpty, n)
	}
	tmp := filepath.Join(s.dir, loadTmp)
	if err := os.RemoveAll(tmp); err != nil {
		return 0, fmt.Errorf("index: %s: load: %w", s.dir, err)
	}
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return 0, fmt.Errorf("index: %s: load: %w", s.dir, err)
	}
	defer os.RemoveAll(tmp)
	if s.mem.Load() != nil {
		// The memory copy of the postings is built again from what
		// the Load wrote (all of it, or the part a failure left).
		defer func() {
			s.dropMem()
			if s.next > math.MaxUint32 {
				return // more numbers than the copy holds: Badger is read
			}
			if m, merr := s.buildMem(); merr == nil {
				s.mem.Store(m)
			} else {
				err = errors.Join(err, merr)
			}
		}()
	}
	if s.numbered {
		// The mark of a Load of a numbered store: one cut short before
		// its settings' table landed leaves postings ending in numbers,
		// or only metadata, and no 'M' "postings" (see readLayout).
		if err := os.WriteFile(filepath.Join(tmp, loadNumbered), nil, 0o644); err != nil {
			return 0, fmt.Errorf("index: %s: load: %w", s.dir, err)
		}
	}
	l := &loader{s: s, tmp: tmp}
	for w := range writes {
		if err := index.CheckID(w.ID); err != nil {
			return 0, fmt.Errorf("index: %s: load %q: %w", s.dir, w.ID, err)
		}
		if err := l.add(w); err != nil {
			return 0, err
		}
		if len(l.docs) == s.loadChunkSize() {
			if err := l.sortChunk(); err != nil {
				return 0, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := l.sortChunk(); err != nil {
		return 0, err
	}
	if l.chunks == 0 {
		return 0, nil // nothing to load: the store is left as it was
	}
	if err := l.write(); err != nil {
		// Part of the documents may be in the store: count what is
		// there, so that the filters have no false negatives and Stats
		// is right.
		if rerr := s.rebuildBloom(0); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return s.docs.Load(), err
	}
	return s.docs.Load(), nil
}

// loadChunkSize is LoadChunk, or the smaller chunk a test sets.
func (s *Store) loadChunkSize() int {
	if s.loadChunk > 0 {
		return s.loadChunk
	}
	return LoadChunk
}

// Streams: a key kind's number in its run files' names, and its
// StreamWriter stream ID minus one. Table t is streamTable0+t.
const (
	streamBand = iota
	streamContent
	streamDoc
	streamPassage
	streamNum // 'n' number → ID, numbered stores only
	streamTable0
	streamMeta      = 1 << 16        // a stream ID of its own, written first
	streamStoreMeta = streamMeta + 1 // 'M', numbered stores only
)

// loader is the state of one Load.
type loader struct {
	s      *Store
	tmp    string
	tables int     // tables seen: the streams are streamTable0+tables
	bits   []uint8 // bits[t]: the key bits of table t
	chunks int
	num    uint64      // the number of the last document read (numbered stores)
	docs   []loadDoc   // the current chunk
	recs   []byte      // its records, back to back
	keys   []index.Key // its keys, back to back
}

// loadDoc is what Load keeps of a document of the current chunk.
type loadDoc struct {
	id   string
	num  uint64 // its number, in a numbered store
	fp   uint64
	rec  [2]int // the record is loader.recs[rec[0]:rec[1]]
	keys [2]int // its keys are loader.keys[keys[0]:keys[1]]
}

// sortKey is a key to sort: two integers, then the document ID, which
// sort the same way as the key's bytes.
type sortKey struct {
	a, b uint64
	id   string // "" in a numbered store
	num  uint64 // 0 in a store whose postings end in IDs
}

func (l *loader) add(w *index.Write) error {
	from, k0 := len(l.recs), len(l.keys)
	if l.s.lean {
		var err error
		if l.recs, err = index.BatchRecord(l.recs, w.Record, w.ID); err != nil {
			return fmt.Errorf("index: %s: load %q: %w", l.s.dir, w.ID, err)
		}
	} else {
		l.recs = append(l.recs, w.Record...)
	}
	l.keys = append(l.keys, w.Keys...)
	for _, k := range w.Keys {
		if k.Kind == index.KindTable {
			for int(k.Table) >= len(l.bits) {
				l.bits = append(l.bits, 0)
			}
			l.tables, l.bits[k.Table] = len(l.bits), k.Bits
		}
	}
	var num uint64
	if l.s.numbered {
		l.num++
		num = l.s.next - 1 + l.num
	}
	l.docs = append(l.docs, loadDoc{id: w.ID, num: num, fp: uint64(w.Fingerprint), rec: [2]int{from, len(l.recs)}, keys: [2]int{k0, len(l.keys)}})
	return nil
}

// runPath is the run file of a stream of a chunk.
func (l *loader) runPath(stream, chunk int) string {
	return filepath.Join(l.tmp, fmt.Sprintf("%d.%d", stream, chunk))
}

// sortChunk writes the current chunk's keys, stream by stream and
// sorted, to run files, and empties the chunk.
func (l *loader) sortChunk() error {
	if len(l.docs) == 0 {
		return nil
	}
	// Within the chunk the last document of an ID wins.
	docs := l.byID()
	chunk := l.chunks
	// Each stream is sorted and written by one of GOMAXPROCS workers.
	// keys builds a stream's sort keys, appendKey makes the key bytes.
	type task struct {
		stream    int
		keys      func(dst []sortKey) []sortKey
		appendKey func(dst []byte, k *sortKey) []byte
	}
	// Every key of the chunk, by stream.
	numbered := l.s.numbered
	keysOf := func(stream int, dst []sortKey) []sortKey {
		for i := range docs {
			d := &docs[i]
			id := d.id
			if numbered {
				id = ""
			}
			for _, k := range l.keys[d.keys[0]:d.keys[1]] {
				switch {
				case stream == streamBand && k.Kind == index.KindBand:
					dst = append(dst, sortKey{uint64(k.Table), k.Value, id, d.num})
				case stream == streamContent && k.Kind == index.KindContent,
					stream == streamPassage && k.Kind == index.KindPassage:
					dst = append(dst, sortKey{k.Value, 0, id, d.num})
				case stream >= streamTable0 && k.Kind == index.KindTable && int(k.Table) == stream-streamTable0:
					dst = append(dst, sortKey{k.Value << (64 - uint(k.Bits)), d.fp, id, d.num})
				}
			}
		}
		return dst
	}
	// posting appends the key of a posting: ending in its ID or number.
	posting := func(dst []byte, key index.Key, fp simhash.Fingerprint, k *sortKey) []byte {
		if numbered {
			return appendNumPostingKey(dst, key, fp, k.num)
		}
		return appendPostingKey(dst, key, fp, k.id)
	}
	bits := l.bits
	tasks := []task{{
		stream: streamBand,
		keys:   func(dst []sortKey) []sortKey { return keysOf(streamBand, dst) },
		appendKey: func(dst []byte, k *sortKey) []byte {
			return posting(dst, index.Key{Kind: index.KindBand, Table: uint8(k.a), Value: k.b}, 0, k)
		},
	}, {
		stream: streamContent,
		keys:   func(dst []sortKey) []sortKey { return keysOf(streamContent, dst) },
		appendKey: func(dst []byte, k *sortKey) []byte {
			return posting(dst, index.Key{Kind: index.KindContent, Value: k.a}, 0, k)
		},
	}, {
		stream: streamPassage,
		keys:   func(dst []sortKey) []sortKey { return keysOf(streamPassage, dst) },
		appendKey: func(dst []byte, k *sortKey) []byte {
			return posting(dst, index.Key{Kind: index.KindPassage, Value: k.a}, 0, k)
		},
	}}
	for t := range l.tables {
		tasks = append(tasks, task{
			stream: streamTable0 + t,
			keys:   func(dst []sortKey) []sortKey { return keysOf(streamTable0+t, dst) },
			appendKey: func(dst []byte, k *sortKey) []byte {
				key := index.Key{Kind: index.KindTable, Table: uint8(t), Bits: bits[t], Value: k.a >> (64 - uint(bits[t]))}
				return posting(dst, key, simhash.Fingerprint(k.b), k)
			},
		})
	}
	err := parallel(len(tasks), func(i int, sc [2][]sortKey) ([2][]sortKey, error) {
		tk := &tasks[i]
		keys, spare := sortKeys(tk.keys(sc[0][:0]), sc[1], tk.stream == streamBand)
		var kb []byte
		return [2][]sortKey{keys, spare}, l.writeRun(tk.stream, chunk, len(keys), func(i int, dst []byte) ([]byte, []byte) {
			kb = tk.appendKey(kb[:0], &keys[i])
			return kb, nil
		})
	})
	if err != nil {
		return err
	}
	// The records, sorted by ID already.
	var val []byte
	err = l.writeRun(streamDoc, chunk, len(docs), func(i int, dst []byte) ([]byte, []byte) {
		d := &docs[i]
		rec := l.recs[d.rec[0]:d.rec[1]]
		if numbered {
			val = append(appendNum(val[:0], d.num), rec...)
			rec = val
		}
		return append(append(dst, kindDoc), d.id...), rec
	})
	if err != nil {
		return err
	}
	if numbered {
		// The numbers' IDs, in the order of the numbers: the chunk's
		// documents were numbered from first in the order they came,
		// so each number's place is its offset from first (a
		// document left out for a later one of its ID leaves a gap).
		first, last := docs[0].num, docs[0].num
		for i := range docs {
			first, last = min(first, docs[i].num), max(last, docs[i].num)
		}
		byNum := make([]*loadDoc, last-first+1)
		for i := range docs {
			byNum[docs[i].num-first] = &docs[i]
		}
		byNum = slices.DeleteFunc(byNum, func(d *loadDoc) bool { return d == nil })
		err = l.writeRun(streamNum, chunk, len(byNum), func(i int, dst []byte) ([]byte, []byte) {
			return appendNum(append(dst, kindNum), byNum[i].num), []byte(byNum[i].id)
		})
		if err != nil {
			return err
		}
	}
	l.chunks++
	l.docs, l.recs, l.keys = l.docs[:0], l.recs[:0], l.keys[:0]
	return nil
}

// byID returns the documents of the chunk sorted by ID, the last of
// each ID only (in place of l.docs). IDs compare by their first 16
// bytes after the prefix every ID of the chunk shares, as two integers,
// and by the rest only when those are equal: full comparisons of IDs
// with long common prefixes were a sixth of Load's CPU.
func (l *loader) byID() []loadDoc {
	docs := l.docs
	if len(docs) == 0 {
		return docs
	}
	common := len(docs[0].id)
	for i := 1; i < len(docs) && common > 0; i++ {
		id := docs[i].id
		common = min(common, len(id))
		for j := 0; j < common; j++ {
			if id[j] != docs[0].id[j] {
				common = j
				break
			}
		}
	}
	type idKey struct {
		hi, lo uint64
		pos    int32
	}
	// word is the 8 bytes of s from i, big-endian, zero-filled: equal
	// words of equal-length strings are equal bytes; a shorter string
	// sorts first among equal words through the rest's comparison.
	word := func(s string, i int) uint64 {
		var b [8]byte
		if i < len(s) {
			copy(b[:], s[i:])
		}
		return binary.BigEndian.Uint64(b[:])
	}
	keys := make([]idKey, len(docs))
	for i := range docs {
		keys[i] = idKey{word(docs[i].id, common), word(docs[i].id, common+8), int32(i)}
	}
	rest := common + 16
	slices.SortFunc(keys, func(p, q idKey) int {
		switch {
		case p.hi != q.hi:
			return cmp.Compare(p.hi, q.hi)
		case p.lo != q.lo:
			return cmp.Compare(p.lo, q.lo)
		}
		a, b := docs[p.pos].id, docs[q.pos].id
		if c := strings.Compare(a[min(rest, len(a)):], b[min(rest, len(b)):]); c != 0 || len(a) != len(b) {
			if c == 0 {
				return cmp.Compare(len(a), len(b))
			}
			return c
		}
		return cmp.Compare(p.pos, q.pos)
	})
	out := make([]loadDoc, 0, len(docs))
	for i, k := range keys {
		if i+1 < len(keys) && docs[keys[i+1].pos].id == docs[k.pos].id {
			continue
		}
		out = append(out, docs[k.pos])
	}
	return out
}

// compareKeys orders sort keys as their key bytes sort.
func compareKeys(p, q sortKey) int {
	switch {
	case p.a != q.a:
		return cmp.Compare(p.a, q.a)
	case p.b != q.b:
		return cmp.Compare(p.b, q.b)
	case p.id != q.id:
		return strings.Compare(p.id, q.id)
	}
	return cmp.Compare(p.num, q.num)
}

// sortKeys sorts keys (compareKeys), whose first 16 bits (of a, or for
// band keys, whose a is a band below 16, of a's 4 bits and b's first 12)
// are about uniform: a counting pass puts them in 2^16 buckets by those
// bits, in order, and each bucket, a handful of keys, is sorted alone.
// It returns the sorted keys and a slice to pass as spare next time:
// keys and spare, or spare (grown as needed, holding the sorted keys)
// and keys.
func sortKeys(keys, spare []sortKey, band bool) (sorted, nextSpare []sortKey) {
	const bits = 16
	top := func(k *sortKey) uint64 { return k.a >> (64 - bits) }
	if band {
		top = func(k *sortKey) uint64 { return k.a<<(bits-4) | k.b>>(64-bits+4) }
		if slices.ContainsFunc(keys, func(k sortKey) bool { return k.a >= 1<<4 }) {
			top = nil
		}
	}
	if len(keys) < 1<<bits || top == nil {
		slices.SortFunc(keys, compareKeys)
		return keys, spare
	}
	var count [1<<bits + 1]int
	for i := range keys {
		count[top(&keys[i])+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	out := slices.Grow(spare[:0], len(keys))[:len(keys)]
	next := count
	for i := range keys {
		t := top(&keys[i])
		out[next[t]] = keys[i]
		next[t]++
	}
	for i := range 1 << bits {
		if b := out[count[i]:count[i+1]]; len(b) > 1 {
			slices.SortFunc(b, compareKeys)
		}
	}
	return out, keys
}

// parallel runs f(0) … f(n−1) on GOMAXPROCS goroutines, each with a
// scratch value it passes from one call to the next, and returns the
// first error.
func parallel[T any](n int, f func(i int, scratch T) (T, error)) error {
	next := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch T
			for i := range next {
				var err error
				scratch, err = f(i, scratch)
				errs <- err
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// writeRun writes n key-value pairs to the run file of a stream of a
// chunk (writeKVs).
func (l *loader) writeRun(stream, chunk, n int, kv func(i int, dst []byte) (key, value []byte)) error {
	if err := writeKVs(l.runPath(stream, chunk), n, kv, false); err != nil {
		return fmt.Errorf("index: load: %w", err)
	}
	return nil
}

// writeKVs writes n key-value pairs, each a uvarint key length, the key,
// a uvarint value length and the value, to a new file at path; with
// sync, it syncs the file and its directory.
func writeKVs(path string, n int, kv func(i int, dst []byte) (key, value []byte), sync bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var lb [2 * binary.MaxVarintLen64]byte
	var kb []byte
	for i := 0; i < n; i++ {
		var v []byte
		kb, v = kv(i, kb[:0])
		m := binary.PutUvarint(lb[:], uint64(len(kb)))
		w.Write(lb[:m])
		w.Write(kb)
		m = binary.PutUvarint(lb[:], uint64(len(v)))
		w.Write(lb[:m])
		w.Write(v)
	}
	err = w.Flush()
	if err == nil && sync {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil || !sync {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// write merges the runs into the database, replacing its empty contents,
// and builds the filters.
func (l *loader) write() error {
	s := l.s
	// The metadata, read before the StreamWriter drops everything, and
	// kept in the run directory until its table lands (see loadMeta).
	meta, err := s.readMeta()
	if err != nil {
		return err
	}
	if err := writeLoadMeta(filepath.Join(l.tmp, loadMeta), meta); err != nil {
		return fmt.Errorf("index: %s: load: %w", s.dir, err)
	}
	sw := s.db.NewStreamWriter()
	defer sw.Cancel()
	if err := sw.Prepare(); err != nil {
		return fmt.Errorf("index: %s: load: %w", s.dir, err)
	}
	w := &streamBuf{sw: sw, buf: z.NewBuffer(16<<20, "neardup.Load"), version: s.db.MaxVersion() + 1}
	defer w.buf.Release()
	for _, kv := range meta {
		if err := w.put(streamMeta, kv[0], kv[1]); err != nil {
			return err
		}
	}
	if err := w.done(streamMeta); err != nil {
		return err
	}
	if l.s.numbered {
		if err := w.put(streamStoreMeta, storeMetaKey(metaNext), appendNum(nil, s.next+l.num)); err != nil {
			return err
		}
		for _, kv := range s.settings() {
			if err := w.put(streamStoreMeta, kv[0], kv[1]); err != nil {
				return err
			}
		}
		if err := w.done(streamStoreMeta); err != nil {
			return err
		}
	}

	// The records first: where an ID has records from several chunks the
	// last chunk's wins, and the others' keys are skipped in every
	// stream.
	losers := map[loser]bool{}
	lost := map[uint64]bool{} // the losers' numbers, in a numbered store
	var docs int64
	var idHashes []uint64 // in a numbered store
	err = l.merge(streamDoc, func(key, value []byte, chunk int, next *mergeItem) error {
		if next != nil && bytes.Equal(next.key, key) {
			if s.numbered {
				lost[readNum(value)] = true
			} else {
				losers[loser{chunk, string(key[1:])}] = true
			}
			return nil
		}
		docs++
		if s.numbered {
			idHashes = append(idHashes, xxhash.Sum64(key[1:]))
		}
		return w.put(streamDoc+1, key, value)
	})
	if err != nil {
		return err
	}
	if err := w.done(streamDoc + 1); err != nil {
		return err
	}
	bloom := newCountingBloom(docs+docs/2, s.fpRate)
	ids := newIDFilter(bloom.capacity, idFalsePositive)
	bands := newBandFilter(bloom.capacity)
	for _, h := range idHashes {
		ids.add(h)
	}
	// The other streams, in parallel (StreamWriter.Write is safe for
	// concurrent use), each with a buffer of its own.
	var others []int
	for st := 0; st < streamTable0+l.tables; st++ {
		if st != streamDoc && (st != streamNum || s.numbered) {
			others = append(others, st)
		}
	}
	err = parallel(len(others), func(i int, _ struct{}) (struct{}, error) {
		st := others[i]
		var idAt int // where the ID starts in the stream's keys
		switch st {
		case streamBand:
			idAt = bandPrefixLen
		case streamContent, streamPassage:
			idAt = contentPrefixLen
		case streamNum:
			idAt = 1
		default:
			idAt = 2 + (int(l.bits[st-streamTable0])+7)/8 + 8
		}
		w := &streamBuf{sw: sw, buf: z.NewBuffer(16<<20, "neardup.Load"), version: w.version}
		defer w.buf.Release()
		err := l.merge(st, func(key, value []byte, chunk int, _ *mergeItem) error {
			switch {
			case s.numbered && len(lost) > 0 && lost[readNum(key[idAt:])]:
				return nil
			case !s.numbered && len(losers) > 0 && losers[loser{chunk, string(key[idAt:])}]:
				return nil
			}
			switch st { // each filter is written by one stream only
			case streamContent:
				bloom.add(binary.BigEndian.Uint64(key[1:contentPrefixLen]))
				if !s.numbered {
					ids.add(xxhash.Sum64(key[idAt:]))
				}
			case streamBand:
				bands.add(bandHash(key))
			}
			return w.put(uint32(st+1), key, value)
		})
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, w.done(uint32(st + 1))
	})
	if err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return fmt.Errorf("index: %s: load: %w", s.dir, err)
	}
	s.setFilters(bloom, ids, bands, docs)
	s.next += l.num
	s.mark = false
	return nil
}

// readMeta returns the 'm' keys and their values, sorted.
func (s *Store) readMeta() ([][2][]byte, error) {
	var kvs [][2][]byte
	err := s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		prefix := []byte{kindMeta}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := s.readValue(it.Item())
			if err != nil {
				return err
			}
			kvs = append(kvs, [2][]byte{it.Item().KeyCopy(nil), v})
		}
		return s.shadow.CheckRead(tabs, prefix, false)
	})
	if err != nil {
		return nil, fmt.Errorf("index: %s: load: reading metadata: %w", s.dir, err)
	}
	return kvs, nil
}

// loser is a document that a later one with the same ID replaces.
type loser struct {
	chunk int
	id    string
}

// merge reads the runs of a stream in key order, calling f with each
// key, its value, its chunk and the item that comes next (nil at the
// end); equal keys come in chunk order.
func (l *loader) merge(stream int, f func(key, value []byte, chunk int, next *mergeItem) error) error {
	var h mergeHeap
	for c := 0; c < l.chunks; c++ {
		file, err := os.Open(l.runPath(stream, c))
		if err != nil {
			return fmt.Errorf("index: load: %w", err)
		}
		defer file.Close()
		it := &mergeItem{r: bufio.NewReaderSize(file, 1<<20), chunk: c}
		ok, err := it.next()
		if err != nil {
			return err
		}
		if ok {
			h = append(h, it)
		}
	}
	heap.Init(&h)
	var key, value []byte
	for len(h) > 0 {
		it := h[0]
		key, value = append(key[:0], it.key...), append(value[:0], it.value...)
		chunk := it.chunk
		ok, err := it.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
		var next *mergeItem
		if len(h) > 0 {
			next = h[0]
		}
		if err := f(key, value, chunk, next); err != nil {
			return err
		}
	}
	return nil
}

// mergeItem is a run being merged and its current key and value.
type mergeItem struct {
	r          *bufio.Reader
	chunk      int
	key, value []byte
}

// next reads the next key and value, reporting false at the end.
func (it *mergeItem) next() (bool, error) {
	n, err := binary.ReadUvarint(it.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("index: load: reading a run: %w", err)
	}
	it.key = slices.Grow(it.key[:0], int(n))[:n]
	if _, err := io.ReadFull(it.r, it.key); err != nil {
		return false, fmt.Errorf("index: load: reading a run: %w", err)
	}
	if n, err = binary.ReadUvarint(it.r); err != nil {
		return false, fmt.Errorf("index: load: reading a run: %w", err)
	}
	it.value = slices.Grow(it.value[:0], int(n))[:n]
	if _, err := io.ReadFull(it.r, it.value); err != nil {
		return false, fmt.Errorf("index: load: reading a run: %w", err)
	}
	return true, nil
}

// mergeHeap orders runs by key, then chunk.
type mergeHeap []*mergeItem

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].key, h[j].key); c != 0 {
		return c < 0
	}
	return h[i].chunk < h[j].chunk
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(*mergeItem)) }
func (h *mergeHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// streamBuf batches key-value pairs for a StreamWriter.
type streamBuf struct {
	sw      *badger.StreamWriter
	buf     *z.Buffer
	version uint64
}

// put adds a key-value pair to stream id, writing the buffer out when it
// is large.
func (w *streamBuf) put(id uint32, key, value []byte) error {
	appendKV(w.buf.SliceAllocate(sizeKV(key, value, w.version, id))[:0], key, value, w.version, id)
	if w.buf.LenNoPadding() >= 8<<20 {
		return w.write()
	}
	return nil
}

// The protocol buffer encoding of a badger pb.KV with a key, value,
// version and stream ID, as badger.KVToBuffer writes it (proto3: a field
// with its zero value is left out; fields in the order of their
// numbers), written by hand: proto.Marshal's reflection was 9% of
// Load's CPU.
const (
	kvKey      = 1<<3 | 2 // field 1, bytes
	kvValue    = 2<<3 | 2 // field 2, bytes
	kvVersion  = 4<<3 | 0 // field 4, varint
	kvStreamID = 10<<3 | 0
)

// sizeKV is the length of appendKV's encoding.
func sizeKV(key, value []byte, version uint64, id uint32) int {
	n := 0
	if len(key) > 0 {
		n += 1 + uvarintLen(uint64(len(key))) + len(key)
	}
	if len(value) > 0 {
		n += 1 + uvarintLen(uint64(len(value))) + len(value)
	}
	if version != 0 {
		n += 1 + uvarintLen(version)
	}
	if id != 0 {
		n += 1 + uvarintLen(uint64(id))
	}
	return n
}

// appendKV appends the encoding of a pb.KV of key, value, version and
// stream id to dst.
func appendKV(dst, key, value []byte, version uint64, id uint32) []byte {
	if len(key) > 0 {
		dst = append(dst, kvKey)
		dst = binary.AppendUvarint(dst, uint64(len(key)))
		dst = append(dst, key...)
	}
	if len(value) > 0 {
		dst = append(dst, kvValue)
		dst = binary.AppendUvarint(dst, uint64(len(value)))
		dst = append(dst, value...)
	}
	if version != 0 {
		dst = append(dst, kvVersion)
		dst = binary.AppendUvarint(dst, version)
	}
	if id != 0 {
		dst = append(dst, kvStreamID)
		dst = binary.AppendUvarint(dst, uint64(id))
	}
	return dst
}

// uvarintLen is the length of the uvarint encoding of v.
func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// done ends stream id: its last table is written.
func (w *streamBuf) done(id uint32) error {
	badger.KVToBuffer(&pb.KV{StreamId: id, StreamDone: true}, w.buf)
	return w.write()
}

func (w *streamBuf) write() error {
	if err := w.sw.Write(w.buf); err != nil {
		return fmt.Errorf("index: load: %w", err)
	}
	w.buf.Reset()
	return nil
}
