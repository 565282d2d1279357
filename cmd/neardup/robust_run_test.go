//go:build unix

package main

// Helpers of robust_test.go: running the binary with a given directory,
// input, environment, file size limit or user, and generating inputs.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup/report"
)

// robustCmd is how to run the binary.
type robustCmd struct {
	dir   string    // working directory
	stdin io.Reader // nil: empty (a pipe with nothing in it)
	env   []string  // extra "NAME=value"
	fsize int       // if > 0, run under "ulimit -f fsize" (512-byte blocks in POSIX sh)
	cred  *syscall.Credential
	bin   string // the binary; "" is the one TestMain built
}

// command returns the exec.Cmd for args.
func (c robustCmd) command(args ...string) *exec.Cmd {
	bin := c.bin
	if bin == "" {
		bin = binary
	}
	var cmd *exec.Cmd
	if c.fsize > 0 {
		// Go ignores SIGXFSZ, so writes past the limit fail with EFBIG.
		cmd = exec.Command("sh", append([]string{"-c", fmt.Sprintf(`ulimit -f %d && exec "$0" "$@"`, c.fsize), bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "NEARDUP_INDEX=")
	cmd.Env = append(cmd.Env, c.env...)
	cmd.Stdin = c.stdin
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd
}

// run runs the binary to its end.
func (c robustCmd) run(t *testing.T, args ...string) result {
	t.Helper()
	r, _ := c.runRusage(t, args...)
	return r
}

// runRusage runs the binary and returns its peak resident set size in
// bytes too.
func (c robustCmd) runRusage(t *testing.T, args ...string) (result, int64) {
	t.Helper()
	cmd := c.command(args...)
	if cmd.Stdin == nil {
		// An empty reader, not nil: nil would hand the child os.DevNull,
		// which on some machines is a regular file with text in it.
		cmd.Stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("neardup %s: %v", strings.Join(args, " "), err)
	}
	peak := robustWatchRSS(cmd.Process.Pid)
	err := cmd.Wait()
	return robustResult(t, cmd, err, &out, &errb), peak()
}

// robustWatchRSS samples the peak resident set size (VmHWM) of a running
// process every few milliseconds; the function it returns stops sampling
// and returns the largest value seen, in bytes, or -1 if none was read.
//
// The Maxrss that wait4 reports would be simpler but is wrong here: Go
// starts children with clone(CLONE_VM|CLONE_VFORK), so when the child
// execs, the kernel folds the high-water mark of the parent's address
// space (this test binary, about 1 GiB under -race) into the child's
// Maxrss. VmHWM belongs to the child's own address space after exec.
// Being sampled, it can miss growth in the last few milliseconds of a
// run.
func robustWatchRSS(pid int) (stop func() int64) {
	quit := make(chan struct{})
	result := make(chan int64, 1)
	go func() {
		peak := int64(-1)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, robustHWM(pid))
			select {
			case <-quit:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(quit)
		return <-result
	}
}

// robustHWM reads the peak resident set size (VmHWM) of a running
// process so far, in bytes, or -1 if it cannot.
func robustHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb * 1024
			}
		}
	}
	return -1
}

// robustResult makes a result of a finished command.
func robustResult(t *testing.T, cmd *exec.Cmd, err error, out, errb *bytes.Buffer) result {
	t.Helper()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("neardup %s: killed by %v\nstderr: %s", strings.Join(cmd.Args[1:], " "), ws.Signal(), errb)
		}
	} else if err != nil {
		t.Fatalf("neardup %s: %v", strings.Join(cmd.Args[1:], " "), err)
	}
	return result{out.String(), errb.String(), code}
}

// robustMiB formats bytes in MiB.
func robustMiB(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// robustSummary parses the summary dedup --json prints as the last line
// of stdout.
func robustSummary(t *testing.T, r result) report.Summary {
	t.Helper()
	robustLines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var s report.Summary
	if err := json.Unmarshal([]byte(robustLines[len(robustLines)-1]), &s); err != nil {
		t.Fatalf("dedup --json summary: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return s
}

// robustCounts is the part of a dedup summary that does not depend on time
// or the machine.
type robustCounts struct{ Records, Unique, Exact, Near, TooShort, Rejected, InputErrors, Resumed int64 }

func robustCountsOf(s report.Summary) robustCounts {
	return robustCounts{s.Records, s.Unique, s.Exact, s.Near, s.TooShort, s.Rejected, s.InputErrors, s.Resumed}
}

// robustJSONLines decodes a file or output of JSON lines into values of T.
func robustJSONLines[T any](t *testing.T, data string) []T {
	t.Helper()
	var out []T
	for _, l := range strings.Split(strings.TrimSpace(data), "\n") {
		if l == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		out = append(out, v)
	}
	return out
}

// robustPool returns the lines of at least 30 bytes of the sample
// corpus' articles, to build articles from.
func robustPool(t testing.TB) []string {
	t.Helper()
	f, err := os.Open(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var pool []string
	for sc.Scan() {
		var a struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(a.Text, "\n") {
			if len(line) >= 30 {
				pool = append(pool, line)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pool
}

// robustArticles writes n articles of random sample lines to path as
// JSONL, ids "art/00000" on; every eighth repeats an earlier one with a
// line added (a near duplicate) and every thirteenth is an exact copy.
func robustArticles(t testing.TB, path string, n int, seed uint64) []string {
	t.Helper()
	pool := robustPool(t)
	rng := rand.New(rand.NewPCG(seed, 77))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	texts := make([]string, n)
	ids := make([]string, n)
	for i := range n {
		switch {
		case i%13 == 12:
			texts[i] = texts[i-7]
		case i%8 == 7:
			texts[i] = texts[i-3] + "\n" + pool[rng.IntN(len(pool))]
		default:
			robustLines := make([]string, 8+rng.IntN(10))
			for j := range robustLines {
				robustLines[j] = pool[rng.IntN(len(pool))]
			}
			texts[i] = strings.Join(robustLines, "\n")
		}
		ids[i] = fmt.Sprintf("art/%05d", i)
		b, _ := json.Marshal(map[string]string{"id": ids[i], "title": fmt.Sprintf("Article %d", i), "text": texts[i]})
		w.Write(append(b, '\n'))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// robustStream generates a large JSONL stream on the fly: originals built
// of random sample lines, exact copies and near copies (an original with
// a line added) of them, and malformed lines, and counts what dedup must
// find.
type robustStream struct {
	next      int64 // the number of the next record
	rng       *rand.Rand
	pool      []string
	originals []string // JSON-escaped texts, without quotes
	maxOrig   int
	want      robustCounts
}

func newRobustStream(t testing.TB, seed uint64, maxOriginals int) *robustStream {
	return &robustStream{rng: rand.New(rand.NewPCG(seed, 500)), pool: robustPool(t), maxOrig: maxOriginals}
}

// robustJSONEscape returns s as the inside of a JSON string.
func robustJSONEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// writeTo writes records to w until at least size bytes are written;
// a later call goes on with the next records.
func (s *robustStream) writeTo(w io.Writer, size int64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	for ; n < size; s.next++ {
		i := s.next
		var line string
		switch {
		case i%997 == 996:
			line = fmt.Sprintf(`{"id":"bad-%d","text":"unterminated`, i)
			s.want.Rejected++
		case len(s.originals) == 0 || (len(s.originals) < s.maxOrig && i%20 == 0):
			robustLines := make([]string, 8+s.rng.IntN(10))
			for j := range robustLines {
				robustLines[j] = s.pool[s.rng.IntN(len(s.pool))]
			}
			text := robustJSONEscape(strings.Join(robustLines, "\n"))
			s.originals = append(s.originals, text)
			line = fmt.Sprintf(`{"id":"s%d","text":"%s"}`, i, text)
			s.want.Unique++
		case s.rng.IntN(2) == 0:
			line = fmt.Sprintf(`{"id":"s%d","text":"%s"}`, i, s.originals[s.rng.IntN(len(s.originals))])
			s.want.Exact++
		default:
			orig := s.originals[s.rng.IntN(len(s.originals))]
			// A short line, with the record number that keeps two near
			// copies of an original from being exact copies of each other.
			line = fmt.Sprintf(`{"id":"s%d","text":"%s\nUpdated, %d."}`, i, orig, i)
			s.want.Near++
		}
		s.want.Records++
		k, err := io.WriteString(bw, line+"\n")
		n += int64(k)
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}

// robustPublicCopy copies the binary into a new directory that every user can
// read, for running it as another user; the directory is removed at the
// end of the test.
func robustPublicCopy(t *testing.T) (bin, dir string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "neardup-robust-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "neardup")
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, dir
}

// scanProgress splits the progress output at "\r" and "\n".
func scanProgress(data []byte, atEOF bool) (int, []byte, error) {
	for i, c := range data {
		if c == '\r' || c == '\n' {
			return i + 1, data[:i], nil
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
