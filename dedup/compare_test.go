package dedup

import (
	"math"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
)

// sketchSharing returns a sketch whose first n of 64 values equal
// base's and whose others differ: their estimated Jaccard is n/64.
func sketchSharing(base minhash.Sketch, n int) minhash.Sketch {
	s := base
	for i := n; i < len(s); i++ {
		s[i] = base[i] + 1000
	}
	return s
}

func TestCompare(t *testing.T) {
	var base minhash.Sketch
	for i := range base {
		base[i] = uint16(i + 1)
	}
	a := &neardup.Analysis{Fingerprint: 0x0123456789abcdef, ContentHash: 1, Sketch: base, Shingles: 1000}
	tests := []struct {
		name    string
		b       neardup.Analysis
		verdict string
		why     string
		content float64
	}{
		{"identical text", neardup.Analysis{Fingerprint: a.Fingerprint, ContentHash: 1, Sketch: base}, VerdictExact,
			"the normalised texts are identical", 1},
		{"near, close fingerprints", neardup.Analysis{Fingerprint: a.Fingerprint ^ 0b11, ContentHash: 2, Sketch: sketchSharing(base, 56)}, VerdictNear,
			"content similarity 0.88 ≥ 0.70; fingerprints 2 ≤ 3 bits apart", 0.875},
		{"near, far fingerprints", neardup.Analysis{Fingerprint: a.Fingerprint ^ 0xff, ContentHash: 2, Sketch: sketchSharing(base, 48)}, VerdictNear,
			"content similarity 0.75 ≥ 0.70; fingerprints 8 > 3 bits apart, so an index finds it by its content bands", 0.75},
		{"close fingerprints, other text", neardup.Analysis{Fingerprint: a.Fingerprint ^ 1, ContentHash: 2, Sketch: sketchSharing(base, 16)}, VerdictDifferent,
			"fingerprints 1 ≤ 3 bits apart, but content similarity 0.25 < 0.70", 0.25},
		{"truncated to 70%", neardup.Analysis{Fingerprint: a.Fingerprint ^ 1, ContentHash: 2, Sketch: sketchSharing(base, 42), Shingles: 700}, VerdictNear,
			"content similarity 0.66 < 0.70, but the shorter text is 0.96 contained in the other (≥ 0.90, sizes within 0.68)", 0.65625},
		{"truncated to 70%, far fingerprints", neardup.Analysis{Fingerprint: a.Fingerprint ^ 0xf, ContentHash: 2, Sketch: sketchSharing(base, 42), Shingles: 700}, VerdictNear,
			"content similarity 0.66 < 0.70, but the shorter text is 0.96 contained in the other (≥ 0.90, sizes within 0.68); fingerprints 4 > 3 bits apart, so an index finds it by its content bands", 0.65625},
		{"same size, not contained", neardup.Analysis{Fingerprint: a.Fingerprint ^ 1, ContentHash: 2, Sketch: sketchSharing(base, 42), Shingles: 1000}, VerdictDifferent,
			"fingerprints 1 ≤ 3 bits apart, but content similarity 0.66 < 0.70", 0.65625},
		{"different", neardup.Analysis{Fingerprint: ^a.Fingerprint, ContentHash: 2, Sketch: sketchSharing(base, 0)}, VerdictDifferent,
			"content similarity 0.00 < 0.70; fingerprints 64 > 3 bits apart", 0},
	}
	for _, tt := range tests {
		c := Compare(a, &tt.b, 3, 0.7)
		if c.Verdict != tt.verdict || c.Why != tt.why || c.Content != tt.content {
			t.Errorf("%s: Compare = %q, %q, content %v; want %q, %q, %v", tt.name, c.Verdict, c.Why, c.Content, tt.verdict, tt.why, tt.content)
		}
	}
}

// longSharing returns base with all but its first n values changed:
// its Jaccard estimate with base is (n-1)/255.
func longSharing(base minhash.Long, n int) minhash.Long {
	l := base
	for i := n; i < len(l); i++ {
		l[i] ^= 0x5a
	}
	return l
}

// With confirmation sketches on both sides Compare uses them (content
// and the containment rule without a size ratio); with one missing, the
// 64-value sketches and their rule.
func TestCompareLong(t *testing.T) {
	var base minhash.Sketch
	var long minhash.Long
	for i := range base {
		base[i] = uint16(i + 1)
	}
	for i := range long {
		long[i] = uint8(i)
	}
	a := &neardup.Analysis{Fingerprint: 0x0123456789abcdef, ContentHash: 1, Sketch: base, Long: long, Shingles: 1000}
	near := a.Fingerprint ^ 1
	tests := []struct {
		name    string
		b       neardup.Analysis
		verdict string
		why     string
		content float64
	}{
		{"resemblance by the long sketch", neardup.Analysis{Fingerprint: near, ContentHash: 2, Sketch: sketchSharing(base, 30), Long: longSharing(long, 205), Shingles: 1000},
			VerdictNear, "content similarity 0.80 ≥ 0.70; fingerprints 1 ≤ 3 bits apart", 0.8},
		{"header added: contained, sizes apart", neardup.Analysis{Fingerprint: near, ContentHash: 2, Sketch: sketchSharing(base, 38), Long: longSharing(long, 154), Shingles: 600},
			VerdictNear, "content similarity 0.60 < 0.70, but the shorter text is 1.00 contained in the other (≥ 0.85, content ≥ 0.57)", 0.6},
		{"contained but under the floor", neardup.Analysis{Fingerprint: near, ContentHash: 2, Sketch: sketchSharing(base, 38), Long: longSharing(long, 141), Shingles: 500},
			VerdictDifferent, "fingerprints 1 ≤ 3 bits apart, but content similarity 0.55 < 0.70", 140.0 / 255},
		{"same size, not contained", neardup.Analysis{Fingerprint: near, ContentHash: 2, Sketch: sketchSharing(base, 38), Long: longSharing(long, 154), Shingles: 1000},
			VerdictDifferent, "fingerprints 1 ≤ 3 bits apart, but content similarity 0.60 < 0.70", 0.6},
		{"b without a long sketch", neardup.Analysis{Fingerprint: near, ContentHash: 2, Sketch: sketchSharing(base, 42), Shingles: 700},
			VerdictNear, "content similarity 0.66 < 0.70, but the shorter text is 0.96 contained in the other (≥ 0.90, sizes within 0.68)", 0.65625},
	}
	for _, tt := range tests {
		c := Compare(a, &tt.b, 3, 0.7)
		if c.Verdict != tt.verdict || c.Why != tt.why || math.Abs(c.Content-tt.content) > 1e-12 {
			t.Errorf("%s: Compare = %q, %q, content %v; want %q, %q, %v", tt.name, c.Verdict, c.Why, c.Content, tt.verdict, tt.why, tt.content)
		}
	}
}
