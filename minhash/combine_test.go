package minhash

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCombineShingles checks that combineShingles, with AVX-512 where
// the processor has it, gives combineGeneric's hashes for every length
// up to a block and a block's, and leaves the last carry values as they
// were.
func TestCombineShingles(t *testing.T) {
	if !hasAVX512 {
		t.Log("no AVX-512 (or -tags purego): combineShingles is combineGeneric")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 600 {
		hs := make([]uint64, n)
		for i := range hs {
			hs[i] = r.Uint64()
		}
		want := slices.Clone(hs)
		for j := 0; j+carry < n; j++ {
			want[j] = combine(want[j], want[j+1], want[j+2], want[j+3], want[j+4])
		}
		got := slices.Clone(hs)
		combineShingles(got)
		if !slices.Equal(got, want) {
			i := 0
			for got[i] == want[i] {
				i++
			}
			t.Fatalf("%d hashes: combineShingles gives %#x at %d, want %#x", n, got[i], i, want[i])
		}
	}
}

// TestCombineVector pins combine on one shingle of ShingleHash's, so
// that a change to the rotations or the mixing in either version fails.
func TestCombineVector(t *testing.T) {
	hs := []uint64{runeHash('a'), runeHash('b'), runeHash('c'), runeHash('d'), runeHash('e'), 0, 0, 0, 0, 0, 0, 0}
	combineShingles(hs)
	if want := ShingleHash([]rune("abcde")); hs[0] != want {
		t.Errorf("combineShingles of abcde = %#x, ShingleHash %#x", hs[0], want)
	}
}
