package minhash

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestShingleMins checks shingleMins, which hashes the shingles with
// AVX-512 where the processor has it, against combine and a minimum a
// bucket, for every length up to a block and past it: the shingles'
// hashes in place and the Long's minima.
func TestShingleMins(t *testing.T) {
	if !hasAVX512 {
		t.Log("no AVX-512 (or -tags purego): shingleMins is the Go loop alone")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 600 {
		hs := make([]uint64, n)
		for i := range hs {
			hs[i] = r.Uint64()
		}
		want := slices.Clone(hs)
		var wantMins longMins
		for i := range wantMins {
			wantMins[i] = math.MaxUint64
		}
		wantMins[3] = 1 << 40 // a minimum from an earlier block
		gotMins := wantMins
		for j := 0; j+carry < n; j++ {
			want[j] = combine(want[j], want[j+1], want[j+2], want[j+3], want[j+4])
			wantMins.add(want[j])
		}
		got := slices.Clone(hs)
		shingleMins(got, &gotMins)
		if !slices.Equal(got, want) {
			i := 0
			for got[i] == want[i] {
				i++
			}
			t.Fatalf("%d hashes: shingleMins gives %#x at %d, want %#x", n, got[i], i, want[i])
		}
		if gotMins != wantMins {
			t.Fatalf("%d hashes: shingleMins' minima differ", n)
		}
	}
}

// TestCombineVector pins the AVX-512 loop (where it runs) and combine
// on one shingle of ShingleHash's, so that a change to the rotations or
// the mixing in either fails.
func TestCombineVector(t *testing.T) {
	hs := []uint64{runeHash('a'), runeHash('b'), runeHash('c'), runeHash('d'), runeHash('e'), 0, 0, 0, 0, 0, 0, 0}
	var lm longMins
	shingleMins(hs, &lm)
	if want := ShingleHash([]rune("abcde")); hs[0] != want {
		t.Errorf("shingleMins of abcde = %#x, ShingleHash %#x", hs[0], want)
	}
	want := []uint64{runeHash('a'), runeHash('b'), runeHash('c'), runeHash('d'), runeHash('e')}
	combineGeneric(want)
	if want[0] != ShingleHash([]rune("abcde")) {
		t.Errorf("combineGeneric of abcde = %#x, ShingleHash %#x", want[0], ShingleHash([]rune("abcde")))
	}
}
