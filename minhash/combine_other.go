//go:build !amd64 || purego

package minhash

import "unsafe"

// hasAVX512 is false: combineAVX512 is amd64's.
const hasAVX512 = false

// combineAVX512 is combineGeneric for n shingles (hs[:n+carry]); on
// this architecture shingleMins never calls it.
func combineAVX512(hs *uint64, n int) { combineGeneric(unsafe.Slice(hs, n+carry)) }
