package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/urldedup"
	"github.com/neardup/neardup/urlhash"
)

// runURL runs the neardup binary that TestMain builds, in this
// directory (so that paths start with testdata/url). The tests run the
// binary rather than run in process: urfave/cli writes its global
// HelpFlag on every run, which is a data race when tests run in
// parallel.
func runURL(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return cliRun{stdin: stdin, dir: "."}.run(t, args...)
}

// urlVolatile are the parts of url dedup's output that vary by run.
var urlVolatile = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`; [0-9.]+(ns|µs|ms|s|m[0-9.]+s)(, [0-9,]+ URLs/s)?\n`), "; <time>\n"},
	{regexp.MustCompile(`"seconds":[0-9.e+-]+`), `"seconds":0`},
}

func urlNormalize(s, tmp string) string {
	if tmp != "" {
		s = strings.ReplaceAll(s, tmp, "$TMP")
	}
	for _, v := range urlVolatile {
		s = v.re.ReplaceAllString(s, v.repl)
	}
	return s
}

// urlGolden compares got with testdata/url/name, or rewrites it with
// -update.
func urlGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "url", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run URL -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output (run go test -run URL -update to accept it):\n%s", path, diff(string(want), got))
	}
}

// The issue's examples.
const (
	issueURL      = "http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123"
	issueNoFrag   = "http://baidu.com:8080/1/2/3/4.php?a=1&b=2"
	issueReorder  = "http://baidu.com:8080/1/2/3/4.php?b=2&a=1"
	issueUTM      = "http://baidu.com:8080/1/2/3/4.php?a=1&b=2&utm_source=weibo"
	issueHTTPS    = "https://baidu.com:8080/1/2/3/4.php?a=1&b=2"
	issueElsewher = "http://www.example.com/1/2/3/4.php?a=1&b=2"
)

func TestURLCompareGolden(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{issueURL, issueNoFrag},
		{issueNoFrag, issueReorder},
		{issueNoFrag, issueUTM},
		{issueHTTPS, issueNoFrag},
		{issueNoFrag, "http://baidu.com:8080/1/2/3/5.php?a=1&b=2"},
		{issueNoFrag, issueElsewher},
	}
	for _, mode := range []struct {
		golden string
		flags  []string
		cases  [][]string
	}{
		{"compare.txt", nil, cases},
		{"compare_json.txt", []string{"--json"}, cases},
		{"compare_keep_tracking.txt", []string{"--keep-tracking"}, [][]string{{issueNoFrag, issueUTM}}},
	} {
		var all strings.Builder
		for _, c := range mode.cases {
			args := append(append([]string{"url"}, mode.flags...), c...)
			r := runURL(t, "", args...)
			if r.code != 0 {
				t.Errorf("neardup %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
			}
			all.WriteString(transcript(args, r))
		}
		urlGolden(t, mode.golden, all.String())
	}
}

func TestURLCompareJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b     string
		distance int
		differ   []string
		same     bool
		verdict  string
	}{
		{issueURL, issueNoFrag, 1, []string{"fragment"}, false, "very close"},
		{issueNoFrag, issueReorder, 0, []string{}, true, "same URL"},
		{issueNoFrag, issueUTM, 0, []string{}, true, "same URL"},
		{issueHTTPS, issueNoFrag, 1, []string{"scheme"}, false, "very close"},
		{issueNoFrag, issueElsewher, 30, []string{"host", "port"}, false, "different"},
	}
	for _, tt := range tests {
		r := runURL(t, "", "url", "--json", tt.a, tt.b)
		if r.code != 0 {
			t.Fatalf("url --json %s %s: exit %d: %s", tt.a, tt.b, r.code, r.stderr)
		}
		var got urlhash.Report
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("url --json %s %s: %v: %q", tt.a, tt.b, err, r.stdout)
		}
		if got.Distance != tt.distance || got.Similarity != 1-float64(tt.distance)/64 || !slices.Equal(got.Differ, tt.differ) ||
			got.Same != tt.same || got.Verdict != tt.verdict {
			t.Errorf("url --json %s %s = distance %d, similarity %v, differ %q, same %t, verdict %q; want %d, %v, %q, %t, %q",
				tt.a, tt.b, got.Distance, got.Similarity, got.Differ, got.Same, got.Verdict,
				tt.distance, 1-float64(tt.distance)/64, tt.differ, tt.same, tt.verdict)
		}
		if !strings.Contains(r.stdout, `"differ":[`) {
			t.Errorf("differ is not a list: %s", r.stdout)
		}
		if strings.Contains(r.stdout, `\u0026`) {
			t.Errorf("& escaped in %s", r.stdout)
		}
	}
}

// TestURLTrailingFlags checks that flags after the URLs work too.
func TestURLTrailingFlags(t *testing.T) {
	r := runURL(t, "", "url", issueURL, issueNoFrag, "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"distance":1,"similarity":0.984375`) {
		t.Errorf("neardup url A B --json: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestURLCompareErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"url", issueURL}, "neardup url: want two URLs A B, got 1 arguments (or 'neardup url dedup' for a list)\n"},
		{[]string{"url", issueURL, issueNoFrag, "extra"}, "neardup url: want two URLs A B, got 3 arguments"},
		{[]string{"url", "mailto:a@b.c", issueURL}, `neardup: urlhash: invalid URL "mailto:a@b.c": scheme "mailto" without "//" is not a hierarchical URL` + "\n"},
		{[]string{"url", issueURL, "http://[::1/"}, `neardup: urlhash: invalid URL "http://[::1/": IPv6 literal without ']'` + "\n"},
	}
	for _, tt := range tests {
		r := runURL(t, "", tt.args...)
		if r.code != exitError || r.stdout != "" || !strings.HasPrefix(r.stderr, tt.stderr) {
			t.Errorf("neardup %s: exit %d, stdout %q, stderr %q; want exit 2, stderr starting %q",
				strings.Join(tt.args, " "), r.code, r.stdout, r.stderr, tt.stderr)
		}
	}
}

func TestURLDedupGolden(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	out := func(name string) string { return filepath.Join(tmp, name) }
	const in = "testdata/url/urls.txt"

	args := []string{"url", "dedup", in, "--pairs", out("pairs.jsonl"), "--clusters", out("clusters.jsonl"), "--unique", out("unique.txt")}
	r := runURL(t, "", args...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	urlGolden(t, "dedup_90.txt", urlNormalize(transcript(args, r, out("pairs.jsonl"), out("clusters.jsonl"), out("unique.txt")), tmp))

	args = []string{"url", "dedup", "--min-similarity", "95", "--json", in}
	r = runURL(t, "", args...)
	urlGolden(t, "dedup_95_json.txt", urlNormalize(transcript(args, r), tmp))

	args = []string{"url", "dedup", "-m", "80", "--clusters", out("clusters80.jsonl"), "-"}
	r = cliStdinRun(t, in, args...)
	urlGolden(t, "dedup_80_stdin.txt", urlNormalize(transcript(args, r, out("clusters80.jsonl")), tmp))
}

// cliStdinRun runs args with the content of path on standard input.
func cliStdinRun(t *testing.T, path string, args ...string) result {
	t.Helper()
	return runURL(t, readFile(t, path), args...)
}

func TestURLDedupRejects(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	rejects := filepath.Join(tmp, "rejects.jsonl")
	args := []string{"url", "dedup", "testdata/url/bad.txt", "--rejects", rejects}
	r := runURL(t, "", args...)
	if r.code != 0 {
		t.Errorf("exit %d, want 0 (rejected lines are not an error)", r.code)
	}
	urlGolden(t, "dedup_rejects.txt", urlNormalize(transcript(args, r, rejects), tmp))

	unique := filepath.Join(tmp, "unique.jsonl")
	args = []string{"url", "dedup", "--url-field", "url", "testdata/url/urls.jsonl", "--rejects", rejects, "--unique", unique, "--pairs", "-"}
	r = runURL(t, "", args...)
	urlGolden(t, "dedup_jsonl.txt", urlNormalize(transcript(args, r, unique, rejects), tmp))

	// A missing input is an input error: exit 2, after the outputs.
	args = []string{"url", "dedup", "testdata/url/bad.txt", "testdata/url/no-such-file.txt", "--pairs", "-"}
	r = runURL(t, "", args...)
	if r.code != exitError || !strings.Contains(r.stderr, "input error: testdata/url/no-such-file.txt: open testdata/url/no-such-file.txt: no such file or directory") ||
		!strings.Contains(r.stdout, `"b":"http://bugs.gnu.org/28054"`) {
		t.Errorf("missing input: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestURLDedupSemantics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		input string
		pairs string // the "a b distance" of every pair
	}{
		{
			// Distances: a to https 2, to #top 5, to a/ 8; https to #top 7.
			"earlier is the original",
			nil,
			"http://example.com/a\nhttps://example.com/a\nhttp://example.com/a#top\nhttp://example.com/a/\n",
			"http://example.com/a https://example.com/a 2\nhttp://example.com/a http://example.com/a#top 5\n",
		},
		{
			// The second is within 2 of the first and of the third, the
			// first and third are 4 apart: the third is compared with
			// the kept first only, and kept.
			"duplicates are not kept",
			[]string{"-m", "95"},
			"http://example.com/a?y=2#top\nhttp://example.com/a?y=2\nhttps://example.com/a?y=2\n",
			"http://example.com/a?y=2#top http://example.com/a?y=2 2\n",
		},
		{
			// The first two are 4 apart, the third 2 from each.
			"a duplicate of several kept URLs",
			[]string{"-m", "95"},
			"http://example.com/a?y=2#top\nhttps://example.com/a?y=2\nhttp://example.com/a?y=2\n",
			"http://example.com/a?y=2#top http://example.com/a?y=2 2\nhttps://example.com/a?y=2 http://example.com/a?y=2 2\n",
		},
		{
			"exact after normalisation",
			[]string{"-m", "100"},
			"HTTP://WWW.Example.com:80/a/./b/index.html?utm_source=x\nhttp://example.com/a/b/\n",
			"HTTP://WWW.Example.com:80/a/./b/index.html?utm_source=x http://example.com/a/b/ 0\n",
		},
		{
			"www removed",
			[]string{"-m", "100"},
			"http://www.example.com/a\nhttp://example.com/a\n",
			"http://www.example.com/a http://example.com/a 0\n",
		},
		{
			"normalisation flags",
			[]string{"-m", "100", "--keep-www"},
			"http://www.example.com/a\nhttp://example.com/a\n",
			"",
		},
	}
	for _, tt := range tests {
		args := append([]string{"url", "dedup"}, tt.args...)
		r := runURL(t, tt.input, args...)
		if r.code != 0 {
			t.Errorf("%s: exit %d: %s", tt.name, r.code, r.stderr)
			continue
		}
		var got strings.Builder
		for line := range strings.Lines(r.stdout) {
			var p urldedup.Pair
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatalf("%s: %v: %q", tt.name, err, line)
			}
			fmt.Fprintf(&got, "%s %s %d\n", p.A, p.B, p.Distance)
		}
		if got.String() != tt.pairs {
			t.Errorf("%s: pairs\n%swant\n%s", tt.name, got.String(), tt.pairs)
		}
	}
}

func TestURLDedupUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"url", "dedup", "-m", "0.9"}, "neardup url dedup: --min-similarity 0.9: want a percentage from 50 to 100 (it is in percent: 90 for 90%?)\n"},
		{[]string{"url", "dedup", "-m", "101"}, "neardup url dedup: --min-similarity 101: want a percentage from 50 to 100\n"},
		{[]string{"url", "dedup", "-", "-"}, "neardup url dedup: standard input (-) given 2 times\n"},
	}
	for _, tt := range tests {
		r := runURL(t, "", tt.args...)
		if r.code != exitError || !strings.HasPrefix(r.stderr, tt.stderr) {
			t.Errorf("neardup %s: exit %d, stderr %q; want 2, %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.stderr)
		}
	}
	r := runURL(t, "", "url", "dedup", "--help")
	for _, want := range []string{"95  distance ≤ 3", "90  distance ≤ 6", "80  distance ≤ 12", "84.375", "--url-field NAME", "--min-similarity P, -m P"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("url dedup --help lacks %q:\n%s", want, r.stdout)
		}
	}
}

// dedupKept runs url dedup on input with extra args and returns the
// kept URLs (--unique) and the pairs.
func dedupKept(t *testing.T, input string, args ...string) (kept, pairs []string, r result) {
	t.Helper()
	tmp := t.TempDir()
	u, p := filepath.Join(tmp, "unique.txt"), filepath.Join(tmp, "pairs.jsonl")
	r = runURL(t, "", append([]string{"url", "dedup", input, "--unique", u, "--pairs", p}, args...)...)
	if r.code != 0 {
		t.Fatalf("url dedup %s %q: exit %d: %s", input, args, r.code, r.stderr)
	}
	return strings.Split(strings.TrimSuffix(readFile(t, u), "\n"), "\n"), strings.Split(strings.TrimSuffix(readFile(t, p), "\n"), "\n"), r
}

func TestURLDedupIndex(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	lines := strings.SplitAfter(readFile(t, "testdata/url/urls.txt"), "\n")
	first := filepath.Join(tmp, "first.txt")
	if err := os.WriteFile(first, []byte(strings.Join(lines[:100], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	all := filepath.Join(tmp, "all.txt")
	copyFile(t, "testdata/url/urls.txt", all)
	wantKept, wantPairs, _ := dedupKept(t, all)

	// The first 100 lines into an index, then all: the URLs kept by the
	// two runs are those one run over all keeps.
	dir := filepath.Join(tmp, "urls.idx")
	kept1, _, _ := dedupKept(t, first, "--index", dir)
	clusters := filepath.Join(tmp, "clusters.jsonl")
	kept2, pairs2, r := dedupKept(t, all, "--index", dir, "--clusters", clusters)
	if got := append(slices.Clone(kept1), kept2...); !slices.Equal(got, wantKept) {
		t.Errorf("kept by the two runs (%d + %d):\n%q\nwant (%d):\n%q", len(kept1), len(kept2), got, len(wantKept), wantKept)
	}
	// The clusters of the first run's URLs come first.
	var ids []string
	for line := range strings.Lines(readFile(t, clusters)) {
		var c struct{ ID string }
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	firstRun := 0
	for firstRun < len(ids) && slices.Contains(kept1, ids[firstRun]) {
		firstRun++
	}
	if firstRun == 0 || firstRun == len(ids) {
		t.Errorf("second run: %d clusters, %d of the first run's URLs first: want both kinds", len(ids), firstRun)
	}
	for _, id := range ids[firstRun:] {
		if !slices.Contains(kept2, id) {
			t.Errorf("second run: cluster %q after the first run's is not a URL the second kept", id)
		}
	}
	// Every URL of the first 100 lines is now a duplicate of itself.
	if !strings.Contains(r.stderr, "neardup url dedup: 200 lines: 198 URLs, "+fmt.Sprint(len(kept2))+" kept") {
		t.Errorf("second run: %s", r.stderr)
	}
	if want := fmt.Sprintf("searched in-memory block index (8 blocks, 28 tables) and index %s (8 blocks, 28 tables, %d URLs); ", dir, len(kept1)); !strings.Contains(r.stderr, want) {
		t.Errorf("second run: %s\nwant it to say %q", r.stderr, want)
	}
	self := 0
	for _, p := range pairs2 {
		var j urldedup.Pair
		if err := json.Unmarshal([]byte(p), &j); err != nil {
			t.Fatal(err)
		}
		if j.A == j.B && j.Exact && j.Distance == 0 {
			self++
		}
	}
	if self != len(kept1) {
		t.Errorf("second run: %d pairs of a URL with itself, want %d (the URLs the first run kept)", self, len(kept1))
	}

	// Running the same unchanged file again is a resumed run: the same
	// outputs as an uninterrupted one, and said to have finished before.
	dir2 := filepath.Join(tmp, "resume.idx")
	k1, p1, _ := dedupKept(t, all, "--index", dir2)
	k2, p2, r := dedupKept(t, all, "--index", dir2)
	if !slices.Equal(k1, wantKept) || !slices.Equal(p1, wantPairs) || !slices.Equal(k2, wantKept) || !slices.Equal(p2, wantPairs) {
		t.Errorf("--index runs differ from the in-memory run: kept %d, %d, want %d; pairs %d, %d, want %d",
			len(k1), len(k2), len(wantKept), len(p1), len(p2), len(wantPairs))
	}
	if want := fmt.Sprintf("this run had finished before: all %d kept URLs were already in the index", len(wantKept)); !strings.Contains(r.stderr, want) {
		t.Errorf("rerun: stderr %q lacks %q", r.stderr, want)
	}

	// An interrupted run: the index holds the job's first 30 kept URLs
	// (the run stops there, as an interrupt would stop it).
	dir3 := filepath.Join(tmp, "interrupted.idx")
	opts := &urlhash.Options{}
	k := urlhash.MaxDistance(urlhash.Close)
	x, err := openURLIndex(context.Background(), dir3, opts, k)
	if err != nil {
		t.Fatal(err)
	}
	errStop, kept := errors.New("interrupted"), 0
	_, err = urldedup.Run(context.Background(), []string{all}, nil, x, &urldedup.Options{MaxDistance: k, Normalize: opts,
		Job: urldedup.JobID(opts.ID(), k, "", []string{all}), Batch: urlBatch}, func(o *urldedup.Outcome) error {
		if o.Verdict == dedup.Unique {
			if kept++; kept == 30 {
				return errStop
			}
		}
		return nil
	})
	if err != errStop {
		t.Fatalf("interrupted run: %v", err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	k3, p3, r := dedupKept(t, all, "--index", dir3)
	if !slices.Equal(k3, wantKept) || !slices.Equal(p3, wantPairs) {
		t.Errorf("resumed run differs from an uninterrupted one: kept %d, want %d; pairs %d, want %d", len(k3), len(wantKept), len(p3), len(wantPairs))
	}
	if !strings.Contains(r.stderr, "resumed an interrupted run: 30 kept URLs were already in the index") {
		t.Errorf("resumed run: stderr %q", r.stderr)
	}
}

func TestURLDedupIndexErrors(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := "testdata/url/bad.txt"

	// An article index, made by the add command.
	articles := filepath.Join(tmp, "articles.idx")
	r := runURL(t, "", "add", "--index", articles, "testdata/a.txt")
	if r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	r = runURL(t, "", "url", "dedup", "--index", articles, in)
	want := regexp.MustCompile(`^neardup: index ` + regexp.QuoteMeta(articles) + ` holds article fingerprints \(analyzer "nd2-[a-z0-9-]+"\), not URL fingerprints \(urlhash/1-420d1628b36be843\): URL and article fingerprints cannot share an index; give url dedup an index of its own: index options do not match the index\n$`)
	if r.code != exitError || !want.MatchString(r.stderr) || r.stdout != "" {
		t.Errorf("article index: exit %d, stdout %q, stderr %q; want exit 2 and %v", r.code, r.stdout, r.stderr, want)
	}

	// A URL index made with other normalisation flags.
	urls := filepath.Join(tmp, "urls.idx")
	if r := runURL(t, "", "url", "dedup", "--keep-www", "-m", "95", "--index", urls, in); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	r = runURL(t, "", "url", "dedup", "--index", urls, in)
	if wantErr := "neardup: index " + urls + " holds URL fingerprints made by urlhash/1-992ce946f231b1fa, not urlhash/1-420d1628b36be843 (these normalisation flags): use the --drop-param and --keep-* flags it was created with, or another index: index options do not match the index\n"; r.code != exitError || r.stderr != wantErr {
		t.Errorf("other flags: exit %d, stderr %q; want 2, %q", r.code, r.stderr, wantErr)
	}
	// Distances: an index made at 95% (distance 3) cannot answer 90%
	// (6), and no index answers 80% (12).
	r = runURL(t, "", "url", "dedup", "--index", urls, "--keep-www", "-m", "90", in)
	if want := "neardup: index " + urls + " answers distances up to 3 (similarity ≥ 95.3%), not 6 (--min-similarity): its layout is fixed when it is created; create a new index for this --min-similarity\n"; r.code != exitError || r.stderr != want {
		t.Errorf("-m 90 on a distance-3 index: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	r = runURL(t, "", "url", "dedup", "--index", filepath.Join(tmp, "new.idx"), "-m", "80", in)
	if want := "--index " + filepath.Join(tmp, "new.idx") + ": an index answers distances up to 9 (--min-similarity above 84.375), not 12"; r.code != exitError || !strings.Contains(r.stderr, want) {
		t.Errorf("-m 80 --index: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(tmp, "new.idx")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("-m 80 --index created the index directory (%v)", err)
	}
}

// TestURLDedupLines: a byte-order mark before the first line, lines
// ending in "\r\n" and a last line without a line end are read as URLs;
// a line over maxURLLine is rejected with its first 200 bytes, and the
// lines after it are read.
func TestURLDedupLines(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	unique, rejects := filepath.Join(tmp, "unique.txt"), filepath.Join(tmp, "rejects.jsonl")
	in := "\ufeffhttps://a.com/x\r\n" + "https://a.com/x\r\n" + "\r\n" +
		strings.Repeat("y", maxURLLine) + "\r\n" + "https://b.org/\r"
	r := runURL(t, in, "url", "dedup", "--unique", unique, "--rejects", rejects, "--pairs", "-")
	wantPairs := `{"a":"https://a.com/x","b":"https://a.com/x","distance":0,"similarity":1,"exact":true}` + "\n"
	if r.code != 0 || r.stdout != wantPairs {
		t.Errorf("exit %d, pairs %q; want 0, %q", r.code, r.stdout, wantPairs)
	}
	if got, want := readFile(t, unique), "https://a.com/x\nhttps://b.org/\n"; got != want {
		t.Errorf("unique %q, want %q", got, want)
	}
	wantRejects := `{"source":"stdin","line":4,"field":"","reason":"line longer than 16777216 bytes","raw":"` + strings.Repeat("y", 200) + `"}` + "\n"
	if got := readFile(t, rejects); got != wantRejects {
		t.Errorf("rejects %q, want %q", got, wantRejects)
	}
}

func BenchmarkURLDedup(b *testing.B) {
	data, err := os.ReadFile("testdata/url/urls.txt")
	if err != nil {
		b.Fatal(err)
	}
	for _, pct := range []string{"95", "90", "80"} {
		b.Run(pct, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var out, errb bytes.Buffer
				if code := run([]string{"neardup", "url", "dedup", "-m", pct, "--pairs", "-", "-"}, bytes.NewReader(data), &out, &errb); code != 0 {
					b.Fatal(errb.String())
				}
			}
		})
	}
}

// Compare two URLs.
func Example_url() {
	run([]string{"neardup", "url", issueURL, issueHTTPS}, strings.NewReader(""), os.Stdout, os.Stderr)
	// Output:
	// A             http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123
	// B             https://baidu.com:8080/1/2/3/4.php?a=1&b=2
	// fingerprints  fb277e2616ef1564 fb27fe2616ef1464
	// distance      2 of 64 bits
	// similarity    96.9%
	// differ        scheme, fragment
	// verdict       very close (≥ 95%): a cosmetic variant of one page, or a close sibling
}

func TestURLDedupGzip(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	gz := filepath.Join(tmp, "urls.txt.gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(readFile(t, "testdata/url/urls.txt")))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gz, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := runURL(t, "", "url", "dedup", "testdata/url/urls.txt")
	zipped := runURL(t, "", "url", "dedup", gz)
	if plain.code != 0 || zipped.code != 0 || plain.stdout != zipped.stdout || countLines(plain.stdout) < 40 {
		t.Errorf("gzip input: exit %d, %d pairs; plain: exit %d, %d pairs; stderr %s",
			zipped.code, countLines(zipped.stdout), plain.code, countLines(plain.stdout), zipped.stderr)
	}

	// A truncated gzip file is an input error: exit 2, what was read is
	// decided.
	if err := os.WriteFile(gz, b.Bytes()[:b.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	r := runURL(t, "", "url", "dedup", gz)
	if r.code != exitError || !strings.Contains(r.stderr, "input error: "+gz+":") || !strings.Contains(r.stderr, "unexpected EOF") ||
		!strings.Contains(r.stderr, "1 input error") || r.stdout == "" || !strings.HasPrefix(plain.stdout, r.stdout[:len(r.stdout)/2]) {
		t.Errorf("truncated gzip: exit %d, stdout %d lines, stderr %s", r.code, countLines(r.stdout), r.stderr)
	}
}
