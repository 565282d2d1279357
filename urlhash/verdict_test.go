package urlhash

import "testing"

func TestMaxDistance(t *testing.T) {
	tests := []struct {
		pct  float64
		want int
	}{
		{100, 0}, {99, 0}, {98.4375, 1}, {95, 3}, {93.75, 4}, {90, 6}, {87.5, 8}, {85, 9},
		{84.38, 9}, {84.375, 10}, {80, 12}, {75, 16}, {50, 32},
	}
	for _, tt := range tests {
		if got := MaxDistance(tt.pct); got != tt.want {
			t.Errorf("MaxDistance(%v) = %d, want %d", tt.pct, got, tt.want)
		}
		// The distance is the largest whose similarity reaches pct.
		d := MaxDistance(tt.pct)
		if 100*(1-float64(d)/64) < tt.pct-1e-9 || (d < 64 && 100*(1-float64(d+1)/64) >= tt.pct+1e-9) {
			t.Errorf("MaxDistance(%v) = %d: not the largest distance at that similarity", tt.pct, d)
		}
	}
}

func TestVerdict(t *testing.T) {
	tests := []struct {
		distance            int
		differ              []string
		verdict, bound, why string
	}{
		{0, nil, "same URL", "", "the normalised URLs are equal"},
		{0, []string{"fragment"}, "very close", "≥ 95%", "a cosmetic variant of one page, or a close sibling"},
		{3, []string{"path"}, "very close", "≥ 95%", "a cosmetic variant of one page, or a close sibling"},
		{4, []string{"path"}, "close", "≥ 90%", "like most URLs one path segment or query parameter apart"},
		{6, []string{"query"}, "close", "≥ 90%", "like most URLs one path segment or query parameter apart"},
		{12, []string{"host"}, "same pattern", "≥ 80%", "mostly the same site"},
		{13, []string{"host"}, "different", "< 80%", ""},
	}
	for _, tt := range tests {
		c := Comparison{Distance: tt.distance, Differ: tt.differ}
		if v, b, w := c.Verdict(); v != tt.verdict || b != tt.bound || w != tt.why {
			t.Errorf("distance %d, differ %v: %q, %q, %q; want %q, %q, %q", tt.distance, tt.differ, v, b, w, tt.verdict, tt.bound, tt.why)
		}
	}
}
