package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// progressInterval is how often the progress line is redrawn: at most
// five times a second.
const progressInterval = 200 * time.Millisecond

// progress draws a one-line status on a terminal: records, bytes read,
// MB/s and, when the size of the input is known, percent done and ETA.
type progress struct {
	w       io.Writer
	total   int64 // input bytes, or -1 when unknown
	start   time.Time
	records atomic.Int64
	bytes   atomic.Int64
	stop    chan struct{}
	done    sync.WaitGroup
}

// startProgress starts redrawing the line on w every progressInterval.
func startProgress(w io.Writer, total int64) *progress {
	p := &progress{w: w, total: total, start: time.Now(), stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				fmt.Fprint(p.w, "\r\x1b[K") // clear the line
				return
			case <-t.C:
				fmt.Fprint(p.w, "\r\x1b[K"+p.line(time.Now()))
			}
		}
	}()
	return p
}

// add counts a record of n input bytes. It may be called on a nil
// *progress.
func (p *progress) add(n int64) {
	if p != nil {
		p.records.Add(1)
		p.bytes.Add(n)
	}
}

// finish stops and clears the line. It may be called on a nil *progress.
func (p *progress) finish() {
	if p != nil {
		close(p.stop)
		p.done.Wait()
	}
}

// line formats the status at time now.
func (p *progress) line(now time.Time) string {
	return progressLine(p.records.Load(), p.bytes.Load(), p.total, now.Sub(p.start))
}

// progressLine formats "12,345 records  45.6 MB  3.2 MB/s  37%  ETA 0:42".
func progressLine(records, n, total int64, elapsed time.Duration) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s records  %s", formatCount(records), formatBytes(n))
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(n) / s
		fmt.Fprintf(&b, "  %.1f MB/s", rate/1e6)
	}
	if total > 0 {
		pct := min(100, float64(n)*100/float64(total))
		fmt.Fprintf(&b, "  %.0f%%", pct)
		if rate > 0 && n < total {
			eta := time.Duration(float64(total-n) / rate * float64(time.Second))
			fmt.Fprintf(&b, "  ETA %s", formatETA(eta))
		}
	}
	return b.String()
}

// formatETA formats a duration as m:ss or h:mm:ss.
func formatETA(d time.Duration) string {
	s := int64(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// inputSize returns the total size of the inputs when every one is a
// regular, uncompressed file, else -1 (standard input, directories and
// gzip data have no size known in advance).
func inputSize(paths []string) int64 {
	var total int64
	for _, p := range paths {
		if p == "-" {
			return -1
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		f, err := os.Open(p)
		if err != nil {
			return -1
		}
		var magic [2]byte
		n, _ := io.ReadFull(f, magic[:])
		f.Close()
		if n == 2 && magic == [2]byte{0x1f, 0x8b} {
			return -1
		}
		total += fi.Size()
	}
	return total
}
