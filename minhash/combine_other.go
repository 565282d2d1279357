//go:build !amd64 || purego

package minhash

// hasAVX512 is false: combineAVX512 is amd64's.
const hasAVX512 = false

// combineShingles sets hs[j] to combine(hs[j], ..., hs[j+4]) for every
// j < len(hs)-carry, in place and in order (combineGeneric).
func combineShingles(hs []uint64) { combineGeneric(hs) }
