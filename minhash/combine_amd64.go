//go:build amd64 && !purego

package minhash

import "golang.org/x/sys/cpu"

// hasAVX512 reports whether the processor runs combineAVX512. It is set
// when the package is initialised and only read after that.
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// combineAVX512 is combineGeneric for n shingles, n a positive multiple
// of 8, in AVX-512 instructions (combine_amd64.s): eight shingles a
// loop, with the rotations, the three-way XORs and mix64's 64-bit
// products done on eight lanes at once.
//
//go:noescape
func combineAVX512(hs *uint64, n int)

// combineShingles sets hs[j] to combine(hs[j], ..., hs[j+4]) for every
// j < len(hs)-carry, in place and in order, as combineGeneric does:
// with combineAVX512 for the most it can take when the processor has
// AVX-512 (F and DQ).
func combineShingles(hs []uint64) {
	n := len(hs) - carry
	if n <= 0 {
		return
	}
	done := 0
	if hasAVX512 {
		if done = n &^ 7; done > 0 {
			combineAVX512(&hs[0], done)
		}
	}
	combineGeneric(hs[done:])
}
