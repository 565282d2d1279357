package index

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// crashCheckAcked opens dir with opts and checks that every acknowledged
// document is there and found by Near and Exact.
func crashCheckAcked(t *testing.T, dir string, opts *Options, acked []string) {
	t.Helper()
	mode := "Open"
	if opts != nil && opts.ReadOnly {
		mode = "Open read-only"
	}
	x, err := Open(dir, opts)
	if err != nil {
		t.Errorf("%s: %v", mode, err)
		return
	}
	defer x.Close()
	for _, id := range acked {
		var i int
		fmt.Sscanf(id, "k%d", &i)
		want := killDoc(i)
		d, err := x.Get(id)
		if err != nil || d.Fingerprint != want.Fingerprint || d.Title != want.Title {
			t.Fatalf("%s: acknowledged %s lost: %+v, %v", mode, id, d, err)
		}
		ms, err := x.Near(want.Fingerprint, 0)
		if err != nil || !slices.ContainsFunc(ms, func(m Match) bool { return m.ID == id }) {
			t.Fatalf("%s: Near does not find acknowledged %s: %v, %v", mode, id, ms, err)
		}
	}
	if s, err := x.Stats(); err != nil || s.Docs < int64(len(acked)) {
		t.Errorf("%s: %d docs, %v; %d acknowledged", mode, s.Docs, err, len(acked))
	}
}

// TestReadOnlyOpenAfterKill kills a writer with SIGKILL at random
// moments, 20 times, and opens the index READ-ONLY after each kill, as
// "neardup stats" and "neardup check" do: it must open and hold every
// document the writer acknowledged. (Badger refuses a read-only open of a
// write-ahead log that was not closed cleanly, "Log truncate required";
// Open must recover from that.)
func TestReadOnlyOpenAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 child processes")
	}
	dir := filepath.Join(t.TempDir(), "idx")
	rng := rand.New(rand.NewPCG(20, 24))
	var acked []string
	next := 0
	for round := 0; round < 20; round++ {
		// Kill at a random moment once the child has acknowledged its
		// first document (the index is open).
		delay := time.Duration(rng.IntN(40_000)) * time.Microsecond
		acked = append(acked, addUntilKilled(t, dir, next, func(n int, cmd *exec.Cmd) {
			if n == 1 {
				time.AfterFunc(delay, func() { cmd.Process.Kill() })
			}
		})...)
		if len(acked) == 0 {
			t.Fatalf("round %d: the child acknowledged nothing", round)
		}
		fmt.Sscanf(acked[len(acked)-1], "k%d", &next)
		next++
		crashCheckAcked(t, dir, &Options{ReadOnly: true}, acked)
		if t.Failed() {
			// The next round's writer repairs the log: report the
			// first failure only.
			return
		}
	}
	crashCheckAcked(t, dir, nil, acked)
	t.Logf("%d acknowledged documents survived 20 kills", len(acked))
}

// TestOpenAfterFileSizeLimit opens an index in a process whose file size
// limit (RLIMIT_FSIZE, here 1 MiB) is below the size Badger preallocates
// its write-ahead log with (2 × 64 MiB), as on a file system that cannot
// grow a file. That open must fail with an error naming the cause, and
// leave the index as it was: it opens afterwards, read-only and for
// writing, with its documents.
func TestOpenAfterFileSizeLimit(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to set the file size limit with ulimit")
	}
	dir := filepath.Join(t.TempDir(), "idx")
	x, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var acked []string
	for i := range 5 {
		d := killDoc(i)
		if err := x.Add(d); err != nil {
			t.Fatal(err)
		}
		acked = append(acked, d.ID)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	// ulimit -f counts 512-byte blocks in POSIX sh (1024 in bash): 1 or
	// 2 MiB, well below 128 MiB either way. Go ignores SIGXFSZ, so the
	// write fails with EFBIG ("file too large").
	cmd := exec.Command(sh, "-c", `ulimit -f 2048 && exec "$0" "$@"`, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "NEARDUP_INDEX_HELPER=open", "NEARDUP_INDEX_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "error: index: open "+dir+": ") || !strings.Contains(string(out), "file too large") {
		t.Errorf("open under a 1 MiB file size limit: %q, want an error naming %s and \"file too large\"", out, dir)
	}
	crashCheckAcked(t, dir, &Options{ReadOnly: true}, acked)
	crashCheckAcked(t, dir, nil, acked)
	// And a writer can add to it again.
	x, err = Open(dir, nil)
	if err != nil {
		t.Fatalf("reopening for writing: %v", err)
	}
	defer x.Close()
	if err := x.Add(killDoc(5)); err != nil {
		t.Errorf("Add after the failed open: %v", err)
	}
}

// TestOpenAfterKillDuringLogCreation: Badger creates a new write-ahead
// log file (NNNNN.mem) and then sizes it; a writer killed in between
// leaves an empty one. The next Open, for writing or read-only, must
// succeed all the same, with every document.
func TestOpenAfterKillDuringLogCreation(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "idx")
		x, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		var acked []string
		for i := range 3 {
			if err := x.Add(killDoc(i)); err != nil {
				t.Fatal(err)
			}
			acked = append(acked, killDoc(i).ID)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		// A clean close flushes and removes the logs: the next writer
		// creates 00001.mem.
		if err := os.WriteFile(filepath.Join(dir, "00001.mem"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		crashCheckAcked(t, dir, &Options{ReadOnly: readOnly}, acked)
	}
}
