//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup/internal/redistest"
)

// sampleCorpus is the committed sample corpus, from the package
// directory.
var sampleCorpus = filepath.Join("..", "..", "testdata", "sample", "sample.jsonl")

// TestRedisArchive runs dedup against a real Redis Cluster of its own
// (skipped without redis-server, failing when CI=true).
func TestRedisArchive(t *testing.T) {
	c := redistest.Start(t, redistest.Options{})
	t.Run("Equivalence", func(t *testing.T) { testRedisEquivalence(t, c) })
	t.Run("CopyOfCopy", func(t *testing.T) { testRedisCopyOfCopy(t, c) })
	t.Run("ManyWriters", func(t *testing.T) { testRedisManyWriters(t, c) })
	t.Run("StatsText", func(t *testing.T) { testRedisStatsText(t, c) })
	t.Run("Serve", func(t *testing.T) { testRedisServe(t, c) })
	t.Run("Password", func(t *testing.T) { testRedisPassword(t, c) })
}

// testRedisStatsText: stats --text counts the texts add --keep-text
// kept in a Redis archive, and those of no other archive on the cluster.
func testRedisStatsText(t *testing.T, c *redistest.Cluster) {
	kept, other := c.URL(redistest.Name(t)), c.URL(redistest.Name(t))
	if r := runCLI(t, "add", "--index", kept, "--keep-text", "testdata/a.txt", "testdata/c.txt"); r.code != 0 {
		t.Fatalf("add --keep-text: exit %d: %s", r.code, r.stderr)
	}
	if r := runCLI(t, "add", "--index", other, "--keep-text", "testdata/b.txt"); r.code != 0 {
		t.Fatalf("add --keep-text: exit %d: %s", r.code, r.stderr)
	}
	a, _ := os.ReadFile("testdata/a.txt")
	cc, _ := os.ReadFile("testdata/c.txt")
	r := runCLI(t, "stats", "--index", kept, "--text", "--json")
	var j statsJSON
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || j.Text == nil {
		t.Fatalf("stats --text --json: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if j.Text.Docs != 2 || j.Text.Bytes != int64(len(a)+len(cc)) || j.Text.StoredBytes <= 0 || j.Text.StoredBytes >= j.Text.Bytes {
		t.Errorf("stats --text: %+v; want 2 texts of %d bytes, fewer stored", *j.Text, len(a)+len(cc))
	}
}

// copyOfCopy is the sample's one copy of a copy: a reprint of 05080000,
// itself a near duplicate of 05060000 (see dedup.Run).
const copyOfCopy = "lo-help-en-US/text/schart/01/05080000#reprint"

// testRedisEquivalence: one dedup against Redis writes byte for byte the
// --pairs, --clusters and --unique of the same run against Badger and in
// memory on the whole sample, its copy of a copy included, and so does
// running it again (resumed: everything is there, each duplicate's
// matches read back from its record); stats then shows the ingest
// states of the documents written.
func testRedisEquivalence(t *testing.T, c *redistest.Cluster) {
	dir := t.TempDir()
	run := func(name string, index ...string) [3][]byte {
		t.Helper()
		files := [3]string{filepath.Join(dir, name+".pairs"), filepath.Join(dir, name+".clusters"), filepath.Join(dir, name+".unique")}
		args := append([]string{"dedup", "--pairs", files[0], "--clusters", files[1], "--unique", files[2]}, index...)
		r := runCLI(t, append(args, sampleCorpus)...)
		if r.code != 0 {
			t.Fatalf("dedup %s: exit %d: %s", name, r.code, r.stderr)
		}
		var out [3][]byte
		for i, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = b
		}
		return out
	}
	same := func(name string, got, want [3][]byte) {
		t.Helper()
		for i, what := range []string{"--pairs", "--clusters", "--unique"} {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: %s differs from memory's:\n%s", name, what, firstDiff(got[i], want[i]))
			}
		}
	}

	mem := run("memory")
	if n := [3]int{bytes.Count(mem[0], []byte("\n")), bytes.Count(mem[1], []byte("\n")), bytes.Count(mem[2], []byte("\n"))}; n != [3]int{83, 61, 238} {
		t.Fatalf("in memory: %d pairs, %d clusters, %d unique lines; want 83, 61, 238", n[0], n[1], n[2])
	}
	if bytes.Contains(mem[2], []byte(`"id":"`+copyOfCopy+`"`)) || !bytes.Contains(mem[0], []byte(copyOfCopy)) {
		t.Errorf("in memory: %s is not a duplicate", copyOfCopy)
	}
	url := c.URL(redistest.Name(t))
	same("badger", run("badger", "--index", filepath.Join(dir, "badger")), mem)
	same("redis", run("redis", "--index", url), mem)
	same("redis resumed", run("redis2", "--index", url), mem)

	// stats measures the ingest states of the 318 documents written
	// (the sample's 320 records less 2 too short).
	r := runCLI(t, "stats", "--index", url, "--json")
	var j statsJSON
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || j.Cluster == nil {
		t.Fatalf("stats --json: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if j.Docs != 318 || j.Cluster.StateSamples != 318 || j.Cluster.StateBytesPerDoc <= 0 {
		t.Errorf("stats --json: %d documents, %d ingest states sampled at %.1f bytes; want 318, 318, more than 0", j.Docs, j.Cluster.StateSamples, j.Cluster.StateBytesPerDoc)
	}
	if r := runCLI(t, "stats", "--index", url); !strings.Contains(r.stdout, "\ningest state ") {
		t.Errorf("stats: no ingest state line:\n%s", r.stdout)
	}
}

// testRedisCopyOfCopy: a copy of a copy that joins its cluster through
// the copy it was made from (it does not match the original, but
// stays within the drift guard of it) is decided so against Redis as
// in memory and against Badger. A is a long English article of the
// sample; B replaces its first 18% with Chinese text, C replaces B's
// next 18% too: B and C match A and B, C does not match A (estimated
// Jaccard about 0.74 with B, under the 0.70 and the containment rule
// with A, above the drift guard's 0.5).
func testRedisCopyOfCopy(t *testing.T, c *redistest.Cluster) {
	texts := map[string]string{}
	lines, err := os.ReadFile(sampleCorpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(lines, []byte("\n")) {
		var r struct{ ID, Text string }
		if json.Unmarshal(l, &r) == nil {
			texts[r.ID] = r.Text
		}
	}
	a := texts["lo-help-en-US/text/swriter/01/06030000"]
	o1, o2 := []rune(texts["lo-help-zh-CN/text/swriter/01/05140000"]), []rune(texts["lo-help-zh-CN/text/swriter/main0106"])
	k := len(a) * 18 / 100
	if a == "" || len(o1) < k || len(o2) < k {
		t.Fatalf("%s lacks the articles", sampleCorpus)
	}
	b := string(o1[:k]) + a[k:]
	cc := string(o1[:k]) + string(o2[:k]) + a[2*k:]
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	var buf bytes.Buffer
	for _, r := range [][2]string{{"A", a}, {"B", b}, {"C", cc}} {
		l, _ := json.Marshal(map[string]string{"id": r[0], "text": r[1]})
		buf.Write(append(l, '\n'))
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, index ...string) string {
		t.Helper()
		pairs, clusters := filepath.Join(dir, name+".pairs"), filepath.Join(dir, name+".clusters")
		r := runCLI(t, append(append([]string{"dedup", "--pairs", pairs, "--clusters", clusters}, index...), in)...)
		if r.code != 0 {
			t.Fatalf("dedup %s: exit %d: %s", name, r.code, r.stderr)
		}
		p, _ := os.ReadFile(pairs)
		cl, _ := os.ReadFile(clusters)
		return string(p) + string(cl)
	}
	mem := run("memory")
	if !strings.Contains(mem, `{"a":"A","b":"C","member":"B",`) || !strings.Contains(mem, `{"id":"C","via":"B",`) {
		t.Fatalf("in memory, C does not join A's cluster through B:\n%s", mem)
	}
	for name, got := range map[string]string{
		"badger": run("badger", "--index", filepath.Join(dir, "badger")),
		"redis":  run("redis", "--index", c.URL(redistest.Name(t))),
	} {
		if got != mem {
			t.Errorf("%s:\n%s\nwant, as in memory:\n%s", name, got, mem)
		}
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  " + x + "\n  " + y
		}
	}
	return ""
}

// writerInputs writes the inputs of three workers: w0 the sample corpus
// (three times, see below),
// w1 each article with a sentence added (a near duplicate of w0's), w2
// each article as it is (an exact copy of w0's), under IDs of their
// own. It returns the files and each one's IDs.
func writerInputs(t *testing.T, dir string) ([]string, [][]string) {
	data, err := os.ReadFile(sampleCorpus)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	var ids [][]string
	for w, add := range []string{"", "\n本文由第一工作站转载，原文见来源网站。", ""} {
		var buf bytes.Buffer
		var wids []string
		// w0, the worker killed part way, reads the corpus three times
		// (exact copies under other IDs), so that it runs for several of
		// the progress line's redraws, which tell the test when to kill.
		reps := 1
		if w == 0 {
			reps = 3
		}
		for rep := range reps {
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				var rec map[string]string
				if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
					t.Fatal(err)
				}
				rec["id"] = "w" + string(rune('0'+w)) + "/" + rec["id"]
				if rep > 0 {
					rec["id"] += "#again" + strconv.Itoa(rep)
				}
				if !strings.HasPrefix(rec["title"], "Too short") && rec["title"] != "太短" {
					rec["text"] += add
				}
				line, _ := json.Marshal(rec)
				buf.Write(line)
				buf.WriteByte('\n')
				wids = append(wids, rec["id"])
			}
		}
		f := filepath.Join(dir, "w"+string(rune('0'+w))+".jsonl")
		if err := os.WriteFile(f, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files, ids = append(files, f), append(ids, wids)
	}
	return files, ids
}

// testRedisManyWriters runs three dedup processes on one archive at
// once (see writerInputs), the first killed with SIGKILL part way and
// run again to its end while the others run, and checks: every record of
// every input is counted once (unique, duplicate, too short or
// rejected) and appears once in the outputs; exact copies (w0's and
// w2's) are never both originals; and deduplicating the union of the
// workers' --unique outputs finds no duplicate.
func testRedisManyWriters(t *testing.T, c *redistest.Cluster) {
	dir := t.TempDir()
	inputs, ids := writerInputs(t, dir)
	url := c.URL(redistest.Name(t))
	args := func(w int) []string {
		p := filepath.Join(dir, "w"+string(rune('0'+w)))
		return []string{"dedup", "--json", "--index", url, "--pairs", p + ".pairs", "--unique", p + ".unique", "--rejects", p + ".rejects", inputs[w]}
	}
	type summary struct {
		Records, Unique, Exact, Near int64
		TooShort                     int64 `json:"too_short"`
		Rejected                     int64
		InputErrors                  int64 `json:"input_errors"`
		Resumed                      int64
	}
	sums := make([]summary, 3)
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w == 0 {
				a := args(0)
				a = append(a[:1], append([]string{"--progress", "always", "--workers", "1"}, a[1:]...)...)
				if !robustKillAfter(t, robustCmd{dir: dir}, 70, a...) {
					t.Errorf("worker 0 ended before it was killed")
				}
			}
			cmd := robustCmd{dir: dir}.command(args(w)...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Errorf("worker %d: %v\n%s", w, err, errb.String())
				return
			}
			if err := json.Unmarshal(out.Bytes(), &sums[w]); err != nil {
				t.Errorf("worker %d: %v: %s", w, err, out.String())
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	unique := map[string]bool{}
	var union bytes.Buffer
	for w := range 3 {
		s := sums[w]
		t.Logf("worker %d: %+v", w, s)
		if s.Records != int64(len(ids[w])) || s.Unique+s.Exact+s.Near+s.TooShort+s.Rejected+s.InputErrors != s.Records || s.Rejected != 0 {
			t.Errorf("worker %d: %+v: want %d records, each counted once, none rejected", w, s, len(ids[w]))
		}
		p := filepath.Join(dir, "w"+string(rune('0'+w)))
		var seen []string
		u, err := os.ReadFile(p + ".unique")
		if err != nil {
			t.Fatal(err)
		}
		union.Write(u)
		for _, l := range strings.Split(strings.TrimSuffix(string(u), "\n"), "\n") {
			var rec struct{ ID string }
			json.Unmarshal([]byte(l), &rec)
			seen = append(seen, rec.ID)
			unique[rec.ID] = true
		}
		pairs, err := os.ReadFile(p + ".pairs")
		if err != nil {
			t.Fatal(err)
		}
		dups := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSuffix(string(pairs), "\n"), "\n") {
			var pr struct{ A, B string }
			json.Unmarshal([]byte(l), &pr)
			if pr.B != "" && !dups[pr.B] {
				dups[pr.B] = true
				seen = append(seen, pr.B)
			}
		}
		slices.Sort(seen)
		want := slices.Sorted(slices.Values(ids[w]))
		if !slices.Equal(seen, want) {
			t.Errorf("worker %d: the outputs hold %d records (unique and duplicates), want each of the %d once", w, len(seen), len(want))
		}
	}
	for _, id := range ids[0] {
		if strings.Contains(id, "too-short") {
			continue
		}
		if copy := "w2/" + strings.TrimPrefix(id, "w0/"); unique[id] && unique[copy] {
			t.Errorf("exact copies %s and %s are both originals", id, copy)
		}
	}
	all := filepath.Join(dir, "union.jsonl")
	if err := os.WriteFile(all, union.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "dedup", "--json", "--pairs", filepath.Join(dir, "union.pairs"), all)
	var us summary
	if err := json.Unmarshal([]byte(r.stdout), &us); r.code != 0 || err != nil {
		t.Fatalf("dedup of the union: exit %d, %v: %s%s", r.code, err, r.stdout, r.stderr)
	}
	if us.Exact+us.Near != 0 || us.Records != int64(len(unique)) {
		t.Errorf("dedup of the union of the --unique outputs (%d records): %+v: want no duplicates", len(unique), us)
	}
}
