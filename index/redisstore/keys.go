package redisstore

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

// Sizes of the fixed-size fields of packed postings.
const (
	numBytes = 5 // a document number, big-endian: up to 2^40 per archive
	fpBytes  = 8 // a whole fingerprint, big-endian

	// maxNum is the largest document number.
	maxNum = 1<<(8*numBytes) - 1

	// numsPerHash is how many document numbers share one number→ID hash,
	// Redis's default hash-max-listpack-entries, so that the hashes stay
	// listpacks (about 4 bytes per entry besides the ID) while the IDs are
	// at most hash-max-listpack-value (64) bytes.
	numsPerHash = 128
)

// Key kinds besides index's KindTable, KindBand, KindContent and
// KindPassage (which name the posting keys). Each key is the archive's
// prefix, one kind byte, then the rest.
const (
	kindRecord  = 'r' // r ID → number, record
	kindNumHash = 'n' // n number/128 → hash {number%128 (1 byte) → ID}
	kindState   = 's' // s number/128 → hash {number%128 (1 byte) → state (AppendRead's documents)}
	kindMeta    = 'm' // m name → value (Claim)
	kindStore   = 'M' // M name → value: the store's own settings ("epoch", "bucketbits")
	kindNext    = 'N' // N → the last document number handed out (INCRBY)
	kindDocs    = 'D' // D → the number of documents (INCRBY)
	kindBig     = 'Z' // Z → sorted set of the largest posting keys, by bytes
	kindMarker  = 'e' // e DECIMAL → hash {e: epoch}, one per cluster slot
)

// bucket is where the postings of one index.Key live: a Redis key
// holding fixed-size packed records, each
//
//	match (matchLen bytes) [fingerprint (8 bytes), table keys only] number (5 bytes)
//
// where match is the part of the key's value that the Redis key name
// does not carry. Postings keeps the records whose match equals the
// key's.
type bucket struct {
	key      string
	match    uint64
	matchLen int
	table    bool // records carry a fingerprint

	// A bucket of a posting level (keys.go, Posting levels) holds
	// numbers of its level only: a record carries num - base in
	// numLen bytes (the level's size needs), not numBytes.
	base   uint64
	numLen int // 0: numBytes
}

// nlen is the size of a record's number.
func (b *bucket) nlen() int {
	if b.numLen == 0 {
		return numBytes
	}
	return b.numLen
}

// recLen is the size of one packed record.
func (b *bucket) recLen() int {
	n := b.matchLen + b.nlen()
	if b.table {
		n += fpBytes
	}
	return n
}

// numString is num as b's records carry it.
func (b *bucket) numString(num uint64) string {
	return string(appendNumN(nil, num-b.base, b.nlen()))
}

// mix64 is MurmurHash3's 64-bit finalizer, a bijection: band values
// (four 16-bit MinHash minima, which are small numbers more often than
// not) and content hashes are mixed before their top bits pick a bucket,
// so that buckets fill evenly; since it is a bijection, bucket and match
// together still determine the value exactly.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// mix32 is MurmurHash3's 32-bit finalizer, a bijection, for passage
// keys below 2^32.
func mix32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x85ebca6b
	x ^= x >> 13
	x *= 0xc2b2ae35
	x ^= x >> 16
	return x
}

// passage32 is the table byte of the buckets of passage keys below 2^32
// (package reuse's 32-bit keys): their values are mixed as 32 bits, so
// that their records carry 32 − s.bucketBits bits of match rather than
// 64 − s.bucketBits; the other passage keys' buckets have table byte 0.
const passage32 = 32

// bucketOf returns the bucket of k: the Redis key carries the kind, the
// table or band number (passage32 for a passage key below 2^32) and the
// top bits of the value (all of a table key's bits up to s.bucketBits;
// the top s.bucketBits bits of a mixed band value, content hash or
// passage key), big-endian in whole bytes; the records carry the rest
// of the value as their match.
func (s *Store) bucketOf(k index.Key) (bucket, error) {
	var v uint64
	var width int
	table := k.Table
	switch k.Kind {
	case index.KindTable:
		if k.Bits < 1 || k.Bits > 64 {
			return bucket{}, fmt.Errorf("key %v: %d bits: want 1 to 64", k, k.Bits)
		}
		if k.Bits < 64 && k.Value>>k.Bits != 0 {
			return bucket{}, fmt.Errorf("key %v: value has more than %d bits", k, k.Bits)
		}
		v, width = k.Value, int(k.Bits)
	case index.KindPassage:
		if k.Value <= math.MaxUint32 {
			v, width, table = uint64(mix32(uint32(k.Value))), 32, passage32
		} else {
			v, width = mix64(k.Value), 64
		}
	case index.KindBand, index.KindContent:
		v, width = mix64(k.Value), 64
	default:
		return bucket{}, fmt.Errorf("key %v: unknown kind", k)
	}
	return s.makeBucket(k.Kind, []byte{table}, v, width, min(width, s.bucketBits)), nil
}

// makeBucket returns the bucket of value v of width bits whose top bb
// bits the Redis key carries, after the prefix, kind and name bytes.
func (s *Store) makeBucket(kind index.Kind, name []byte, v uint64, width, bb int) bucket {
	mbits := width - bb
	b := bucket{table: kind == index.KindTable, matchLen: (mbits + 7) / 8}
	if mbits > 0 {
		b.match = v & (1<<mbits - 1)
	}
	top := v >> mbits
	nb := (bb + 7) / 8
	key := make([]byte, 0, len(s.prefix)+1+len(name)+nb)
	key = append(key, s.prefix...)
	key = append(key, byte(kind))
	key = append(key, name...)
	for i := nb - 1; i >= 0; i-- {
		key = append(key, byte(top>>(8*i)))
	}
	b.key = string(key)
	return b
}

// Passage levels. An archive created since 2026-11-27 (its 'M'
// "passages" setting is "levels") files a document's passage postings
// by its number: numbers below 2^B (B the archive's bucket bits) are
// level 0, the next 2·2^B level 1, the next 4·2^B level 2, and so on,
// level l holding 2^l·2^B numbers in 2^(B+l) buckets (at most 2^32), so
// that a bucket holds about one posting per passage a document has
// (57 in bench/reusecost's articles) however large the archive, and a
// query reads one bucket per key and level: levels grow as log2 of the
// archive (5 at 10^6 documents with B = 16, 8 at 10^7), where one
// bucket of the fixed 2^B held 870 postings at 10^6. A bucket's Redis
// key is the prefix, 'p', passageLevel32 (keys below 2^32, mixed as 32
// bits) or passageLevel64 (wider keys, mixed as 64), the level, then
// the value's top B+l bits in whole bytes; the records are as in the
// flat layout (match, number). Archives created before keep the flat
// layout (bucketOf: 2^B buckets, table byte passage32 or 0), which
// they are read and written in.
const (
	passageLevel32 = 96
	passageLevel64 = 64
	maxLevelBits   = 32
)

// levelOf returns the passage level of document number num.
func (s *Store) levelOf(num uint64) int {
	return bits.Len64(num>>s.bucketBits+1) - 1
}

// passageBucket returns the bucket of passage key k at level l (see
// Passage levels); k must be a passage key (bucketOf has checked it).
func (s *Store) passageBucket(k index.Key, l int) bucket {
	v, w, name := uint64(mix32(uint32(k.Value))), 32, byte(passageLevel32)
	if k.Value > math.MaxUint32 {
		v, w, name = mix64(k.Value), 64, passageLevel64
	}
	return s.makeBucket(index.KindPassage, []byte{name, byte(l)}, v, w, min(w, s.bucketBits+l, maxLevelBits))
}

// Posting levels. An archive created since 2026-11-27 07:00 UTC (its
// 'M' "bucketbits" setting is "B levels") files table, band and content
// postings by document number too, in the passage levels' number ranges
// (levelOf), so that a bucket holds about 2^levelShift postings of one
// table or band at any size of the archive: level l has 2^(B-levelShift+l)
// buckets per table or band (at most 2^32; a table key of fewer bits,
// 2^bits, its postings then more than 2^levelShift a bucket). A flat
// bucket of 2^B holds N/2^B postings: 1.5 at 10^5 documents, where a
// bucket's ~90 bytes of Redis overhead made postings cost five times
// their data, 15 at 10^6 (twice), 15,000 at 10^9 (read by every query).
// A query reads one bucket per key and level (5 levels at 10^6 with B =
// 16). A full level's buckets take no more postings (new documents get
// higher numbers), so they are rewritten at their exact size while the
// next level fills (compactLevels): APPEND leaves them up to half empty.
// A bucket's Redis key is the prefix, the kind, the table or band
// number, 0x80 | the level, then the value's top bits (as bucketOf's,
// after mixing) in whole bytes; its records are as in the flat layout.
// Archives created before keep the flat layout ("bucketbits" is "B"),
// which they are read and written in; binaries of before refuse an
// archive of levels (its bucket bits do not parse).
const levelShift = 6

// leveled reports whether k's postings are filed by level: passage keys
// in an archive of passage levels, table, band and content keys in one
// of posting levels.
func (s *Store) leveled(k index.Key) bool {
	if k.Kind == index.KindPassage {
		return s.levels
	}
	return s.postLevels
}

// levelBucket returns the bucket of k at level l; k must be leveled
// (and bucketOf must have checked it).
func (s *Store) levelBucket(k index.Key, l int) bucket {
	if k.Kind == index.KindPassage {
		return s.passageBucket(k, l)
	}
	v, width := mix64(k.Value), 64
	if k.Kind == index.KindTable {
		v, width = k.Value, int(k.Bits)
	}
	bb := max(s.bucketBits-levelShift+l, 0)
	b := s.makeBucket(k.Kind, []byte{k.Table, 0x80 | byte(l)}, v, width, min(width, bb, maxLevelBits))
	b.base = (uint64(1)<<l - 1) << s.bucketBits
	b.numLen = min((s.bucketBits+l+7)/8, numBytes)
	return b
}

// levelKey returns the Redis key of bucket j of kind and table at level
// l, whose buckets carry bb bits (levelBucket's).
func (s *Store) levelKey(kind index.Kind, table uint8, l int, j uint64, bb int) string {
	key := make([]byte, 0, len(s.prefix)+3+(bb+7)/8)
	key = append(key, s.prefix...)
	key = append(key, byte(kind), table, 0x80|byte(l))
	for i := (bb+7)/8 - 1; i >= 0; i-- {
		key = append(key, byte(j>>(8*i)))
	}
	return string(key)
}

// bucketFor returns the bucket of key k of document number num: its
// level's when k is leveled, bucketOf's otherwise.
func (s *Store) bucketFor(k index.Key, num uint64) (bucket, error) {
	b, err := s.bucketOf(k)
	if err != nil || !s.leveled(k) {
		return b, err
	}
	return s.levelBucket(k, s.levelOf(num)), nil
}

// appendRecord appends the packed record of document num, with
// fingerprint fp, to dst.
func (b *bucket) appendRecord(dst []byte, fp simhash.Fingerprint, num uint64) []byte {
	for i := b.matchLen - 1; i >= 0; i-- {
		dst = append(dst, byte(b.match>>(8*i)))
	}
	if b.table {
		dst = binary.BigEndian.AppendUint64(dst, uint64(fp))
	}
	return appendNumN(dst, num-b.base, b.nlen())
}

// numOffset is where the number starts in a record.
func (b *bucket) numOffset() int { return b.recLen() - b.nlen() }

// scan calls f with the fingerprint and number of every record of val
// whose match is b's.
func (b *bucket) scan(val string, f func(fp simhash.Fingerprint, num uint64)) error {
	n := b.recLen()
	if len(val)%n != 0 {
		return fmt.Errorf("%w: posting key %q holds %d bytes, not a multiple of its %d-byte records", index.ErrCorrupt, b.key, len(val), n)
	}
	for off := 0; off < len(val); off += n {
		r := val[off : off+n]
		var m uint64
		for i := 0; i < b.matchLen; i++ {
			m = m<<8 | uint64(r[i])
		}
		if m != b.match {
			continue
		}
		r = r[b.matchLen:]
		var fp simhash.Fingerprint
		if b.table {
			fp = simhash.Fingerprint(binary.BigEndian.Uint64([]byte(r[:fpBytes])))
			r = r[fpBytes:]
		}
		var n uint64
		for i := 0; i < len(r); i++ {
			n = n<<8 | uint64(r[i])
		}
		f(fp, b.base+n)
	}
	return nil
}

func appendNum(dst []byte, num uint64) []byte { return appendNumN(dst, num, numBytes) }

// appendNumN appends the low n bytes of num, big-endian.
func appendNumN(dst []byte, num uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(num>>(8*i)))
	}
	return dst
}

func numString(num uint64) string { return string(appendNum(nil, num)) }

// parseNum reads a number from the first numBytes bytes of s.
func parseNum(s string) uint64 {
	var n uint64
	for i := 0; i < numBytes; i++ {
		n = n<<8 | uint64(s[i])
	}
	return n
}

// recordKey returns the key of the record of id: the ID itself in an
// archive created before 2026-11-27 08:00 UTC, the first recordHashLen
// bytes of its SHA-256 since ('M' "recordkeys" "hashed"): 32 bytes of
// memory a record less with IDs of 40 to 60 bytes (a key of 20 to 30
// bytes takes jemalloc's class of 32, one of 60 its class of 64), and
// the number's hash (n) still holds the ID. Two IDs of one hash would
// share a record key, the second refused as taken: at 10^10 documents
// the chance that any two of them do is about 10^-19.
func (s *Store) recordKey(id string) string {
	if !s.hashedKeys {
		return s.prefix + string(kindRecord) + id
	}
	h := sha256.Sum256([]byte(id))
	return s.prefix + string(kindRecord) + string(h[:recordHashLen])
}

const recordHashLen = 16

// numHash returns the key and field of num in the number→ID hashes.
func (s *Store) numHash(num uint64) (key, field string) {
	return s.prefix + string(kindNumHash) + numString(num/numsPerHash), string([]byte{byte(num % numsPerHash)})
}

// stateHash returns the key and field of num's state (see shared.go).
func (s *Store) stateHash(num uint64) (key, field string) {
	return s.prefix + string(kindState) + numString(num/numsPerHash), string([]byte{byte(num % numsPerHash)})
}

func (s *Store) metaKey(name string) string  { return s.prefix + string(kindMeta) + name }
func (s *Store) storeKey(name string) string { return s.prefix + string(kindStore) + name }

// describe names a Redis key of the archive for people: "t1 bucket
// 4567" for a posting key, the kind and bytes in hex otherwise.
func (s *Store) describe(key string) string {
	if len(key) < len(s.prefix)+1 {
		return strconv.Quote(key)
	}
	rest := key[len(s.prefix):]
	switch index.Kind(rest[0]) {
	case index.KindTable, index.KindBand, index.KindContent, index.KindPassage:
		if index.Kind(rest[0]) == index.KindPassage && len(rest) >= 3 && (rest[1] == passageLevel32 || rest[1] == passageLevel64) {
			w := 32
			if rest[1] == passageLevel64 {
				w = 64
			}
			return fmt.Sprintf("p%d level %d bucket %x", w, rest[2], rest[3:])
		}
		if len(rest) >= 2 {
			name := string(rest[0])
			if k := index.Kind(rest[0]); k != index.KindContent && (k != index.KindPassage || rest[1] == passage32) {
				name += strconv.Itoa(int(rest[1]))
			}
			if index.Kind(rest[0]) != index.KindPassage && s.postLevels && len(rest) >= 3 && rest[2]&0x80 != 0 {
				return fmt.Sprintf("%s level %d bucket %x", name, rest[2]&^0x80, rest[3:])
			}
			return fmt.Sprintf("%s bucket %x", name, rest[2:])
		}
	}
	return fmt.Sprintf("%c %x", rest[0], rest[1:])
}

// Cluster slots, computed as Redis does (CRC16-XMODEM of the key, or of
// the part between the first '{' and the next '}' when that part is not
// empty, mod 16384), so that each record key is written together with
// the marker of its slot.

const numSlots = 16384

var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

func crc16(s string) uint16 {
	var c uint16
	for i := 0; i < len(s); i++ {
		c = c<<8 ^ crcTable[byte(c>>8)^s[i]]
	}
	return c
}

// slot returns the cluster slot of key.
func slot(key string) int {
	for i := 0; i < len(key); i++ {
		if key[i] == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j > i+1 {
						key = key[i+1 : j]
					}
					break
				}
			}
			break
		}
	}
	return int(crc16(key)) % numSlots
}

// markerKeys returns, for every cluster slot, a key of the archive in
// that slot: prefix 'e' and the smallest decimal number that lands
// there. The archive's markers are hashes under these keys.
func markerKeys(prefix string) []string {
	keys := make([]string, numSlots)
	left := numSlots
	buf := []byte(prefix + string(kindMarker))
	n := len(buf)
	for i := 0; left > 0; i++ {
		buf = strconv.AppendInt(buf[:n], int64(i), 10)
		sl := slot(string(buf))
		if keys[sl] == "" {
			keys[sl] = string(buf)
			left--
		}
	}
	return keys
}
