package main

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

// TestCreateOutDirectory: an output path that is a directory is refused
// when the output is opened, before any work.
func TestCreateOutDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := createOut(dir, io.Discard)
	if err == nil || !strings.HasSuffix(err.Error(), "is a directory") {
		t.Fatalf("createOut(a directory) = %v, want an error saying it is a directory", err)
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
	out, err := createOut(filepath.Join(dir, "k.pairs"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	if err := out.commit(); err != nil {
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

// TestDedupPairsToStdout: dedup with no output named writes the pairs to
// standard output (the same lines --pairs - writes) instead of
// discarding them.
func TestDedupPairsToStdout(t *testing.T) {
	want := runCLI(t, "dedup", "--workers", "2", "--pairs", "-", "testdata/articles.jsonl")
	got := runCLI(t, "dedup", "--workers", "2", "testdata/articles.jsonl")
	if got.code != 0 || want.code != 0 {
		t.Fatalf("exit %d and %d: %s%s", got.code, want.code, got.stderr, want.stderr)
	}
	if n := strings.Count(got.stdout, "\n"); n != 6 || got.stdout != want.stdout {
		t.Errorf("dedup without outputs printed %d lines:\n%s\nwant the 6 of --pairs -:\n%s", n, got.stdout, want.stdout)
	}
}
