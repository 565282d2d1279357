//go:build amd64 && !purego

package minhash

import "golang.org/x/sys/cpu"

// hasAVX512 reports whether the processor runs combineAVX512. It is set
// when the package is initialised and only read after that.
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// combineAVX512 is combineGeneric for n shingles (hs[:n+carry]), n a
// positive multiple of 8, in AVX-512 instructions (combine_amd64.s):
// eight shingles a loop, with the rotations, the three-way XORs and
// mix64's 64-bit products done on eight lanes at once.
//
//go:noescape
func combineAVX512(hs *uint64, n int)
