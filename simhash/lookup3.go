package simhash

import (
	"encoding/binary"
	"math/bits"
)

// Hashlittle2 is Bob Jenkins' lookup3 hashlittle2 (lookup3.c, May 2006,
// public domain): it hashes key with the initial values pc and pb and
// returns the primary hash c and the secondary hash b, the values C's
// hashlittle2 leaves in *pc and *pb.
//
// The key is read as little-endian 32-bit words, so the result is the
// same on every platform; it equals the C function on little-endian
// machines (on big-endian ones C's hashlittle2 falls back to the same
// byte-at-a-time reading). The empty key is not mixed at all:
// Hashlittle2(nil, 0, 0) returns 0xdeadbeef, 0xdeadbeef.
func Hashlittle2(key []byte, pc, pb uint32) (c, b uint32) {
	return hashlittle2(key, pc, pb)
}

// hashlittle2 is Hashlittle2 for both strings and byte slices, so that
// HashLookup3 need not copy its argument.
func hashlittle2[T string | []byte](key T, pc, pb uint32) (c, b uint32) {
	a := 0xdeadbeef + uint32(len(key)) + pc
	b, c = a, a+pb

	for len(key) > 12 {
		a += le32(key[0], key[1], key[2], key[3])
		b += le32(key[4], key[5], key[6], key[7])
		c += le32(key[8], key[9], key[10], key[11])
		a, b, c = mix(a, b, c)
		key = key[12:]
	}
	if len(key) == 0 {
		// Only reached for an empty key: zero-length strings are not mixed.
		return c, b
	}
	var tail [12]byte
	copy(tail[:], key)
	a += binary.LittleEndian.Uint32(tail[0:])
	b += binary.LittleEndian.Uint32(tail[4:])
	c += binary.LittleEndian.Uint32(tail[8:])
	_, b, c = final(a, b, c)
	return c, b
}

// HashLookup3 is the per-feature hash of yanyiwu/simhash (C++) and
// gosimhash: Hashlittle2 of the UTF-8 bytes of w with both initial
// values 0, as the 64-bit value c<<32 | b. Their Simhasher adds a
// keyword's weight to counter j when bit j (1<<j, least significant bit
// first) of this value is 1, subtracts it otherwise, and sets bit j of
// the fingerprint when the counter ends above 0.0, exactly as Sum does,
// so Sum over HashLookup3 features with the same weights in the same
// order reproduces their fingerprints bit for bit.
func HashLookup3(w string) uint64 {
	c, b := hashlittle2(w, 0, 0)
	return uint64(c)<<32 | uint64(b)
}

func le32(b0, b1, b2, b3 byte) uint32 {
	return uint32(b0) | uint32(b1)<<8 | uint32(b2)<<16 | uint32(b3)<<24
}

func mix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

func final(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return a, b, c
}
