// Package simhash computes 64-bit SimHash fingerprints of weighted
// features and compares them by Hamming distance.
//
// A fingerprint is made by hashing every feature (for articles, a TF-IDF
// keyword) to 64 bits, adding the feature's weight to a per-bit counter
// where the hash bit is 1 and subtracting it where the bit is 0, and
// setting each fingerprint bit to 1 where its counter ends above zero.
// Similar feature sets give fingerprints a small Hamming distance apart.
//
// # Stored format
//
// The per-feature hash is part of the stored format: fingerprints made
// with different hashes cannot be compared. HashWord, the default, is
// XXH64 (github.com/cespare/xxhash/v2, seed 0) of the feature's UTF-8
// bytes. HashLookup3 is Bob Jenkins' lookup3 hashlittle2 (both seeds 0,
// c<<32 | b), the hash of yanyiwu/simhash and gosimhash, kept so that
// their fingerprints can be reproduced bit for bit. Fingerprint.String
// writes 16 lower-case hex digits, the form Parse reads back.
package simhash

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Fingerprint is a 64-bit SimHash.
type Fingerprint uint64

// Distance returns the Hamming distance between f and g: the number of
// bits in which they differ, from 0 to 64.
func (f Fingerprint) Distance(g Fingerprint) int {
	return bits.OnesCount64(uint64(f ^ g))
}

// Similarity returns 1 - Distance(g)/64, from 0 (every bit differs) to
// 1 (identical).
func (f Fingerprint) Similarity(g Fingerprint) float64 {
	return 1 - float64(f.Distance(g))/64
}

// Blocks splits f into four 16-bit blocks, most significant first.
func (f Fingerprint) Blocks() [4]uint16 {
	return [4]uint16{uint16(f >> 48), uint16(f >> 32), uint16(f >> 16), uint16(f)}
}

// String returns f as 16 lower-case hex digits.
func (f Fingerprint) String() string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[f&0xf]
		f >>= 4
	}
	return string(b[:])
}

// ErrSyntax is wrapped by the error Parse returns for malformed input.
var ErrSyntax = errors.New("simhash: invalid fingerprint")

// Parse reads a fingerprint written as 1 to 16 hex digits, with an
// optional 0x or 0X prefix. Upper and lower case are both accepted.
func Parse(s string) (Fingerprint, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(h) == 0 || len(h) > 16 {
		return 0, fmt.Errorf("%w %q: want 1 to 16 hex digits", ErrSyntax, s)
	}
	v, err := strconv.ParseUint(h, 16, 64)
	if err != nil || strings.ContainsAny(h, "+-_") {
		return 0, fmt.Errorf("%w %q: not hexadecimal", ErrSyntax, s)
	}
	return Fingerprint(v), nil
}

// Feature is one weighted input to Sum: a 64-bit hash and its weight.
type Feature struct {
	Hash   uint64
	Weight float64
}

// HashWord is the default per-feature hash: XXH64 with seed 0.
func HashWord(w string) uint64 { return xxhash.Sum64String(w) }

// Sum returns the SimHash of the features: bit i is 1 when the weights
// of the features whose hash has bit i set outweigh the others. Sum of
// no features is 0; callers that must not confuse "no content" with a
// fingerprint check the feature count first.
func Sum(features []Feature) Fingerprint {
	var v [64]float64
	for _, f := range features {
		h := f.Hash
		for i := 0; i < 64; i++ {
			if h&(1<<uint(i)) != 0 {
				v[i] += f.Weight
			} else {
				v[i] -= f.Weight
			}
		}
	}
	var fp Fingerprint
	for i := 0; i < 64; i++ {
		if v[i] > 0 {
			fp |= 1 << uint(i)
		}
	}
	return fp
}
