// Package pipeline reads records and analyses them on several
// goroutines, handing each back in input order: the loop that dedup,
// eval, add and fingerprint all run. Memory is bounded by a window of
// records in flight, not by the input.
package pipeline

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/input"
)

// Item is one record and its analysis.
type Item struct {
	Seq    int64 // 0-based position among the records read, good and bad
	Record input.Record
	// Err is why the record has no Analysis: a bad record
	// (*input.RecordError), an input that could not be read to its end
	// (*input.Error; Record is then empty), the error of Options.Check,
	// or the error of Analyze (neardup.ErrTooShort among them).
	Err      error
	Analysis *neardup.Analysis
}

// Options configure Run. The zero value (or nil) means the defaults.
type Options struct {
	// Workers analyse records in parallel; 0 means GOMAXPROCS. The
	// items reach f in input order whatever it is.
	Workers int
	// Check, if not nil, vets a record before it is analysed; a record
	// it returns an error for is not analysed, and Item.Err is that
	// error.
	Check func(*input.Record) error
}

// window is how many records per worker may be in flight.
const window = 64

// Run reads every record of r, analyses the good ones with a, and calls
// f with each item in input order. Bad records and unreadable inputs
// reach f as items with Err set (the Reader goes on after them); any
// other read error, an error from f, or the end of ctx stops Run, which
// returns that error.
func Run(ctx context.Context, r *input.Reader, a *neardup.Analyzer, opts *Options, f func(*Item) error) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := o.Workers * window
	jobs := make(chan *Item, n)
	done := make(chan *Item, n)
	slots := make(chan struct{}, n)

	// Reader: one goroutine, in order.
	var readErr error
	go func() {
		defer close(jobs)
		for seq := int64(0); ; seq++ {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil && !IsRecordErr(err) {
				readErr = err
				return
			}
			it := &Item{Seq: seq, Record: rec, Err: err}
			if err == nil && o.Check != nil {
				it.Err = o.Check(&it.Record)
			}
			select {
			case jobs <- it:
			case <-ctx.Done():
				return
			}
		}
	}()

	// Analysers.
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range jobs {
				if it.Err == nil {
					it.Analysis, it.Err = a.Analyze(it.Record.Text)
				}
				done <- it
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()

	// In input order.
	pending := make(map[int64]*Item, n)
	next := int64(0)
	var err error
	for it := range done {
		if err != nil {
			<-slots
			continue // drain after a failure
		}
		pending[it.Seq] = it
		for {
			it, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-slots
			if err = f(it); err != nil {
				cancel()
				break
			}
		}
	}
	if err == nil {
		err = readErr
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// IsRecordErr reports whether err is about one record or one input,
// after which a Reader goes on: *input.RecordError or *input.Error.
func IsRecordErr(err error) bool {
	var re *input.RecordError
	var ie *input.Error
	return errors.As(err, &re) || errors.As(err, &ie)
}
