package progress

import (
	"math"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		records, n, total int64
		elapsed           time.Duration
		want              string
	}{
		{0, 0, -1, 0, "0 records  0 B"},
		{1234, 5_600_000, -1, 2 * time.Second, "1,234 records  5.6 MB  2.8 MB/s"},
		{1234, 5_000_000, 20_000_000, 2 * time.Second, "1,234 records  5.0 MB  2.5 MB/s  25%  ETA 0:06"},
		{99, 20_000_000, 20_000_000, time.Second, "99 records  20.0 MB  20.0 MB/s  100%"},
		{1, 1_000_000, 10_000_000_000, time.Second, "1 records  1.0 MB  1.0 MB/s  0%  ETA 2:46:39"},
	}
	// The percent and ETA of the input read (compressed), the rate of
	// the text.
	if got, want := LineDone(10, 8_000_000, 1_000_000, 4_000_000, 2*time.Second), "10 records  8.0 MB  4.0 MB/s  25%  ETA 0:06"; got != want {
		t.Errorf("LineDone = %q, want %q", got, want)
	}
	if got, want := LineDone(10, 8_000_000, 0, 4_000_000, 0), "10 records  8.0 MB  0%"; got != want {
		t.Errorf("LineDone at 0s = %q, want %q", got, want)
	}
	for _, tt := range tests {
		if got := Line(tt.records, tt.n, tt.total, tt.elapsed); got != tt.want {
			t.Errorf("Line(%d, %d, %d, %v) = %q, want %q", tt.records, tt.n, tt.total, tt.elapsed, got, tt.want)
		}
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	counts := map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234", -999: "-999",
		math.MaxInt64: "9,223,372,036,854,775,807", math.MinInt64: "-9,223,372,036,854,775,808"}
	for n, want := range counts {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	sizes := map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1_500_000: "1.5 MB", 2_340_000_000: "2.34 GB"}
	for n, want := range sizes {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	plurals := map[int64]string{0: "0 articles", 1: "1 article", 2000: "2,000 articles"}
	for n, want := range plurals {
		if got := Plural(n, "article", "articles"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
