// Package badgerstore keeps an index.Store in an embedded Badger
// database, one directory, opened by one process at a time. It owns the
// byte encoding of the index's keys, Badger's transactions, the bulk
// Load, and three process-local filters (a counting Bloom filter over
// the content hashes, Bloom filters over the IDs and over the band
// keys) that spare reads.
//
// # Key layout
//
// Every key starts with one kind byte. Integers are big-endian, so keys
// sort by value. A store created since issue #27 numbers its documents
// (1, 2, … in the order they are first written; a number is never
// handed out twice): every posting key ends in the document's number,
// 5 bytes, instead of its ID, and
//
//	'n' number → id
//	'd' id → number (5 bytes), record
//	'M' "postings" → "numbered"; 'M' "next" → the next number (5 bytes);
//	    'M' "records" → "lean" in a store that keeps lean records
//	    (Options.Lean); 'M' "tables" → "zstd" in a store that writes
//	    compressed tables (Options.Compress). A store keeps these
//	    settings, recorded in its first write, whatever later Opens ask.
//
// so that a document's ID is kept twice, not in each of its 20 or so
// postings (1,852 bytes a document on disk against 2,559 for the scale
// corpus at 10^5: bench/README.md). Postings resolves the numbers it
// finds with one read each; PostingsNear (index.NearPostings), which the
// Index uses, resolves only the table postings within the query's
// distance. A store written before keeps its layout, described below
// with IDs, and is read and written as before.
//
//	't' table fingerprint-key fingerprint id → empty
//	     table: 1 byte, the table number (0 … C(b,k)−1)
//	     fingerprint-key: the table's blocks' bits concatenated, most
//	     significant first, left-aligned and zero-padded to whole bytes
//	     (16 bits → 2 bytes; 26 → 4)
//	     fingerprint: the whole 8-byte fingerprint, so that a candidate's
//	     distance is checked from the key alone
//	     id: the document ID, the rest of the key
//	'd' id → record (index's record format)
//	'c' content-hash id → empty (8-byte content hash)
//	'b' band value id → empty, for each of the 16 MinHash bands of the
//	     document's sketch (band: 1 byte; value: the band's four 16-bit
//	     sketch values, 8 bytes); absent when the document has no sketch
//	'p' passage id → empty (8-byte passage fingerprint, package reuse),
//	     one for each of the document's Passages
//	'm' name → the values the index records with Claim: "format" (1
//	     byte), "layout" (2 bytes, b and k), "analyzer"
//
// For example, with b=4, k=3, fingerprint 0123456789abcdef and ID "a",
// table 1 holds the key 't' 01 45 67 01 23 45 67 89 ab cd ef 'a'. The
// postings of an index.Key are the keys with its prefix ('t' table
// fingerprint-key, 'b' band value, 'c' content-hash); Postings reads
// them, keys only, in one read transaction.
//
// # Writes, durability and concurrency
//
// Apply writes in Badger transactions of up to 10000 documents, fewer
// when Badger's size limit (15% of the memtable, estimated the way
// Badger does) comes first, and keeps two of them going: while Badger
// writes one to its log and memtable, Apply fills the next. A document's
// record, table, band and content-hash keys always change in one
// transaction. The database is opened with SyncWrites, so when Apply
// returns, its transactions have been written to the write-ahead log and
// synced (msync) to disk: a process killed right after Apply returns
// loses nothing, and neither does an operating-system crash.
//
// Load fills a store that holds no documents much faster than Apply: it
// sorts the keys itself and has Badger's StreamWriter write them into
// tables directly (see load.go).
//
// A Store is safe for concurrent use; Apply and Claim run one at a time.
// Badger locks the directory, so a second Open of the same directory,
// from this process or another, fails with index.ErrInUse until the
// first is closed (Open retries a held lock for 127 ms first: see
// lockWait).
//
// # Exact duplicates
//
// Postings consults a counting Bloom filter over the content hashes,
// kept in memory, before reading a content key: when the filter says no,
// no read is done (Stats counts these). Open builds it by scanning the
// 'c' keys, or loads it from the file the last Close saved it to when
// nothing was written since (see filters.go). The filter has 4-bit
// saturating counters and is sized for 1.5 times the number of documents
// at Open (at least 1024) at Options.FalsePositive; when the documents
// outgrow it, it is rebuilt from the store for twice as many (from the
// memory copy of the postings, when the store keeps one: see mem.go). Deletes
// decrement the counters, except saturated ones (15), which stay at 15
// because they may stand for more than 15 documents; a stuck counter can
// only cause false positives. After more than max(256, capacity/64) such
// skipped decrements the filter is rebuilt from the store, which makes
// every counter exact again. Records consults a Bloom filter over the
// IDs likewise, so that adding a new document reads no old record, and
// Postings a Bloom filter over the band keys (their 'b' band value
// prefixes, 2% false positives, 16 bytes of memory a document), so that
// the 16 band keys of a new document, nearly all absent, cost no seek:
// a prefix is read by seeking in the memtables and in every table whose
// range covers it, since Badger's own Bloom filters are of whole keys.
// Deletes leave the ID and band filters' bits set (a needless read at
// worst); a rebuild clears them.
//
// # Postings in memory
//
// A store opened with Options.MemPostings (what `neardup dedup --index`
// does) keeps a copy of its table, band and content postings and of its
// documents' IDs in memory, built at Open and kept up to date by Apply,
// so that Postings and PostingsNear seek in no table: a batch run's
// lookups then cost the same whatever the size of the archive. The
// copy is a cache; everything is written to Badger as without it (see
// mem.go). A lean store keeps its records there too, so that the
// engine's reads of its candidates' records (RecordsByNum) read no
// Badger either. Such a writer lets more tables pile up in Badger's
// level 0 before compacting them (batchL0Tables), which a reader would
// seek one by one but it does not read.
//
// # Damage
//
// A damaged directory is an error wrapping index.ErrCorrupt that names
// the directory and the file (and the block, or the record), never a
// panic: Open reads every table's index before Badger does;
// every block's checksum is verified when it is read, and since Badger
// reads a block that fails as missing keys, the store verifies the
// blocks each read touched again, so that the read fails instead of
// missing documents, and one table's index every 256 reads;
// values in the value log have their checksums verified. Not covered: a
// compaction (a writer's) of a table with a damaged block, which Badger
// writes out without that block's keys. Verify reads everything; Salvage
// copies what is readable into a new store (verify.go).
//
// What reads Badger's files behind its back (its table format, through
// its internal packages, and its log line about an unreadable value) is
// package internal/tablecheck, for Badger v4.9.6 only (its package doc
// says what and why); this package uses Badger's public API otherwise.
package badgerstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/skl"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore/internal/tablecheck"
	"github.com/neardup/neardup/simhash"
)

// Errors of the index package that this package wraps.
var (
	ErrNotFound = index.ErrNotFound
	ErrInUse    = index.ErrInUse
	ErrCorrupt  = index.ErrCorrupt
	ErrClosed   = index.ErrClosed
	ErrReadOnly = index.ErrReadOnly
	ErrNoSpace  = index.ErrNoSpace
	ErrNotEmpty = index.ErrNotEmpty
)

// DefaultFalsePositive is the false-positive rate of the content filter
// when Options.FalsePositive is zero.
const DefaultFalsePositive = 0.01

// idFalsePositive is the false-positive rate of the ID filter: the
// share of new IDs for which Records reads a record that is not there.
const idFalsePositive = 0.01

// bandFalsePositive is the false-positive rate of the band filter: the
// share of absent band keys for which Postings reads the store. About 8
// bits a band key, 16 bytes a document.
const bandFalsePositive = 0.02

// txnDocs is the most documents Apply writes in one transaction; fewer
// when Badger's size limit comes first.
const txnDocs = 10000

// MinFreeSpace is the free space Open requires before it writes to a
// store: room for two of Badger's memory-mapped logs. Badger writes its
// logs through memory maps, and a write to a map past the end of a full
// disk kills the process (SIGBUS) instead of returning an error, so a
// full disk is refused up front. A disk that fills up during a long run
// can still end the process; every write acknowledged before is on disk
// and the store opens afterwards once space is freed.
const MinFreeSpace = 2*memTableSize + 16<<20

// Badger settings that Apply sizes its transactions by.
const (
	memTableSize   = 64 << 20
	valueThreshold = 1 << 20
)

// Key kinds besides index's: the first byte of every key.
const (
	kindDoc       = 'd' // 'd' + id → record (numbered: number, record)
	kindMeta      = 'm' // 'm' + name → value
	kindNum       = 'n' // 'n' number → id (numbered postings only)
	kindStoreMeta = 'M' // 'M' name → the store's own settings
)

// Options configure Open. The zero value (or nil) means the defaults.
type Options struct {
	// FalsePositive is the target false-positive rate of the Bloom
	// filter in front of content lookups, in (0, 0.5]. Zero means
	// DefaultFalsePositive.
	FalsePositive float64

	// ReadOnly opens an existing store without writing to it; Apply and
	// Claim of a new value fail with index.ErrReadOnly. Several
	// read-only opens may share a directory.
	ReadOnly bool

	// Logf, if not nil, receives Badger's warnings and errors. Badger's
	// informational messages are dropped.
	Logf func(format string, args ...any)

	// Compress makes a new store write compressed tables (ZSTD at its
	// fastest level, 16 KB blocks, with a cache of decompressed blocks:
	// BlockCache): about 40% fewer bytes on disk (see
	// bench/README.md), for slower reads. The store records the choice
	// when it is created ('M' "tables"); a store opened later keeps
	// what it was created with, whatever Compress says.
	Compress bool

	// BlockCache is the size in bytes of the cache of decompressed
	// blocks of a store with compressed tables; 0 sizes it at Open from
	// the tables' bytes on disk (see blockCacheSize): 256 MiB for a new
	// store, up to 2 GiB (an archive of about 1.3×10^6 lean documents),
	// and 64 MiB for a lean store opened with MemPostings, which reads
	// its postings and records from memory (memCache).
	BlockCache int64

	// Lean makes a new store keep its records lean (index.BatchRecord):
	// without the title, keywords and kept text, which only explain a
	// match to a person, and with an 8-bit digest of each band of the
	// 64-value sketch in place of its values when the record has a
	// confirmation sketch (the digests tell whether a candidate shares
	// a band; the confirmation sketch measures it), at about 38% of the
	// bytes a document on disk. A replaced document gets a new number
	// (its old band postings, which its digests cannot name, then
	// resolve to nothing); Salvage gives a lean record its sketch back
	// from its band postings (index.RestoreSketch).
	// For an archive of batch runs, which explain no match: Get, check
	// and serve show its documents and matches without them. The store
	// records the choice when it is created ('M' "records"); a store
	// opened later keeps what it was created with, whatever Lean says.
	Lean bool

	// MemPostings keeps a copy of the store's table, band and content
	// postings, and of its documents' IDs, in memory while it is open
	// (see mem.go): built at Open from the store, at about 315 bytes a
	// document (bench/README.md), and kept up to date by Apply, so that
	// Postings and PostingsNear read no table of Badger's and their
	// cost does not grow with the archive. A lean store (Options.Lean)
	// keeps its records in memory too, so that RecordsByNum reads none
	// from Badger: about 367 bytes a document more (358.5 of record and
	// an 8-byte slot, at 4×10^5 documents of the scale corpus). For a
	// batch run that owns the archive (`neardup dedup --index`);
	// records and postings are still written to Badger as without it.
	// A store written before issue #27 (postings that end in IDs), or a
	// read-only one, ignores it.
	MemPostings bool
}

func (o *Options) resolve() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	switch {
	case r.FalsePositive == 0:
		r.FalsePositive = DefaultFalsePositive
	case !(r.FalsePositive > 0 && r.FalsePositive <= 0.5):
		return r, fmt.Errorf("index: FalsePositive %v: want a value in (0, 0.5]", r.FalsePositive)
	}
	return r, nil
}

// Store is an index.Store in a Badger database.
type Store struct {
	dir      string
	db       *badger.DB
	fpRate   float64
	readOnly bool

	life   sync.RWMutex // shared by every operation, exclusive in Close and Load
	closed bool

	wmu  sync.Mutex // serialises Apply and Claim
	docs atomic.Int64

	// numbered says that postings end in document numbers (see the
	// package doc), the layout of every store created since issue #27;
	// false for an older store, whose postings end in IDs. mark says
	// that the store is new and its first write records the setting.
	// next is the number the next new document gets (guarded by wmu).
	numbered, mark bool
	next           uint64
	// lean says that the store keeps lean records (Options.Lean), and
	// compress that it writes compressed tables (Options.Compress).
	lean, compress bool
	// loadCut says that a Load of a numbered store was cut short in
	// the directory (its mark was found in loadTmp at Open): what it
	// wrote is numbered even where its settings did not land.
	loadCut   bool
	maxStuck  int64 // rebuild threshold for stuck counters; 0 means max(256, capacity/64)
	loadChunk int   // documents Load sorts at a time; 0 means LoadChunk

	bmu   sync.RWMutex // guards bloom
	bloom *countingBloom
	ids   *idFilter // guarded by wmu for writes; read under bmu
	bands *idFilter // the band keys' prefixes (bandHash); written under bmu

	lookups, saved, done, falseHits, rebuilds atomic.Int64
	bandSaved                                 atomic.Int64 // band keys the band filter answered

	shadow     *tablecheck.Shadows  // handles on the tables, to find damage Badger reads as missing keys
	checksOff  bool                 // no checks of the tables: set by BenchmarkReadCheck only, to time them
	vlogDamage *tablecheck.ValueLog // value-log files Badger could not read values from

	// mem is the memory copy of the postings (Options.MemPostings), nil
	// when there is none or a failed write left it stale.
	mem atomic.Pointer[memPostings]
	// memLog is what the transaction Apply is filling writes, for mem
	// once it is committed (guarded by wmu).
	memLog []memWrite
	// memFlight is what the transactions Apply has begun to commit
	// write, not yet applied to mem: a rebuild of the filters from mem
	// adds it (guarded by wmu).
	memFlight [][]memWrite
}

// OpenIndex opens the store in dir (see Open) and the index in it (see
// index.New).
func OpenIndex(ctx context.Context, dir string, opts *Options, iopts *index.Options) (*index.Index, error) {
	s, err := Open(dir, opts)
	if err != nil {
		return nil, err
	}
	return index.New(ctx, s, iopts)
}

// Open opens the store in directory dir, creating both if needed (unless
// opts.ReadOnly). nil opts means the defaults.
func Open(dir string, opts *Options) (*Store, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, errors.New("index: empty directory name")
	}
	if o.ReadOnly {
		fi, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("index: open %s read-only: %w", dir, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("index: open %s: not a directory", dir)
		}
	} else if err := checkWritable(dir); err != nil {
		return nil, err
	} else if free := freeSpace(dir); free >= 0 && free < MinFreeSpace {
		return nil, fmt.Errorf("index: %s: %w: %d bytes free, need at least %d", dir, ErrNoSpace, free, int64(MinFreeSpace))
	}
	_, serr := os.Stat(filepath.Join(dir, loadTmp, loadNumbered))
	loadCut := serr == nil
	// The metadata a Load cut short kept aside (see loadMeta).
	savedMeta, merr := os.ReadFile(filepath.Join(dir, loadTmp, loadMeta))
	if merr != nil && !errors.Is(merr, fs.ErrNotExist) {
		return nil, fmt.Errorf("index: open %s: %w", dir, merr)
	}
	// Badger reads the tables' indexes in goroutines of its own, where
	// a damaged one is a panic that ends the process: they are read
	// here first.
	sh, err := tablecheck.Open(dir, o.ReadOnly)
	if err != nil {
		return nil, err
	}
	vd := &tablecheck.ValueLog{}
	db, err := openBadger(dir, o, vd)
	if err != nil {
		sh.Close()
		return nil, err
	}
	s := &Store{dir: dir, db: db, fpRate: o.FalsePositive, readOnly: o.ReadOnly, shadow: sh, vlogDamage: vd, lean: o.Lean, compress: o.Compress, loadCut: loadCut}
	fail := func(err error) (*Store, error) {
		s.db.Close()
		sh.Close()
		return nil, err
	}
	if err := s.checkMeta(readLoadMeta(savedMeta)); err != nil {
		return fail(err)
	}
	if !o.ReadOnly {
		// Run files of a Load that did not finish, removed once its
		// metadata is back.
		if err := os.RemoveAll(filepath.Join(dir, loadTmp)); err != nil {
			return fail(fmt.Errorf("index: open %s: %w", dir, err))
		}
	}
	if err := s.readLayout(); err != nil {
		return fail(err)
	}
	// An existing store keeps the compression and records it was
	// created with; Badger's options, which its new tables and its
	// block cache follow, are set when it opens.
	kept := o
	kept.Compress, kept.Lean = s.compress, s.lean
	if !o.ReadOnly && (s.compress != o.Compress || s.compress && cacheSize(dir, kept) != cacheSize(dir, o)) {
		if err := s.db.Close(); err != nil {
			sh.Close()
			return nil, fmt.Errorf("index: open %s: %w", dir, err)
		}
		o = kept
		if s.db, err = openBadger(dir, o, vd); err != nil {
			sh.Close()
			return nil, err
		}
	}
	if s.compress {
		sh.SetCompression(options.ZSTD)
	}
	// The filters saved by the last Close, if nothing was written since;
	// else rebuilt from the store.
	if err := s.loadFilters(s.db.MaxVersion()); err != nil {
		if err := s.rebuildBloom(0); err != nil {
			return fail(err)
		}
	}
	s.rebuilds.Store(0)
	// (A store of more than 2^32 − 1 numbers, which the copy's 32-bit
	// numbers cannot hold, is read from Badger.)
	if o.MemPostings && s.numbered && !o.ReadOnly && s.next <= math.MaxUint32 {
		m, err := s.buildMem()
		if err != nil {
			return fail(err)
		}
		s.mem.Store(m)
	}
	return s, nil
}

// openBadger opens the Badger database in dir.
//
// Badger's errors do not wrap their causes; its messages are the only way
// to tell these cases apart (each is tested):
//
//   - another process (or another Open in this one) holds the directory
//     lock: ErrInUse, after retrying for up to lockWait (see there);
//   - a read-only open of an empty directory: ErrNotFound;
//   - a read-only open after a writer was killed: Badger must replay and
//     truncate the write-ahead log first, which it refuses to do
//     read-only ("Log truncate required"), so the log is recovered by a
//     brief read-write open, closed, and the read-only open retried;
//   - a failed read-write open (for instance a file size limit or a full
//     disk while Badger preallocates a new log file): Badger leaves the
//     log file it could not size behind, empty, and every later open
//     would fail on it, so the empty .mem and .vlog files this attempt
//     created are removed. They hold no writes.
func openBadger(dir string, o Options, vd *tablecheck.ValueLog) (*badger.DB, error) {
	var before map[string]bool
	if !o.ReadOnly {
		// An empty log (memtable or value log) left by a writer killed
		// while Badger created it (before sizing it) holds no writes but
		// fails the next open. (A live writer's log is sized the moment
		// it is created.)
		removeEmptyLogs(dir)
		before = logFiles(dir)
	}
	db, err := badger.Open(badgerOptions(dir, o, vd))
	for wait := time.Millisecond; err != nil && isLockErr(err) && wait <= lockWait; wait *= 2 {
		time.Sleep(wait)
		db, err = badger.Open(badgerOptions(dir, o, vd))
	}
	if err == nil {
		return db, nil
	}
	switch msg := err.Error(); {
	case isLockErr(err):
		return nil, fmt.Errorf("%w: %s", ErrInUse, dir)
	case o.ReadOnly && strings.Contains(msg, "no manifest found"):
		return nil, fmt.Errorf("index: %s: %w: no index there to open read-only", dir, ErrNotFound)
	case o.ReadOnly && (strings.Contains(msg, "Log truncate required") || hasEmptyLog(dir)):
		rw := o
		rw.ReadOnly = false
		db, err := openBadger(dir, rw, vd)
		if err != nil {
			return nil, fmt.Errorf("index: %s: recovering the log of a writer that did not close, before opening read-only: %w", dir, err)
		}
		if err := db.Close(); err != nil {
			return nil, fmt.Errorf("index: %s: recovering the log of a writer that did not close: %w", dir, err)
		}
		db, err = badger.Open(badgerOptions(dir, o, vd))
		if err != nil {
			return nil, fmt.Errorf("index: open %s read-only after recovering its log: %w", dir, err)
		}
		return db, nil
	}
	if !o.ReadOnly {
		for name := range logFiles(dir) {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && fi.Size() == 0 && !before[name] {
				os.Remove(p)
			}
		}
	}
	if file := damagedOpen(err); file != "" {
		return nil, &corruptError{Dir: dir, Damage: Damage{File: file, Block: -1, Err: err}}
	}
	return nil, fmt.Errorf("index: open %s: %w", dir, err)
}

// lockWait bounds the waits between the attempts openBadger makes to
// take a directory lock that is held: 1, 2, 4, … 64 ms, 127 ms in all.
// A lock can outlive the Close that released it for a moment: Badger
// locks the directory with flock, which belongs to the open file, and a
// child that this process forks (os/exec, in any goroutine) holds a copy
// of every file until it executes its program. An Open right after a
// Close, in a process that starts programs, then found the directory in
// use: in TestReopenWhileForking (four goroutines starting programs,
// 40 reopens) 7 of 8 runs without the retry found 4 to 34 reopens in
// use, and none with it. A lock another Open holds still fails with
// ErrInUse, 127 ms later.
const lockWait = 64 * time.Millisecond

// isLockErr reports whether err is Badger's failure to take the
// directory lock.
func isLockErr(err error) bool {
	return strings.Contains(err.Error(), "Cannot acquire directory lock")
}

// vlogName finds a value log's file name in one of Badger's messages.
var vlogName = regexp.MustCompile(`[0-9]+\.vlog`)

// damagedOpen returns the file a failed Badger Open says is damaged, or
// "" when its error is about something else (a lock, the disk, a
// permission). Badger's errors do not wrap these causes either.
func damagedOpen(err error) string {
	msg := err.Error()
	switch {
	case errors.Is(err, badger.ErrEncryptionKeyMismatch), strings.Contains(msg, "Encryption key mismatch"):
		// Nothing is encrypted: a key registry that does not match is
		// a damaged KEYREGISTRY file.
		return "KEYREGISTRY"
	case strings.Contains(msg, "MANIFEST") || strings.Contains(msg, "manifest has"):
		return "MANIFEST"
	case strings.Contains(msg, "Invalid datakey id") || strings.Contains(msg, "checksum"):
		if f := vlogName.FindString(msg); f != "" {
			return f
		}
	}
	return ""
}

// hasEmptyLog reports whether dir holds an empty .mem or .vlog file. A
// log with data starts with a header; Badger fails to open an empty one
// (an empty .vlog: "Open existing file … Create a new file" for writing,
// a failed truncate read-only).
func hasEmptyLog(dir string) bool {
	for name := range logFiles(dir) {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Size() == 0 {
			return true
		}
	}
	return false
}

func removeEmptyLogs(dir string) {
	for name := range logFiles(dir) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Size() == 0 {
			os.Remove(p)
		}
	}
}

// logFiles returns the names of Badger's log files (.mem, .vlog) in dir.
func logFiles(dir string) map[string]bool {
	m := map[string]bool{}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if n := e.Name(); strings.HasSuffix(n, ".mem") || strings.HasSuffix(n, ".vlog") {
			m[n] = true
		}
	}
	return m
}

// checkWritable creates dir if needed and checks that a file can be
// created in it, so that permission and read-only file system errors
// name the directory and keep the OS error.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("index: create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".neardup-probe-*")
	if err != nil {
		return fmt.Errorf("index: %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("index: %s: %w", dir, err)
	}
	return nil
}

// badgerOptions returns the Badger options for dir. The values not left
// at Badger's defaults:
//
//   - SyncWrites: acknowledged writes are durable (see the package doc).
//     Each commit then syncs the memtable's log; Add commits up to
//     txnDocs documents at a time, so the sync is paid once per batch.
//   - DetectConflicts off: Index serialises its writers itself.
//   - MemTableSize 64 MiB, the default, set explicitly because Add sizes
//     its transactions by it (15% of it). 8, 16 and 32 MiB ingested no
//     faster (BenchmarkAdd, 2-core machine).
//   - ValueThreshold 1 MiB, the default, likewise: records are far
//     smaller and live in the LSM tree next to their keys.
//   - ValueLogFileSize 64 MiB (default 1 GiB): the value log holds only
//     records over 1 MiB but is preallocated (sparse) all the same.
//   - NumCompactors 2 (default 4), for small machines.
//   - Compression off (default Snappy) and BlockCacheSize 0 (default
//     256 MiB): keys and fingerprints are random and compress poorly;
//     uncompressed blocks are read straight from the memory-mapped
//     tables, which cut Near's p99 at 1M fingerprints from 4-5 ms to
//     about 0.15-1.5 ms (noisy shared machine) for 20% more disk.
//   - ChecksumVerificationMode OnBlockRead (default none): every table
//     block's checksum is verified when it is read, so that a damaged
//     block is not read as garbage that panics or matches wrongly.
//     Badger reads such a block as missing keys; the store reads the
//     blocks again to turn that into an error (tablecheck). Not
//     OnTableRead: Badger's Open
//     skips a table whose checksum fails with a log line only, losing
//     its keys; Open reads the tables' indexes itself first (tablecheck.Open)
//     and Verify reads every block.
//   - VerifyValueChecksum on (default off): a value read from the value
//     log (a record of 1 MiB or more) has its checksum verified, so
//     that a damaged one reads as damage (see readValue) instead of as
//     a wrong record.
//   - Metrics off; logging routed to Options.Logf, warnings and errors
//     only, and to vd, which keeps the files of unreadable values.
//   - For a writer with MemPostings (a batch run that owns the archive
//     and reads its postings and records from memory): batchL0Tables
//     (40) level-0 tables before compaction (default 5) and
//     batchL0Stall (100) before writes stall (default 15).
func badgerOptions(dir string, o Options, vd *tablecheck.ValueLog) badger.Options {
	if o.Compress {
		return plainOptions(dir, o, vd).
			WithCompression(options.ZSTD).
			WithZSTDCompressionLevel(1).
			WithBlockSize(compressedBlock).
			WithBlockCacheSize(cacheSize(dir, o))
	}
	return plainOptions(dir, o, vd)
}

// cacheSize is the size of the block cache of a compressed store in dir
// opened with o: Options.BlockCache; else memCache for a writer that
// keeps its postings and records in memory (MemPostings, Lean), which
// reads next to nothing from Badger; else blockCacheSize of its tables.
func cacheSize(dir string, o Options) int64 {
	switch {
	case o.BlockCache != 0:
		return o.BlockCache
	case o.MemPostings && o.Lean && !o.ReadOnly:
		return memCache
	}
	return blockCacheSize(tableBytes(dir))
}

// memCache is the block cache of a store that keeps its postings and
// records in memory. Its reads are of IDs the ID filter lets through
// and of passages; what the adaptive cache held was mostly the blocks
// Open's read of the copy went through: at 10^6 documents, Open alone
// peaked at 3.74 GB of RSS with the 2 GiB cache, 2.74 GB with this
// one, for the same CPU (bench/README.md, "12:30–14:10").
const memCache = 64 << 20

// blockCacheSize is the size of Badger's cache of decompressed blocks of
// a store with Options.Compress whose tables take sst bytes on disk:
// twice that (decompressed, they take about twice as much) and 256 MiB
// for what a run adds, between 64 MiB and 2 GiB. Every lookup of a
// posting seeks in a table of each level, and a block the cache misses
// is decompressed again: with 64 MiB, `dedup --index` of 20,000 articles
// into an archive of 4×10^5 took 20.6 s of CPU, with 1 GiB 12.7 s
// (bench/README.md).
func blockCacheSize(sst int64) int64 {
	return min(max(2*sst+256<<20, 64<<20), 2<<30)
}

// tableBytes is the bytes of the tables (.sst files) in dir, 0 when
// there are none or it cannot be read.
func tableBytes(dir string) int64 {
	es, _ := os.ReadDir(dir)
	var n int64
	for _, e := range es {
		if !strings.HasSuffix(e.Name(), ".sst") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// compressedBlock is the size of a compressed store's table blocks
// (Badger's default, for uncompressed ones, is 4 KB): ZSTD finds more
// to share in a larger block, 715 bytes a document of tables against
// 754 at 4 KB for lean records (bench/README.md).
const compressedBlock = 16 << 10

// batchL0Tables and batchL0Stall are Badger's NumLevelZeroTables and
// NumLevelZeroTablesStall for a writer with MemPostings. Its keys are
// hashes and random IDs, so every table flushed from the memtable spans
// the whole key range, and every compaction of level 0 rewrites all of
// the level below it: waiting for 40 tables instead of 5 rewrites it an
// eighth as often. `dedup --index` of 10^6 articles into a new archive
// took 209–246 CPU s with 40 (215–229 with 20) instead of 277–291
// with 5, and no longer slowed down as the archive grew, for the same
// bytes on disk (bench/README.md, "15:10–16:50"). Such a writer reads
// next to nothing from Badger, so the extra tables a lookup would seek
// cost it nothing.
// An archive it leaves holds up to 40 level-0 tables, which the next
// writer with the defaults compacts; a reader meanwhile seeks them all
// for a prefix read (`check` of 2,000 articles against an archive left
// with 20 took no more CPU). A store written before issue #27, which
// keeps no copy whatever MemPostings says, gets them too.
const (
	batchL0Tables = 40
	batchL0Stall  = 100
)

// plainOptions are badgerOptions without compression.
func plainOptions(dir string, o Options, vd *tablecheck.ValueLog) badger.Options {
	if o.MemPostings && !o.ReadOnly {
		return basicOptions(dir, o, vd).
			WithNumLevelZeroTables(batchL0Tables).
			WithNumLevelZeroTablesStall(batchL0Stall)
	}
	return basicOptions(dir, o, vd)
}

// basicOptions are plainOptions for any writer or reader.
func basicOptions(dir string, o Options, vd *tablecheck.ValueLog) badger.Options {
	return badger.DefaultOptions(dir).
		WithLogger(badgerLogger{o.Logf, vd}).
		WithReadOnly(o.ReadOnly).
		WithSyncWrites(true).
		WithDetectConflicts(false).
		WithNumVersionsToKeep(1).
		WithMemTableSize(memTableSize).
		WithValueThreshold(valueThreshold).
		WithValueLogFileSize(64 << 20).
		WithNumCompactors(2).
		WithBlockCacheSize(0).
		WithCompression(options.None).
		WithChecksumVerificationMode(options.OnBlockRead).
		WithVerifyValueChecksum(true).
		WithMetricsEnabled(false)
}

// badgerLogger passes Badger's warnings and errors to logf, and its
// errors to vd too.
type badgerLogger struct {
	logf func(string, ...any)
	vd   *tablecheck.ValueLog
}

func (l badgerLogger) log(level, format string, args []any) {
	if l.logf == nil && (l.vd == nil || level != "error") {
		return
	}
	msg := strings.TrimSpace(fmt.Sprintf(format, args...))
	if level == "error" {
		l.vd.Note(msg)
	}
	if l.logf != nil {
		l.logf("badger %s: %s", level, msg)
	}
}

func (l badgerLogger) Errorf(format string, args ...any)   { l.log("error", format, args) }
func (l badgerLogger) Warningf(format string, args ...any) { l.log("warning", format, args) }
func (badgerLogger) Infof(string, ...any)                  {}
func (badgerLogger) Debugf(string, ...any)                 {}

// restoreMeta writes kvs, the metadata a Load kept aside (see
// loadMeta).
func (s *Store) restoreMeta(kvs [][2][]byte) error {
	err := s.db.Update(func(txn *badger.Txn) error {
		for _, kv := range kvs {
			if err := txn.Set(kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index: %s: restoring the metadata of a Load cut short: %w", s.dir, err)
	}
	return nil
}

// checkMeta refuses a database that holds keys but no index format,
// and a read-only open of a directory without an index. A database
// without its format whose Load was cut short (after the StreamWriter
// dropped everything, before the metadata's table landed) gets back
// the metadata that Load kept aside, saved (see loadMeta).
func (s *Store) checkMeta(saved [][2][]byte) (err error) {
	defer s.recoverTo("reading metadata", &err)
	var format bool
	var empty bool
	err = s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		_, err := s.get(txn, tabs, metaKey(index.MetaFormat))
		switch {
		case err == nil:
			format = true
			return nil
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		it.Rewind()
		empty = !it.Valid()
		if empty {
			// Badger read the first block of every table.
			return s.shadow.CheckRead(tabs, nil, true)
		}
		return nil
	})
	switch {
	case err != nil:
		return fmt.Errorf("index: %s: reading metadata: %w", s.dir, err)
	case format:
		return nil
	case len(saved) > 0 && s.readOnly:
		return fmt.Errorf("index: %s: a Load was cut short before its metadata landed: open it for writing once to restore it", s.dir)
	case len(saved) > 0:
		return s.restoreMeta(saved)
	case !empty:
		return fmt.Errorf("index: %s holds a Badger database that is not a neardup index (no format metadata)", s.dir)
	case s.readOnly:
		return fmt.Errorf("index: %s: %w: no index there to open read-only", s.dir, ErrNotFound)
	}
	return nil
}

// read calls fn in a read transaction with the store's handles on the
// tables Badger reads (see tablecheck.Shadows).
func (s *Store) read(fn func(*badger.Txn, []*tablecheck.Table) error) error {
	if s.checksOff {
		return s.db.View(func(txn *badger.Txn) error { return fn(txn, nil) })
	}
	tabs, release, err := s.shadow.View(s.db)
	if err != nil {
		return err
	}
	defer release()
	return s.db.View(func(txn *badger.Txn) error { return fn(txn, tabs) })
}

// get returns a copy of the value of key, or badger.ErrKeyNotFound,
// after checking that Badger could read every block it read for it
// (tabs: see tablecheck.Shadows).
func (s *Store) get(txn *badger.Txn, tabs []*tablecheck.Table, key []byte) ([]byte, error) {
	item, err := txn.Get(key)
	if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
		return nil, err
	}
	if cerr := s.shadow.CheckRead(tabs, key, true); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	return s.readValue(item)
}

// String returns the directory, which names the store in error messages.
func (s *Store) String() string { return s.dir }

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// use takes the shared lifetime lock, failing if s is closed. The caller
// must call s.life.RUnlock when use returns nil.
func (s *Store) use() error {
	s.life.RLock()
	if s.closed {
		s.life.RUnlock()
		return fmt.Errorf("index: %s: %w", s.dir, ErrClosed)
	}
	return nil
}

// Claim implements index.Store: each value is kept under 'm' name, all
// that are missing written in one transaction.
func (s *Store) Claim(_ context.Context, values map[string][]byte) (_ map[string][]byte, err error) {
	defer s.recoverTo("reading metadata", &err)
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	out := make(map[string][]byte, len(values))
	var missing []string
	err = s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		for name := range values {
			v, err := s.get(txn, tabs, metaKey(name))
			switch {
			case errors.Is(err, badger.ErrKeyNotFound):
				missing = append(missing, name)
			case err != nil:
				return err
			default:
				out[name] = v
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index: %s: reading metadata: %w", s.dir, err)
	}
	if len(missing) == 0 {
		return out, nil
	}
	if s.readOnly {
		return nil, fmt.Errorf("index: %s: recording %s: %w", s.dir, strings.Join(missing, ", "), ErrReadOnly)
	}
	err = s.db.Update(func(txn *badger.Txn) error {
		if err := s.setMark(txn); err != nil {
			return err
		}
		for _, name := range missing {
			if err := txn.Set(metaKey(name), append([]byte{}, values[name]...)); err != nil {
				return err
			}
			out[name] = append([]byte{}, values[name]...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index: %s: writing metadata: %w", s.dir, err)
	}
	s.mark = false
	return out, nil
}

// rebuildBloom rebuilds the content-hash filter and the ID filter from
// the content-hash keys (which end in the ID), for at least capacity
// documents and 1.5 times those stored, and the band filter from the
// band keys; from the memory copy of the postings instead when the
// store keeps one (rebuildFromMem). Callers other than Open hold wmu.
func (s *Store) rebuildBloom(capacity int64) (err error) {
	defer s.recoverTo("building the content filter", &err)
	if m := s.mem.Load(); m != nil && s.rebuildFromMem(m, capacity) {
		return nil
	}
	var hashes, ids, bands []uint64
	err = s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		prefix := []byte{byte(index.KindContent)}
		if err := s.shadow.CheckRead(tabs, prefix, false); err != nil {
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			key := it.Item().Key()
			h, _, err := parseContentKey(key)
			if err != nil {
				return err
			}
			hashes = append(hashes, h)
			if !s.numbered {
				ids = append(ids, xxhash.Sum64(key[contentPrefixLen:])) // the ID, without a copy
			}
		}
		if s.numbered {
			// The IDs from the records' keys, their values unread.
			prefix := []byte{kindDoc}
			if err := s.shadow.CheckRead(tabs, prefix, false); err != nil {
				return err
			}
			dt := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
			defer dt.Close()
			for dt.Rewind(); dt.Valid(); dt.Next() {
				ids = append(ids, xxhash.Sum64(dt.Item().Key()[1:]))
			}
		}
		prefix = []byte{byte(index.KindBand)}
		if err := s.shadow.CheckRead(tabs, prefix, false); err != nil {
			return err
		}
		bt := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer bt.Close()
		for bt.Rewind(); bt.Valid(); bt.Next() {
			key := bt.Item().Key()
			if len(key) < bandPrefixLen {
				return fmt.Errorf("band key %q: %w: %d bytes, want at least %d", key, ErrCorrupt, len(key), bandPrefixLen)
			}
			bands = append(bands, bandHash(key))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index: %s: building the content filter: %w", s.dir, err)
	}
	s.installFilters(capacity, int64(len(hashes)), hashes, ids, bands)
	return nil
}

// installFilters builds the content-hash, ID and band filters of a
// store of n documents from their hashes, for at least capacity
// documents and 1.5 times n, and puts them in place of the old ones.
func (s *Store) installFilters(capacity, n int64, hashes, ids, bands []uint64) {
	b := newCountingBloom(max(capacity, n+n/2), s.fpRate)
	for _, h := range hashes {
		b.add(h)
	}
	f := newIDFilter(b.capacity, idFalsePositive)
	for _, h := range ids {
		f.add(h)
	}
	bf := newBandFilter(b.capacity)
	for _, h := range bands {
		bf.add(h)
	}
	s.setFilters(b, f, bf, n)
	s.rebuilds.Add(1)
}

// Postings implements index.Store, reading every key's postings in one
// read transaction. Content keys go through the content filter first.
func (s *Store) Postings(ctx context.Context, keys []index.Key) ([][]index.Posting, error) {
	return s.postingsOf(ctx, keys, nil, -1)
}

// postingsOf is Postings and PostingsNear: with fps, a numbered store
// leaves out the table postings more than k bits from fps[i].
func (s *Store) postingsOf(_ context.Context, keys []index.Key, fps []simhash.Fingerprint, k int) (_ [][]index.Posting, err error) {
	defer s.recoverTo("reading postings", &err)
	if fps == nil {
		k = -1
	}
	for _, k := range keys {
		if err := checkKind(k); err != nil {
			return nil, fmt.Errorf("index: %s: postings: %w", s.dir, err)
		}
	}
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	out := make([][]index.Posting, len(keys))
	rest := keys // the keys to read from Badger (Kind 0: read already)
	if m := s.mem.Load(); m != nil {
		if rest = s.memPostingsOf(m, keys, fps, k, out); rest == nil {
			return out, nil
		}
	}
	err = s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		var prefix []byte
		var nums []numPosting
		for i, key := range keys {
			if rest[i].Kind == 0 {
				continue // read from memory
			}
			if key.Kind == index.KindContent && !s.mayContain(key.Value) {
				continue
			}
			prefix = appendPrefix(prefix[:0], key)
			if key.Kind == index.KindBand && !s.bandMayContain(prefix) {
				continue
			}
			var err error
			before := len(nums)
			if s.numbered {
				var fp simhash.Fingerprint
				if fps != nil {
					fp = fps[i]
				}
				nums, err = s.numPostings(txn, tabs, prefix, key.Kind == index.KindTable, fp, k, i, nums)
			} else {
				out[i], err = s.postings(txn, prefix, key.Kind == index.KindTable, out[i])
			}
			if err != nil {
				return err
			}
			if err := s.shadow.CheckRead(tabs, prefix, false); err != nil {
				return err
			}
			if key.Kind == index.KindContent && len(out[i]) == 0 && len(nums) == before {
				s.falseHits.Add(1)
			}
		}
		return s.resolve(txn, tabs, nums, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// postings appends to ps the postings under prefix. A panic reading a
// damaged table is recovered here, where the iterator is closed, so that
// the transaction's Discard does not panic again over it.
func (s *Store) postings(txn *badger.Txn, prefix []byte, fp bool, ps []index.Posting) (_ []index.Posting, err error) {
	defer s.recoverTo("reading postings", &err)
	n := len(prefix)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		key := it.Item().Key()
		var p index.Posting
		if fp {
			if len(key) < n+8 {
				return nil, fmt.Errorf("index: %s: table key %q: %w: %d bytes, want at least %d", s.dir, key, ErrCorrupt, len(key), n+8)
			}
			p.Fingerprint = simhash.Fingerprint(binary.BigEndian.Uint64(key[n:]))
			p.ID = string(key[n+8:])
		} else {
			p.ID = string(key[n:])
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// mayContain asks the content filter about h and counts the answer.
func (s *Store) mayContain(h uint64) bool {
	s.lookups.Add(1)
	s.bmu.RLock()
	in := s.bloom.mayContain(h)
	s.bmu.RUnlock()
	if in {
		s.done.Add(1)
	} else {
		s.saved.Add(1)
	}
	return in
}

// bandMayContain asks the band filter about the band key prefix.
// Nearly every band of a new document is absent from the store, and
// Badger can only answer a prefix by seeking in the memtables and in
// every table whose range covers it (its Bloom filters are of whole
// keys): the filter spares 16 such seeks a query.
func (s *Store) bandMayContain(prefix []byte) bool {
	s.bmu.RLock()
	in := s.bands.mayContain(bandHash(prefix))
	s.bmu.RUnlock()
	if !in {
		s.bandSaved.Add(1)
	}
	return in
}

// bandHash is the hash of a band key's prefix ('b', band, value) that
// the band filter holds.
func bandHash(prefix []byte) uint64 {
	return xxhash.Sum64(prefix[:bandPrefixLen])
}

// Records implements index.Store. An ID the ID filter has never seen is
// not read.
func (s *Store) Records(_ context.Context, ids []string) (_ [][]byte, err error) {
	defer s.recoverTo("reading records", &err)
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	out := make([][]byte, len(ids))
	err = s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		for i, id := range ids {
			s.bmu.RLock()
			maybe := s.ids.mayContain(xxhash.Sum64String(id))
			s.bmu.RUnlock()
			if !maybe {
				continue
			}
			v, err := s.get(txn, tabs, docKey(id))
			var ce *corruptError
			switch {
			case errors.Is(err, badger.ErrKeyNotFound):
			case errors.As(err, &ce):
				if ce.Damage.ID == "" {
					ce.Damage.ID = id
				}
				return ce
			case err != nil:
				return fmt.Errorf("index: %s: reading document %q: %w", s.dir, id, err)
			case s.numbered:
				_, rec, err := splitDocValue(v)
				if err != nil {
					return fmt.Errorf("index: %s: reading document %q: %w", s.dir, id, err)
				}
				out[i] = rec
			default:
				out[i] = v
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Apply implements index.Store (see the package doc).
func (s *Store) Apply(_ context.Context, b *index.Batch) (err error) {
	defer s.recoverTo("writing", &err)
	for i := range b.Writes {
		w := &b.Writes[i]
		if err := index.CheckID(w.ID); err != nil {
			return fmt.Errorf("index: %s: write %d: %w", s.dir, i, err)
		}
		for _, ks := range [][]index.Key{w.Keys, w.OldKeys} {
			for _, k := range ks {
				if err := checkKind(k); err != nil {
					return fmt.Errorf("index: %s: write %d: %w", s.dir, i, err)
				}
			}
		}
	}
	if err := s.use(); err != nil {
		return err
	}
	defer s.life.RUnlock()
	if s.readOnly {
		return fmt.Errorf("index: %s: write: %w", s.dir, ErrReadOnly)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	writes := b.Writes

	type commit struct {
		done    chan error
		id      string // the first document, for errors
		removed []uint64
		mem     []memWrite
		// rebuilds is s.rebuilds when the commit was begun. A rebuild
		// of the filters after that waited for the commit (see
		// rebuildBloom): it counted the store without the content
		// hashes removed, which then must not be taken out again.
		rebuilds int64
	}
	s.memLog, s.memFlight = nil, nil
	var inflight []*commit
	var failed error
	txn := s.db.NewTransaction(true)
	limit := txnDocs
	// The numbers of the documents this call writes or deletes (0),
	// which the transactions not yet committed do not show.
	nums, pending := map[string]uint64{}, map[string]uint64{}
	next := s.next
	for len(writes) > 0 {
		n, added, removed, err := s.fillTxn(txn, writes, limit, [2]map[string]uint64{pending, nums})
		switch {
		case errors.Is(err, badger.ErrTxnTooBig) && limit > 1:
			// The budget should prevent this; split further.
			txn.Discard()
			txn = s.db.NewTransaction(true)
			clear(pending) // its numbers are handed out again
			s.next = next
			s.memLog = s.memLog[:0]
			limit = max(1, min(limit, len(writes))/2)
			continue
		case errors.Is(err, badger.ErrTxnTooBig):
			err = fmt.Errorf("index: %s: write %q: the document alone is too big for a transaction: %w", s.dir, writes[0].ID, err)
		}
		if err != nil {
			failed = err
			break
		}
		// The next transaction is begun before this one is committed:
		// Badger starts a transaction only once every commit before it
		// is written, so beginning it later would wait for this one.
		nextTxn := s.db.NewTransaction(true)
		c := &commit{done: make(chan error, 1), id: writes[0].ID, removed: removed, mem: s.memLog, rebuilds: s.rebuilds.Load()}
		if c.mem != nil {
			s.memFlight = append(s.memFlight, c.mem)
		}
		s.memLog = nil
		// Counted before the commit is written, so that a rebuild of
		// the filters (which waits for the commit) counts it too.
		s.docs.Add(added)
		txn.CommitWith(func(err error) { c.done <- err })
		inflight = append(inflight, c)
		txn = nextTxn
		writes = writes[n:]
		next = s.next
		for id, num := range pending {
			nums[id] = num
		}
		clear(pending)
	}
	txn.Discard()
	recount := false
	for _, c := range inflight {
		if err := <-c.done; err != nil {
			recount = true
			if failed == nil {
				failed = s.writeErr("write", c.id, err)
			}
			continue
		}
		if !recount {
			if s.rebuilds.Load() == c.rebuilds {
				s.forget(c.removed)
			}
			if m := s.mem.Load(); m != nil {
				m.apply(c.mem)
			}
		}
		if c.mem != nil && len(s.memFlight) > 0 {
			s.memFlight = s.memFlight[1:] // applied, or the copy dropped
		}
	}
	s.memLog, s.memFlight = nil, nil
	if failed == nil {
		s.mark = false
	}
	if recount || failed != nil && len(inflight) > 0 {
		// Some of the writes may be in the store and not in the memory
		// copy, or the other way round: Badger is read from now on.
		s.dropMem()
	}
	if recount {
		// A commit failed: its documents were counted and are in the
		// filters. Rebuilding both from the store makes them exact
		// again; if that fails too, they only hold too much.
		_ = s.rebuildBloom(s.bloomCapacity())
	}
	return failed
}

// txnBudget mirrors Badger's estimate of a transaction's size, so that
// Add and Delete commit before Badger would refuse the transaction with
// ErrTxnTooBig: Badger allows 15% of the memtable size, counting for each
// entry its key, its value (when stored in the LSM tree) and 12 bytes,
// and as many entries as that size holds skiplist nodes.
type txnBudget struct {
	count, size       int64
	maxCount, maxSize int64
}

func newTxnBudget() txnBudget {
	size := int64(memTableSize * 15 / 100 * 9 / 10) // a 10% margin
	return txnBudget{maxCount: size / int64(skl.MaxNodeSize), maxSize: size}
}

// entrySize is Badger's estimate for one entry.
func entrySize(key, value int) int64 {
	if value >= valueThreshold {
		value = 12 // a value pointer
	}
	return int64(key + value + 12)
}

// take adds n entries of the given total size if they fit, or if the
// transaction is empty, and reports whether it did.
func (b *txnBudget) take(n, size int64) bool {
	if b.count > 0 && (b.count+n >= b.maxCount || b.size+size >= b.maxSize) {
		return false
	}
	b.count += n
	b.size += size
	return true
}

// keysSize returns the number and estimated size of the keys w sets
// and deletes.
func keysSize(w *index.Write, numbered bool) (int64, int64) {
	id, tail := len(w.ID), len(w.ID)
	if numbered {
		tail = numLen
	}
	var n, size int64
	for _, ks := range [][]index.Key{w.Keys, w.OldKeys} {
		for _, k := range ks {
			size += entrySize(prefixLen(k)+fpLen(k)+tail, 0)
			n++
		}
	}
	if w.Record != nil || w.Replaces {
		size += entrySize(1+id, len(w.Record)+numLen)
		n++
		if numbered {
			size += entrySize(1+numLen, id) // 'n' number → ID
			n++
		}
	}
	return n, size
}

// fillTxn writes up to limit of writes into txn, as many as fit, and
// returns how many it wrote, the change in the number of documents and
// the content hashes of the postings they remove. The new documents'
// content hashes and IDs go into the filters before the commit, so that
// a reader that sees a document also finds it there; if the commit
// fails, the filters only hold too much.
func (s *Store) fillTxn(txn *badger.Txn, writes []index.Write, limit int, nums [2]map[string]uint64) (n int, added int64, removed []uint64, err error) {
	budget := newTxnBudget()
	var key []byte
	if err := s.setMark(txn); err != nil {
		return 0, 0, nil, s.writeErr("add", writes[0].ID, err)
	}
	for ; n < len(writes) && n < limit; n++ {
		w := &writes[n]
		if !budget.take(keysSize(w, s.numbered)) {
			break
		}
		if s.numbered {
			var d int64
			if removed, d, err = s.fillNum(txn, w, nums, removed); err != nil {
				return 0, 0, nil, err
			}
			added += d
			continue
		}
		for _, k := range w.OldKeys {
			key = appendPostingKey(key[:0], k, w.OldFingerprint, w.ID)
			if err := txn.Delete(append([]byte(nil), key...)); err != nil {
				return 0, 0, nil, s.writeErr("delete", w.ID, err)
			}
			if k.Kind == index.KindContent {
				removed = append(removed, k.Value)
			}
		}
		for _, k := range w.Keys {
			key = appendPostingKey(key[:0], k, w.Fingerprint, w.ID)
			if err := txn.Set(append([]byte(nil), key...), nil); err != nil {
				return 0, 0, nil, s.writeErr("add", w.ID, err)
			}
		}
		switch {
		case w.Record != nil:
			if err := txn.Set(docKey(w.ID), append([]byte(nil), w.Record...)); err != nil {
				return 0, 0, nil, s.writeErr("add", w.ID, err)
			}
			if !w.Replaces {
				added++
			}
		case w.Replaces:
			if err := txn.Delete(docKey(w.ID)); err != nil {
				return 0, 0, nil, s.writeErr("delete", w.ID, err)
			}
			added--
		}
	}
	if s.numbered && added > 0 {
		if err := txn.Set(storeMetaKey(metaNext), appendNum(nil, s.next)); err != nil {
			return 0, 0, nil, s.writeErr("add", writes[0].ID, err)
		}
	}
	if need := s.docs.Load() + added; need > s.bloomCapacity() {
		if err := s.rebuildBloom(2 * need); err != nil {
			return 0, 0, nil, err
		}
	}
	var prefix []byte
	s.bmu.Lock()
	for i := range writes[:n] {
		w := &writes[i]
		for _, k := range w.Keys {
			switch k.Kind {
			case index.KindContent:
				s.bloom.add(k.Value) // with or without a record: Postings must find it
			case index.KindBand:
				prefix = appendPrefix(prefix[:0], k)
				s.bands.add(bandHash(prefix))
			}
		}
		if w.Record != nil {
			s.ids.add(xxhash.Sum64String(w.ID))
		}
	}
	s.bmu.Unlock()
	return n, added, removed, nil
}

// writeErr wraps a Badger write error, keeping ErrTxnTooBig visible to
// Apply's retry loop.
func (s *Store) writeErr(op, id string, err error) error {
	if errors.Is(err, badger.ErrTxnTooBig) {
		return err
	}
	return fmt.Errorf("index: %s: %s %q: %w", s.dir, op, id, err)
}

// bloomCapacity returns the capacity of the current filter.
func (s *Store) bloomCapacity() int64 {
	s.bmu.RLock()
	defer s.bmu.RUnlock()
	return s.bloom.capacity
}

// forget decrements the filter for removed content hashes, rebuilding it
// when too many saturated counters were skipped. Errors rebuilding are
// ignored: the old filter has no false negatives either.
func (s *Store) forget(removed []uint64) {
	if len(removed) == 0 {
		return
	}
	s.bmu.Lock()
	for _, h := range removed {
		s.bloom.remove(h)
	}
	limit := s.maxStuck
	if limit == 0 {
		limit = max(256, s.bloom.capacity/64)
	}
	rebuild := s.bloom.stuck > limit
	s.bmu.Unlock()
	if rebuild {
		_ = s.rebuildBloom(s.bloomCapacity())
	}
}

// dirBytes sums the disk use of the regular files in fsys. Badger removes
// files while it runs (a memtable's .mem file once flushed, tables after a
// compaction, value logs once collected); a file that goes between the
// directory read and its stat uses no space and is left out.
func dirBytes(fsys fs.FS) (int64, error) {
	var n int64
	err := fs.WalkDir(fsys, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if path != "." && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !e.Type().IsRegular() {
			return nil
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		n += diskSize(fi)
		return nil
	})
	return n, err
}

// Stats implements index.Store. DiskBytes sums the sizes of the files in
// the directory.
func (s *Store) Stats(context.Context) (_ index.StoreStats, err error) {
	defer s.recoverTo("stats", &err)
	if err := s.use(); err != nil {
		return index.StoreStats{}, err
	}
	defer s.life.RUnlock()
	st := index.StoreStats{Docs: s.docs.Load(), Lean: s.lean, Compressed: s.compress}
	st.DiskBytes, err = dirBytes(os.DirFS(s.dir))
	if err != nil {
		return index.StoreStats{}, fmt.Errorf("index: %s: %w", s.dir, err)
	}
	s.bmu.RLock()
	b := s.bloom
	st.Bloom = index.BloomStats{
		Capacity:      b.capacity,
		Counters:      int64(b.m),
		Hashes:        b.k,
		MemoryBytes:   b.bytes(),
		FalsePositive: b.fpRate,
		Saturated:     b.saturated,
	}
	s.bmu.RUnlock()
	st.Bloom.Rebuilds = s.rebuilds.Load()
	st.Bloom.Lookups = s.lookups.Load()
	st.Bloom.ReadsSaved = s.saved.Load()
	st.Bloom.ReadsDone = s.done.Load()
	st.Bloom.FalseHits = s.falseHits.Load()
	return st, nil
}

// Close closes the store, waiting for operations in progress. Later
// calls of any method but Close fail with index.ErrClosed.
func (s *Store) Close() error {
	s.life.Lock()
	defer s.life.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if !s.readOnly {
		// The filters, for the next Open. If they cannot be saved, the
		// next Open rebuilds them.
		// (Badger's MaxVersion reads every table's index, and panics
		// on a damaged one: the filters are not saved then.)
		var stamp uint64
		if tablecheck.Protect(func() error { stamp = s.db.MaxVersion(); return nil }) == nil {
			_ = s.saveFilters(stamp)
		}
	}
	err := s.db.Close()
	s.shadow.Close()
	if err != nil {
		return fmt.Errorf("index: close %s: %w", s.dir, err)
	}
	return nil
}

// ScanRecords implements index.RecordScanner: it reads every record in
// one read transaction.
func (s *Store) ScanRecords(ctx context.Context, fn func(id string, rec []byte) error) error {
	if err := s.use(); err != nil {
		return err
	}
	defer s.life.RUnlock()
	return s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		prefix := []byte{kindDoc}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			item := it.Item()
			err := item.Value(func(v []byte) error {
				if len(v) == 0 && item.ValueSize() > 0 {
					return s.valueErr(item)
				}
				if s.numbered {
					_, rec, err := splitDocValue(v)
					if err != nil {
						return fmt.Errorf("index: %s: document %q: %w", s.dir, item.Key()[1:], err)
					}
					v = rec
				}
				return fn(string(item.Key()[1:]), v)
			})
			if err != nil {
				return err
			}
		}
		return s.shadow.CheckRead(tabs, prefix, false)
	})
}
