//go:build amd64 && !purego

// Code in this file is simhash's Sum on amd64 with AVX2 and FMA.

#include "textflag.h"

// func sumAVX2(features []Feature, v *[64]float64)
//
// Adds +Weight or -Weight of every feature, in order, to the 64 counters
// v, as sumGeneric does: the counters of one half of the bits (32 of
// them, in Y0-Y7, 4 a register) stay in registers while every feature
// passes; each nibble of the feature's hash picks its row of nibbleSigns
// (4 float64s of +1 or -1), and VFMADD231PD adds row × Weight to the
// nibble's 4 counters. A product by ±1 is exact, so the fused
// multiply-add rounds once, exactly as the addition of ±Weight does.
TEXT ·sumAVX2(SB), NOSPLIT, $0-32
	MOVQ features_base+0(FP), SI
	MOVQ features_len+8(FP), BX
	MOVQ v+24(FP), DI
	LEAQ ·nibbleSigns(SB), R8
	XORQ R9, R9 // the shift of the half: 0, then 32

half:
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VMOVUPD 128(DI), Y4
	VMOVUPD 160(DI), Y5
	VMOVUPD 192(DI), Y6
	VMOVUPD 224(DI), Y7
	MOVQ SI, R10
	MOVQ BX, R11
	TESTQ R11, R11
	JZ store

feature:
	MOVQ 0(R10), AX
	MOVQ R9, CX
	SHRQ CX, AX
	VBROADCASTSD 8(R10), Y8
	MOVQ AX, DX
	ANDQ $15, DX
	SHLQ $5, DX
	VFMADD231PD (R8)(DX*1), Y8, Y0
	SHRQ $4, AX
	MOVQ AX, DX
	ANDQ $15, DX
	SHLQ $5, DX
	VFMADD231PD (R8)(DX*1), Y8, Y1
	SHRQ $4, AX
	MOVQ AX, DX
	ANDQ $15, DX
	SHLQ $5, DX
	VFMADD231PD (R8)(DX*1), Y8, Y2
	SHRQ $4, AX
	MOVQ AX, DX
	ANDQ $15, DX
	SHLQ $5, DX
	VFMADD231PD (R8)(DX*1), Y8, Y3
	SHRQ $4, AX
	MOVQ AX, DX
	ANDQ $15, DX
	SHLQ $5, DX
	VFMADD231PD (R8)(DX*1), Y8, Y4
	SHRQ $4, AX
	MOVQ AX, DX
	ANDQ $15, DX
	SHLQ $5, DX
	VFMADD231PD (R8)(DX*1), Y8, Y5
	SHRQ $4, AX
	MOVQ AX, DX
	ANDQ $15, DX
	SHLQ $5, DX
	VFMADD231PD (R8)(DX*1), Y8, Y6
	SHRQ $4, AX
	MOVQ AX, DX
	ANDQ $15, DX
	SHLQ $5, DX
	VFMADD231PD (R8)(DX*1), Y8, Y7
	ADDQ $16, R10
	DECQ R11
	JNZ feature

store:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	ADDQ $256, DI
	ADDQ $32, R9
	CMPQ R9, $64
	JLT half
	VZEROUPPER
	RET
