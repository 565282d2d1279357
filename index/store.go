package index

import (
	"context"
	"fmt"
	"iter"

	"github.com/neardup/neardup/simhash"
)

// Store is what an Index keeps its documents in: posting lists under
// Keys, and one encoded record per document ID. The Index computes every
// key and record; a store only keeps them. It is declared here, where it
// is used; the stores are the subpackages badgerstore (a Badger
// directory, one process), memstore (memory) and redisstore (a Redis
// Cluster shared by many processes), and indextest.Run is the
// conformance suite every store passes.
//
// A store is safe for concurrent use. Writes (Apply) from one Index are
// serialised by that Index; a store shared by several processes (a
// network store) must make each of Apply's writes atomic on its own and
// tolerate a posting whose record is missing or newer, which Index
// skips or confirms against the record.
type Store interface {
	// Postings returns, for each key, the postings stored under it,
	// reading them all in one batch (one transaction, one round trip).
	// Their order is unspecified. A missing key has no postings.
	Postings(ctx context.Context, keys []Key) ([][]Posting, error)

	// Records returns the record of each ID, or nil where there is none,
	// in one batch. The caller must not modify the records.
	Records(ctx context.Context, ids []string) ([][]byte, error)

	// Apply makes the writes of b durable: for each Write, its record is
	// set (or deleted, when nil) and its postings added and removed,
	// atomically per Write where the store can. When Apply returns an
	// error some Writes may be applied; applying the same Batch again
	// completes it. A Write with Keys but no Record leaves postings
	// without a record, which a store may keep or drop.
	Apply(ctx context.Context, b *Batch) error

	// Claim records each of values under its name unless the name holds
	// a value already, all in one step, atomically with respect to every
	// other writer of the store, and returns what the names hold
	// afterwards: the values given where this call recorded them, the
	// earlier ones elsewhere. It is how an archive records its format,
	// layout and analyzer once (an archive is never left with some of
	// them), and how writers that share a store agree on who came
	// first. A read-only store returns the values it holds and fails
	// with ErrReadOnly if one is missing.
	Claim(ctx context.Context, values map[string][]byte) (map[string][]byte, error)

	// Stats describes what the store holds.
	Stats(ctx context.Context) (StoreStats, error)

	// Close releases the store. Later calls fail.
	Close() error
}

// Kind is the first part of every Key: what the posting list indexes.
type Kind byte

// Key kinds. Their byte values are the first byte of Badger's keys.
const (
	KindBand    Kind = 'b' // one MinHash band of the content sketch
	KindContent Kind = 'c' // the content hash
	KindTable   Kind = 't' // the bits of one SimHash table
	KindPassage Kind = 'p' // one passage fingerprint (package reuse)
)

// A Key names one posting list, a value type that stores may use as a
// map key:
//
//   - KindTable: Table is the table number, Bits the number of
//     fingerprint bits the table keeps (16 for the default layout), and
//     Value those bits concatenated, right-aligned. Its postings carry
//     the documents' whole fingerprints.
//   - KindBand: Table is the band number (0 to Bands−1), Value the
//     band's four 16-bit sketch values, packed big-endian.
//   - KindContent: Value is the content hash.
//   - KindPassage: Value is the key of one passage fingerprint of the
//     document (Doc.Passages; package reuse computes them): by default
//     32 bits, which the stores keep in less room (memstore's 8-byte
//     slots, Redis's 32-bit buckets, the record's field 6); a wider one
//     is kept as before.
type Key struct {
	Kind  Kind
	Table uint8
	Bits  uint8
	Value uint64
}

// String formats k for error messages: "t1/16:4567", "b3:…", "c:…",
// "p:…".
func (k Key) String() string {
	switch k.Kind {
	case KindTable:
		return fmt.Sprintf("t%d/%d:%x", k.Table, k.Bits, k.Value)
	case KindBand:
		return fmt.Sprintf("b%d:%016x", k.Table, k.Value)
	case KindContent:
		return fmt.Sprintf("c:%016x", k.Value)
	case KindPassage:
		return fmt.Sprintf("p:%016x", k.Value)
	}
	return fmt.Sprintf("kind %q table %d bits %d value %x", byte(k.Kind), k.Table, k.Bits, k.Value)
}

// A Posting is one document in a posting list. Fingerprint is set in
// table postings, so that a candidate's distance is known without its
// record, and zero in band, content and passage postings. Num is the
// store's own number of the document in a store that reads records by
// number (NumberedRecords: memstore), 1 to 2^32−1, and 0 in the others.
type Posting struct {
	ID          string
	Fingerprint simhash.Fingerprint
	Num         uint64
}

// NumberedRecords is a Store whose postings carry its own numbers of
// the documents (Posting.Num), under which it reads their records
// without looking their IDs up (memstore). Ingest counts, deduplicates
// and reads the candidates such a store's postings name by these
// numbers, not by hashing their IDs: at 10^6 documents and more, an
// article has hundreds of candidates.
type NumberedRecords interface {
	// RecordsByNum returns the record of each document number (as
	// Posting.Num gave it), nil where the number has no document any
	// more (deleted or replaced since) or never had one. The caller
	// must not modify the records.
	RecordsByNum(ctx context.Context, nums []uint64) ([][]byte, error)
	// Nums returns the number of the document with each ID, 0 where
	// the store holds none.
	Nums(ctx context.Context, ids []string) ([]uint64, error)
}

// Batch is a list of document writes for Store.Apply.
type Batch struct {
	Writes []Write
}

// Write changes one document: it sets the document's record and adds
// the postings of Keys, and removes the postings of OldKeys (those of
// the record it replaces or deletes). Table postings carry Fingerprint
// (added) and OldFingerprint (removed).
type Write struct {
	ID     string
	Record []byte // the new record; nil deletes the document

	Fingerprint simhash.Fingerprint
	Keys        []Key

	// Replaces says that a record of ID exists and is replaced or
	// deleted; OldKeys and OldFingerprint are its postings. A store that
	// counts documents counts a Write that sets a record and does not
	// replace one as a new document.
	Replaces       bool
	OldFingerprint simhash.Fingerprint
	OldKeys        []Key
}

// StoreStats describe what a store holds.
type StoreStats struct {
	Docs      int64      // documents (records)
	DiskBytes int64      // bytes on disk; 0 for stores without files
	Bloom     BloomStats // the filter in front of content lookups; zero when the store has none
	// Lean: the store keeps lean records (LeanRecord), without titles,
	// keywords or texts. Compressed: it writes compressed files.
	Lean, Compressed bool
}

// BloomStats describe a counting Bloom filter in front of content-hash
// lookups (see badgerstore). The JSON has its size, not the counts of
// lookups since Open.
type BloomStats struct {
	Capacity      int64   `json:"capacity"`       // documents the filter is sized for
	Counters      int64   `json:"counters"`       // 4-bit counters
	Hashes        int     `json:"hashes"`         // counters per content hash
	MemoryBytes   int64   `json:"memory_bytes"`   // bytes the counters take
	FalsePositive float64 `json:"false_positive"` // target false-positive rate at Capacity
	Saturated     int64   `json:"saturated"`      // counters at 15
	Rebuilds      int64   `json:"-"`              // rebuilds since Open (growth or stuck counters)
	Lookups       int64   `json:"-"`              // content hashes looked up since Open
	ReadsSaved    int64   `json:"-"`              // lookups the filter answered without reading the store
	ReadsDone     int64   `json:"-"`              // lookups that read the store
	FalseHits     int64   `json:"-"`              // store reads that found nothing
}

// Loader is a Store that fills itself faster than Apply when it holds no
// documents (see badgerstore's Load). Index.Load uses it when the store
// has it.
type Loader interface {
	// Load writes the writes, none of which replaces a record, into an
	// empty store; when several have the same ID the last wins. The
	// Write and its slices are valid only until the next one is read.
	// If ctx is done when writes ends, Load writes nothing. It returns
	// the number of documents the store holds afterwards.
	Load(ctx context.Context, writes iter.Seq[*Write]) (int64, error)
}

// RecordScanner is a Store that can hand every record it holds to a
// function (badgerstore, memstore, redisstore): Index.TextStats needs
// one.
type RecordScanner interface {
	// ScanRecords calls fn with each ID and record, in no particular
	// order, until fn returns an error, which it returns. The record is
	// valid only during the call.
	ScanRecords(ctx context.Context, fn func(id string, rec []byte) error) error
}

// NearPostings is a Store that can leave out, of the postings under
// table keys, those too far from the query to matter (badgerstore, whose
// postings carry document numbers that it resolves to IDs one read
// each, so that the far postings, most of a table key's at scale, cost
// no read). The Index asks it through postingsNear.
type NearPostings interface {
	// PostingsNear is Postings, except that under a table key keys[i]
	// it may leave out the postings whose Fingerprint is more than k
	// bits from fps[i]. fps has one fingerprint per key (those of other
	// kinds are ignored).
	PostingsNear(ctx context.Context, keys []Key, fps []simhash.Fingerprint, k int) ([][]Posting, error)
}

// postingsNear reads the postings of keys from st, through PostingsNear
// when st has it: fps[i] is the fingerprint of the query of keys[i],
// and k the largest distance the caller keeps.
func postingsNear(ctx context.Context, st Store, keys []Key, fps []simhash.Fingerprint, k int) ([][]Posting, error) {
	if n, ok := st.(NearPostings); ok {
		return n.PostingsNear(ctx, keys, fps, k)
	}
	return st.Postings(ctx, keys)
}

// sameFingerprint returns n copies of fp, for postingsNear.
func sameFingerprint(fp simhash.Fingerprint, n int) []simhash.Fingerprint {
	fps := make([]simhash.Fingerprint, n)
	for i := range fps {
		fps[i] = fp
	}
	return fps
}
