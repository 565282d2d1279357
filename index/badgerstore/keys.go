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
