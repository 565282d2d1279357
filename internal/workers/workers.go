// Package workers owns one way of spreading independent jobs over the
// cores: n jobs taken in turn by up to GOMAXPROCS goroutines, each
// labelled for CPU profiles. The engine (index.Ingest) confirms
// candidates with it, and the stores change their posting lists, which
// are independent of each other, with it.
package workers

import (
	"context"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
)

// Each calls job(i) for each i from 0 to n−1, on up to GOMAXPROCS
// goroutines that carry the pprof labels of ctx, and returns when every
// call has returned. With one goroutine or one job it calls them in
// order in the caller's goroutine. The jobs must be safe to run
// concurrently.
func Each(ctx context.Context, n int, job func(i int)) {
	w := min(runtime.GOMAXPROCS(0), n)
	if w <= 1 {
		for i := range n {
			job(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			pprof.SetGoroutineLabels(ctx)
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				job(i)
			}
		})
	}
	wg.Wait()
}
