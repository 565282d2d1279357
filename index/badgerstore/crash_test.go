package badgerstore

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

// Documents of the Load kill test: loadKillDocs of killDoc, sorted in
// chunks of loadKillChunk, so that the write phase has many runs.
const (
	loadKillDocs  = 20000
	loadKillChunk = 2000
)

// helperLoad loads the kill-test documents into the index in
// NEARDUP_INDEX_DIR and prints "loaded", unless killed first.
func helperLoad() {
	x, err := Open(os.Getenv("NEARDUP_INDEX_DIR"), nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	x.loadChunk = loadKillChunk
	_, err = x.Load(func(yield func(Doc) bool) {
		for i := range loadKillDocs {
			if !yield(killDoc(i)) {
				return
			}
		}
	})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if err := x.Close(); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("loaded")
	os.Exit(0)
}

// TestKillDuringLoad kills a process with SIGKILL at random moments of
// a Load into a new index, 20 times. After each kill the index must
// open, and doing what `neardup add --fingerprints` does again (Load if
// the index is still empty, Add otherwise) must leave exactly the keys
// of an index built by Add.
func TestKillDuringLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 child processes")
	}
	var docs []Doc
	for i := range loadKillDocs {
		docs = append(docs, killDoc(i))
	}
	ref, _ := openTemp(t, nil)
	if err := ref.Add(docs...); err != nil {
		t.Fatal(err)
	}
	want := dumpKeys(t, ref)

	// How long a whole Load takes here, to spread the kills over it.
	dir := filepath.Join(t.TempDir(), "idx")
	start := time.Now()
	if out, err := helperCmd(t, "load", dir).CombinedOutput(); err != nil || string(out) != "loaded\n" {
		t.Fatalf("load: %v: %s", err, out)
	}
	took := time.Since(start)
	rng := rand.New(rand.NewPCG(7, 11))
	killedEmpty, killedPartial, finished := 0, 0, 0
	for round := 0; round < 20; round++ {
		dir := filepath.Join(t.TempDir(), fmt.Sprint("idx", round))
		cmd := helperCmd(t, "load", dir)
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Mostly in the second half, where the tables are written.
		timer := time.AfterFunc(took*2/5+time.Duration(rng.Int64N(int64(took*3/5))), func() { cmd.Process.Kill() })
		cmd.Wait()
		timer.Stop()
		x, err := Open(dir, nil)
		if err != nil {
			t.Fatalf("round %d: Open after the kill: %v", round, err)
		}
		s, err := x.Stats()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case out.String() == "loaded\n":
			finished++
		case s.Docs == 0:
			killedEmpty++
			if _, err := x.Load(slices.Values(docs)); err != nil {
				t.Fatalf("round %d: Load again: %v", round, err)
			}
		default:
			killedPartial++
			if err := x.Add(docs...); err != nil {
				t.Fatalf("round %d: Add after a partial Load: %v", round, err)
			}
		}
		if got := dumpKeys(t, x); !slices.Equal(got, want) {
			t.Fatalf("round %d: %d keys after recovering, want %d (first difference at %d)", round, len(got), len(want), firstDiff(got, want))
		}
		if s, _ := x.Stats(); s.Docs != loadKillDocs {
			t.Fatalf("round %d: %d docs after recovering, want %d", round, s.Docs, loadKillDocs)
		}
		x.Close()
	}
	t.Logf("a Load takes %v; of 20 kills, %d left an empty index, %d a partial one, %d came after the end", took, killedEmpty, killedPartial, finished)
}
