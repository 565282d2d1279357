//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fifoReader is a FIFO's reader that collects what is written to it.
type fifoReader struct {
	r, w *os.File // w keeps the FIFO open for writing, so that r sees no end before close
	got  []byte
	err  error
	done sync.WaitGroup
}

// readFIFO makes a FIFO at path and reads it until close. Neither end
// waits for the other to open (O_NONBLOCK), so a run that never opens
// the FIFO cannot hang the test.
func readFIFO(t *testing.T, path string) *fifoReader {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f := &fifoReader{}
	var err error
	if f.r, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err != nil {
		t.Fatal(err)
	}
	if f.w, err = os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err != nil {
		t.Fatal(err)
	}
	f.done.Add(1)
	go func() {
		defer f.done.Done()
		f.got, f.err = io.ReadAll(f.r)
	}()
	return f
}

// close ends the FIFO's stream and returns what it carried.
func (f *fifoReader) close(t *testing.T) string {
	t.Helper()
	f.w.Close()
	f.done.Wait()
	f.r.Close()
	if f.err != nil {
		t.Fatal(f.err)
	}
	return string(f.got)
}

// TestOutputsSpecialFiles: every output flag of dedup and idf build
// writes through to a FIFO (directly and through a symbolic link) and
// leaves it a FIFO, and writes the target of a link to a regular file
// without replacing the link: the same bytes as regular files get.
// Before, each FIFO was replaced by a regular file and its reader got
// nothing.
func TestOutputsSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	in := "testdata/articles.jsonl"
	r, want := dedupOutputs(t, cliRun{}, dir, in)
	if r.code != 0 {
		t.Fatalf("dedup: exit %d: %s", r.code, r.stderr)
	}
	names := [4]string{"pairs", "clusters", "unique", "rejects"}
	sdir := t.TempDir()
	var readers [4]*fifoReader
	args := []string{"dedup"}
	for i, n := range names {
		path := filepath.Join(sdir, n)
		readers[i] = readFIFO(t, path)
		if i%2 == 1 { // clusters and rejects through a link to the FIFO
			link := filepath.Join(sdir, n+".link")
			if err := os.Symlink(n, link); err != nil {
				t.Fatal(err)
			}
			path = link
		}
		args = append(args, "--"+n, path)
	}
	r2 := runCLI(t, append(args, in)...)
	for i, n := range names {
		got := readers[i].close(t)
		if r2.code != 0 {
			continue
		}
		if got != want[i] {
			t.Errorf("--%s FIFO: its reader got %d bytes, want the %d of a regular file", n, len(got), len(want[i]))
		}
		if fi, err := os.Lstat(filepath.Join(sdir, n)); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("--%s: the FIFO is %v (%v) after the run", n, fi.Mode(), err)
		}
	}
	if r2.code != 0 {
		t.Fatalf("dedup into FIFOs: exit %d: %s", r2.code, r2.stderr)
	}

	// idf build -o: a FIFO, and a link to a regular file.
	idf := readFIFO(t, filepath.Join(sdir, "idf"))
	r3 := runCLI(t, "idf", "build", "--min-df", "1", "-o", filepath.Join(sdir, "idf"), "testdata/a.txt", "testdata/b.txt")
	gotIDF := idf.close(t)
	if r3.code != 0 {
		t.Fatalf("idf build -o FIFO: exit %d: %s", r3.code, r3.stderr)
	}
	if !strings.Contains(gotIDF, "对话框 ") {
		t.Errorf("idf build -o FIFO: its reader got %q, want the table", gotIDF)
	}
	real := filepath.Join(sdir, "idf.txt")
	if err := os.WriteFile(real, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(sdir, "idf.link")
	if err := os.Symlink("idf.txt", link); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "idf", "build", "--min-df", "1", "-o", link, "testdata/a.txt", "testdata/b.txt"); r.code != 0 {
		t.Fatalf("idf build -o LINK: exit %d: %s", r.code, r.stderr)
	}
	if got := readFile(t, real); got != gotIDF {
		t.Errorf("idf build -o LINK: the link's target holds %q, want the table", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("idf build -o LINK: the link is %v (%v) after the run", fi.Mode(), err)
	}
}
