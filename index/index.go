// Package index stores SimHash fingerprints of documents and finds those
// within a small Hamming distance of a query, in an embedded Badger
// database (one directory) or, with the same methods, in memory.
//
// # Blocks, tables and the pigeonhole argument
//
// The 64 bits of a fingerprint are split into b blocks of consecutive
// bits, most significant first, as equal in size as possible: the first
// 64 mod b blocks get one bit more (b=4: 16/16/16/16; b=5: 13/13/13/13/12;
// b=6: 11/11/11/11/10/10). For a maximum distance k the index keeps
// C(b, k) tables, one for every combination of b−k blocks in lexicographic
// order (b=4, k=3: {0} {1} {2} {3}; b=5, k=3: {0,1} {0,2} … {3,4}, 10
// tables). A fingerprint's table key in a table is the concatenation of
// the bits of that table's blocks.
//
// Two fingerprints at distance d ≤ k differ in at most d bits, so in at
// most d ≤ k blocks; they therefore agree exactly on at least b−k blocks,
// and those blocks (or any b−k of them) form one of the tables, where the
// two fingerprints have the same table key. So reading, in every table,
// the entries whose table key equals the query's finds every fingerprint
// within distance k (pigeonhole); each candidate's full fingerprint is
// then checked. A query for d < k needs fewer tables: any set of tables
// such that every d blocks miss at least one of them; the index picks
// such a set greedily at Open (for d = 0, a single table).
//
// The argument needs k < b, and every document is written once per
// table, so Open rejects layouts with k ≥ b, b > 64, more than MaxTables
// tables, or table keys shorter than MinKeyBits bits (which would select
// too large a part of the index). The default is b=4, k=3: four tables of
// 16-bit keys.
//
// # Key layout
//
// Every key starts with one kind byte. Integers are big-endian, so keys
// sort by value.
//
//	't' table fingerprint-key fingerprint id → empty
//	     table: 1 byte, the table number (0 … C(b,k)−1)
//	     fingerprint-key: the table's blocks' bits concatenated, most
//	     significant first, left-aligned and zero-padded to whole bytes
//	     (16 bits → 2 bytes; 26 → 4)
//	     fingerprint: the whole 8-byte fingerprint, so that a candidate's
//	     distance is checked from the key alone
//	     id: the document ID, the rest of the key
//	'd' id → record (see below)
//	'c' content-hash id → empty (8-byte content hash)
//	'b' band value id → empty, for each of the 16 MinHash bands of the
//	     document's sketch (band: 1 byte; value: the band's four 16-bit
//	     sketch values, 8 bytes); absent when the document has no sketch
//	'm' "format"   → 1 byte, the key and record format version (1)
//	'm' "layout"   → 2 bytes, b and k
//	'm' "analyzer" → the analyzer ID, as given at creation
//
// For example, with b=4, k=3, fingerprint 0123456789abcdef and ID "a",
// table 1 holds the key 't' 01 45 67 01 23 45 67 89 ab cd ef 'a'.
// Near reads, for each table it needs, the keys with prefix
// 't' table fingerprint-key (keys only, no values), decodes the 8-byte
// fingerprint after the prefix and keeps it if it is close enough. Exact
// reads the keys with prefix 'c' content-hash.
//
// A record is a version byte (1), the fingerprint and content hash
// (8 bytes each), the time added, the title, the keywords and the
// MinHash sketch; see encodeDoc.
//
// # Content candidates and confirmation
//
// Similar finds candidates three ways: documents with the same content
// hash (exact duplicates), documents within SimHash distance k (the
// tables above), and documents that share a whole MinHash band with the
// query (see bands.go: a copy with a few edits shares one with
// probability 0.9998 at Jaccard 0.8, whatever its SimHash distance).
// Every candidate but the exact ones is then confirmed by the estimated
// Jaccard similarity of the two sketches, which must reach
// Options.MinContent; a SimHash candidate without a sketch (loaded from
// bare fingerprints) is kept unconfirmed. Near is the SimHash screen
// alone.
//
// # Writes, durability and concurrency
//
// Add and Delete write in Badger transactions of up to 10000 documents,
// fewer when Badger's size limit (15% of the memtable, estimated the way
// Badger does) comes first. A document's record, table, band and
// content-hash keys always change in one transaction:
// re-adding an ID deletes the old record's keys in the same transaction
// that writes the new ones. The database is opened with SyncWrites, so
// when Add or Delete returns, its transactions have been written to the
// write-ahead log and synced (msync) to disk: a process killed right
// after Add returns loses nothing, and neither does an operating-system
// crash. (A kill alone would be survived even without the sync, since
// the log is a shared memory map; the sync covers power loss.)
//
// Load fills an index that holds no documents much faster than Add: it
// sorts the keys itself and has Badger's StreamWriter write them into
// tables directly (see load.go). It excludes every other method while it
// runs; its writes are durable when it returns.
//
// Index and Memory are safe for concurrent use. Writers (Add, Delete) run
// one at a time; readers run in parallel with them and with each other,
// each Near or Similar reading one consistent snapshot. Badger locks the
// directory, so a second Open of the same directory, from this process
// or another, fails with ErrInUse until the first is closed.
//
// # Exact duplicates
//
// Exact consults a counting Bloom filter over the content hashes, kept in
// memory, before reading the store: when the filter says no, no read is
// done (Stats counts these). Open builds it by scanning the 'c' keys, or
// loads it from the file the last Close saved it to when nothing was
// written since (see filters.go).
// The filter has 4-bit saturating counters and is sized for 1.5 times the
// number of documents at Open (at least 1024) at Options.FalsePositive;
// when the documents outgrow it, it is rebuilt from the store for twice
// as many. Delete decrements the counters, except saturated ones (15),
// which stay at 15 because they may stand for more than 15 documents; a
// stuck counter can only cause false positives. After more than
// max(256, capacity/64) such skipped decrements the filter is rebuilt
// from the store, which makes every counter exact again.
package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/skl"

	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// Errors wrapped by the errors of this package.
var (
	ErrNotFound = errors.New("not found")
	ErrInUse    = errors.New("index is in use by another process")
	ErrMismatch = errors.New("index options do not match the index")
	ErrLayout   = errors.New("invalid index layout")
	ErrCorrupt  = errors.New("corrupt index")
	ErrClosed   = errors.New("index is closed")
	ErrReadOnly = errors.New("index is read-only")
	ErrID       = errors.New("invalid document id")
	ErrDistance = errors.New("distance out of range")
	ErrNoSpace  = errors.New("not enough free disk space")
)

// Defaults for zero Options fields.
const (
	DefaultBlocks        = 4
	DefaultMaxDistance   = 3
	DefaultMinContent    = 0.7
	DefaultFalsePositive = 0.01
)

// idFalsePositive is the false-positive rate of the ID filter: the
// share of new IDs for which Add reads a record that is not there.
const idFalsePositive = 0.01

// formatVersion is stored under 'm' "format".
const formatVersion = 1

// txnDocs is the most documents Add or Delete writes in one
// transaction; fewer when Badger's size limit comes first.
const txnDocs = 10000

// MinFreeSpace is the free space Open requires before it writes to an
// index: room for two of Badger's memory-mapped logs. Badger writes its
// logs through memory maps, and a write to a map past the end of a full
// disk kills the process (SIGBUS) instead of returning an error, so a
// full disk is refused up front. A disk that fills up during a long run
// can still end the process; every write acknowledged before is on disk
// and the index opens afterwards once space is freed.
const MinFreeSpace = 2*memTableSize + 16<<20

// Badger settings that Add and Delete size their transactions by.
const (
	memTableSize   = 64 << 20
	valueThreshold = 1 << 20
)

// Options configure Open and NewMemory. The zero value (or nil) means
// the defaults.
type Options struct {
	// Blocks is the number of blocks the 64 fingerprint bits are split
	// into, and MaxDistance the largest Hamming distance Near and Similar
	// accept. Zero means the stored value when Open finds an existing
	// index, and DefaultBlocks or DefaultMaxDistance otherwise; a nonzero
	// value that differs from the stored one is an error (ErrMismatch).
	Blocks      int
	MaxDistance int

	// AnalyzerID names the text analysis the fingerprints came from
	// (segmenter, IDF table, keyword count, hash). It is stored at
	// creation; opening an existing index with a different nonempty
	// AnalyzerID fails with ErrMismatch, an empty one accepts the stored.
	AnalyzerID string

	// MinContent is the estimated content similarity (MinHash Jaccard)
	// Similar requires to confirm a SimHash candidate, in (0, 1].
	// Zero means DefaultMinContent.
	MinContent float64

	// FalsePositive is the target false-positive rate of the Bloom
	// filter in front of Exact, in (0, 0.5]. Zero means
	// DefaultFalsePositive.
	FalsePositive float64

	// ReadOnly opens an existing index without writing to it; Add and
	// Delete fail with ErrReadOnly. Several read-only opens may share a
	// directory. Memory ignores it.
	ReadOnly bool

	// Logf, if not nil, receives Badger's warnings and errors. Badger's
	// informational messages are dropped.
	Logf func(format string, args ...any)
}

// resolve checks o and fills in defaults, except for Blocks and
// MaxDistance, which depend on what is stored.
func (o *Options) resolve() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	switch {
	case r.MinContent == 0:
		r.MinContent = DefaultMinContent
	case !(r.MinContent > 0 && r.MinContent <= 1):
		return r, fmt.Errorf("index: MinContent %v: want a value in (0, 1]", r.MinContent)
	}
	switch {
	case r.FalsePositive == 0:
		r.FalsePositive = DefaultFalsePositive
	case !(r.FalsePositive > 0 && r.FalsePositive <= 0.5):
		return r, fmt.Errorf("index: FalsePositive %v: want a value in (0, 0.5]", r.FalsePositive)
	}
	if r.Blocks < 0 {
		return r, fmt.Errorf("index: %w: Blocks %d: want at least 1", ErrLayout, r.Blocks)
	}
	if r.MaxDistance < 0 {
		return r, fmt.Errorf("index: %w: MaxDistance %d: want at least 1", ErrLayout, r.MaxDistance)
	}
	return r, nil
}

// withDefaults fills zero Blocks and MaxDistance with the defaults.
func (o Options) withDefaults() Options {
	if o.Blocks == 0 {
		o.Blocks = DefaultBlocks
	}
	if o.MaxDistance == 0 {
		o.MaxDistance = DefaultMaxDistance
	}
	return o
}

// Match is a document found by Near or Similar.
type Match struct {
	ID         string
	Title      string          // Similar only
	Distance   int             // Hamming distance between the fingerprints
	Similarity float64         // 1 − Distance/64
	Content    float64         // Similar only: estimated content similarity (MinHash Jaccard), 1 for exact matches, 0 when a sketch is missing
	Exact      bool            // Similar only: the content hashes are equal
	Keywords   []tfidf.Keyword // Similar only: the match's keywords
	Job        string          // Similar only: the match's Doc.Job
	Seq        int64           // Similar only: the match's Doc.Seq
}

// Stats describe an index.
type Stats struct {
	Docs          int64
	Blocks        int
	MaxDistance   int
	Tables        int
	AnalyzerID    string
	FormatVersion int
	DiskBytes     int64 // bytes the directory's files take on disk; 0 for Memory
	Bloom         BloomStats
}

// BloomStats describe the counting Bloom filter in front of Exact. All
// zero for Memory, which answers Exact from a map.
type BloomStats struct {
	Capacity      int64   // documents the filter is sized for
	Counters      int64   // 4-bit counters
	Hashes        int     // counters per content hash
	MemoryBytes   int64   // bytes the counters take
	FalsePositive float64 // target false-positive rate at Capacity
	Saturated     int64   // counters at 15
	Rebuilds      int64   // rebuilds since Open (growth or stuck counters)
	Lookups       int64   // content hashes looked up since Open
	ReadsSaved    int64   // lookups the filter answered without reading the store
	ReadsDone     int64   // lookups that read the store
	FalseHits     int64   // store reads that found nothing
}

// Index is a fingerprint index in a Badger database.
type Index struct {
	dir        string
	db         *badger.DB
	layout     *layout
	analyzer   string
	minContent float64
	fpRate     float64
	readOnly   bool

	life   sync.RWMutex // shared by every operation, exclusive in Close
	closed bool

	wmu       sync.Mutex // serialises Add and Delete
	docs      atomic.Int64
	maxStuck  int64 // rebuild threshold for stuck counters; 0 means max(256, capacity/64)
	loadChunk int   // documents Load sorts at a time; 0 means LoadChunk

	bmu   sync.RWMutex // guards bloom
	bloom *countingBloom
	ids   *idFilter // guarded by wmu

	lookups, saved, done, falseHits, rebuilds atomic.Int64
}

// Open opens the index in directory dir, creating both if needed (unless
// opts.ReadOnly). nil opts means the defaults.
func Open(dir string, opts *Options) (*Index, error) {
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
	if !o.ReadOnly {
		// Run files of a Load that did not finish.
		if err := os.RemoveAll(filepath.Join(dir, loadTmp)); err != nil {
			return nil, fmt.Errorf("index: open %s: %w", dir, err)
		}
	}
	db, err := openBadger(dir, o)
	if err != nil {
		return nil, err
	}
	x := &Index{dir: dir, db: db, minContent: o.MinContent, fpRate: o.FalsePositive, readOnly: o.ReadOnly}
	if err := x.loadMeta(o); err != nil {
		db.Close()
		return nil, err
	}
	// The filters saved by the last Close, if nothing was written since;
	// else rebuilt from the store.
	if err := x.loadFilters(db.MaxVersion()); err != nil {
		if err := x.rebuildBloom(0); err != nil {
			db.Close()
			return nil, err
		}
	}
	x.rebuilds.Store(0)
	return x, nil
}

// openBadger opens the Badger database in dir.
//
// Badger's errors do not wrap their causes; its messages are the only way
// to tell these cases apart (each is tested):
//
//   - another process (or another Open in this one) holds the directory
//     lock: ErrInUse;
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
func openBadger(dir string, o Options) (*badger.DB, error) {
	var before map[string]bool
	if !o.ReadOnly {
		// An empty memtable log left by a writer killed while Badger
		// created it (before sizing it) holds no writes but fails every
		// open. (A live writer's log is sized the moment it is created.)
		removeEmptyMem(dir)
		before = logFiles(dir)
	}
	db, err := badger.Open(badgerOptions(dir, o))
	if err == nil {
		return db, nil
	}
	switch msg := err.Error(); {
	case strings.Contains(msg, "Cannot acquire directory lock"):
		return nil, fmt.Errorf("%w: %s", ErrInUse, dir)
	case o.ReadOnly && strings.Contains(msg, "no manifest found"):
		return nil, fmt.Errorf("index: %s: %w: no index there to open read-only", dir, ErrNotFound)
	case o.ReadOnly && (strings.Contains(msg, "Log truncate required") || hasEmptyMem(dir)):
		rw := o
		rw.ReadOnly = false
		db, err := openBadger(dir, rw)
		if err != nil {
			return nil, fmt.Errorf("index: %s: recovering the log of a writer that did not close, before opening read-only: %w", dir, err)
		}
		if err := db.Close(); err != nil {
			return nil, fmt.Errorf("index: %s: recovering the log of a writer that did not close: %w", dir, err)
		}
		db, err = badger.Open(badgerOptions(dir, o))
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
	return nil, fmt.Errorf("index: open %s: %w", dir, err)
}

// hasEmptyMem reports whether dir holds an empty .mem file. A log with
// data starts with a header; an empty .vlog is harmless.
func hasEmptyMem(dir string) bool {
	for name := range logFiles(dir) {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Size() == 0 && strings.HasSuffix(name, ".mem") {
			return true
		}
	}
	return false
}

func removeEmptyMem(dir string) {
	for name := range logFiles(dir) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Size() == 0 && strings.HasSuffix(name, ".mem") {
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
//   - Metrics off; logging routed to Options.Logf, warnings and errors only.
func badgerOptions(dir string, o Options) badger.Options {
	return badger.DefaultOptions(dir).
		WithLogger(badgerLogger{o.Logf}).
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
		WithMetricsEnabled(false)
}

// badgerLogger passes Badger's warnings and errors to logf.
type badgerLogger struct{ logf func(string, ...any) }

func (l badgerLogger) log(level, format string, args []any) {
	if l.logf != nil {
		l.logf("badger %s: %s", level, strings.TrimSpace(fmt.Sprintf(format, args...)))
	}
}

func (l badgerLogger) Errorf(format string, args ...any)   { l.log("error", format, args) }
func (l badgerLogger) Warningf(format string, args ...any) { l.log("warning", format, args) }
func (badgerLogger) Infof(string, ...any)                  {}
func (badgerLogger) Debugf(string, ...any)                 {}

// loadMeta checks the stored format, layout and analyzer against o, or
// stores them in a new index.
func (x *Index) loadMeta(o Options) error {
	var format, lay, analyzer []byte
	var empty bool
	err := x.db.View(func(txn *badger.Txn) error {
		var err error
		if format, err = getValue(txn, metaKey(metaFormat)); err != nil {
			if !errors.Is(err, badger.ErrKeyNotFound) {
				return err
			}
			it := txn.NewIterator(badger.IteratorOptions{})
			defer it.Close()
			it.Rewind()
			empty = !it.Valid()
			return nil
		}
		if lay, err = getValue(txn, metaKey(metaLayout)); err != nil {
			return err
		}
		analyzer, err = getValue(txn, metaKey(metaAnalyzer))
		return err
	})
	if err != nil {
		return fmt.Errorf("index: %s: reading metadata: %w", x.dir, err)
	}
	if format == nil {
		switch {
		case !empty:
			return fmt.Errorf("index: %s holds a Badger database that is not a neardup index (no format metadata)", x.dir)
		case o.ReadOnly:
			return fmt.Errorf("index: %s: %w: no index there to open read-only", x.dir, ErrNotFound)
		}
		o = o.withDefaults()
		l, err := newLayout(o.Blocks, o.MaxDistance)
		if err != nil {
			return fmt.Errorf("index: %s: %w", x.dir, err)
		}
		err = x.db.Update(func(txn *badger.Txn) error {
			return errors.Join(
				txn.Set(metaKey(metaFormat), []byte{formatVersion}),
				txn.Set(metaKey(metaLayout), []byte{byte(o.Blocks), byte(o.MaxDistance)}),
				txn.Set(metaKey(metaAnalyzer), []byte(o.AnalyzerID)))
		})
		if err != nil {
			return fmt.Errorf("index: %s: writing metadata: %w", x.dir, err)
		}
		x.layout, x.analyzer = l, o.AnalyzerID
		return nil
	}
	if len(format) != 1 || format[0] != formatVersion {
		return fmt.Errorf("index: %s: %w: format version %v, this program reads version %d", x.dir, ErrMismatch, format, formatVersion)
	}
	if len(lay) != 2 {
		return fmt.Errorf("index: %s: %w: layout metadata %q: want 2 bytes", x.dir, ErrCorrupt, lay)
	}
	l, err := newLayout(int(lay[0]), int(lay[1]))
	if err != nil {
		return fmt.Errorf("index: %s: %w: stored layout: %w", x.dir, ErrCorrupt, err)
	}
	if (o.Blocks != 0 && o.Blocks != l.blocks) || (o.MaxDistance != 0 && o.MaxDistance != l.maxDist) {
		want := o
		if want.Blocks == 0 {
			want.Blocks = l.blocks
		}
		if want.MaxDistance == 0 {
			want.MaxDistance = l.maxDist
		}
		return fmt.Errorf("index: %s: %w: the index has %d blocks, max distance %d; the options ask for %d blocks, max distance %d",
			x.dir, ErrMismatch, l.blocks, l.maxDist, want.Blocks, want.MaxDistance)
	}
	if o.AnalyzerID != "" && o.AnalyzerID != string(analyzer) {
		return fmt.Errorf("index: %s: %w: the index was built with analyzer %q; the options ask for %q",
			x.dir, ErrMismatch, analyzer, o.AnalyzerID)
	}
	x.layout, x.analyzer = l, string(analyzer)
	return nil
}

// getValue returns a copy of the value of key.
func getValue(txn *badger.Txn, key []byte) ([]byte, error) {
	item, err := txn.Get(key)
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

// rebuildBloom rebuilds the content-hash filter and the ID filter from
// the content-hash keys (which end in the ID), for at least capacity
// documents and 1.5 times those stored. Callers other than Open hold
// wmu.
func (x *Index) rebuildBloom(capacity int64) error {
	var hashes, ids []uint64
	err := x.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{kindContent}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			key := it.Item().Key()
			h, _, err := parseContentKey(key)
			if err != nil {
				return err
			}
			hashes = append(hashes, h)
			ids = append(ids, xxhash.Sum64(key[contentPrefixLen:])) // the ID, without a copy
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index: %s: building the content filter: %w", x.dir, err)
	}
	n := int64(len(hashes))
	b := newCountingBloom(max(capacity, n+n/2), x.fpRate)
	for _, h := range hashes {
		b.add(h)
	}
	f := newIDFilter(b.capacity, idFalsePositive)
	for _, h := range ids {
		f.add(h)
	}
	x.setFilters(b, f, n)
	x.rebuilds.Add(1)
	return nil
}

// use takes the shared lifetime lock, failing if x is closed. The caller
// must call x.life.RUnlock when use returns nil.
func (x *Index) use() error {
	x.life.RLock()
	if x.closed {
		x.life.RUnlock()
		return fmt.Errorf("index: %s: %w", x.dir, ErrClosed)
	}
	return nil
}

// checkID checks one document ID.
// CheckID returns an error wrapping ErrID if id cannot be a document ID:
// it is empty or longer than MaxIDLen bytes.
func CheckID(id string) error { return checkID(id) }

func checkID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty id", ErrID)
	case len(id) > MaxIDLen:
		return fmt.Errorf("%w: id %q… is %d bytes long, at most %d allowed", ErrID, id[:32], len(id), MaxIDLen)
	}
	return nil
}

// checkDocs checks the IDs of docs, naming the first bad one.
func checkDocs(docs []Doc) error {
	for i := range docs {
		if err := checkID(docs[i].ID); err != nil {
			return fmt.Errorf("index: add: document %d: %w", i, err)
		}
	}
	return nil
}

// Add adds docs, replacing any documents with the same IDs. It returns
// once the documents are durably stored. IDs must be 1 to MaxIDLen
// bytes; if one is not, nothing is added. If several docs share an ID,
// the last wins.
//
// Add writes in transactions of up to txnDocs documents (see the
// package doc) and keeps two of them going: while Badger writes one to
// its log and memtable, Add fills the next. If a transaction fails, the
// ones before it stay written and Add returns the error.
func (x *Index) Add(docs ...Doc) error {
	if err := checkDocs(docs); err != nil {
		return err
	}
	if err := x.use(); err != nil {
		return err
	}
	defer x.life.RUnlock()
	if x.readOnly {
		return fmt.Errorf("index: %s: add: %w", x.dir, ErrReadOnly)
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	docs = lastByID(docs)

	// The old records of re-added IDs are read from one snapshot taken
	// before this call writes anything; writers are serialised, so it
	// holds every record these IDs have.
	view := x.db.NewTransaction(false)
	defer view.Discard()

	type commit struct {
		done    chan error
		id      string // the first document, for errors
		added   int64
		removed []uint64
	}
	var inflight []*commit
	var failed error
	txn := x.db.NewTransaction(true)
	limit := txnDocs
	for len(docs) > 0 {
		n, added, removed, err := x.fillTxn(txn, view, docs, limit)
		switch {
		case errors.Is(err, badger.ErrTxnTooBig) && limit > 1:
			// The budget should prevent this; split further.
			txn.Discard()
			txn = x.db.NewTransaction(true)
			limit = max(1, min(limit, len(docs))/2)
			continue
		case errors.Is(err, badger.ErrTxnTooBig):
			err = fmt.Errorf("index: %s: add %q: the document alone is too big for a transaction: %w", x.dir, docs[0].ID, err)
		}
		if err != nil {
			failed = err
			break
		}
		// The next transaction is begun before this one is committed:
		// Badger starts a transaction only once every commit before it
		// is written, so beginning it later would wait for this one.
		next := x.db.NewTransaction(true)
		c := &commit{done: make(chan error, 1), id: docs[0].ID, added: added, removed: removed}
		// Counted before the commit is written, so that a rebuild of
		// the filters (which waits for the commit) counts it too.
		x.docs.Add(added)
		txn.CommitWith(func(err error) { c.done <- err })
		inflight = append(inflight, c)
		txn = next
		docs = docs[n:]
	}
	txn.Discard()
	recount := false
	for _, c := range inflight {
		if err := <-c.done; err != nil {
			recount = true
			if failed == nil {
				failed = x.writeErr("add", c.id, err)
			}
			continue
		}
		if !recount {
			x.forget(c.removed)
		}
	}
	if recount {
		// A commit failed: its documents were counted and are in the
		// filters. Rebuilding both from the store makes them exact
		// again; if that fails too, they only hold too much.
		_ = x.rebuildBloom(x.bloomCapacity())
	}
	return failed
}

// lastByID returns docs without the earlier of two documents with the
// same ID, keeping the order of the others.
func lastByID(docs []Doc) []Doc {
	last := make(map[string]int, len(docs))
	for i := range docs {
		last[docs[i].ID] = i
	}
	if len(last) == len(docs) {
		return docs
	}
	out := make([]Doc, 0, len(last))
	for i := range docs {
		if last[docs[i].ID] == i {
			out = append(out, docs[i])
		}
	}
	return out
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

// keysSize returns the number and estimated size of d's table,
// content-hash and record keys, with a record of recLen bytes (0 for
// deletes).
func (x *Index) keysSize(d *Doc, recLen int) (int64, int64) {
	id := len(d.ID)
	var size int64
	for _, t := range x.layout.tables {
		size += entrySize(2+t.bytes+8+id, 0)
	}
	size += entrySize(9+id, 0) + entrySize(1+id, recLen)
	n := int64(len(x.layout.tables) + 2)
	if !d.Sketch.IsZero() {
		size += Bands * entrySize(bandPrefixLen+id, 0)
		n += Bands
	}
	return n, size
}

// fillTxn writes up to limit of docs into txn, as many as fit, reading
// their old records from view, and returns how many it wrote, how many
// of those are new IDs and the content hashes of the records they
// replace. The documents' content hashes and IDs go into the filters
// before the commit, so that a reader that sees a document also finds
// it there; if the commit fails, the filters only hold too much.
func (x *Index) fillTxn(txn, view *badger.Txn, docs []Doc, limit int) (n int, added int64, removed []uint64, err error) {
	budget := newTxnBudget()
	var key, rec []byte
	for ; n < len(docs) && n < limit; n++ {
		d := &docs[n]
		var old Doc
		found := false
		if x.ids.mayContain(xxhash.Sum64String(d.ID)) {
			var gerr error
			old, gerr = x.getDoc(view, d.ID)
			found = gerr == nil
			if gerr != nil && !errors.Is(gerr, ErrNotFound) {
				return 0, 0, nil, gerr
			}
		}
		rec = encodeDoc(rec[:0], d)
		count, size := x.keysSize(d, len(rec))
		if found {
			c, s := x.keysSize(&old, 0)
			count, size = count+c, size+s
		}
		if !budget.take(count, size) {
			break
		}
		if found {
			if err := x.deleteKeys(txn, &old); err != nil {
				return 0, 0, nil, x.writeErr("add", d.ID, err)
			}
			removed = append(removed, old.ContentHash)
		} else {
			added++
		}
		for t := range x.layout.tables {
			key = x.layout.appendTableKey(key[:0], t, d.Fingerprint, d.ID)
			if err := txn.Set(append([]byte(nil), key...), nil); err != nil {
				return 0, 0, nil, x.writeErr("add", d.ID, err)
			}
		}
		if err := txn.Set(contentKey(d.ContentHash, d.ID), nil); err != nil {
			return 0, 0, nil, x.writeErr("add", d.ID, err)
		}
		if !d.Sketch.IsZero() {
			for b := 0; b < Bands; b++ {
				if err := txn.Set(appendBandKey(nil, b, bandValue(&d.Sketch, b), d.ID), nil); err != nil {
					return 0, 0, nil, x.writeErr("add", d.ID, err)
				}
			}
		}
		if err := txn.Set(docKey(d.ID), append([]byte(nil), rec...)); err != nil {
			return 0, 0, nil, x.writeErr("add", d.ID, err)
		}
	}
	if need := x.docs.Load() + added; need > x.bloomCapacity() {
		if err := x.rebuildBloom(2 * need); err != nil {
			return 0, 0, nil, err
		}
	}
	x.bmu.Lock()
	for i := range docs[:n] {
		x.bloom.add(docs[i].ContentHash)
	}
	x.bmu.Unlock()
	for i := range docs[:n] {
		x.ids.add(xxhash.Sum64String(docs[i].ID))
	}
	return n, added, removed, nil
}

// writeErr wraps a Badger write error, keeping ErrTxnTooBig visible to
// Add's retry loop.
func (x *Index) writeErr(op, id string, err error) error {
	if errors.Is(err, badger.ErrTxnTooBig) {
		return err
	}
	return fmt.Errorf("index: %s: %s %q: %w", x.dir, op, id, err)
}

// bloomCapacity returns the capacity of the current filter.
func (x *Index) bloomCapacity() int64 {
	x.bmu.RLock()
	defer x.bmu.RUnlock()
	return x.bloom.capacity
}

// forget decrements the filter for removed content hashes, rebuilding it
// when too many saturated counters were skipped. Errors rebuilding are
// ignored: the old filter has no false negatives either.
func (x *Index) forget(removed []uint64) {
	if len(removed) == 0 {
		return
	}
	x.bmu.Lock()
	for _, h := range removed {
		x.bloom.remove(h)
	}
	limit := x.maxStuck
	if limit == 0 {
		limit = max(256, x.bloom.capacity/64)
	}
	rebuild := x.bloom.stuck > limit
	x.bmu.Unlock()
	if rebuild {
		_ = x.rebuildBloom(x.bloomCapacity())
	}
}

// deleteKeys deletes the table, content-hash and record keys of d.
func (x *Index) deleteKeys(txn *badger.Txn, d *Doc) error {
	for t := range x.layout.tables {
		if err := txn.Delete(x.layout.appendTableKey(nil, t, d.Fingerprint, d.ID)); err != nil {
			return err
		}
	}
	if err := txn.Delete(contentKey(d.ContentHash, d.ID)); err != nil {
		return err
	}
	if !d.Sketch.IsZero() {
		for b := 0; b < Bands; b++ {
			if err := txn.Delete(appendBandKey(nil, b, bandValue(&d.Sketch, b), d.ID)); err != nil {
				return err
			}
		}
	}
	return txn.Delete(docKey(d.ID))
}

// docNotFound is the error of a Get that finds no document, "index:
// WHERE: document "ID": not found", wrapping ErrNotFound. It is formatted
// only when printed: Dedup asks for the ID of every new original, and
// formatting them took 1% of the CPU time of deduplicating en_reuters in
// memory.
type docNotFound struct{ where, id string }

func (e *docNotFound) Error() string {
	return fmt.Sprintf("index: %s: document %q: %v", e.where, e.id, ErrNotFound)
}

func (e *docNotFound) Unwrap() error { return ErrNotFound }

// getDoc reads and decodes the record of id.
func (x *Index) getDoc(txn *badger.Txn, id string) (Doc, error) {
	item, err := txn.Get(docKey(id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return Doc{}, &docNotFound{x.dir, id}
	}
	if err != nil {
		return Doc{}, fmt.Errorf("index: %s: reading document %q: %w", x.dir, id, err)
	}
	var d Doc
	err = item.Value(func(v []byte) error {
		var err error
		d, err = decodeDoc(v, id)
		return err
	})
	if err != nil {
		return Doc{}, fmt.Errorf("index: %s: record key %q: %w: %w", x.dir, docKey(id), ErrCorrupt, err)
	}
	return d, nil
}

// Get returns the document with the given ID, or an error wrapping
// ErrNotFound. Added is returned in UTC.
func (x *Index) Get(id string) (Doc, error) {
	if err := x.use(); err != nil {
		return Doc{}, err
	}
	defer x.life.RUnlock()
	var d Doc
	err := x.db.View(func(txn *badger.Txn) error {
		var err error
		d, err = x.getDoc(txn, id)
		return err
	})
	return d, err
}

// Delete deletes the documents with the given IDs. If any ID is not in
// the index, Delete deletes nothing and returns an error wrapping
// ErrNotFound that names it. Repeated IDs count once.
func (x *Index) Delete(ids ...string) error {
	if err := x.use(); err != nil {
		return err
	}
	defer x.life.RUnlock()
	if x.readOnly {
		return fmt.Errorf("index: %s: delete: %w", x.dir, ErrReadOnly)
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	ids = uniq(ids)
	err := x.db.View(func(txn *badger.Txn) error {
		var missing []string
		for _, id := range ids {
			if _, err := txn.Get(docKey(id)); errors.Is(err, badger.ErrKeyNotFound) {
				missing = append(missing, id)
			} else if err != nil {
				return fmt.Errorf("index: %s: reading document %q: %w", x.dir, id, err)
			}
		}
		return missingErr(x.dir, missing)
	})
	if err != nil {
		return err
	}
	limit := txnDocs
	for len(ids) > 0 {
		n, err := x.deleteTxn(ids, limit)
		switch {
		case errors.Is(err, badger.ErrTxnTooBig) && limit > 1:
			limit = max(1, min(limit, len(ids))/2)
			continue
		case errors.Is(err, badger.ErrTxnTooBig):
			return fmt.Errorf("index: %s: delete %q: %w", x.dir, ids[0], err)
		case err != nil:
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// missingErr reports unknown IDs, or returns nil if there are none.
func missingErr(where string, missing []string) error {
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("index: %s: delete %q: %w", where, missing[0], ErrNotFound)
	}
	return fmt.Errorf("index: %s: delete %q and %d more: %w", where, missing[0], len(missing)-1, ErrNotFound)
}

// uniq returns ids without repeats, in first-seen order.
func uniq(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// deleteTxn deletes up to limit of ids, known to exist, in one
// transaction, as many as fit, and returns how many it deleted.
func (x *Index) deleteTxn(ids []string, limit int) (int, error) {
	txn := x.db.NewTransaction(true)
	defer txn.Discard()
	budget := newTxnBudget()
	var removed []uint64
	n := 0
	for ; n < len(ids) && n < limit; n++ {
		d, err := x.getDoc(txn, ids[n])
		if err != nil {
			return 0, err
		}
		if !budget.take(x.keysSize(&d, 0)) {
			break
		}
		if err := x.deleteKeys(txn, &d); err != nil {
			return 0, x.writeErr("delete", d.ID, err)
		}
		removed = append(removed, d.ContentHash)
	}
	if err := txn.Commit(); err != nil {
		return 0, x.writeErr("delete", ids[0], err)
	}
	x.docs.Add(-int64(n))
	x.forget(removed)
	return n, nil
}

// checkDistance checks a query distance against the layout.
func checkDistance(l *layout, k int) error {
	if k < 0 || k > l.maxDist {
		return fmt.Errorf("index: %w: distance %d: the index answers distances 0 to %d", ErrDistance, k, l.maxDist)
	}
	return nil
}

// Near returns the documents whose fingerprints are within Hamming
// distance k of fp, sorted by distance, then ID. It fills in ID,
// Distance and Similarity only. k must be between 0 and the index's
// MaxDistance.
func (x *Index) Near(fp simhash.Fingerprint, k int) ([]Match, error) {
	if err := x.use(); err != nil {
		return nil, err
	}
	defer x.life.RUnlock()
	if err := checkDistance(x.layout, k); err != nil {
		return nil, err
	}
	var ms []Match
	err := x.db.View(func(txn *badger.Txn) error {
		var err error
		ms, err = x.near(txn, fp, k)
		return err
	})
	return ms, err
}

// near reads the candidates of fp from the tables distance k needs.
func (x *Index) near(txn *badger.Txn, fp simhash.Fingerprint, k int) ([]Match, error) {
	var ms []Match
	var buf [10]byte
	for _, t := range x.layout.cover[k] {
		prefix := x.layout.appendTablePrefix(buf[:0], t, fp)
		n := len(prefix)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		for it.Rewind(); it.Valid(); it.Next() {
			key := it.Item().Key()
			if len(key) < n+8 {
				it.Close()
				return nil, fmt.Errorf("index: %s: table key %q: %w: %d bytes, want at least %d", x.dir, key, ErrCorrupt, len(key), n+8)
			}
			c := simhash.Fingerprint(uint64(key[n])<<56 | uint64(key[n+1])<<48 | uint64(key[n+2])<<40 | uint64(key[n+3])<<32 |
				uint64(key[n+4])<<24 | uint64(key[n+5])<<16 | uint64(key[n+6])<<8 | uint64(key[n+7]))
			if d := fp.Distance(c); d <= k {
				ms = append(ms, Match{ID: string(key[n+8:]), Distance: d, Similarity: fp.Similarity(c)})
			}
		}
		it.Close()
	}
	return sortUniq(ms, len(x.layout.cover[k]) > 1), nil
}

// sortUniq sorts matches by distance, then ID, and drops repeats, which
// have the same distance and so are adjacent.
func sortUniq(ms []Match, dups bool) []Match {
	slices.SortFunc(ms, func(a, b Match) int {
		if a.Distance != b.Distance {
			return a.Distance - b.Distance
		}
		return strings.Compare(a.ID, b.ID)
	})
	if !dups || len(ms) < 2 {
		return ms
	}
	out := ms[:1]
	for _, m := range ms[1:] {
		if m.ID != out[len(out)-1].ID {
			out = append(out, m)
		}
	}
	return out
}

// Exact returns the IDs of the documents with the given content hash, in
// byte order. It reads the store only when the Bloom filter says the
// hash may be there.
func (x *Index) Exact(contentHash uint64) ([]string, error) {
	if err := x.use(); err != nil {
		return nil, err
	}
	defer x.life.RUnlock()
	if !x.mayContain(contentHash) {
		return nil, nil
	}
	var ids []string
	err := x.db.View(func(txn *badger.Txn) error {
		var err error
		ids, err = x.exact(txn, contentHash)
		return err
	})
	return ids, err
}

// mayContain asks the filter about h and counts the answer.
func (x *Index) mayContain(h uint64) bool {
	x.lookups.Add(1)
	x.bmu.RLock()
	in := x.bloom.mayContain(h)
	x.bmu.RUnlock()
	if in {
		x.done.Add(1)
	} else {
		x.saved.Add(1)
	}
	return in
}

// exact reads the IDs stored under content hash h.
func (x *Index) exact(txn *badger.Txn, h uint64) ([]string, error) {
	var ids []string
	it := txn.NewIterator(badger.IteratorOptions{Prefix: contentPrefix(h)})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		ids = append(ids, string(it.Item().Key()[contentPrefixLen:]))
	}
	if len(ids) == 0 {
		x.falseHits.Add(1)
	}
	return ids, nil
}

// Similar returns the documents similar to d: those with d's content
// hash (Exact set, Content 1), and those within fingerprint distance k
// whose MinHash sketch agrees with d's at least Options.MinContent (a
// candidate is kept unconfirmed, with Content 0, when either sketch is
// zero). The document with d's own ID is left out. Matches are sorted
// exact first, then by distance, then by ID, with every field filled in.
func (x *Index) Similar(d *Doc, k int) ([]Match, error) {
	if err := x.use(); err != nil {
		return nil, err
	}
	defer x.life.RUnlock()
	if err := checkDistance(x.layout, k); err != nil {
		return nil, err
	}
	maybe := x.mayContain(d.ContentHash)
	var ms []Match
	err := x.db.View(func(txn *badger.Txn) error {
		var exact []string
		if maybe {
			var err error
			if exact, err = x.exact(txn, d.ContentHash); err != nil {
				return err
			}
		}
		near, err := x.near(txn, d.Fingerprint, k)
		if err != nil {
			return err
		}
		banded := x.banded(txn, &d.Sketch)
		ms, err = similar(d, exact, near, banded, func(id string) (Doc, error) { return x.getDoc(txn, id) }, x.minContent)
		return err
	})
	return ms, err
}

// Stats describes the index. DiskBytes sums the sizes of the files in
// the directory.
func (x *Index) Stats() (Stats, error) {
	if err := x.use(); err != nil {
		return Stats{}, err
	}
	defer x.life.RUnlock()
	s := Stats{
		Docs:          x.docs.Load(),
		Blocks:        x.layout.blocks,
		MaxDistance:   x.layout.maxDist,
		Tables:        len(x.layout.tables),
		AnalyzerID:    x.analyzer,
		FormatVersion: formatVersion,
	}
	err := filepath.WalkDir(x.dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type().IsRegular() {
			fi, err := e.Info()
			if err != nil {
				return err
			}
			s.DiskBytes += diskSize(fi)
		}
		return nil
	})
	if err != nil {
		return Stats{}, fmt.Errorf("index: %s: %w", x.dir, err)
	}
	x.bmu.RLock()
	b := x.bloom
	s.Bloom = BloomStats{
		Capacity:      b.capacity,
		Counters:      int64(b.m),
		Hashes:        b.k,
		MemoryBytes:   b.bytes(),
		FalsePositive: b.fpRate,
		Saturated:     b.saturated,
	}
	x.bmu.RUnlock()
	s.Bloom.Rebuilds = x.rebuilds.Load()
	s.Bloom.Lookups = x.lookups.Load()
	s.Bloom.ReadsSaved = x.saved.Load()
	s.Bloom.ReadsDone = x.done.Load()
	s.Bloom.FalseHits = x.falseHits.Load()
	return s, nil
}

// Close closes the index, waiting for operations in progress. Later
// calls of any method but Close fail with ErrClosed.
func (x *Index) Close() error {
	x.life.Lock()
	defer x.life.Unlock()
	if x.closed {
		return nil
	}
	x.closed = true
	if !x.readOnly {
		// The filters, for the next Open. If they cannot be saved, the
		// next Open rebuilds them.
		_ = x.saveFilters(x.db.MaxVersion())
	}
	if err := x.db.Close(); err != nil {
		return fmt.Errorf("index: close %s: %w", x.dir, err)
	}
	return nil
}
