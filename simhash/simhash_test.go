package simhash

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		f, g Fingerprint
		want int
	}{
		{0x0000000000000000, 0x0000000000000000, 0},
		{0x0123456789abcdef, 0x0123456789abcdef, 0},
		{0x0000000000000000, 0xffffffffffffffff, 64},
		{0x5555555555555555, 0xaaaaaaaaaaaaaaaa, 64},
		{0x0000000000000001, 0x0000000000000000, 1},
		{0x8000000000000000, 0x0000000000000000, 1},
		{0x8000000000000001, 0x0000000000000000, 2},
		{0x00000000000000ff, 0x000000000000000f, 4},
		{0xfeb6372a8750eb1d, 0xf776119227163845, 24}, // xor 0x09c026b8a046d358
	}
	for _, tt := range tests {
		if got := tt.f.Distance(tt.g); got != tt.want {
			t.Errorf("%#x.Distance(%#x) = %d, want %d", uint64(tt.f), uint64(tt.g), got, tt.want)
		}
		if got := tt.g.Distance(tt.f); got != tt.want {
			t.Errorf("%#x.Distance(%#x) = %d, want %d (not symmetric)", uint64(tt.g), uint64(tt.f), got, tt.want)
		}
	}
}

func TestSimilarity(t *testing.T) {
	tests := []struct {
		f, g Fingerprint
		want float64
	}{
		{0x0123456789abcdef, 0x0123456789abcdef, 1},
		{0x0000000000000000, 0xffffffffffffffff, 0},
		{0x0000000000000000, 0x00000000ffffffff, 0.5},
		{0x0000000000000000, 0x000000000000000f, 0.9375},
		{0x0000000000000000, 0x0000000000000007, 0.953125},
		{0x8000000000000000, 0x0000000000000000, 0.984375},
	}
	for _, tt := range tests {
		if got := tt.f.Similarity(tt.g); got != tt.want {
			t.Errorf("%#x.Similarity(%#x) = %v, want %v", uint64(tt.f), uint64(tt.g), got, tt.want)
		}
	}
}

func TestBlocks(t *testing.T) {
	tests := []struct {
		f    Fingerprint
		want [4]uint16
	}{
		{0x0000000000000000, [4]uint16{0, 0, 0, 0}},
		{0x0123456789abcdef, [4]uint16{0x0123, 0x4567, 0x89ab, 0xcdef}},
		{0xffff00000000ffff, [4]uint16{0xffff, 0, 0, 0xffff}},
		{0x0000000000000001, [4]uint16{0, 0, 0, 1}},
	}
	for _, tt := range tests {
		if got := tt.f.Blocks(); got != tt.want {
			t.Errorf("%#x.Blocks() = %#04x, want %#04x", uint64(tt.f), got, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		f    Fingerprint
		want string
	}{
		{0x0000000000000000, "0000000000000000"},
		{0x0000000000000001, "0000000000000001"},
		{0x00000000000000ab, "00000000000000ab"},
		{0x0123456789abcdef, "0123456789abcdef"},
		{0xfeb6372a8750eb1d, "feb6372a8750eb1d"},
		{0xffffffffffffffff, "ffffffffffffffff"},
	}
	for _, tt := range tests {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("Fingerprint(%#x).String() = %q, want %q", uint64(tt.f), got, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Fingerprint
	}{
		{"0", 0},
		{"1", 1},
		{"0000000000000001", 1},
		{"feb6372a8750eb1d", 0xfeb6372a8750eb1d},
		{"FEB6372A8750EB1D", 0xfeb6372a8750eb1d},
		{"FeB6372a8750Eb1D", 0xfeb6372a8750eb1d},
		{"0xfeb6372a8750eb1d", 0xfeb6372a8750eb1d},
		{"0Xfeb6372a8750eb1d", 0xfeb6372a8750eb1d},
		{"0x1", 1},
		{"ffffffffffffffff", 0xffffffffffffffff},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %#x, %v; want %#x, nil", tt.in, uint64(got), err, uint64(tt.want))
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"0x",
		"0X",
		"0x0x1",
		"1ffffffffffffffff", // 17 digits
		"0x1ffffffffffffffff",
		"00000000000000000", // 17 zeros
		"g",
		"feb6372a8750eb1z",
		"+1",
		"-1",
		" 1",
		"1 ",
		"1_0",
		"1g",
		"0o1",
		"０", // full-width zero
		"\x00",
	} {
		got, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) = %#x, nil; want an error", in, uint64(got))
			continue
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) error %v does not wrap ErrSyntax", in, err)
		}
		if got != 0 {
			t.Errorf("Parse(%q) = %#x with error, want 0", in, uint64(got))
		}
	}
}

func TestHashWord(t *testing.T) {
	// XXH64, seed 0: "", "a" and "abc" are published values; 清华大学 was
	// checked against an independent XXH64 implementation.
	tests := []struct {
		in   string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"a", 0xd24ec4f1a98c6e5b},
		{"abc", 0x44bc2cf5ad770999},
		{"清华大学", 0x2152c7acc4238084},
	}
	for _, tt := range tests {
		if got := HashWord(tt.in); got != tt.want {
			t.Errorf("HashWord(%q) = %#016x, want %#016x", tt.in, got, tt.want)
		}
	}
}

func TestSum(t *testing.T) {
	tests := []struct {
		name     string
		features []Feature
		want     Fingerprint
	}{
		{"none", nil, 0},
		{"one", []Feature{{0x0123456789abcdef, 1}}, 0x0123456789abcdef},
		{"one heavy", []Feature{{0xfeb6372a8750eb1d, 1e9}}, 0xfeb6372a8750eb1d},
		// A weight of zero or below never sets a bit: counters stay <= 0.
		{"zero weight", []Feature{{0xffffffffffffffff, 0}}, 0},
		{"negative weight", []Feature{{0x00000000ffffffff, -1}}, 0xffffffff00000000},
		// Equal weights, complementary hashes: every counter is exactly 0.
		{"tie", []Feature{{0x00000000ffffffff, 2}, {0xffffffff00000000, 2}}, 0},
		// Majority vote of three equal weights.
		{"majority", []Feature{
			{0xff00ff00ff00ff00, 1},
			{0xffff0000ffff0000, 1},
			{0xf0f0f0f0f0f0f0f0, 1},
		}, 0xfff0f000fff0f000},
		// The heavier feature wins where the two disagree.
		{"heavier wins", []Feature{{0x00000000000000ff, 1}, {0x000000000000000f, 1.5}}, 0x000000000000000f},
		// Five features, so the four-at-a-time loop and the tail both
		// run: 3 vs 2 of weight 1, except where the weight-2.5 fifth
		// feature disagrees with all four others.
		{"five", []Feature{
			{0x0000000000000000, 1},
			{0x0000000000000000, 1},
			{0xffffffffffffffff, 1},
			{0xffffffffffffffff, 1},
			{0x00000000ffffffff, 2.5},
		}, 0x00000000ffffffff},
		{"five light tail", []Feature{
			{0x0000000000000000, 1},
			{0x0000000000000000, 1},
			{0x0000000000000000, 1},
			{0xffffffffffffffff, 1},
			{0x00000000ffffffff, 1.5},
		}, 0},
	}
	for _, tt := range tests {
		if got := Sum(tt.features); got != tt.want {
			t.Errorf("%s: Sum = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// sumReference is the straightforward per-bit branch of yanyiwu/simhash.
func sumReference(features []Feature) Fingerprint {
	var v [64]float64
	for _, f := range features {
		for i := range v {
			if f.Hash&(1<<uint(i)) != 0 {
				v[i] += f.Weight
			} else {
				v[i] -= f.Weight
			}
		}
	}
	var fp Fingerprint
	for i := range v {
		if v[i] > 0 {
			fp |= 1 << uint(i)
		}
	}
	return fp
}

func TestSumMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		for range 50 {
			fs := make([]Feature, n)
			for i := range fs {
				fs[i].Hash = r.Uint64()
				switch r.IntN(3) {
				case 0: // few distinct weights: many exact ties
					fs[i].Weight = float64(1 + r.IntN(3))
				case 1:
					fs[i].Weight = r.Float64() * 20
				default:
					fs[i].Weight = r.NormFloat64()
				}
			}
			if got, want := Sum(fs), sumReference(fs); got != want {
				t.Fatalf("Sum(%v) = %s, reference %s", fs, got, want)
			}
			checkCounters(t, fs)
		}
	}
}

// checkCounters checks that the counters of sumGeneric and (where the
// processor has AVX2 and FMA) sumAVX2 are those of the reference, bit
// for bit: the same additions in the same order.
func checkCounters(t *testing.T, fs []Feature) {
	t.Helper()
	var want [64]float64
	for _, f := range fs {
		for i := range want {
			if f.Hash&(1<<uint(i)) != 0 {
				want[i] += f.Weight
			} else {
				want[i] -= f.Weight
			}
		}
	}
	var gen, avx [64]float64
	sumGeneric(fs, &gen)
	for i := range want {
		if math.Float64bits(gen[i]) != math.Float64bits(want[i]) {
			t.Fatalf("sumGeneric(%v): counter %d = %v, reference %v", fs, i, gen[i], want[i])
		}
	}
	if !hasAVX2 {
		return
	}
	sumAVX2(fs, &avx)
	for i := range want {
		if math.Float64bits(avx[i]) != math.Float64bits(want[i]) {
			t.Fatalf("sumAVX2(%v): counter %d = %v, reference %v", fs, i, avx[i], want[i])
		}
	}
}

// Counters agree with the reference's bit for bit on weights whose sums
// round at every step (a wide range of magnitudes and signs), zeros of
// both signs, and runs of features longer than the 40 above.
func TestSumCounters(t *testing.T) {
	if !hasAVX2 {
		t.Log("no AVX2 and FMA here: only sumGeneric is checked")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 63, 64, 65, 255, 256, 1000} {
		for range 20 {
			fs := make([]Feature, n)
			for i := range fs {
				fs[i].Hash = r.Uint64()
				switch r.IntN(4) {
				case 0:
					fs[i].Weight = math.Ldexp(r.Float64(), r.IntN(80)-40)
				case 1:
					fs[i].Weight = -math.Ldexp(r.Float64(), r.IntN(80)-40)
				case 2:
					fs[i].Weight = math.Copysign(0, float64(r.IntN(2))-0.5)
				default:
					fs[i].Weight = r.Float64() * 20
				}
			}
			checkCounters(t, fs)
			if got, want := Sum(fs), sumReference(fs); got != want {
				t.Fatalf("Sum of %d features = %s, reference %s", n, got, want)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "feb6372a8750eb1d", "0xFEB6372A8750EB1D", "", "+1", " 1", "1ffffffffffffffff", "0x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fp, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrSyntax", s, err)
			}
			return
		}
		str := fp.String()
		if len(str) != 16 {
			t.Fatalf("String() = %q, want 16 digits", str)
		}
		back, err := Parse(str)
		if err != nil || back != fp {
			t.Fatalf("Parse(%q) = %#x, %v; Parse(%q) gave %#x", str, uint64(back), err, s, uint64(fp))
		}
	})
}

func FuzzDistance(f *testing.F) {
	f.Add(uint64(0), uint64(0), uint64(0))
	f.Add(uint64(0), ^uint64(0), uint64(0x5555555555555555))
	f.Add(uint64(0xfeb6372a8750eb1d), uint64(0xf776119227163845), uint64(1))
	f.Fuzz(func(t *testing.T, a, b, c uint64) {
		x, y, z := Fingerprint(a), Fingerprint(b), Fingerprint(c)
		if d := x.Distance(x); d != 0 {
			t.Fatalf("Distance(x, x) = %d", d)
		}
		dxy, dyx := x.Distance(y), y.Distance(x)
		if dxy != dyx {
			t.Fatalf("Distance not symmetric: %d != %d", dxy, dyx)
		}
		if dxy < 0 || dxy > 64 {
			t.Fatalf("Distance = %d, out of [0, 64]", dxy)
		}
		if dxz, dzy := x.Distance(z), z.Distance(y); dxy > dxz+dzy {
			t.Fatalf("triangle inequality: d(x,y)=%d > d(x,z)+d(z,y)=%d+%d", dxy, dxz, dzy)
		}
		if (dxy == 0) != (x == y) {
			t.Fatalf("Distance = %d for x=%s y=%s", dxy, x, y)
		}
		if s := x.Similarity(y); s != 1-float64(dxy)/64 {
			t.Fatalf("Similarity = %v for distance %d", s, dxy)
		}
	})
}

var sink Fingerprint

func BenchmarkSum(b *testing.B) {
	for _, n := range []int{8, 16, 32, 64, 256} {
		r := rand.New(rand.NewPCG(uint64(n), 0))
		fs := make([]Feature, n)
		for i := range fs {
			fs[i] = Feature{r.Uint64(), r.Float64() * 10}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				sink = Sum(fs)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "features/s")
		})
		b.Run(fmt.Sprint(n)+"/generic", func(b *testing.B) {
			var v [64]float64
			for b.Loop() {
				sumGeneric(fs, &v)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "features/s")
		})
	}
}

var sink64 uint64

func BenchmarkHashWord(b *testing.B) {
	for _, w := range []string{"北京", "清华大学", "near-duplicate"} {
		b.Run(fmt.Sprintf("%dB", len(w)), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				sink64 = HashWord(w)
			}
		})
	}
}
