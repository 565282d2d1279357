// Package simhash computes 64-bit SimHash fingerprints of weighted
// features and compares them by Hamming distance. Content sketches, which
// confirm a fingerprint match against the text, are package minhash's.
//
// A fingerprint is made by hashing every feature (for articles, a TF-IDF
// keyword) to 64 bits, adding the feature's weight to a per-bit counter
// where the hash bit is 1 and subtracting it where the bit is 0, and
// setting each fingerprint bit to 1 where its counter ends above zero.
// Similar feature sets give fingerprints a small Hamming distance apart.
// Two fingerprints at most k bits apart agree exactly on at least b−k of
// any b blocks of their bits (pigeonhole), so an index of blocks finds
// every candidate within distance k: package index files fingerprints
// under b blocks for a maximum distance k < b (its default is four 16-bit
// blocks and k = 3; index.LayoutFor gives a layout for larger k).
// Blocks is the default's four 16-bit blocks.
//
// # Stored format
//
// The per-feature hash is part of the stored format: fingerprints made
// with different hashes cannot be compared. HashWord, the default, is
// XXH64 (github.com/cespare/xxhash/v2, seed 0) of the feature's UTF-8
// bytes. HashLookup3 is Bob Jenkins' lookup3 hashlittle2 (both seeds 0,
// c<<32 | b), the hash of yanyiwu/simhash and gosimhash, kept so that
// their fingerprints can be reproduced bit for bit: Sum over HashLookup3
// features with their weights gives gosimhash's 0xfeb6372a8750eb1d for
// the keywords of "我来到北京清华大学". Fingerprint.String writes 16
// lower-case hex digits, the form Parse reads back.
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
//
// For every bit, Sum adds +Weight or -Weight to a float64 counter in
// the order the features are given and sets the bit when the counter
// ends above 0, the arithmetic of yanyiwu/simhash, so ties (a counter of
// exactly 0) and rounding come out the same as there.
func Sum(features []Feature) Fingerprint {
	var v [64]float64
	addFeatures(features, &v)
	var fp Fingerprint
	for i := range v {
		if v[i] > 0 {
			fp |= 1 << uint(i)
		}
	}
	return fp
}

// sumGeneric adds +Weight or -Weight of every feature to the counter of
// each bit of v, in the order of the features, in Go.
func sumGeneric(features []Feature, v *[64]float64) {
	// Four features at a time, so that each counter is loaded and stored
	// once per four additions; the additions stay in feature order.
	for len(features) >= 4 {
		f := (*[4]Feature)(features)
		h0, h1, h2, h3 := f[0].Hash, f[1].Hash, f[2].Hash, f[3].Hash
		w0, w1, w2, w3 := f[0].Weight, f[1].Weight, f[2].Weight, f[3].Weight
		for k := 0; k < 64; k += 4 {
			s0, s1, s2, s3 := &nibbleSigns[h0&15], &nibbleSigns[h1&15], &nibbleSigns[h2&15], &nibbleSigns[h3&15]
			h0, h1, h2, h3 = h0>>4, h1>>4, h2>>4, h3>>4
			c := (*[4]float64)(v[k:])
			for j := range c {
				x := c[j]
				x += s0[j] * w0
				x += s1[j] * w1
				x += s2[j] * w2
				x += s3[j] * w3
				c[j] = x
			}
		}
		features = features[4:]
	}
	for _, f := range features {
		h, w := f.Hash, f.Weight
		for k := 0; k < 64; k += 4 {
			s := &nibbleSigns[h&15]
			h >>= 4
			c := (*[4]float64)(v[k:])
			for j := range c {
				c[j] += s[j] * w
			}
		}
	}
}

// nibbleSigns[n][j] is +1 when bit j of the nibble n is set and -1
// otherwise. Multiplying a weight by ±1 is exact, so s*w adds the same
// value as a branch choosing between +w and -w, without the branch (and
// a fused multiply-add, which Go may use, rounds the same way).
var nibbleSigns = [16][4]float64{
	{-1, -1, -1, -1}, {1, -1, -1, -1}, {-1, 1, -1, -1}, {1, 1, -1, -1},
	{-1, -1, 1, -1}, {1, -1, 1, -1}, {-1, 1, 1, -1}, {1, 1, 1, -1},
	{-1, -1, -1, 1}, {1, -1, -1, 1}, {-1, 1, -1, 1}, {1, 1, -1, 1},
	{-1, -1, 1, 1}, {1, -1, 1, 1}, {-1, 1, 1, 1}, {1, 1, 1, 1},
}
