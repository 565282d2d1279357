package badgerstore

import (
	"encoding/binary"
	"fmt"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

// prefixLen returns the length of k's prefix: the kind byte, the table
// or band byte and the value bytes (content and passage keys have no
// table byte).
func prefixLen(k index.Key) int {
	switch k.Kind {
	case index.KindTable:
		return 2 + (int(k.Bits)+7)/8
	case index.KindBand:
		return bandPrefixLen
	}
	return contentPrefixLen
}

// checkKind fails for a key of a kind the store has no keys for (every
// kind but table, band, content and passage): its keys would collide
// with another kind's.
func checkKind(k index.Key) error {
	switch k.Kind {
	case index.KindTable, index.KindBand, index.KindContent, index.KindPassage:
		return nil
	}
	return fmt.Errorf("key %v: unknown kind", k)
}

// fpLen is the length of the fingerprint a posting key of k carries.
func fpLen(k index.Key) int {
	if k.Kind == index.KindTable {
		return 8
	}
	return 0
}

// appendPrefix appends the key prefix of k (see the package doc).
func appendPrefix(dst []byte, k index.Key) []byte {
	switch k.Kind {
	case index.KindTable:
		v := k.Value << (64 - uint(k.Bits))
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], v)
		dst = append(dst, byte(index.KindTable), k.Table)
		return append(dst, b[:(int(k.Bits)+7)/8]...)
	case index.KindBand:
		dst = append(dst, byte(index.KindBand), k.Table)
		return binary.BigEndian.AppendUint64(dst, k.Value)
	case index.KindPassage:
		return binary.BigEndian.AppendUint64(append(dst, byte(index.KindPassage)), k.Value)
	}
	return binary.BigEndian.AppendUint64(append(dst, byte(index.KindContent)), k.Value)
}

// appendPostingKey appends the Badger key of the posting of id, with
// fingerprint fp, under k.
func appendPostingKey(dst []byte, k index.Key, fp simhash.Fingerprint, id string) []byte {
	dst = appendPrefix(dst, k)
	if k.Kind == index.KindTable {
		dst = binary.BigEndian.AppendUint64(dst, uint64(fp))
	}
	return append(dst, id...)
}

// bandPrefixLen is the length of a band key before the id.
const bandPrefixLen = 2 + 8

// contentPrefixLen is the length of a content-hash key before the id.
const contentPrefixLen = 1 + 8

// docKey returns 'd' + id.
func docKey(id string) []byte {
	return append([]byte{kindDoc}, id...)
}

// parseContentKey splits a content-hash key into hash and id.
func parseContentKey(key []byte) (uint64, string, error) {
	if len(key) < contentPrefixLen || key[0] != byte(index.KindContent) {
		return 0, "", fmt.Errorf("%w: content key %q: want 'c' and an 8-byte hash", ErrCorrupt, key)
	}
	return binary.BigEndian.Uint64(key[1:contentPrefixLen]), string(key[contentPrefixLen:]), nil
}

// metaKey returns 'm' + name.
func metaKey(name string) []byte {
	return append([]byte{kindMeta}, name...)
}

// Numbered postings (the layout of stores created since issue #27; see
// the package doc): a posting key ends in the document's number, numLen
// bytes big-endian, instead of its ID; 'n' number → ID resolves it, and
// the record's value starts with the number.
const (
	numLen = 5 // up to 2^40 − 1 documents a store
	maxNum = 1<<(8*numLen) - 1
)

// appendNum appends n as numLen bytes, big-endian.
func appendNum(dst []byte, n uint64) []byte {
	return append(dst, byte(n>>32), byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// readNum reads a number written by appendNum from the first numLen
// bytes of b.
func readNum(b []byte) uint64 {
	_ = b[numLen-1]
	return uint64(b[0])<<32 | uint64(b[1])<<24 | uint64(b[2])<<16 | uint64(b[3])<<8 | uint64(b[4])
}

// appendNumPostingKey appends the Badger key of the posting of document
// number num, with fingerprint fp, under k.
func appendNumPostingKey(dst []byte, k index.Key, fp simhash.Fingerprint, num uint64) []byte {
	dst = appendPrefix(dst, k)
	if k.Kind == index.KindTable {
		dst = binary.BigEndian.AppendUint64(dst, uint64(fp))
	}
	return appendNum(dst, num)
}

// numKey returns 'n' + num: the key of num's ID.
func numKey(num uint64) []byte {
	return appendNum([]byte{kindNum}, num)
}

// storeMetaKey returns 'M' + name: the store's own settings (not the
// index's values, which Claim keeps under 'm').
func storeMetaKey(name string) []byte {
	return append([]byte{kindStoreMeta}, name...)
}

// The store setting that says the postings are numbered, and its
// value; and the setting that keeps the next document number (numLen
// bytes), so that a number is never handed out twice, even after the
// document with the highest one is deleted.
const (
	metaPostings = "postings"
	postingsNum  = "numbered"
	metaNext     = "next"
	metaRecords  = "records" // "lean" in a lean store (Options.Lean), absent otherwise
	recordsLean  = "lean"
	metaTables   = "tables" // "zstd" in a store of compressed tables (Options.Compress), absent otherwise
	tablesZstd   = "zstd"
)

// splitDocValue splits the value of a 'd' key of a numbered store into
// the document's number and its record.
func splitDocValue(v []byte) (uint64, []byte, error) {
	if len(v) < numLen {
		return 0, nil, fmt.Errorf("%w: record value of %d bytes: want a %d-byte number first", ErrCorrupt, len(v), numLen)
	}
	return readNum(v), v[numLen:], nil
}
