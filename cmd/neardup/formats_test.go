package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// formatsDir holds files written by other tools (DuckDB, zstd, wget)
// from the same records as records.jsonl; see its README.md.
var formatsDir = filepath.Join("..", "..", "input", "testdata", "formats")

// pageURL is the prefix of the WARC and WET fixtures' URIs: the page of
// the record with id X is pageURL + X + ".html".
const pageURL = "http://127.0.0.1:18329/"

// TestFormatsSamePairs: each file written by another tool gives the
// pairs, and the counts, of the same records as JSONL (the WARC and
// WET files' IDs are the pages' URLs).
func TestFormatsSamePairs(t *testing.T) {
	t.Parallel()
	dedup := func(file string) (pairs, summary string) {
		t.Helper()
		r := runCLI(t, "dedup", "--segmenter", "gse", "--workers", "2", "--pairs", "-", filepath.Join(formatsDir, file))
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", file, r.code, r.stderr)
		}
		pairs = strings.NewReplacer(`"`+pageURL, `"`, `.html"`, `"`).Replace(r.stdout)
		return pairs, r.stderr
	}
	want, wantSum := dedup("records.jsonl")
	if n := strings.Count(want, "\n"); n != 10 {
		t.Fatalf("records.jsonl: %d pairs, want 10:\n%s", n, want)
	}
	counts := "25 records: 15 unique, 3 exact duplicates, 7 near duplicates, 0 too short, 0 rejected, 0 input errors"
	if !strings.Contains(wantSum, counts) {
		t.Fatalf("records.jsonl: %s", wantSum)
	}
	for _, tt := range []struct {
		file   string
		counts string // in the summary
		note   string // another line of stderr
	}{
		{"records.jsonl.zst", counts, ""},
		{"records.snappy.parquet", counts, ""},
		// 4,175 rows of null text pad the records to three row groups.
		{"records.zstd.parquet", "4,200 records: 15 unique, 3 exact duplicates, 7 near duplicates, 0 too short, 4,175 rejected, 0 input errors",
			`neardup: rejected: input/testdata/formats/records.zstd.parquet: row 2 (row group 1 of 3, row 2): field "text": null`},
		{"pages.warc.gz", counts, "neardup dedup: skipped 33 WARC records that are not pages: 27 request, 2 resource (text/plain), " +
			"1 metadata, 1 response (HTTP 404), 1 response (image/png), 1 warcinfo"},
		{"records.wet.gz", counts, "neardup dedup: skipped 1 WARC record that is not a page: 1 warcinfo"},
	} {
		pairs, sum := dedup(tt.file)
		if pairs != want {
			t.Errorf("%s: pairs\n%s\nwant those of records.jsonl:\n%s", tt.file, pairs, want)
		}
		sum = strings.ReplaceAll(sum, filepath.Join(formatsDir)+"/", "input/testdata/formats/")
		if !strings.Contains(sum, tt.counts) || !strings.Contains(sum, tt.note) {
			t.Errorf("%s: stderr\n%s\nwant %q and %q", tt.file, sum, tt.counts, tt.note)
		}
	}
}

// TestFormatsDamaged: damaged files written by other tools give an error
// naming the file and the place, the records before are processed, and
// the exit status follows the rule of docs/errors.md: 2 for an input
// that cannot be read to its end, 0 for a rejected file (2 with
// --strict).
func TestFormatsDamaged(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file   string
		code   int
		counts string // in the summary
		err    string // a line of stderr, a regular expression
	}{
		{"truncated.parquet", 2, "1 record: 0 unique, 0 exact duplicates, 0 near duplicates, 0 too short, 0 rejected, 1 input error",
			`neardup: input error: \S+/truncated\.parquet: truncated Parquet file: its 3000 bytes do not end with a footer \(PAR1\)`},
		{"bad-type.parquet", 0, "1 record: 0 unique, 0 exact duplicates, 0 near duplicates, 0 too short, 1 rejected, 0 input errors",
			`neardup: rejected: \S+/bad-type\.parquet: field "text": column of type INT64: want a string \(BYTE_ARRAY\) column`},
		{"damaged.warc.gz", 2, "3 records: 1 unique, 0 exact duplicates, 1 near duplicate, 0 too short, 0 rejected, 1 input error",
			`neardup: input error: \S+/damaged\.warc\.gz: record 7 \(byte 5296\): gzip member at byte 3562: flate: corrupt input before offset \d+`},
		{"cut.jsonl.zst", 2, "19 records: 11 unique, 1 exact duplicate, 6 near duplicates, 0 too short, 0 rejected, 1 input error",
			`neardup: input error: \S+/cut\.jsonl\.zst: line 19 \(byte \d+\): truncated zstd data: unexpected EOF`},
	} {
		r := runCLI(t, "dedup", "--segmenter", "gse", "--pairs", "-", filepath.Join(formatsDir, tt.file))
		if r.code != tt.code || !strings.Contains(r.stderr, tt.counts) || !regexp.MustCompile(`(?m)^`+tt.err+`$`).MatchString(r.stderr) {
			t.Errorf("%s: exit %d, stderr\n%s\nwant exit %d, %q and a line matching %s", tt.file, r.code, r.stderr, tt.code, tt.counts, tt.err)
		}
	}
	if r := runCLI(t, "dedup", "--segmenter", "gse", "--strict", "--pairs", "-", filepath.Join(formatsDir, "bad-type.parquet")); r.code != 2 {
		t.Errorf("--strict on a file of the wrong column type: exit %d, want 2: %s", r.code, r.stderr)
	}
}

// TestFormatsURLDedupSkipped: url dedup of wget's WARC reads the target
// URIs of its 25 HTML pages and counts the records it skips by kind, as
// dedup does, in its summary on standard error and in its JSON.
func TestFormatsURLDedupSkipped(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "url", "dedup", "--json", "--pairs", filepath.Join(t.TempDir(), "pairs.jsonl"), filepath.Join(formatsDir, "pages.warc.gz"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"neardup url dedup: 25 lines: 25 URLs, ",
		"neardup url dedup: skipped 33 WARC records that are not pages: 27 request, 2 resource (text/plain), " +
			"1 metadata, 1 response (HTTP 404), 1 response (image/png), 1 warcinfo\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr\n%s\nwant %q", r.stderr, want)
		}
	}
	want := `"resumed":0,"skipped":{"metadata":1,"request":27,"resource (text/plain)":2,"response (HTTP 404)":1,"response (image/png)":1,"warcinfo":1},"pairs":`
	if !strings.Contains(r.stdout, want) {
		t.Errorf("JSON %s\nwant %s", r.stdout, want)
	}
}

// TestFormatsURLDedupDamaged: url dedup of a WARC with a damaged gzip
// member names the record and the member once, keeps the URLs before it
// and exits 2, as dedup does.
func TestFormatsURLDedupDamaged(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "url", "dedup", "--pairs", filepath.Join(t.TempDir(), "pairs.jsonl"), filepath.Join(formatsDir, "damaged.warc.gz"))
	stderr := strings.ReplaceAll(r.stderr, filepath.Join(formatsDir)+"/", "input/testdata/formats/")
	for _, want := range []string{
		"neardup url dedup: input error: input/testdata/formats/damaged.warc.gz: record 7 (byte 5296): gzip member at byte 3562: flate: corrupt input before offset 1\n",
		"neardup url dedup: 2 lines: 2 URLs, 1 kept, 1 duplicate (0 exact: the same normalised URL as an earlier one), 0 blank, 0 rejected, 1 input error\n",
		"neardup url dedup: skipped 4 WARC records that are not pages: 3 request, 1 warcinfo\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr\n%s\nwant %q", stderr, want)
		}
	}
	if r.code != 2 {
		t.Errorf("exit %d, want 2", r.code)
	}
}
