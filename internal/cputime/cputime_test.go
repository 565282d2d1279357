//go:build unix

package cputime

import "testing"

// TestSelfGrows: burning CPU makes Self grow by 10 ms within a few
// seconds' worth of work (no timing bound: a loaded machine only makes
// the loop take longer in wall time).
func TestSelfGrows(t *testing.T) {
	before := Self()
	if before <= 0 {
		t.Fatalf("Self() = %v at start, want > 0", before)
	}
	x := uint64(1)
	for round := 0; Self()-before < 10_000_000; round++ {
		if round == 10_000 { // 10^10 multiplications: far more than 10 ms
			t.Fatalf("Self() grew by %v over 10^10 multiplications, want at least 10ms", Self()-before)
		}
		for i := 0; i < 1_000_000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if x == 0 {
		t.Log(x) // keeps the loop from being optimised away
	}
}
