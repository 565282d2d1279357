package index_test

import (
	"math"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/progress"
)

// The statistics' text formats numbers as internal/progress does (the
// command's output), which index cannot import (progress reads input,
// which imports index): the same strings for every power of ten, its
// neighbours and negatives, and the ends of int64.
func TestFormat(t *testing.T) {
	ns := []int64{0, math.MaxInt64, math.MinInt64}
	for p := int64(1); p <= 1e18; p *= 10 {
		ns = append(ns, p-1, p, p+1, 15*p/10, -p, -p-1)
	}
	for _, n := range ns {
		if got, want := index.FormatCount(n), progress.Count(n); got != want {
			t.Errorf("count(%d) = %q; progress.Count says %q", n, got, want)
		}
		if got, want := index.FormatSize(n), progress.Bytes(n); got != want {
			t.Errorf("size(%d) = %q; progress.Bytes says %q", n, got, want)
		}
		if got, want := index.FormatPlural(n, "table", "tables"), progress.Plural(n, "table", "tables"); got != want {
			t.Errorf("plural(%d) = %q; progress.Plural says %q", n, got, want)
		}
	}
}
