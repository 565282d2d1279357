package badgerstore

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// killDoc is document i of the kill tests: every fourth has a sketch,
// so that bands are written too.
func killDoc(i int) index.Doc {
	id := fmt.Sprintf("k%06d", i)
	d := index.Doc{ID: id, Fingerprint: simhash.Fingerprint(simhash.HashWord(id)), ContentHash: simhash.HashWord("c" + id), Title: "title " + id}
	if i%4 == 0 {
		d.Sketch = minhash.New("text of " + id + " and some more words to sketch")
	}
	return d
}

// helperCmd returns a command that runs this test binary as the helper
// process mode (see TestMain) on the index in dir.
func helperCmd(mode, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "NEARDUP_INDEX_HELPER="+mode, "NEARDUP_INDEX_DIR="+dir)...)
	return cmd
}

// startHelper starts the helper process mode on dir and returns it and
// its standard output; its standard error is the test's.
func startHelper(t *testing.T, mode, dir string, env ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := helperCmd(mode, dir, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out
}

// addUntilKilled starts a child that adds documents k<start>, k<start+1>…
// to the index in dir one at a time, printing each ID once Add has
// returned. onAck is called after each acknowledged document with the
// count so far, and kills the child when it sees fit. It returns the
// acknowledged IDs once the child has exited.
func addUntilKilled(t *testing.T, dir string, start int, onAck func(n int, cmd *exec.Cmd)) []string {
	t.Helper()
	cmd, out := startHelper(t, "add", dir, fmt.Sprintf("NEARDUP_INDEX_START=%d", start))
	var acked []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "error:") {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child: %s", line)
		}
		acked = append(acked, line)
		onAck(len(acked), cmd)
	}
	cmd.Wait()
	return acked
}

// killAdds runs rounds writers on dir, one after the other, each adding
// the documents after the last one acknowledged until onAck (which round
// makes for each) kills it, and checks after each that the index, opened
// with opts, holds every acknowledged document. round also says how many
// documents its writer must acknowledge at least. killAdds returns the
// acknowledged IDs.
func killAdds(t *testing.T, dir string, rounds int, opts *Options, round func(int) (onAck func(n int, cmd *exec.Cmd), least int)) []string {
	t.Helper()
	var acked []string
	next := 0
	for r := range rounds {
		onAck, least := round(r)
		got := addUntilKilled(t, dir, next, onAck)
		if len(got) < least {
			t.Fatalf("round %d: the child acknowledged %d documents, want at least %d", r, len(got), least)
		}
		acked = append(acked, got...)
		if len(got) > 0 {
			fmt.Sscanf(got[len(got)-1], "k%d", &next)
			next++
		}
		crashCheckAcked(t, dir, opts, acked)
		if t.Failed() {
			// The next round's writer repairs the log: report the first
			// failure only.
			t.FailNow()
		}
	}
	return acked
}

// A process killed with SIGKILL right after Add returned loses none of
// the documents it acknowledged.
func TestKillDuringAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	r := rand.New(rand.NewPCG(7, 8))
	acked := killAdds(t, filepath.Join(t.TempDir(), "idx"), 3, nil, func(int) (func(int, *exec.Cmd), int) {
		stop := 20 + r.IntN(60)
		return func(n int, cmd *exec.Cmd) {
			if n == stop {
				cmd.Process.Kill() // SIGKILL
			}
		}, stop
	})
	t.Logf("%d acknowledged documents survived 3 kills", len(acked))
}

// A writer that keeps its postings in memory (Options.MemPostings)
// loses none of the documents it acknowledged either, and a store
// opened with them after each kill finds every one.
func TestKillDuringAddMemPostings(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Setenv("NEARDUP_INDEX_MEM", "1")
	r := rand.New(rand.NewPCG(7, 9))
	acked := killAdds(t, filepath.Join(t.TempDir(), "idx"), 3, &Options{MemPostings: true}, func(int) (func(int, *exec.Cmd), int) {
		stop := 20 + r.IntN(60)
		return func(n int, cmd *exec.Cmd) {
			if n == stop {
				cmd.Process.Kill() // SIGKILL
			}
		}, stop
	})
	t.Logf("%d acknowledged documents survived 3 kills", len(acked))
}

// crashCheckAcked opens dir with opts and checks that every acknowledged
// document is there and found by Near, Exact and (when it has a sketch)
// Similar.
func crashCheckAcked(t *testing.T, dir string, opts *Options, acked []string) {
	t.Helper()
	ctx := t.Context()
	mode := "Open"
	if opts != nil && opts.ReadOnly {
		mode = "Open read-only"
	}
	x, err := OpenIndex(ctx, dir, opts, nil)
	if err != nil {
		t.Errorf("%s: %v", mode, err)
		return
	}
	defer x.Close()
	for _, id := range acked {
		var i int
		fmt.Sscanf(id, "k%d", &i)
		want := killDoc(i)
		d, err := x.Get(ctx, id)
		if err != nil || d.Fingerprint != want.Fingerprint || d.Title != want.Title || d.Sketch != want.Sketch {
			t.Fatalf("%s: acknowledged %s lost: %+v, %v", mode, id, d, err)
		}
		ms, err := x.Near(ctx, want.Fingerprint, 0)
		if err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == id }) {
			t.Fatalf("%s: Near does not find acknowledged %s: %v, %v", mode, id, ms, err)
		}
		if ids, err := x.Exact(ctx, want.ContentHash); err != nil || !slices.Contains(ids, id) {
			t.Fatalf("%s: Exact does not find acknowledged %s: %v, %v", mode, id, ids, err)
		}
		if !want.Sketch.IsZero() {
			q := want
			q.ID, q.Fingerprint, q.ContentHash = "q", ^q.Fingerprint, 0
			ms, err := x.Similar(ctx, &q, 0)
			if err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == id }) {
				t.Fatalf("%s: Similar does not find acknowledged %s by its bands: %v, %v", mode, id, ms, err)
			}
		}
	}
	if s, err := x.Stats(ctx); err != nil || s.Docs < int64(len(acked)) {
		t.Errorf("%s: %d docs, %v; %d acknowledged", mode, s.Docs, err, len(acked))
	}
}

// TestReadOnlyOpenAfterKill kills a writer with SIGKILL at random
// moments, 12 times, and opens the index READ-ONLY after each kill, as
// "neardup stats" and "neardup check" do: it must open and hold every
// document the writer acknowledged. (Badger refuses a read-only open of a
// write-ahead log that was not closed cleanly, "Log truncate required";
// Open must recover from that.)
func TestReadOnlyOpenAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 12 child processes")
	}
	dir := filepath.Join(t.TempDir(), "idx")
	rng := rand.New(rand.NewPCG(20, 24))
	acked := killAdds(t, dir, 12, &Options{ReadOnly: true}, func(int) (func(int, *exec.Cmd), int) {
		// Kill at a random moment once the child has acknowledged its
		// first document (the index is open).
		delay := time.Duration(rng.IntN(40_000)) * time.Microsecond
		return func(n int, cmd *exec.Cmd) {
			if n == 1 {
				time.AfterFunc(delay, func() { cmd.Process.Kill() })
			}
		}, 1
	})
	crashCheckAcked(t, dir, nil, acked)
	t.Logf("%d acknowledged documents survived 12 kills", len(acked))
}

// addKillDocs adds killDoc(from) … killDoc(to-1) to the index in dir
// and closes it.
func addKillDocs(t *testing.T, dir string, from, to int) []string {
	t.Helper()
	x, err := OpenIndex(t.Context(), dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := from; i < to; i++ {
		if err := x.Add(t.Context(), killDoc(i)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, killDoc(i).ID)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	return ids
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
	acked := addKillDocs(t, dir, 0, 5)

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
	addKillDocs(t, dir, 5, 6)
}

// TestOpenAfterKillDuringLogCreation: Badger creates a new write-ahead
// log file (NNNNN.mem) or value log (NNNNNN.vlog) and then sizes it; a
// writer killed in between leaves an empty one. The next Open, for
// writing or read-only, must succeed all the same, with every document.
// (TestKillDuringLoad's kills at start-up leave an empty 000001.vlog now
// and then.)
func TestOpenAfterKillDuringLogCreation(t *testing.T) {
	for _, file := range []string{"00001.mem", "000001.vlog"} {
		for _, readOnly := range []bool{false, true} {
			dir := filepath.Join(t.TempDir(), "idx")
			acked := addKillDocs(t, dir, 0, 3)
			// A clean close flushes and removes the memtable logs: the
			// next writer creates 00001.mem. It keeps 000001.vlog, which
			// holds no values (all are below the value threshold): the
			// empty one stands for a new directory's, killed at birth.
			if err := os.WriteFile(filepath.Join(dir, file), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			crashCheckAcked(t, dir, &Options{ReadOnly: readOnly}, acked)
			if t.Failed() {
				t.Fatalf("after an empty %s (read-only %v)", file, readOnly)
			}
		}
	}
}

// Documents of the Load kill test: loadKillDocs of killDoc, sorted in
// chunks of loadKillChunk, so that the write phase has several runs to
// merge per stream.
const (
	loadKillDocs  = 2500
	loadKillChunk = 500
)

// helperLoad loads the kill-test documents into the index in
// NEARDUP_INDEX_DIR, printing "iterated" once Load has read them all
// (what follows is sorting the last chunk and writing the tables) and
// "loaded" once Load has returned, unless killed first.
func helperLoad() {
	ctx := context.Background()
	s, err := Open(os.Getenv("NEARDUP_INDEX_DIR"), nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	s.loadChunk = loadKillChunk
	x, err := index.New(ctx, s, nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	_, err = x.Load(ctx, func(yield func(index.Doc) bool) {
		for i := range loadKillDocs {
			if !yield(killDoc(i)) {
				return
			}
		}
		os.Stdout.WriteString("iterated\n")
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

// countTables counts Badger's table files in dir.
func countTables(dir string) int {
	es, _ := os.ReadDir(dir)
	n := 0
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".sst") {
			n++
		}
	}
	return n
}

// loadUntilKilled runs helperLoad on dir and kills it with SIGKILL when
// kill, called with the time since the child read its last document
// (negative before), says so. It reports whether the child finished
// first.
func loadUntilKilled(t *testing.T, dir string, kill func(since time.Duration) bool) (finished bool) {
	t.Helper()
	cmd, out := startHelper(t, "load", dir)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var iterated time.Time
	tick := time.NewTicker(200 * time.Microsecond)
	defer tick.Stop()
	for {
		select {
		case line, ok := <-lines:
			switch {
			case !ok:
				cmd.Wait()
				return finished
			case line == "iterated":
				iterated = time.Now()
			case line == "loaded":
				finished = true
			default:
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child: %s", line)
			}
		case <-tick.C:
			since := time.Duration(-1)
			if !iterated.IsZero() {
				since = time.Since(iterated)
			}
			if !finished && kill(since) {
				cmd.Process.Kill()
				for range lines {
				}
				cmd.Wait()
				return false
			}
		}
	}
}

// TestKillDuringLoad kills a Load into a new index with SIGKILL, in a
// child process, at least 6 times: while it reads and sorts the
// documents, when the n-th of Badger's table files appears (n at random),
// and at a random moment after the first one. After each kill the index must open, and doing what `neardup
// add --fingerprints` does again (Load if the index is still empty, Add
// otherwise) must leave exactly the keys of an index built by Add. Kills
// go on (up to 12) until one has left a partly written index: a test
// that never hit the middle of the write phase would prove nothing.
func TestKillDuringLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ctx := t.Context()
	var docs []index.Doc
	for i := range loadKillDocs {
		docs = append(docs, killDoc(i))
	}
	ref, refStore := openTemp(t, nil)
	if err := ref.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	// The documents' keys by ID: a Load cut short and completed by
	// Add numbers the documents it adds after those it wrote.
	want := dumpResolved(t, refStore)
	meta := countKeys(t, refStore, kindMeta) + 1 // and 'M' "postings"
	ref.Close()

	// How long the table files of a whole Load take to appear here, and
	// how many there are.
	dir := filepath.Join(t.TempDir(), "calibrate")
	var first, last time.Duration // since the first table file
	var firstAt time.Time
	if !loadUntilKilled(t, dir, func(since time.Duration) bool {
		if firstAt.IsZero() && countTables(dir) > 0 {
			firstAt = time.Now()
			first = since
		}
		if !firstAt.IsZero() {
			last = time.Since(firstAt)
		}
		return false
	}) {
		t.Fatal("the uninterrupted Load did not finish")
	}
	tables := countTables(dir)
	if tables < 3 || firstAt.IsZero() {
		t.Fatalf("the uninterrupted Load wrote %d table files (first seen: %v)", tables, !firstAt.IsZero())
	}
	rng := rand.New(rand.NewPCG(7, 11))
	empty, partial, finished := 0, 0, 0
	var how []string
	round := 0
	for ; round < 6 || partial == 0 && round < 12; round++ {
		dir := filepath.Join(t.TempDir(), fmt.Sprint("idx", round))
		var when string
		var kill func(time.Duration) bool
		switch round % 4 {
		case 0:
			at := time.Duration(rng.Int64N(int64(50 * time.Millisecond)))
			start := time.Now()
			when = fmt.Sprintf("%v after the start", at)
			kill = func(since time.Duration) bool { return since < 0 && time.Since(start) >= at }
		case 1, 2:
			n := 1 + rng.IntN(tables-1)
			when = fmt.Sprintf("at table file %d of %d", n, tables)
			kill = func(since time.Duration) bool { return since >= 0 && countTables(dir) >= n }
		case 3:
			at := time.Duration(rng.Int64N(int64(last) + 1))
			var seen time.Time
			when = fmt.Sprintf("%v after the first table file", at)
			kill = func(since time.Duration) bool {
				if seen.IsZero() && since >= 0 && countTables(dir) > 0 {
					seen = time.Now()
				}
				return !seen.IsZero() && time.Since(seen) >= at
			}
		}
		done := loadUntilKilled(t, dir, kill)
		x, s := openDir(t, dir, nil, nil)
		st, err := x.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := dumpResolved(t, s)
		switch {
		case done:
			finished++
			when += ": finished first"
		case len(got) <= meta:
			empty++
			when += ": empty"
		case slices.Equal(got, want):
			when += ": complete"
		default:
			partial++
			when += fmt.Sprintf(": partial, %d of %d keys, %d documents", len(got), len(want), st.Docs)
		}
		how = append(how, when)
		if st.Docs == 0 {
			if _, err := x.Load(ctx, slices.Values(docs)); err != nil {
				t.Fatalf("round %d (%s): Load again: %v", round, when, err)
			}
		} else if err := x.Add(ctx, docs...); err != nil {
			t.Fatalf("round %d (%s): Add after a partial Load: %v", round, when, err)
		}
		if got := dumpResolved(t, s); !slices.Equal(got, want) {
			t.Fatalf("round %d (%s): %d keys after recovering, want %d (first difference at %d)", round, when, len(got), len(want), firstDiff(got, want))
		}
		if st, _ := x.Stats(ctx); st.Docs != loadKillDocs {
			t.Fatalf("round %d (%s): %d docs after recovering, want %d", round, when, st.Docs, loadKillDocs)
		}
		x.Close()
	}
	t.Logf("a Load writes %d table files, from %v after reading its documents and for %v; of %d kills, %d left an empty index, %d a partial one, %d came after the end:\n%s",
		tables, first, last, round, empty, partial, finished, strings.Join(how, "\n"))
	if partial == 0 {
		t.Errorf("no kill left a partly written index: the test proved nothing")
	}
}
