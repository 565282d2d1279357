// Package progress owns how the commands show long work: a one-line
// status redrawn on a terminal (records, bytes, MB/s and, when the size
// of the input is known in advance, percent done and ETA), and the
// formatting of the counts and sizes people read (Count, Bytes, Plural),
// there and in the text reports of dedup, index and its stores. It
// imports nothing of neardup, so that any package may use it.
package progress

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Interval is how often the line is redrawn: at most five times a
// second.
const Interval = 200 * time.Millisecond

// Bar draws the status line. A nil *Bar draws nothing, so that a command
// calls Add and Finish whether or not it shows one.
type Bar struct {
	w       io.Writer
	total   int64 // input bytes, or -1 when unknown
	start   time.Time
	records atomic.Int64
	bytes   atomic.Int64
	// input, when set (Follow), gives the input bytes read, for percent
	// and ETA; else the bytes added count.
	input atomic.Pointer[func() int64]
	stop  chan struct{}
	done  sync.WaitGroup
}

// Start starts redrawing the line on w every Interval, for an input of
// total bytes (-1: unknown).
func Start(w io.Writer, total int64) *Bar {
	p := &Bar{w: w, total: total, start: time.Now(), stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(Interval)
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

// ForSize returns a Bar on w for an input of total bytes when w is a
// terminal, and nil otherwise.
func ForSize(w io.Writer, total int64) *Bar {
	if !IsTerminal(w) {
		return nil
	}
	return Start(w, total)
}

// Add counts a record of n input bytes.
func (p *Bar) Add(n int64) {
	if p != nil {
		p.records.Add(1)
		p.bytes.Add(n)
	}
}

// Follow makes the percent and ETA follow done, the bytes of the input
// read so far (as counted toward total): compressed files, Parquet and
// WARC records skipped make the bytes added (text) another measure.
// done is called from the Bar's goroutine.
func (p *Bar) Follow(done func() int64) {
	if p != nil {
		p.input.Store(&done)
	}
}

// Finish stops and clears the line.
func (p *Bar) Finish() {
	if p != nil {
		close(p.stop)
		p.done.Wait()
	}
}

// line formats the status at time now.
func (p *Bar) line(now time.Time) string {
	n := p.bytes.Load()
	done := n
	if f := p.input.Load(); f != nil {
		done = (*f)()
	}
	return LineDone(p.records.Load(), n, done, p.total, now.Sub(p.start))
}

// Line formats "12,345 records  45.6 MB  3.2 MB/s  37%  ETA 0:42": the
// percent and ETA of n bytes of total.
func Line(records, n, total int64, elapsed time.Duration) string {
	return LineDone(records, n, n, total, elapsed)
}

// LineDone is Line with the percent and ETA of done bytes of total,
// another measure than the n bytes (of text) the rate counts.
func LineDone(records, n, done, total int64, elapsed time.Duration) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s records  %s", Count(records), Bytes(n))
	s := elapsed.Seconds()
	if s > 0 {
		fmt.Fprintf(&b, "  %.1f MB/s", float64(n)/s/1e6)
	}
	if total > 0 {
		pct := min(100, float64(done)*100/float64(total))
		fmt.Fprintf(&b, "  %.0f%%", pct)
		if rate := float64(done) / s; s > 0 && rate > 0 && done < total {
			eta := time.Duration(float64(total-done) / rate * float64(time.Second))
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

// IsTerminal reports whether w is a terminal (a character device).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Count formats n with thousands separators: 1,234,567.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Plural returns "1 article" or "2,000 articles": n (formatted by
// Count) and the word for its number.
func Plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(n) + " " + many
}

// Bytes formats a size as "12.3 MB" (decimal units).
func Bytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}
