package badgerstore

import (
	"math/rand/v2"
	"testing"
)

func TestBloomSizing(t *testing.T) {
	tests := []struct {
		capacity int64
		p        float64
		m        uint64
		k        int
	}{
		{10000, 0.01, 95852, 7},
		{10, 0.01, 9816, 7}, // raised to minBloomCapacity
		{100000, 0.001, 1437760, 10},
	}
	for _, tt := range tests {
		b := newCountingBloom(tt.capacity, tt.p)
		if b.m != tt.m || b.k != tt.k || int64(len(b.cells)) != int64(tt.m/2) {
			t.Errorf("newCountingBloom(%d, %v): m=%d k=%d bytes=%d, want m=%d k=%d", tt.capacity, tt.p, b.m, b.k, len(b.cells), tt.m, tt.k)
		}
	}
}

// No false negatives, whatever the order of adds and removes, even when
// small filters saturate: the model multiset is checked after every step.
func TestBloomNoFalseNegatives(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, capacity := range []int64{1, 2000} {
		b := newCountingBloom(capacity, 0.05)
		counts := map[uint64]int{}
		var keys []uint64
		for step := 0; step < 20000; step++ {
			switch {
			case len(keys) == 0 || r.IntN(3) > 0:
				var h uint64
				if len(keys) > 0 && r.IntN(4) == 0 {
					h = keys[r.IntN(len(keys))] // a duplicate
				} else {
					h = r.Uint64()
				}
				b.add(h)
				if counts[h] == 0 {
					keys = append(keys, h)
				}
				counts[h]++
			default:
				i := r.IntN(len(keys))
				h := keys[i]
				b.remove(h)
				if counts[h]--; counts[h] == 0 {
					delete(counts, h)
					keys[i] = keys[len(keys)-1]
					keys = keys[:len(keys)-1]
				}
			}
			if step%97 == 0 || step == 19999 {
				for _, h := range keys {
					if !b.mayContain(h) {
						t.Fatalf("capacity %d step %d: false negative for %x (count %d)", capacity, step, h, counts[h])
					}
				}
			}
		}
		if capacity == 1 && b.saturated == 0 {
			t.Errorf("capacity %d: no counter saturated; the test does not exercise saturation", capacity)
		}
	}
}

// At its designed size the filter's false-positive rate is within a
// factor of two of the target.
func TestBloomFalsePositiveRate(t *testing.T) {
	for _, p := range []float64{0.01, 0.001} {
		const n = 20000
		b := newCountingBloom(n, p)
		r := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < n; i++ {
			b.add(r.Uint64())
		}
		const trials = 400000
		fp := 0
		for i := 0; i < trials; i++ {
			if b.mayContain(r.Uint64()) {
				fp++
			}
		}
		rate := float64(fp) / trials
		if rate > 2*p || rate < p/2 {
			t.Errorf("target %v: false-positive rate %v (%d of %d)", p, rate, fp, trials)
		}
	}
}

// A counter that reaches 15 stays there through removes; the others
// count exactly.
func TestBloomSaturation(t *testing.T) {
	b := newCountingBloom(1000, 0.01)
	const h = 0x1234
	for i := 0; i < 20; i++ {
		b.add(h)
	}
	var pos []uint64
	b.positions(h, func(i uint64) { pos = append(pos, i) })
	for _, i := range pos {
		if c := b.get(i); c != counterMax {
			t.Fatalf("counter %d = %d after 20 adds, want 15", i, c)
		}
	}
	if b.saturated != int64(len(pos)) {
		t.Errorf("saturated = %d, want %d", b.saturated, len(pos))
	}
	for i := 0; i < 20; i++ {
		b.remove(h)
	}
	if !b.mayContain(h) {
		t.Error("saturated counters were decremented to zero")
	}
	if want := int64(20 * len(pos)); b.stuck != want {
		t.Errorf("stuck = %d, want %d", b.stuck, want)
	}

	// Below saturation, add and remove undo each other exactly.
	const g = 0x5678
	for i := 0; i < 14; i++ {
		b.add(g)
	}
	for i := 0; i < 14; i++ {
		b.remove(g)
	}
	b.positions(g, func(i uint64) {
		if c := b.get(i); c != 0 && !contains(pos, i) {
			t.Errorf("counter %d = %d after 14 adds and removes, want 0", i, c)
		}
	})
}

func contains(a []uint64, x uint64) bool {
	for _, y := range a {
		if y == x {
			return true
		}
	}
	return false
}

func TestBloomNibbles(t *testing.T) {
	b := newCountingBloom(1000, 0.01)
	b.set(0, 3)
	b.set(1, 12)
	b.set(2, 15)
	if b.cells[0] != 0xc3 || b.cells[1] != 0x0f {
		t.Errorf("cells % x, want c3 0f", b.cells[:2])
	}
	if b.get(0) != 3 || b.get(1) != 12 || b.get(2) != 15 || b.get(3) != 0 {
		t.Errorf("get = %d %d %d %d, want 3 12 15 0", b.get(0), b.get(1), b.get(2), b.get(3))
	}
}

func BenchmarkBloomMayContain(b *testing.B) {
	f := newCountingBloom(1<<20, 0.01)
	for i := uint64(0); i < 1<<20; i++ {
		f.add(mix64(i))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.mayContain(uint64(i))
	}
}

// The ID filter has no false negatives and about its target rate of
// false positives.
func TestIDFilter(t *testing.T) {
	f := newIDFilter(10000, 0.01)
	if f.m != 95852 || f.k != 7 || len(f.bits) != 1498 {
		t.Fatalf("newIDFilter(10000, 0.01): m=%d k=%d words=%d, want 95852 7 1498", f.m, f.k, len(f.bits))
	}
	r := rand.New(rand.NewPCG(3, 4))
	added := make([]uint64, 10000)
	for i := range added {
		added[i] = r.Uint64()
		f.add(added[i])
	}
	for _, h := range added {
		if !f.mayContain(h) {
			t.Fatalf("added %#x, mayContain says no", h)
		}
	}
	fp := 0
	for i := 0; i < 100000; i++ {
		if f.mayContain(r.Uint64()) {
			fp++
		}
	}
	if fp < 500 || fp > 1500 {
		t.Errorf("%d false positives in 100000 lookups at capacity, want about 1000", fp)
	}
}
