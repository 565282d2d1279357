package workers

import (
	"context"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
)

func TestEach(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, n := range []int{0, 1, 2, 3, 100} {
		calls := make([]atomic.Int32, n)
		Each(context.Background(), n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if got := calls[i].Load(); got != 1 {
				t.Errorf("n=%d: job %d called %d times, want 1", n, i, got)
			}
		}
	}
}

// The jobs' goroutines carry the labels of Each's context: a goroutine
// profile taken inside a job shows them.
func TestEachLabels(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("part", "lists"))
	var b strings.Builder
	Each(ctx, 4, func(i int) {
		if i == 0 {
			pprof.Lookup("goroutine").WriteTo(&b, 1)
		}
	})
	if !strings.Contains(b.String(), `labels: {"part":"lists"}`) {
		t.Errorf("no goroutine labelled part=lists in the profile:\n%s", b.String())
	}
}

// TestEachSerial: with GOMAXPROCS 1 the jobs run in order in the
// caller's goroutine.
func TestEachSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var order []int
	Each(context.Background(), 5, func(i int) { order = append(order, i) })
	if len(order) != 5 || order[0] != 0 || order[4] != 4 {
		t.Errorf("order %v, want 0 to 4", order)
	}
}
