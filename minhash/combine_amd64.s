//go:build amd64 && !purego

// Code in this file is minhash's shingle hashing on amd64 with AVX-512.

#include "textflag.h"

// func combineAVX512(hs *uint64, n int)
//
// For j from 0 to n-1 (n a positive multiple of 8), in blocks of eight:
// hs[j] = mix64(hs[j] ^ rotl(hs[j+1], 13) ^ rotl(hs[j+2], 26) ^
// rotl(hs[j+3], 39) ^ rotl(hs[j+4], 52)), combine of minhash.go. A
// block reads hs[j..j+11] before it writes hs[j..j+7], and the next
// block reads from hs[j+8] on, so that working in place gives what
// combineGeneric gives.
TEXT ·combineAVX512(SB), NOSPLIT, $0-16
	MOVQ hs+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ $0xff51afd7ed558ccd, AX
	VPBROADCASTQ AX, Z14
	MOVQ $0xc4ceb9fe1a85ec53, AX
	VPBROADCASTQ AX, Z15

loop:
	VMOVDQU64 0(SI), Z0
	VMOVDQU64 8(SI), Z1
	VMOVDQU64 16(SI), Z2
	VMOVDQU64 24(SI), Z3
	VMOVDQU64 32(SI), Z4
	VPROLQ $13, Z1, Z1
	VPROLQ $26, Z2, Z2
	VPROLQ $39, Z3, Z3
	VPROLQ $52, Z4, Z4
	VPTERNLOGQ $0x96, Z2, Z1, Z0 // Z0 ^= Z1 ^ Z2
	VPTERNLOGQ $0x96, Z4, Z3, Z0 // Z0 ^= Z3 ^ Z4

	// mix64
	VPSRLQ $33, Z0, Z5
	VPXORQ Z5, Z0, Z0
	VPMULLQ Z14, Z0, Z0
	VPSRLQ $33, Z0, Z5
	VPXORQ Z5, Z0, Z0
	VPMULLQ Z15, Z0, Z0
	VPSRLQ $33, Z0, Z5
	VPXORQ Z5, Z0, Z0

	VMOVDQU64 Z0, 0(SI)
	ADDQ $64, SI
	SUBQ $8, CX
	JNZ loop
	VZEROUPPER
	RET
