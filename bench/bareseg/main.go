// Command bareseg is the baseline bench/run.sh sets `neardup dedup`
// against: it does only what any deduplication of a corpus must do
// besides the work of finding duplicates, namely start up with the
// segmenter loaded, read and decode the input (with the same reader as
// dedup), and normalise and cut every text, in parallel. It prints the
// number of records, bytes of text and tokens.
//
// With -gojieba it cuts with gojieba's own Cut instead (HMM on, the whole
// normalised text through cppjieba, English too), as a tool built on
// gojieba alone would: a second baseline, for English above all, which
// neardup's segmenter splits on letters and digits without cppjieba.
//
//	go run ./bench/bareseg -workers 2 ../shared/corpora/zh_news.jsonl.gz
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/segment"
)

func main() {
	// A flag set of our own, so that no flag a dependency registers on
	// flag.CommandLine shows up in -help.
	flag.CommandLine = flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "goroutines that cut")
	backend := flag.String("segmenter", "", "segmenter backend (default: "+segment.DefaultBackend+")")
	raw := flag.Bool("gojieba", false, "cut with gojieba's own Cut, HMM on, instead of neardup's segmenter")
	flag.Parse()
	if err := run(*workers, *backend, *raw, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "bareseg:", err)
		os.Exit(2)
	}
}

func run(workers int, backend string, raw bool, paths []string) error {
	// Not closed, as neardup does not close its analyzer before exiting:
	// freeing cppjieba's dictionary only delays the exit.
	var cut func(string) []string
	if raw {
		c, err := newGojiebaCut()
		if err != nil {
			return err
		}
		cut = c
	} else {
		seg, err := segment.New(backend, &segment.Options{CutOnly: true})
		if err != nil {
			return err
		}
		cut = seg.Cut
	}
	r := input.NewReader(paths, os.Stdin, nil)
	texts := make(chan string, 64*workers)
	var records, bytes, tokens atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range texts {
				tokens.Add(int64(len(cut(segment.Normalize(t)))))
			}
		}()
	}
	var readErr error
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		var re *input.RecordError
		if errors.As(err, &re) {
			continue
		}
		if err != nil {
			readErr = err
			break
		}
		records.Add(1)
		bytes.Add(int64(len(rec.Text)))
		texts <- rec.Text
	}
	close(texts)
	wg.Wait()
	fmt.Printf("%d records, %d bytes of text, %d tokens\n", records.Load(), bytes.Load(), tokens.Load())
	return readErr
}
