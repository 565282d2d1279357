package outfile

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCreateOutDirectory: an output path that is a directory is refused
// when the output is opened, before any work.
func TestCreateOutDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := Create(dir, io.Discard)
	if err == nil || !strings.HasSuffix(err.Error(), "is a directory") {
		t.Fatalf("Create(a directory) = %v, want an error saying it is a directory", err)
	}
}

// TestStaleTemps: opening an output removes the temporary files of the
// same output left by killed runs (old-style names, and names of
// processes that are gone), and keeps a live run's and other outputs'.
func TestStaleTemps(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("no true command to get a finished process id: %v", err)
	}
	files := []string{
		".k.pairs.tmp-2841089278",                                // old style: removed
		fmt.Sprintf(".k.pairs.tmp-%d-123", dead.Process.Pid),     // its process is gone: removed
		fmt.Sprintf(".k.pairs.tmp-%d-456", os.Getpid()),          // a live run: kept
		fmt.Sprintf(".other.pairs.tmp-%d-789", dead.Process.Pid), // another output: kept
		".k.pairs.tmp-notanumber",                                // not ours: kept
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := Create(filepath.Join(dir, "k.pairs"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Name())
	}
	want := []string{files[2], ".k.pairs.tmp-notanumber", files[3], "k.pairs"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("after the run the directory holds\n%q\nwant\n%q", got, want)
	}
}

// TestFile: nothing under the final name before Commit; Abort leaves
// nothing behind.
func TestFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	f, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("hello\n"))
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the final file exists before commit: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // no-op after commit
	if got := readFile(t, path); got != "hello\n" {
		t.Errorf("committed %q", got)
	}
	// An aborted file leaves nothing behind, and the old file stays.
	g, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("partial"))
	g.Abort()
	if got := readFile(t, path); got != "hello\n" {
		t.Errorf("after abort: %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("abort left %d files", len(entries))
	}
	// A missing directory is an error naming the file.
	if _, err := Create(filepath.Join(dir, "no", "x"), nil); err == nil || !strings.Contains(err.Error(), "no/x") {
		t.Errorf("Create in a missing directory: %v", err)
	}
}
