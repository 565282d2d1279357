package urldedup

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/urlhash"
)

// urlsFixture is url dedup's list of 200 real URLs.
// defaultNorm is the ID of the default URL normalisation.
const defaultNorm = "urlhash/1-420d1628b36be843"

const urlsFixture = "../cmd/neardup/testdata/url/urls.txt"

// memory is the in-memory store of a run's kept URLs (Options.Memory).
func memory() index.Store { return memstore.New() }

// runURLs runs Run over inputs (stdin as standard input) and
// describes each outcome in a line: its 1-based line, verdict and URL,
// then its matches ("kept URL distance", "=" when exact) or error.
// Without opts.Memory, this run's URLs are kept in a memstore.
func runURLs(t *testing.T, inputs []string, stdin string, store *index.Index, opts *Options) ([]string, report.URLSummary, error) {
	t.Helper()
	if opts.Memory == nil {
		o := *opts
		o.Memory, opts = memory, &o
	}
	var got []string
	sum, err := Run(context.Background(), inputs, strings.NewReader(stdin), store, opts, func(o *Outcome) error {
		s := fmt.Sprintf("%d %s %s", o.Line, o.Verdict, o.URL)
		for _, m := range o.Matches {
			eq := ""
			if m.Exact {
				eq = "="
			}
			s += fmt.Sprintf(" [%s %d%s]", m.Title, m.Distance, eq)
		}
		if o.Exact {
			s += " exact"
		}
		if o.Resumed {
			s += " resumed"
		}
		if o.Err != nil {
			s += ": " + o.Err.Error()
		}
		got = append(got, s)
		return nil
	})
	return got, sum, err
}

func TestRun(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		input string
		want  []string
		sum   report.URLSummary
	}{
		{
			// Distances: a to https 2, to #top 5, to a/ 8.
			name:  "the earlier is kept",
			opts:  Options{MaxDistance: 6},
			input: "http://example.com/a\nhttps://example.com/a\n\n  http://example.com/a#top \nhttp://example.com/a/\nmailto:x@y.z\n",
			want: []string{
				"1 unique http://example.com/a",
				"2 duplicate https://example.com/a [http://example.com/a 2]",
				"4 duplicate http://example.com/a#top [http://example.com/a 5]",
				"5 unique http://example.com/a/",
				`6 rejected mailto:x@y.z: stdin:6: invalid URL "mailto:x@y.z": scheme "mailto" without "//" is not a hierarchical URL`,
			},
			sum: report.URLSummary{Lines: 6, URLs: 4, Unique: 2, Near: 2, Blank: 1, Rejected: 1, MaxDistance: 6, Search: "in-memory block index (8 blocks, 28 tables)", Normalizer: defaultNorm, Blocks: 8, Tables: 28},
		},
		{
			// The second is 2 from the first and the third, which are 4
			// apart: the third is compared with the kept first only.
			name:  "duplicates are not kept",
			opts:  Options{MaxDistance: 3},
			input: "http://example.com/a?y=2#top\nhttp://example.com/a?y=2\nhttps://example.com/a?y=2\n",
			want: []string{
				"1 unique http://example.com/a?y=2#top",
				"2 duplicate http://example.com/a?y=2 [http://example.com/a?y=2#top 2]",
				"3 unique https://example.com/a?y=2",
			},
			sum: report.URLSummary{Lines: 3, URLs: 3, Unique: 2, Near: 1, MaxDistance: 3, Search: "in-memory block index (4 blocks, 4 tables)", Normalizer: defaultNorm, Blocks: 4, Tables: 4},
		},
		{
			name:  "a duplicate of several kept URLs, closest first, then in input order",
			opts:  Options{MaxDistance: 3},
			input: "https://example.com/a?y=2\nhttp://example.com/a?y=2#top\nhttp://example.com/a?y=2\nhttp://example.com/a?y=2#top\n",
			want: []string{
				"1 unique https://example.com/a?y=2",
				"2 unique http://example.com/a?y=2#top",
				"3 duplicate http://example.com/a?y=2 [https://example.com/a?y=2 2] [http://example.com/a?y=2#top 2]",
				"4 duplicate http://example.com/a?y=2#top [http://example.com/a?y=2#top 0=] exact", // 4 from https://example.com/a?y=2; line 3 is not kept
			},
		},
		{
			name:  "exact after normalisation; one seen before is exact too",
			opts:  Options{MaxDistance: 0},
			input: "HTTP://WWW.Example.com:80/a/./b/index.html?utm_source=x\nhttp://example.com/a/b/\r\nhttp://example.com/a/b/#x\n",
			want: []string{
				"1 unique HTTP://WWW.Example.com:80/a/./b/index.html?utm_source=x",
				"2 duplicate http://example.com/a/b/ [HTTP://WWW.Example.com:80/a/./b/index.html?utm_source=x 0=] exact",
				"3 unique http://example.com/a/b/#x",
			},
			sum: report.URLSummary{Lines: 3, URLs: 3, Unique: 2, Exact: 1, Search: "in-memory block index (4 blocks, 4 tables)", Normalizer: defaultNorm, Blocks: 4, Tables: 4},
		},
		{
			name:  "normalisation options",
			opts:  Options{MaxDistance: 0, Normalize: &urlhash.Options{KeepWWW: true}},
			input: "http://www.example.com/a\nhttp://example.com/a\n",
			want:  []string{"1 unique http://www.example.com/a", "2 unique http://example.com/a"},
		},
		{
			name:  "no layout covers 12: a scan",
			opts:  Options{MaxDistance: 12},
			input: "http://example.com/a\nhttp://example.com/a/\n",
			want:  []string{"1 unique http://example.com/a", "2 duplicate http://example.com/a/ [http://example.com/a 8]"},
			sum:   report.URLSummary{Lines: 2, URLs: 2, Unique: 1, Near: 1, MaxDistance: 12, Search: "every kept URL (no block layout covers the distance)", Normalizer: defaultNorm},
		},
		{
			name: "JSON lines",
			opts: Options{MaxDistance: 6, Field: "url"},
			input: `{"url": " http://a.com/x "}` + "\n" + `{"id": 2, "url": "http://a.com/x#f"}` + "\n" + `{"link": "http://a.com/"}` + "\n" +
				`{"url": 42}` + "\n" + `["http://a.com/"]` + "\n" + `{"url": "x"` + "\n" + `{"url": "a", }` + "\n" + `{"url": "http://[::1/"}` + "\n",
			want: []string{
				"1 unique http://a.com/x",
				"2 duplicate http://a.com/x#f [http://a.com/x 3]",
				`3 rejected : stdin:3: field "url": no field "url"`,
				`4 rejected : stdin:4: field "url": field "url" is not a string: 42`,
				`5 rejected : stdin:5: field "url": not a JSON object`,
				`6 rejected : stdin:6: field "url": malformed JSON at byte 11: unexpected end of JSON input`,
				`7 rejected : stdin:7: field "url": malformed JSON at byte 14: invalid character '}' looking for beginning of object key string`,
				`8 rejected http://[::1/: stdin:8: field "url": invalid URL "http://[::1/": IPv6 literal without ']'`,
			},
		},
		{
			name:  "a byte-order mark, CRLF, a line too long, JSON without a Field and no last line end",
			opts:  Options{MaxDistance: 6, MaxLine: 25},
			input: "\ufeffhttps://a.com/x\r\nhttps://a.com/x\r\nhttps://a.com/0123456789xy\r\n{\"url\": \"https://b.org/\"}",
			want: []string{
				"1 unique https://a.com/x",
				"2 duplicate https://a.com/x [https://a.com/x 0=] exact",
				"3 rejected : stdin:3: line longer than 25 bytes",
				`4 rejected {"url": "https://b.org/"}: stdin:4: invalid URL "{\"url\": \"https://b.org/\"}": invalid character '{' in host "{\"url\"" (for lines of JSON give --url-field NAME)`,
			},
		},
	}
	for _, tt := range tests {
		got, sum, err := runURLs(t, []string{"-"}, tt.input, nil, &tt.opts)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: outcomes\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
		if sum.Elapsed <= 0 {
			t.Errorf("%s: elapsed %v", tt.name, sum.Elapsed)
		}
		sum.Elapsed = 0
		if !reflect.DeepEqual(tt.sum, report.URLSummary{}) && !reflect.DeepEqual(sum, tt.sum) {
			t.Errorf("%s: summary %+v, want %+v", tt.name, sum, tt.sum)
		}
	}
}

// urlStoreFor returns an in-memory store for the URLs of norm at
// distance k.
func urlStoreFor(t *testing.T, norm *urlhash.Options, k int) *index.Index {
	t.Helper()
	x, err := memstore.Open(context.Background(), &index.Options{AnalyzerID: norm.ID(), Distance: k})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// writeTemp writes data to name in a temporary directory.
func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunStore: URLs an earlier run stored are matched, first in
// their clusters; a run of the same job resumes.
func TestRunStore(t *testing.T) {
	ctx := context.Background()
	store := urlStoreFor(t, nil, 6)
	first := writeTemp(t, "first.txt", "http://example.com/a\nhttp://example.org/x\n")
	got, sum, err := runURLs(t, []string{first}, "", store, &Options{MaxDistance: 6, Job: "j1"})
	want := []string{"1 unique http://example.com/a", "2 unique http://example.org/x"}
	if err != nil || !slices.Equal(got, want) || sum.Unique != 2 || sum.Resumed != 0 {
		t.Fatalf("first run: %q, %+v, %v; want %q", got, sum, err, want)
	}
	if want := "in-memory block index (8 blocks, 28 tables) and the index (8 blocks, 28 tables, 0 URLs)"; sum.Search != want {
		t.Errorf("first run: search %q, want %q", sum.Search, want)
	}
	doc, err := store.Get(ctx, "http://example.org/x")
	if err != nil || doc.Title != "http://example.org/x" || doc.Job != "j1" || doc.Seq != 2 || doc.Fingerprint == 0 {
		t.Errorf("stored %+v, %v; want title http://example.org/x, job j1, seq 2 (1-based)", doc, err)
	}

	input := "https://example.com/a\nhttp://example.net/new\nhttp://example.net/new#f\nhttp://example.org/x\n"
	cls := dedup.NewClusters("j2")
	var jobs []string
	_, err = Run(ctx, []string{"-"}, strings.NewReader(input), store, &Options{MaxDistance: 6, Job: "j2", Batch: 10, Memory: memory}, func(o *Outcome) error {
		for _, m := range o.Matches {
			jobs = append(jobs, fmt.Sprintf("%s %s %d", m.ID, m.Job, m.Seq))
		}
		AddCluster(cls, o)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantJobs := []string{"http://example.com/a j1 0", "http://example.net/new j2 1", "http://example.org/x j1 1"}
	if !slices.Equal(jobs, wantJobs) {
		t.Errorf("matches %q, want %q", jobs, wantJobs)
	}
	var cl []string
	for _, c := range cls.Sorted() {
		cl = append(cl, fmt.Sprintf("%s %s %t %d %+v", c.ID, c.Title, c.ThisRun, c.Seq, c.Members))
	}
	wantCl := []string{
		"http://example.com/a http://example.com/a false 0 [{ID:https://example.com/a Via: Seq:0 Distance:2 Exact:false Similarity:0.96875 Content:0}]",
		"http://example.org/x http://example.org/x false 3 [{ID:http://example.org/x Via: Seq:3 Distance:0 Exact:true Similarity:1 Content:0}]",
		"http://example.net/new http://example.net/new true 1 [{ID:http://example.net/new#f Via: Seq:2 Distance:0 Exact:false Similarity:1 Content:0}]",
	}
	if !slices.Equal(cl, wantCl) {
		t.Errorf("clusters\n%s\nwant\n%s", strings.Join(cl, "\n"), strings.Join(wantCl, "\n"))
	}
	// Batch 10: written when the run ends.
	if _, err := store.Get(ctx, "http://example.net/new"); err != nil {
		t.Errorf("this run's kept URL not stored: %v", err)
	}

	// The first job again: its URLs were stored by an interrupted run.
	got, sum, err = runURLs(t, []string{first}, "", store, &Options{MaxDistance: 6, Job: "j1"})
	want = []string{"1 unique http://example.com/a resumed", "2 unique http://example.org/x resumed"}
	if err != nil || !slices.Equal(got, want) || sum.Resumed != 2 {
		t.Errorf("rerun: %q, %+v, %v; want %q", got, sum, err, want)
	}

	// A run stopped by emit stores what it kept.
	stop := errors.New("stop")
	_, err = Run(ctx, []string{"-"}, strings.NewReader("http://c.org/1\nhttp://c.org/2\n"), store, &Options{MaxDistance: 6, Job: "j3", Batch: 10, Memory: memory},
		func(o *Outcome) error { return stop })
	if _, gerr := store.Get(ctx, "http://c.org/1"); err != stop || gerr != nil {
		t.Errorf("stopped run: %v, stored: %v; want %v, stored", err, gerr, stop)
	}
}

func TestRunStoreErrors(t *testing.T) {
	tests := []struct {
		opts Options
		err  error
		msg  string
	}{
		{Options{MaxDistance: 6, Normalize: &urlhash.Options{KeepWWW: true}}, index.ErrMismatch,
			`dedup: the index holds fingerprints made by "urlhash/1-420d1628b36be843", not "urlhash/1-992ce946f231b1fa": index options do not match the index`},
		{Options{MaxDistance: 7}, index.ErrDistance, "dedup: distance out of range: the index answers distances up to 6, not 7"},
		{Options{MaxDistance: 65}, nil, "dedup: URL distance 65: want 0 to 64"},
		{Options{MaxDistance: -1}, nil, "dedup: URL distance -1: want 0 to 64"},
	}
	store := urlStoreFor(t, nil, 6)
	for _, tt := range tests {
		_, _, err := runURLs(t, []string{"-"}, "http://a.org/\n", store, &tt.opts)
		if err == nil || err.Error() != tt.msg || tt.err != nil && !errors.Is(err, tt.err) {
			t.Errorf("%+v: error %v; want %q", tt.opts, err, tt.msg)
		}
	}
}

// TestRunInputs: files, gzip data (by its magic bytes, whatever the
// name), and inputs that cannot be read to their end.
func TestRunInputs(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(strings.Repeat("http://a.org/x\n", 2000))) // 15 bytes a line
	zw.Close()
	gz := b.Bytes()
	plain := writeTemp(t, "plain.txt", "http://a.org/x\n")
	zipped := writeTemp(t, "urls.list", string(gz))
	notGzip := writeTemp(t, "urls.gz", "http://b.org/y\n")
	truncated := writeTemp(t, "cut.gz", string(gz[:len(gz)/2]))
	missing := filepath.Join(t.TempDir(), "missing.txt")
	// The complete lines of the truncated file, as the decoder of
	// package input delivers them (klauspost/compress/gzip: from a cut
	// stream, a few hundred bytes fewer than compress/gzip).
	zr, err := kgzip.NewReader(bytes.NewReader(gz[:len(gz)/2]))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	n := bytes.Count(data, []byte("\n"))
	if err != io.ErrUnexpectedEOF || n == 0 || n == 2000 {
		t.Fatalf("truncated gzip: %d lines, %v", n, err)
	}

	var got []string
	sum, err := Run(context.Background(), []string{plain, zipped, notGzip, missing, truncated, "-"}, nil, nil, &Options{MaxDistance: 6, Memory: memory},
		func(o *Outcome) error {
			if o.Verdict != dedup.Duplicate {
				got = append(got, fmt.Sprintf("%d %d %s %s %v", o.Seq, o.Line, o.Verdict, o.URL, o.Err))
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 1 unique http://a.org/x <nil>",
		"2001 1 unique http://b.org/y <nil>", // urls.gz is not gzip data
		fmt.Sprintf("2002 0 input-failed  %s: open %s: no such file or directory", missing, missing),
		fmt.Sprintf("%d %d input-failed  %s: line %d (byte %d): truncated gzip data: unexpected EOF", 2002+n, n+1, truncated, n+1, len(data)),
		fmt.Sprintf("%d 0 input-failed  stdin: no standard input", 2002+n),
	}
	if !slices.Equal(got, want) {
		t.Errorf("outcomes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	want2 := report.URLSummary{Lines: 2002 + int64(n), URLs: 2002 + int64(n), Unique: 2, Exact: 2000 + int64(n), InputErrors: 3, MaxDistance: 6, Search: "in-memory block index (8 blocks, 28 tables)", Normalizer: defaultNorm, Blocks: 8, Tables: 28}
	if sum.Elapsed = 0; !reflect.DeepEqual(sum, want2) {
		t.Errorf("summary %+v, want %+v", sum, want2)
	}
}

func TestJobID(t *testing.T) {
	// The digest url dedup gave before it moved here (checked with its
	// urlJob), so that its interrupted runs resume.
	if got, want := JobID("urlhash/1-420d1628b36be843", 6, "", nil), "url-e153019ca288cd294b35a86e0542c88d"; got != want {
		t.Errorf("JobID = %q, want %q", got, want)
	}
	path := writeTemp(t, "urls.txt", "http://a.org/\n")
	id := JobID("n", 6, "", []string{path})
	for _, other := range []string{JobID("m", 6, "", []string{path}), JobID("n", 5, "", []string{path}), JobID("n", 6, "url", []string{path}),
		JobID("n", 6, "", []string{path, path}), JobID("n", 6, "", []string{"-"})} {
		if other == id {
			t.Errorf("JobID %q: the same for other settings", id)
		}
	}
	if again := JobID("n", 6, "", []string{path}); again != id {
		t.Errorf("JobID %q, then %q", id, again)
	}
	rel, err := filepath.Rel(".", path)
	if err == nil && JobID("n", 6, "", []string{rel}) != id {
		t.Errorf("JobID of the relative path %s differs", rel)
	}
	if err := os.WriteFile(path, []byte("http://a.org/\nhttp://b.org/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if JobID("n", 6, "", []string{path}) == id {
		t.Error("JobID: the same for a changed input")
	}
	if a, b := JobID("n", 6, "", []string{"-"}), JobID("n", 6, "", []string{"-"}); a == b {
		t.Errorf("JobID of stdin %q twice", a)
	}
}

// TestURLLayouts checks url dedup's help: newURLSearch has a block
// index for every distance up to index.MaxLayoutDistance (LayoutFor's
// blocks), and there is none at all for the distances above, up to 80%.
func TestURLLayouts(t *testing.T) {
	for k := 0; k <= index.MaxLayoutDistance; k++ {
		s, err := newURLSearch(k, memory)
		if err != nil {
			t.Errorf("k=%d: %v", k, err)
			continue
		}
		want := 4
		if k > 3 {
			want = k + 2
		}
		if blocks, _ := s.layout(); blocks != want {
			t.Errorf("k=%d: %d blocks, want %d", k, blocks, want)
		}
		if _, err := s.near(context.Background(), 0); err != nil {
			t.Errorf("k=%d: Near: %v", k, err)
		}
		s.close()
	}
	if s, _ := newURLSearch(3, nil); !isScan(s) {
		t.Errorf("no Memory: newURLSearch = %T, want a scan", s)
	}
	for k := index.MaxLayoutDistance + 1; k <= 12; k++ {
		if s, _ := newURLSearch(k, memory); !isScan(s) {
			t.Errorf("k=%d: newURLSearch = %T, want a scan", k, s)
		}
		for b := k + 1; b <= 64; b++ {
			if _, err := memstore.Open(context.Background(), &index.Options{Blocks: b, MaxDistance: k}); err == nil || !errors.Is(err, index.ErrLayout) {
				t.Errorf("k=%d, %d blocks: NewMemory error %v, want ErrLayout", k, b, err)
			}
		}
	}
}

func isScan(s urlSearch) bool {
	_, ok := s.(*scanSearch)
	return ok
}

// readURLs returns the fingerprints and normalised URLs of the URLs in
// path, skipping those that do not parse.
func readURLs(t testing.TB, path string) ([]simhash.Fingerprint, []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fps []simhash.Fingerprint
	var norms []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p, err := urlhash.Normalize(sc.Text(), nil)
		if err != nil {
			continue
		}
		fps = append(fps, p.Fingerprint())
		norms = append(norms, p.String())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return fps, norms
}

// TestURLSearchAgree runs the greedy dedup of the fixture with the
// block index and with the scan at every distance the index covers:
// both must find the same kept URLs at every step.
func TestURLSearchAgree(t *testing.T) {
	t.Parallel()
	fps, norms := readURLs(t, urlsFixture)
	for k := 0; k <= index.MaxLayoutDistance; k++ {
		idx, err := newURLSearch(k, memory)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := idx.(*memSearch); !ok {
			t.Fatalf("k=%d: newURLSearch = %T, want *memSearch", k, idx)
		}
		scan := &scanSearch{k: k}
		kept, near := 0, 0
		for i, fp := range fps {
			a, err := idx.near(context.Background(), fp)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := scan.near(context.Background(), fp)
			key := func(hs []urlHit) []string {
				var s []string
				for _, h := range hs {
					s = append(s, fmt.Sprintf("%d %s", h.dist, h.kept.norm))
				}
				slices.Sort(s)
				return s
			}
			if !slices.Equal(key(a), key(b)) {
				t.Fatalf("k=%d, URL %d %s: index finds %q, scan %q", k, i, norms[i], key(a), key(b))
			}
			if len(a) > 0 {
				near++
				continue
			}
			u := &keptURL{url: norms[i], norm: norms[i], seq: int64(i)}
			if err := idx.add(context.Background(), fp, u); err != nil {
				t.Fatal(err)
			}
			scan.add(context.Background(), fp, u)
			kept++
		}
		if kept == 0 || (k >= 3 && near == 0) {
			t.Errorf("k=%d: %d kept, %d duplicates: the fixture does not exercise the search", k, kept, near)
		}
	}
	if s, _ := newURLSearch(index.MaxLayoutDistance+1, memory); !isScan(s) {
		t.Errorf("newURLSearch(%d) = %T, want a scan", index.MaxLayoutDistance+1, s)
	}
}

func TestURLField(t *testing.T) {
	tests := []struct {
		line, want, err string
	}{
		{`{"url": "http://a.com/"}`, "http://a.com/", ""},
		{`{"url": "http://a.com/\u0026x"}`, "http://a.com/&x", ""},
		{`{"link": "http://a.com/"}`, "", `no field "url"`},
		{`{"url": 42}`, "", `field "url" is not a string: 42`},
		{`{"url": null}`, "", `field "url" is not a string: null`},
		{`{"url": "x"`, "", "malformed JSON at byte 11: unexpected end of JSON input"},
		{`http://a.com/`, "", "not a JSON object"},
		{`{"url": "a", }`, "", "malformed JSON at byte 14: invalid character '}' looking for beginning of object key string"},
		{`["http://a.com/"]`, "", "not a JSON object"},
	}
	for _, tt := range tests {
		got, err := urlField([]byte(tt.line), "url")
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tt.want || gotErr != tt.err {
			t.Errorf("urlField(%s) = %q, %q; want %q, %q", tt.line, got, gotErr, tt.want, tt.err)
		}
	}
}

func FuzzURLField(f *testing.F) {
	for _, s := range []string{`{"url": "http://a.com/"}`, `{"url": 1}`, `{"url": "x"`, `[]`, `null`, `{"url":"\ud800"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got, err := urlField([]byte(line), "url")
		var obj struct {
			URL *string `json:"url"`
		}
		jerr := json.Unmarshal([]byte(line), &obj)
		if err == nil && (jerr != nil || obj.URL == nil || *obj.URL != got) {
			// Duplicate keys: encoding/json keeps the last in both.
			t.Fatalf("urlField(%q) = %q; json.Unmarshal: %v, %v", line, got, obj.URL, jerr)
		}
	})
}
