//go:build unix

package main

// Robustness of the command: bad inputs of every kind through
// fingerprint, add, check and dedup; limits; index safety (mismatched
// analyzer or layout, a second process, a read-only directory, a file
// size limit); kill -9 during add and dedup --index; --workers; and the
// memory a 20 MiB article and a 150 MB stream take. The library's side of
// the same inputs is tested in ../../dedup/robust_test.go.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/testfixtures"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/segment"
)

// robustHTML is a page whose script and style hold words that --html
// must drop.
const robustHTML = `<!DOCTYPE html>
<html><head><title>Winter season</title>
<script>var trackingpixel = "zzscriptword analyticsbeacon"; function loadads() { return 1 < 2; }</script>
<style>.zzstyleword { color: red }</style>
</head><body><p>` + testfixtures.EN3 + `</p>
<script type="text/javascript">document.write("<p>zzscriptword</p>");</script>
</body></html>`

func robustWriteFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// robustLines splits output into lines, without the last empty one.
func robustLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// TestRobustWholeFiles runs fingerprint, add, check and dedup over a
// directory holding every kind of bad whole-file input between good
// articles, and checks for each file its message (the same in every
// command), what dedup decides and counts, and that the good articles
// are processed.
func TestRobustWholeFiles(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cut := testfixtures.Gzip(t, strings.Repeat(testfixtures.EN+"\n", 300)+strings.Repeat(testfixtures.ZH+"\n", 300))
	cut = cut[:len(cut)/2]
	in := filepath.Join(tmp, "in")
	robustWriteFiles(t, in, map[string][]byte{
		"a-en.txt":      []byte(testfixtures.EN),
		"b-empty.txt":   nil,
		"c-blank.txt":   []byte(" \r\n\t \n\u3000\n"),
		"d-punct.txt":   []byte("，。！？……——!!! ... --- ??? (*) [#] 《》"),
		"e-stop.txt":    []byte("the and of a to is in it that was for on are with as 的 了 是 在 和 我们 他们 这个 那个"),
		"f-three.txt":   []byte("abc"),
		"g-image.png":   testfixtures.PNG(t),
		"h-archive.zip": testfixtures.Zip(t),
		"i-latin1.txt":  []byte("Caf\xe9 cr\xe8me br\xfbl\xe9e \xe0 la carte, na\xefve r\xe9sum\xe9 \xa9 1999 \xb1 \xbd \xbe"),
		"j-gbk.txt":     []byte(testfixtures.GBK(t, testfixtures.ZH)),
		"k-bom.txt":     []byte("\ufeff" + testfixtures.EN2),
		"l-page.html":   []byte(robustHTML),
		"m-cut.txt.gz":  cut,
		"n-zh.txt":      []byte(testfixtures.ZH),  // j-gbk.txt in UTF-8
		"o-en2.txt":     []byte(testfixtures.EN2), // k-bom.txt without the BOM
	})
	messages := []string{ // in file order
		in + "/b-empty.txt: empty file",
		in + "/c-blank.txt: no text",
		in + "/d-punct.txt: too few keywords to fingerprint: 0 keywords, need 4",
		in + "/e-stop.txt: too few keywords to fingerprint: 0 keywords, need 4",
		in + "/f-three.txt: too few keywords to fingerprint: 1 keyword, need 4",
		in + "/g-image.png: binary data (PNG image)",
		in + "/h-archive.zip: binary data (ZIP archive)",
		in + "/i-latin1.txt: invalid UTF-8 (not GBK/GB18030 either) at byte 3",
		fmt.Sprintf("%s/m-cut.txt.gz: byte %d: truncated gzip data: unexpected EOF", in, testfixtures.GunzipLen(t, cut)),
	}
	var stderr strings.Builder
	for _, m := range messages {
		stderr.WriteString("neardup: " + m + "\n")
	}
	good := []string{"a-en.txt", "j-gbk.txt", "k-bom.txt", "l-page.html", "n-zh.txt", "o-en2.txt"}
	c := cliRun{}

	t.Run("fingerprint", func(t *testing.T) {
		r := c.run(t, "fingerprint", "--json", in)
		// Bad records are reported, not errors; the truncated input is.
		if want := stderr.String() + "neardup: 8 articles not fingerprinted\nneardup: 1 input could not be read to the end; the output covers the records read\n"; r.stderr != want || r.code != 2 {
			t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and:\n%s", r.code, r.stderr, want)
		}
		fps := map[string]string{}
		var ids []string
		for _, j := range robustJSONLines[report.Analysis](t, r.stdout) {
			ids = append(ids, j.ID)
			fps[j.ID] = j.Fingerprint + " " + j.ContentHash
		}
		if !slices.Equal(ids, good) {
			t.Errorf("fingerprinted %q, want %q", ids, good)
		}
		// GBK detected and decoded, BOM dropped: the same analysis as UTF-8.
		if fps["j-gbk.txt"] != fps["n-zh.txt"] || fps["k-bom.txt"] != fps["o-en2.txt"] {
			t.Errorf("GBK %s vs UTF-8 %s; BOM %s vs none %s", fps["j-gbk.txt"], fps["n-zh.txt"], fps["k-bom.txt"], fps["o-en2.txt"])
		}
	})

	t.Run("add and check", func(t *testing.T) {
		idx := filepath.Join(tmp, "idx")
		r := c.run(t, "add", "--index", idx, in)
		// (add reports the records it cannot read at once, and those too
		// short when it analyses their batch: not in input order.)
		gotErr, wantErr := robustLines(r.stderr), robustLines(stderr.String()+"neardup: 8 records not added (see above)\n"+
			"neardup: 1 input could not be read to the end; the records read were added\n")
		slices.Sort(gotErr[:max(0, len(gotErr)-2)])
		slices.Sort(wantErr[:len(wantErr)-2])
		if !slices.Equal(gotErr, wantErr) || r.code != 2 {
			t.Errorf("add: exit %d, stderr:\n%s\nwant exit 2 and:\n%s", r.code, r.stderr, strings.Join(wantErr, "\n"))
		}
		if want := "added 6 documents to " + idx + "; the index holds 6 documents\n"; r.stdout != want {
			t.Errorf("add: stdout %q, want %q", r.stdout, want)
		}
		r = c.run(t, "check", "--index", idx, "--json", in)
		if want := stderr.String() + "neardup: 1 input could not be read to the end; 6 of the articles read had near-duplicates\n"; r.stderr != want || r.code != 2 {
			t.Errorf("check: exit %d, stderr:\n%s\nwant exit 2 and:\n%s", r.code, r.stderr, want)
		}
		var got []string
		unchecked := 0
		for _, j := range robustJSONLines[report.Check](t, r.stdout) {
			if j.Error != "" {
				unchecked++ // each reported in its place, as on stderr
				continue
			}
			s := j.ID + ":"
			for _, m := range j.Matches {
				s += " " + m.ID
			}
			got = append(got, s)
		}
		// Each article finds its copy in the other encoding, never itself.
		want := []string{"a-en.txt:", "j-gbk.txt: n-zh.txt", "k-bom.txt: o-en2.txt", "l-page.html:", "n-zh.txt: j-gbk.txt", "o-en2.txt: k-bom.txt"}
		if !slices.Equal(got, want) || unchecked != 9 {
			t.Errorf("check found %q and %d not checked, want %q and 9", got, unchecked, want)
		}
	})

	t.Run("dedup", func(t *testing.T) {
		out := filepath.Join(tmp, "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		r := c.run(t, "dedup", "--json", in, "--pairs", filepath.Join(out, "pairs"), "--unique", filepath.Join(out, "unique"), "--rejects", filepath.Join(out, "rejects"))
		if r.code != 2 || !strings.HasSuffix(r.stderr, "neardup: 1 input could not be read to the end; the outputs cover the records read\n") {
			t.Errorf("exit %d, want 2 for the truncated file:\n%s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "neardup dedup: 15 records: 4 unique, 2 exact duplicates, 0 near duplicates, 3 too short, 5 rejected, 1 input error\n") {
			t.Errorf("summary line:\n%s", r.stderr)
		}
		want := robustCounts{Records: 15, Unique: 4, Exact: 2, TooShort: 3, Rejected: 5, InputErrors: 1}
		if got := robustCountsOf(robustSummary(t, r)); got != want {
			t.Errorf("summary %+v, want %+v", got, want)
		}
		var rejects []string
		for _, j := range robustJSONLines[input.Reject](t, readFile(t, filepath.Join(out, "rejects"))) {
			rejects = append(rejects, j.Source+": "+j.Reason)
		}
		// (An input error's reason has no byte offset: the file stops
		// being read there.)
		wantRejects := []string{messages[0], messages[1], messages[5], messages[6], messages[7], in + "/m-cut.txt.gz: truncated gzip data: unexpected EOF"}
		if !slices.Equal(rejects, wantRejects) {
			t.Errorf("rejects %q, want %q", rejects, wantRejects)
		}
		var pairs []string
		for _, p := range robustJSONLines[dedup.Pair](t, readFile(t, filepath.Join(out, "pairs"))) {
			pairs = append(pairs, fmt.Sprintf("%s %s %t", p.A, p.B, p.Exact))
		}
		if want := []string{"j-gbk.txt n-zh.txt true", "k-bom.txt o-en2.txt true"}; !slices.Equal(pairs, want) {
			t.Errorf("pairs %q, want %q", pairs, want)
		}
		// Too-short articles are passed through to --unique with the
		// originals; the page is text without --html.
		var unique []string
		for _, u := range robustJSONLines[dedup.UniqueArticle](t, readFile(t, filepath.Join(out, "unique"))) {
			unique = append(unique, u.ID)
			if u.ID == "k-bom.txt" && u.Text != testfixtures.EN2 {
				t.Errorf("k-bom.txt: text %q keeps the byte-order mark", u.Text)
			}
			if u.ID == "l-page.html" && !strings.Contains(u.Text, "zzscriptword") {
				t.Errorf("l-page.html without --html: the script is gone")
			}
		}
		if want := []string{"a-en.txt", "d-punct.txt", "e-stop.txt", "f-three.txt", "j-gbk.txt", "k-bom.txt", "l-page.html"}; !slices.Equal(unique, want) {
			t.Errorf("unique %q, want %q", unique, want)
		}
	})

	t.Run("html", func(t *testing.T) {
		r := c.run(t, "fingerprint", "--json", "--html", filepath.Join(in, "l-page.html"), filepath.Join(in, "a-en.txt"))
		js := robustJSONLines[report.Analysis](t, r.stdout)
		if r.code != 0 || len(js) != 2 {
			t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
		if js[0].Title != "Winter season" {
			t.Errorf("title %q", js[0].Title)
		}
		for _, k := range js[0].Keywords {
			if strings.HasPrefix(k.Word, "zz") || k.Word == "trackingpixel" || k.Word == "loadads" {
				t.Errorf("--html: script or style word %q is a keyword", k.Word)
			}
		}
		r = c.run(t, "fingerprint", "--json", "--html", "-")
		if r.code != 0 || r.stderr != "neardup: stdin: empty file\nneardup: 1 article not fingerprinted\n" {
			t.Errorf("--html, empty stdin: exit %d: %s", r.code, r.stderr)
		}
		r = cliRun{stdin: "<html><script>var a = 1;</script><style>p{}</style></html>"}.run(t, "dedup", "--html", "--json", "-")
		if r.code != 0 || robustCountsOf(robustSummary(t, r)) != (robustCounts{Records: 1, Rejected: 1}) ||
			!strings.Contains(r.stderr, "neardup: rejected: stdin: no text\n") {
			t.Errorf("--html, a page of scripts only: exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("forced encoding", func(t *testing.T) {
		r := c.run(t, "fingerprint", "--encoding", "utf-8", filepath.Join(in, "j-gbk.txt"))
		if r.code != 0 || r.stderr != "neardup: "+in+"/j-gbk.txt: invalid UTF-8 at byte 0\nneardup: 1 article not fingerprinted\n" {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
		r = c.run(t, "fingerprint", "--encoding", "gbk", filepath.Join(in, "n-zh.txt"))
		if r.code != 0 || !strings.HasPrefix(r.stderr, "neardup: "+in+"/n-zh.txt: invalid GBK at byte ") {
			t.Errorf("UTF-8 read as GBK: exit %d: %s", r.code, r.stderr)
		}
		r = c.run(t, "fingerprint", "--encoding", "latin1", filepath.Join(in, "n-zh.txt"))
		if r.code != 2 || !strings.Contains(r.stderr, `unknown encoding "latin1"`) {
			t.Errorf("unknown encoding: exit %d: %s", r.code, r.stderr)
		}
	})

	t.Run("stdin", func(t *testing.T) {
		r := cliRun{stdin: string(testfixtures.PNG(t))}.run(t, "fingerprint", "-")
		if r.code != 0 || r.stderr != "neardup: stdin: binary data (PNG image)\nneardup: 1 article not fingerprinted\n" {
			t.Errorf("PNG on stdin: exit %d: %s", r.code, r.stderr)
		}
	})
}

// TestRobustJSONL runs fingerprint, add, check and dedup over a JSONL file
// holding every kind of bad line between good ones.
func TestRobustJSONL(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	longID := strings.Repeat("x", 1<<20)
	type line struct {
		text string
		err  string // the message about the line, "" for a good one
	}
	ls := []line{
		{"\ufeff" + testfixtures.JSONLine("en", testfixtures.EN), ""}, // a BOM starts the stream
		{`{"id":"m1","text":"unterminated`, `in.jsonl:2: malformed JSON at byte 31: unexpected end of line in string`},
		{`{"id":"m2","text":"trailing comma",}`, `in.jsonl:3: malformed JSON at byte 35: unexpected '}' looking for an object key`},
		{`[1, 2, 3]`, `in.jsonl:4: not a JSON object (array)`},
		{``, ""}, // blank: skipped
		{`{"id":"n1","text":42}`, `in.jsonl:6: field "text": not a string (number)`},
		{`{"id":"n2","title":"no text"}`, `in.jsonl:7: field "text": missing`},
		{`{"id":"n3","text":null}`, `in.jsonl:8: field "text": not a string (null)`},
		{testfixtures.JSONLine("dup", testfixtures.EN2), ""},
		{testfixtures.JSONLine("dup", testfixtures.ZH2), `in.jsonl:10: field "id": duplicate id "dup": an earlier article has it (record 8 of this input)`},
		{testfixtures.JSONLine("line\nbreak", testfixtures.ZH), ""},
		{testfixtures.JSONLine("a/b/../c", testfixtures.EN3), ""},
		{"{\"id\":\"u1\",\"text\":\"Prices rose \xff\xfe sharply\"}", `in.jsonl:13: invalid UTF-8 (not GBK/GB18030 either) at byte 31 of the line`},
		{testfixtures.GBK(t, testfixtures.JSONLine("gbk", testfixtures.ZH)), ""}, // exact duplicate of line\nbreak
		{"\ufeff" + testfixtures.JSONLine("bom2", testfixtures.ZH2), ""},         // a BOM starts a later line: files joined with cat
		{testfixtures.JSONLine("short", "abc def"), ""},
		{testfixtures.JSONLine(longID, testfixtures.ZH2+" 第二版。"), `in.jsonl:17: field "id": `},
		{testfixtures.JSONLine("last", testfixtures.ZH2), ""},
	}
	var in strings.Builder
	for _, l := range ls {
		in.WriteString(l.text + "\n")
	}
	robustWriteFiles(t, tmp, map[string][]byte{"in.jsonl": []byte(in.String())})
	// The messages above name the input in.jsonl as given: its path in tmp.
	src := filepath.Join(tmp, "in.jsonl")
	c := cliRun{}

	t.Run("dedup", func(t *testing.T) {
		r := c.run(t, "dedup", "--json", src, "--pairs", filepath.Join(tmp, "pairs"), "--rejects", filepath.Join(tmp, "rejects"), "--unique", filepath.Join(tmp, "unique"))
		if r.code != 0 {
			t.Fatalf("exit %d, want 0 (bad records do not fail a run): %s", r.code, r.stderr)
		}
		// 17 records: en, dup, line\nbreak, a/b/../c, last unique; gbk and
		// bom2 exact duplicates; short too short; 9 rejected.
		want := robustCounts{Records: 17, Unique: 5, Exact: 2, TooShort: 1, Rejected: 9}
		if got := robustCountsOf(robustSummary(t, r)); got != want {
			t.Errorf("summary %+v, want %+v", got, want)
		}
		rejects := robustJSONLines[input.Reject](t, readFile(t, filepath.Join(tmp, "rejects")))
		var wantErrs []line
		for _, l := range ls {
			if l.err != "" {
				wantErrs = append(wantErrs, l)
			}
		}
		if len(rejects) != len(wantErrs) {
			t.Fatalf("%d rejects, want %d:\n%s", len(rejects), len(wantErrs), readFile(t, filepath.Join(tmp, "rejects")))
		}
		for i, j := range rejects {
			msg := fmt.Sprintf("%s:%d: ", j.Source, j.Line)
			if j.Field != "" {
				msg += fmt.Sprintf("field %q: ", j.Field)
			}
			msg += j.Reason
			if !strings.HasPrefix(msg, tmp+"/"+wantErrs[i].err) {
				t.Errorf("reject %d: %.200q, want %q…", i, msg, tmp+"/"+wantErrs[i].err)
			}
			// The raw line is kept, in base64 too when it is not UTF-8.
			if raw := wantErrs[i].text; utf8.ValidString(raw) && j.Raw != raw || !utf8.ValidString(raw) && j.RawBase64 != base64.StdEncoding.EncodeToString([]byte(raw)) {
				t.Errorf("reject %d: raw %.100q (base64 %.100q), want %.100q", i, j.Raw, j.RawBase64, raw)
			}
		}
		pairs := robustJSONLines[dedup.Pair](t, readFile(t, filepath.Join(tmp, "pairs")))
		if len(pairs) != 2 || pairs[0].A != "line\nbreak" || pairs[0].B != "gbk" || !pairs[0].Exact ||
			pairs[1].A != "bom2" || pairs[1].B != "last" || !pairs[1].Exact {
			t.Errorf("pairs: %+v", pairs)
		}
		// Unique lines are copied verbatim but for a leading BOM (the GBK
		// one and the last are duplicates).
		if want := []string{ls[0].text[len("\ufeff"):], ls[8].text, ls[10].text, ls[11].text, ls[14].text[len("\ufeff"):], ls[15].text}; !slices.Equal(robustLines(readFile(t, filepath.Join(tmp, "unique"))), want) {
			t.Errorf("unique:\n%.500s", readFile(t, filepath.Join(tmp, "unique")))
		}
	})

	t.Run("fingerprint", func(t *testing.T) {
		r := c.run(t, "fingerprint", "--strict", src)
		if want := "neardup: --strict: " + src + ":2: malformed JSON at byte 31: unexpected end of line in string\n"; r.code != 2 || r.stderr != want {
			t.Errorf("--strict: exit %d: %q, want exit 2 and %q", r.code, r.stderr, want)
		}
		r = c.run(t, "fingerprint", src)
		if r.code != 0 || !strings.HasSuffix(r.stderr, "neardup: 8 articles not fingerprinted\n") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
		// The same messages as dedup's (duplicate ids are no error here);
		// text output quotes an id with a newline.
		for _, l := range ls {
			if l.err != "" && !strings.Contains(l.err, "duplicate id") && !strings.Contains(l.err, `field "id"`) && !strings.Contains(r.stderr, "neardup: "+tmp+"/"+l.err) {
				t.Errorf("stderr lacks %q:\n%s", l.err, r.stderr)
			}
		}
		if !strings.Contains(r.stderr, "neardup: "+src+`:16 (id short): too few keywords to fingerprint: 2 keywords, need 4`) ||
			!strings.Contains(r.stdout, `  "line\nbreak"`+"\n") || !strings.Contains(r.stdout, "  "+longID[:117]+"...\n") {
			t.Errorf("stdout:\n%.2000s\nstderr:\n%s", r.stdout, r.stderr)
		}
	})

	t.Run("add", func(t *testing.T) {
		idx := filepath.Join(tmp, "idx")
		r := c.run(t, "add", "--index", idx, src)
		want := "neardup: " + src + ":17 (id " + longID[:117] + "...): id is 1048576 bytes long; an index holds ids of at most 64000\n"
		if r.code != 0 || !strings.Contains(r.stderr, want) || !strings.HasSuffix(r.stderr, "neardup: 9 records not added (see above)\n") {
			t.Errorf("exit %d, stderr:\n%.3000s", r.code, r.stderr)
		}
		// The second "dup" replaces the first: add does not look for
		// duplicates.
		if want := "added 8 documents to " + idx + " (1 replaced a document with the same id); the index holds 7 documents\n"; r.stdout != want {
			t.Errorf("stdout %q, want %q", r.stdout, want)
		}
	})
}

// TestRobustTruncatedGzipJSONL: dedup processes the records before the
// cut of a truncated .jsonl.gz, reports the cut with its line, goes on
// with the next input, writes its outputs and exits with status 2.
func TestRobustTruncatedGzipJSONL(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	var in strings.Builder
	for i := range 300 {
		in.WriteString(testfixtures.JSONLine(fmt.Sprintf("r%03d", i), fmt.Sprintf("%s Record %d of %d, %x.", testfixtures.EN, i, i*i, i*7919)) + "\n")
	}
	gz := testfixtures.Gzip(t, in.String())
	robustWriteFiles(t, tmp, map[string][]byte{"cut.jsonl.gz": gz[:len(gz)*2/3], "next.jsonl": []byte(testfixtures.JSONLine("next", testfixtures.ZH) + "\n")})
	cut := filepath.Join(tmp, "cut.jsonl.gz")
	r := runCLI(t, "dedup", "--json", cut, filepath.Join(tmp, "next.jsonl"), "--unique", filepath.Join(tmp, "unique"), "--rejects", filepath.Join(tmp, "rejects"))
	if r.code != 2 || !strings.HasSuffix(r.stderr, "neardup: 1 input could not be read to the end; the outputs cover the records read\n") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	sum := robustCountsOf(robustSummary(t, r))
	n := sum.Records - 2 // records before the cut
	if n < 10 || n >= 299 || sum.InputErrors != 1 || sum.Unique+sum.Exact+sum.Near != n+1 {
		t.Errorf("summary %+v", sum)
	}
	rejects := robustJSONLines[input.Reject](t, readFile(t, filepath.Join(tmp, "rejects")))
	if len(rejects) != 1 || rejects[0].Source != cut || rejects[0].Line != int(n+1) || rejects[0].Reason != "truncated gzip data: unexpected EOF" {
		t.Errorf("rejects: %+v, want line %d", rejects, n+1)
	}
	if u := robustLines(readFile(t, filepath.Join(tmp, "unique"))); len(u) == 0 || u[0] != testfixtures.JSONLine("r000", testfixtures.EN+" Record 0 of 0, 0.") || u[len(u)-1] != testfixtures.JSONLine("next", testfixtures.ZH) {
		t.Errorf("unique: first and last of %d robustLines are not r000 and next", len(u))
	}
	r = runCLI(t, "fingerprint", cut)
	if !regexp.MustCompile(`neardup: `+regexp.QuoteMeta(cut)+`: line \d+ \(byte \d+\): truncated gzip data: unexpected EOF\nneardup: 1 input could not be read to the end; the output covers the records read\n$`).MatchString(r.stderr) || r.code != 2 {
		t.Errorf("fingerprint: exit %d: %s", r.code, r.stderr)
	}
}

// TestRobustDuplicateIDsAcrossRuns: rerunning dedup --index on the same
// input says the run had finished (nothing changes); another input with
// the same ids and texts (another job) reports them as archived, with
// their verdicts then, in --unique, and rejects none (issue #19 item 2:
// before, each was rejected as a duplicate id and in no output).
func TestRobustDuplicateIDsAcrossRuns(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := testfixtures.JSONLine("a", testfixtures.EN) + "\n" + testfixtures.JSONLine("b", testfixtures.ZH) + "\n"
	robustWriteFiles(t, tmp, map[string][]byte{"in.jsonl": []byte(in), "again.jsonl": []byte(in)})
	at := func(name string) string { return filepath.Join(tmp, name) }
	c := cliRun{}
	r := c.run(t, "dedup", "--json", "--index", at("idx"), at("in.jsonl"), "--unique", at("u1"))
	if r.code != 0 || robustCountsOf(robustSummary(t, r)) != (robustCounts{Records: 2, Unique: 2}) {
		t.Fatalf("first run: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	r = c.run(t, "dedup", "--json", "--index", at("idx"), at("in.jsonl"), "--unique", at("u2"))
	if r.code != 0 || robustCountsOf(robustSummary(t, r)) != (robustCounts{Records: 2, Unique: 2, Resumed: 2}) || readFile(t, filepath.Join(tmp, "u2")) != in ||
		!strings.Contains(r.stderr, "this run had finished before: all 2 records were already in the index") {
		t.Errorf("same run again: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	r = c.run(t, "dedup", "--json", "--index", at("idx"), at("again.jsonl"), "--rejects", at("rejects"), "--unique", at("u3"))
	if s := robustSummary(t, r); r.code != 0 || robustCountsOf(s) != (robustCounts{Records: 2, Unique: 2}) || s.Archived != 2 ||
		readFile(t, at("u3")) != in || readFile(t, at("rejects")) != "" ||
		!strings.Contains(r.stderr, "2 records were already in the index from earlier runs, reported with their verdicts then") {
		t.Errorf("another input: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

// TestRobustLimits: --max-bytes and --max-line reject the articles and
// lines over them with clear errors, and bad values are usage errors.
func TestRobustLimits(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	big := strings.Repeat(testfixtures.EN2+" ", 20)
	in := testfixtures.JSONLine("a", testfixtures.EN) + "\n" + testfixtures.JSONLine("big", big) + "\n" + testfixtures.JSONLine("b", testfixtures.ZH) + "\n"
	robustWriteFiles(t, tmp, map[string][]byte{"in.jsonl": []byte(in), "big.txt": []byte(big)})
	src, bigTxt := filepath.Join(tmp, "in.jsonl"), filepath.Join(tmp, "big.txt")
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--max-bytes", "2000"}, 0, fmt.Sprintf(`neardup: rejected: %s:2: field "text": too large: %d bytes (maximum 2000, --max-bytes)`, src, len(big))},
		{[]string{"--max-line", "2000"}, 0, "neardup: rejected: " + src + ":2: line too long: more than 2000 bytes"},
		{[]string{"--max-bytes", "2000", bigTxt}, 0, fmt.Sprintf("neardup: rejected: %s: too large: %d bytes (maximum 2000, --max-bytes)", bigTxt, len(big))},
		{[]string{"--max-bytes", "-1"}, 2, "neardup dedup: maximum article size -1: must not be negative"},
		{[]string{"--max-line", "-5"}, 2, "neardup dedup: maximum line length -5: must not be negative"},
	}
	for _, tt := range tests {
		r := runCLI(t, append([]string{"dedup", src}, tt.args...)...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr+"\n") {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit %d and %q", tt.args, r.code, r.stderr, tt.code, tt.stderr)
		}
	}
}

// TestRobustLargeArticle: a generated 20 MiB article is "too large" with
// the default 16 MiB limit, as a file and as a JSONL line on stdin (longer
// than the line limit, 17 MiB), and is processed with --max-bytes raised.
// It logs the peak memory of each run.
func TestRobustLargeArticle(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: fingerprints a 20 MiB article")
	}
	t.Parallel()
	tmp := t.TempDir()
	pool := robustPool(t)
	rng := rand.New(rand.NewPCG(50, 50))
	var b strings.Builder
	const size = 20 << 20
	for b.Len() < size {
		b.WriteString(pool[rng.IntN(len(pool))])
		b.WriteByte('\n')
	}
	text := b.String()[:size]
	text = strings.ToValidUTF8(text, "") // cut at a rune boundary
	path := filepath.Join(tmp, "big.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := robustCmd{dir: tmp}

	r, rss := c.runRusage(t, "fingerprint", "big.txt")
	if want := fmt.Sprintf("neardup: big.txt: too large: %d bytes (maximum 16777216, --max-bytes)\nneardup: 1 article not fingerprinted\n", len(text)); r.code != 0 || r.stderr != want {
		t.Errorf("default limit: exit %d: %q, want %q", r.code, r.stderr, want)
	}
	t.Logf("20 MiB file, default --max-bytes: rejected, peak RSS %s", robustMiB(rss))

	// As a JSONL line on stdin, generated on the fly: the line limit
	// (max-bytes + 1 MiB) comes first, and the line is skipped without
	// being held.
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, testfixtures.JSONLine("a", testfixtures.EN)+"\n")
		pw.CloseWithError(json.NewEncoder(pw).Encode(map[string]string{"id": "big", "text": text}))
	}()
	r, rss = robustCmd{dir: tmp, stdin: pr}.runRusage(t, "dedup", "--json", "-")
	if r.code != 0 || robustCountsOf(robustSummary(t, r)) != (robustCounts{Records: 2, Unique: 1, Rejected: 1}) ||
		!strings.Contains(r.stderr, "neardup: rejected: stdin:2: line too long: more than 17825792 bytes\n") {
		t.Errorf("JSONL on stdin: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("20 MiB JSONL line on stdin, default limits: rejected, peak RSS %s", robustMiB(rss))

	r, rss = c.runRusage(t, "dedup", "--json", "--max-bytes", "30000000", "big.txt", "--unique", "unique")
	if r.code != 0 || robustCountsOf(robustSummary(t, r)) != (robustCounts{Records: 1, Unique: 1}) {
		t.Errorf("--max-bytes 30000000: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if fi, err := os.Stat(filepath.Join(tmp, "unique")); err != nil || fi.Size() < int64(len(text)) {
		t.Errorf("--unique: %v", err)
	}
	t.Logf("20 MiB file, --max-bytes 30000000: processed, peak RSS %s", robustMiB(rss))
	if rss > 1200<<20 {
		t.Errorf("peak RSS %s for a 20 MiB article", robustMiB(rss))
	}
}

// TestRobustStream pipes a 150 MB JSONL stream, generated on the fly and
// never stored, into dedup's standard input, and checks that its memory
// stays bounded: the peak resident set grows by less than 64 MiB over the
// last 100 MB (all 2,000 originals are in by the first 50), where a run
// that kept what it read would grow by about as much as it read. It
// checks too that dedup finds what the stream holds: the originals,
// exact and near copies of them, and a malformed line every 997.
func TestRobustStream(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: deduplicates a 150 MB stream")
	}
	t.Parallel()
	tmp := t.TempDir()
	const first, rest = 50 << 20, 100 << 20
	s := newRobustStream(t, 500, 2000)
	cmd := robustCmd{dir: tmp}.command("dedup", "--json", "--workers", "2", "--pairs", "pairs", "--clusters", "clusters", "-")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peak := robustWatchRSS(cmd.Process.Pid)
	werr := make(chan error, 1)
	var mid int64 // the peak once the first part is written (and, but for the pipe's buffers, read)
	go func() {
		err := s.writeTo(stdin, first)
		mid = robustHWM(cmd.Process.Pid)
		if err == nil {
			err = s.writeTo(stdin, rest)
		}
		stdin.Close()
		werr <- err
	}()
	err = cmd.Wait()
	if err := <-werr; err != nil {
		t.Errorf("writing the stream: %v", err)
	}
	rss := peak()
	r := robustResult(t, cmd, err, &out, &errb)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := robustSummary(t, r)
	if robustCountsOf(got) != s.want {
		t.Errorf("summary %+v, want %+v", robustCountsOf(got), s.want)
	}
	if s.want.Unique != 2000 {
		t.Errorf("%d originals in the stream, want 2,000", s.want.Unique)
	}
	t.Logf("150 MB stream: %d records (%d bytes of text) in %v (CPU %v); peak RSS %s after 50 MB, %s at the end", got.Records, got.Bytes,
		time.Since(start).Round(time.Second), (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Round(time.Second), robustMiB(mid), robustMiB(rss))
	if mid <= 0 || rss <= 0 || rss-mid >= 64<<20 {
		t.Errorf("peak RSS %s after 50 MB, %s after 150 MB: want less than 64 MiB more", robustMiB(mid), robustMiB(rss))
	}
}

// TestRobustIndexMismatch: an index refuses another analyzer and a
// distance beyond its layout, with messages that say what to do.
func TestRobustIndexMismatch(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	robustWriteFiles(t, tmp, map[string][]byte{"a.txt": []byte(testfixtures.EN), "b.txt": []byte(testfixtures.EN2)})
	idx, a, b := filepath.Join(tmp, "idx"), filepath.Join(tmp, "a.txt"), filepath.Join(tmp, "b.txt")
	c := cliRun{}
	if r := c.run(t, "add", "--index", idx, a); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	hint := "(an index answers only queries made with the analyzer settings it was built with: the same --segmenter, --idf, --stopwords, --user-dict, --top-n, --compat and --keep-traditional)\n"
	mismatch := regexp.MustCompile(`^neardup: index: ` + regexp.QuoteMeta(idx) + `: index options do not match the index: the index was built with analyzer "nd2-(jieba|gse)-t2s-[0-9a-f]{16}"; the options ask for "nd2-(jieba|gse)-t2s-[0-9a-f]{16}"\n`)
	// The second line names the settings that differ (issue 19 item 9).
	topN := regexp.MustCompile(`\nsettings that differ: --idf, --stopwords, --user-dict or --top-n, or the neardup version that built the index \(the hash of the dictionaries, stop words, keyword rule and traditional-Chinese fold: index [0-9a-f]{16}; options [0-9a-f]{16}\)\n`)
	tests := []struct {
		args []string
		diff *regexp.Regexp
	}{
		{[]string{"add", "--index", idx, "--top-n", "5", b}, topN},
		{[]string{"check", "--index", idx, "--top-n", "5", b}, topN},
		{[]string{"dedup", "--index", idx, "--top-n", "5", b}, topN},
	}
	if slices.Contains(segment.Backends(), segment.BackendJieba) && segment.DefaultBackend == segment.BackendJieba {
		tests = append(tests, struct {
			args []string
			diff *regexp.Regexp
		}{[]string{"add", "--index", idx, "--segmenter", "gse", b}, regexp.MustCompile(`\nsettings that differ: --segmenter \(index jieba; options gse\)\n`)})
	}
	for _, tt := range tests {
		r := c.run(t, tt.args...)
		if r.code != 2 || !mismatch.MatchString(r.stderr) || !tt.diff.MatchString(r.stderr) || !strings.HasSuffix(r.stderr, hint) {
			t.Errorf("%q: exit %d, stderr:\n%s", tt.args, r.code, r.stderr)
		}
	}
	// An index built without the fold of traditional Chinese (as by
	// neardup before it) is answered with --keep-traditional, and the
	// refusal without it says how to rebuild it.
	old := filepath.Join(tmp, "old")
	if r := c.run(t, "add", "--index", old, "--keep-traditional", a); r.code != 0 {
		t.Fatalf("add --keep-traditional: exit %d: %s", r.code, r.stderr)
	}
	if r := c.run(t, "check", "--index", old, "--keep-traditional", b); r.code != 0 {
		t.Errorf("check --keep-traditional: exit %d: %s", r.code, r.stderr)
	}
	oldHint := hint + "(this index was built without folding traditional Chinese to simplified, as neardup did before it folded by default: " +
		"to match traditional and simplified copies, build a new index from the same inputs with 'neardup add --index NEWDIR INPUT...' and use it instead; " +
		"to query this one as it was built, add --keep-traditional)\n"
	oldMismatch := regexp.MustCompile(`^neardup: index: ` + regexp.QuoteMeta(old) + `: index options do not match the index: the index was built with analyzer "nd2-(jieba|gse)-[0-9a-f]{16}"; the options ask for "nd2-(jieba|gse)-t2s-[0-9a-f]{16}"\n`)
	for _, args := range [][]string{{"check", "--index", old, b}, {"add", "--index", old, b}} {
		if r := c.run(t, args...); r.code != 2 || !oldMismatch.MatchString(r.stderr) || !strings.HasSuffix(r.stderr, oldHint) ||
			!strings.Contains(r.stderr, "\nsettings that differ: --keep-traditional (index keeps it; options folds traditional Chinese)\n") {
			t.Errorf("%q: exit %d, stderr:\n%s", args, r.code, r.stderr)
		}
	}
	layout := "neardup: index " + idx + " answers distances up to 3, not --max-distance 6 (its layout is fixed when it is created: create a new index with --max-distance 6)\n"
	for _, args := range [][]string{{"add", "--index", idx, "--max-distance", "6", b}, {"check", "--index", idx, "-k", "6", b}} {
		if r := c.run(t, args...); r.code != 2 || r.stderr != layout {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant:\n%s", args, r.code, r.stderr, layout)
		}
	}
	// Nothing was added by the refused commands.
	if r := c.run(t, "stats", "--index", idx, "--json"); r.code != 0 || !strings.Contains(r.stdout, `"docs":1,`) {
		t.Errorf("stats: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	// Not an index at all.
	robustWriteFiles(t, filepath.Join(tmp, "notidx"), map[string][]byte{"notes.txt": []byte("hello")})
	if r := c.run(t, "stats", "--index", filepath.Join(tmp, "notidx")); r.code != 2 || !strings.HasPrefix(r.stderr, "neardup: ") || !strings.Contains(r.stderr, "notidx") {
		t.Errorf("stats of a directory that is not an index: exit %d: %s", r.code, r.stderr)
	}
}

// TestRobustIndexInUse: while dedup --index holds an index (reading a
// pipe this test keeps open), add, check and stats on it fail with exit
// status 2 and say it is in use; once it ends, they work. The holder is a
// process of its own; the others run in this one, another process.
func TestRobustIndexInUse(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	robustWriteFiles(t, tmp, map[string][]byte{"a.txt": []byte(testfixtures.EN)})
	idx := filepath.Join(tmp, "idx")
	holder := robustCmd{dir: tmp}.command("dedup", "--json", "--index", idx, "-")
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var hout, herr bytes.Buffer
	holder.Stdout, holder.Stderr = &hout, &herr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	// Badger writes its pid to LOCK once it holds the directory lock.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(idx, "LOCK")); err == nil && len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dedup --index did not open the index: %s", herr.String())
		}
	}
	io.WriteString(stdin, testfixtures.JSONLine("held", testfixtures.EN2)+"\n")
	a := filepath.Join(tmp, "a.txt")
	want := "neardup: index is in use by another process: " + idx + "\n"
	for _, a := range [][]string{{"add", "--index", idx, a}, {"check", "--index", idx, a}, {"stats", "--index", idx},
		{"dedup", "--index", idx, a}, {"delete", "--index", idx, "held"}} {
		if r := runCLI(t, a...); r.code != 2 || r.stderr != want {
			t.Errorf("%q while dedup holds the index: exit %d, stderr %q, want %q", a, r.code, r.stderr, want)
		}
	}
	stdin.Close()
	if err := holder.Wait(); err != nil {
		t.Fatalf("the holding dedup: %v: %s", err, herr.String())
	}
	if r := runCLI(t, "add", "--index", idx, a); r.code != 0 || !strings.Contains(r.stdout, "the index holds 2 documents") {
		t.Errorf("add after the holder ended: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

// TestRobustReadOnlyIndex: in a directory the user cannot write, add
// fails naming the directory, and the read-only commands (stats, check)
// work. Root ignores permission bits, so as root the commands run as
// user nobody.
func TestRobustReadOnlyIndex(t *testing.T) {
	t.Parallel()
	c := robustCmd{}
	var tmp string
	if os.Geteuid() == 0 {
		bin, dir := robustPublicCopy(t)
		c = robustCmd{bin: bin, cred: &syscall.Credential{Uid: 65534, Gid: 65534},
			env: []string{"HOME=" + dir, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}}
		tmp = dir
	} else {
		tmp = t.TempDir()
	}
	c.dir = tmp
	robustWriteFiles(t, tmp, map[string][]byte{"a.txt": []byte(testfixtures.EN), "b.txt": []byte(testfixtures.EN + " Markets rallied.")})
	if err := os.MkdirAll(filepath.Join(tmp, "cache"), 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(tmp, "cache"), 0o777)
	idx := filepath.Join(tmp, "idx")
	// Built by its owner, the user that then cannot write to it.
	if r := c.run(t, "add", "--index", idx, "a.txt"); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	if err := os.Chmod(idx, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(idx, 0o755)
	r := c.run(t, "add", "--index", idx, "b.txt")
	if r.code != 2 || !strings.HasPrefix(r.stderr, "neardup: index: "+idx+" is not writable: open "+idx+"/.neardup-probe-") ||
		!strings.HasSuffix(r.stderr, ": permission denied\n") {
		t.Errorf("add to a read-only directory: exit %d: %s", r.code, r.stderr)
	}
	if r := c.run(t, "stats", "--index", idx, "--json"); r.code != 0 || !strings.Contains(r.stdout, `"docs":1,`) {
		t.Errorf("stats of a read-only directory: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if r := c.run(t, "check", "--index", idx, "b.txt"); r.code != 1 || !strings.Contains(r.stdout, "near duplicate   a.txt") {
		t.Errorf("check in a read-only directory: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if r := c.run(t, "check", "--add", "--index", idx, "b.txt"); r.code != 2 || !strings.Contains(r.stderr, "is not writable") {
		t.Errorf("check --add in a read-only directory: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

// TestRobustFileSizeLimit runs add under a 1 MiB file size limit (ulimit
// -f), as on a file system that cannot grow a file: Badger cannot
// preallocate its log, and add must fail with a clear error and leave the
// index as it was, opening afterwards with every document added before.
// (Only the run under the limit needs a process of its own.)
func TestRobustFileSizeLimit(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	robustWriteFiles(t, tmp, map[string][]byte{"a.txt": []byte(testfixtures.EN), "b.txt": []byte(testfixtures.ZH), "c.txt": []byte(testfixtures.EN2)})
	at := func(name string) string { return filepath.Join(tmp, name) }
	if r := runCLI(t, "add", "--index", at("idx"), at("a.txt"), at("b.txt")); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	r := robustCmd{dir: tmp, fsize: 2048}.run(t, "add", "--index", "idx", "c.txt")
	if r.code != 2 || !strings.HasPrefix(r.stderr, "neardup: index: open idx: ") || !strings.Contains(r.stderr, "file too large") {
		t.Errorf("add under ulimit -f: exit %d: %s", r.code, r.stderr)
	}
	if r := runCLI(t, "stats", "--index", at("idx"), "--json"); r.code != 0 || !strings.Contains(r.stdout, `"docs":2,`) {
		t.Errorf("stats after the failed add: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "add", "--index", at("idx"), at("c.txt")); r.code != 0 || !strings.Contains(r.stdout, "the index holds 3 documents") {
		t.Errorf("add after the failed add: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

// robustKillAt starts the binary, kills it with SIGKILL after delay (unless it
// ends first) and reports whether it was killed.
func robustKillAt(t *testing.T, c robustCmd, delay time.Duration, args ...string) bool {
	t.Helper()
	cmd := c.command(args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
	err := cmd.Wait()
	timer.Stop()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true
		}
	}
	if err != nil {
		t.Fatalf("neardup %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return false
}

// robustKillAfter starts dedup with --progress always, kills it with
// SIGKILL once its progress line shows at least target records done
// (unless it ends first) and reports whether it was killed.
func robustKillAfter(t *testing.T, c robustCmd, target int, args ...string) bool {
	t.Helper()
	cmd := c.command(args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	progress := regexp.MustCompile(`^(?:\x1b\[K)?([0-9,]+) records`)
	sc := bufio.NewScanner(stderr)
	sc.Split(scanProgress)
	var last string
	for sc.Scan() {
		last = sc.Text()
		if m := progress.FindStringSubmatch(last); m != nil {
			if done, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); done >= target {
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
	}
	io.Copy(io.Discard, stderr)
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true
		}
	}
	if err != nil {
		t.Fatalf("neardup %s: %v\n%s", strings.Join(args, " "), err, last)
	}
	return false
}

// robustStartup measures how long the command takes with an empty input:
// loading the dictionaries and opening or creating the index.
func robustStartup(t *testing.T, c robustCmd, args ...string) time.Duration {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, "empty.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, d := robustTimed(t, c, append(args, "empty.jsonl")...)
	if r.code != 0 {
		t.Fatalf("%q with no input: exit %d: %s", args, r.code, r.stderr)
	}
	return d
}

// robustKillWindow narrows the moments to kill a run at towards those
// that land in its middle: kills at or before early have left nothing,
// runs were over at or before late. The bounds come from kills, not from
// timing one run, which varies too much on a loaded machine.
type robustKillWindow struct{ early, late time.Duration }

// next picks a moment in the window, widening it when it has closed.
func (w *robustKillWindow) next(rng *rand.Rand) time.Duration {
	if w.late-w.early < 20*time.Millisecond {
		w.early, w.late = w.early*4/5, w.late*6/5+20*time.Millisecond
	}
	return w.early + time.Duration(rng.Int64N(int64(w.late-w.early)))
}

// tooEarly and tooLate record a kill at delay that left nothing, or a run
// that ended (or had done all its work) by then.
func (w *robustKillWindow) tooEarly(delay time.Duration) { w.early = max(w.early, delay) }
func (w *robustKillWindow) tooLate(delay time.Duration)  { w.late = min(w.late, delay) }

// robustTimed runs the binary to its end and returns how long it took.
func robustTimed(t *testing.T, c robustCmd, args ...string) (result, time.Duration) {
	t.Helper()
	start := time.Now()
	r := c.run(t, args...)
	return r, time.Since(start)
}

// TestRobustKillAdd kills "neardup add --index" with SIGKILL, each time
// a run into a new index, at random moments narrowed down (by
// robustKillWindow) to those in the middle of the ingest: 6 kills, and
// more (up to 16) until 2 have left a partly filled index. add
// acknowledges nothing per record: it adds batches of 1,000 in one
// transaction each. After every kill the index must open (stats,
// read-only), and hold exactly the first whole batches of the input, each
// document as an uninterrupted add stores it; a final add into the last
// one completes it.
func TestRobustKillAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: kills add 6 to 16 times")
	}
	t.Parallel()
	tmp := t.TempDir()
	const n = 4500
	ids := robustArticles(t, filepath.Join(tmp, "in.jsonl"), n, 1)
	c := robustCmd{dir: tmp}
	r, d := robustTimed(t, c, "add", "--index", "fresh", "--workers", "2", "in.jsonl")
	if r.code != 0 {
		t.Fatalf("uninterrupted add: exit %d: %s", r.code, r.stderr)
	}
	fresh := robustOpenRO(t, filepath.Join(tmp, "fresh"))
	defer fresh.Close()

	rng := rand.New(rand.NewPCG(4, 20))
	window := robustKillWindow{0, d}
	partial, empty := 0, 0
	round := 0
	idx := ""
	for ; round < 6 || partial < 2 && round < 16; round++ {
		idx = filepath.Join(tmp, fmt.Sprintf("idx%02d", round))
		// Every other round kills at a moment of the window, the
		// others once the progress line shows so many records read:
		// on a loaded machine the window alone can miss the middle of
		// the ingest in every round.
		var killed bool
		var delay time.Duration
		when := ""
		if round%2 == 0 {
			delay = window.next(rng)
			killed = robustKillAt(t, c, delay, "add", "--index", idx, "--workers", "2", "in.jsonl")
			when = fmt.Sprintf("killed after %v", delay.Round(time.Millisecond))
		} else {
			target := 1000 + rng.IntN(n-2000)
			killed = robustKillAfter(t, c, target, "add", "--index", idx, "--workers", "2", "--progress", "always", "in.jsonl")
			when = fmt.Sprintf("killed after %d records read", target)
		}
		// (In-process: opening the index is what is tested, not a process.)
		if r := runCLI(t, "stats", "--index", idx, "--json"); r.code != 0 && !strings.Contains(r.stderr, "no index in "+idx) {
			t.Errorf("round %d (%s: %t): stats: exit %d: %s", round, when, killed, r.code, r.stderr)
		}
		// (Opened for writing if the read-only open fails, which
		// repairs the log: the checks below still run.)
		docs := robustCompareIndex(t, idx, fresh, ids)
		if docs%1000 != 0 && docs != n {
			t.Errorf("round %d: %d documents: not whole batches of 1,000", round, docs)
		}
		switch {
		case !killed || docs == n:
			if round%2 == 0 {
				window.tooLate(delay)
			}
		case docs == 0:
			if round%2 == 0 {
				window.tooEarly(delay)
			}
			empty++
		default:
			partial++
		}
	}
	t.Logf("%d kills (an uninterrupted add takes %v; the last window %v to %v): %d left a partly filled index, %d an empty one or none",
		round, d.Round(time.Millisecond), window.early.Round(time.Millisecond), window.late.Round(time.Millisecond), partial, empty)
	if partial == 0 {
		t.Errorf("no kill hit the middle of the ingest: the test proved nothing")
	}
	if r := c.run(t, "add", "--index", idx, "in.jsonl"); r.code != 0 {
		t.Fatalf("final add: exit %d: %s", r.code, r.stderr)
	}
	if docs := robustCompareIndex(t, idx, fresh, ids); docs != n {
		t.Errorf("after the final add: %d documents, want %d", docs, n)
	}
}

// robustOpenRO opens an index read-only in this process.
func robustOpenRO(t *testing.T, dir string) *index.Index {
	t.Helper()
	x, err := badgerstore.OpenIndex(context.Background(), dir, &badgerstore.Options{ReadOnly: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// robustCompareIndex checks that the index in dir holds a prefix of ids, each
// document as in want but for the time it was added, and returns its
// length. It opens dir read-only, or for writing if that fails.
func robustCompareIndex(t *testing.T, dir string, want *index.Index, ids []string) int {
	t.Helper()
	x, err := badgerstore.OpenIndex(context.Background(), dir, &badgerstore.Options{ReadOnly: true}, nil)
	if errors.Is(err, index.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return 0 // killed before the index was created
	}
	if err != nil {
		x, err = badgerstore.OpenIndex(context.Background(), dir, nil, nil)
	}
	if err != nil {
		t.Fatalf("opening %s: %v", dir, err)
	}
	defer x.Close()
	st, err := x.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, id := range ids {
		got, err := x.Get(context.Background(), id)
		if errors.Is(err, index.ErrNotFound) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		w, err := want.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		got.Added, w.Added = time.Time{}, time.Time{}
		if got.Fingerprint != w.Fingerprint || got.ContentHash != w.ContentHash || got.Sketch != w.Sketch ||
			got.Title != w.Title || !slices.Equal(got.Keywords, w.Keywords) {
			t.Fatalf("%s: %+v, want %+v", id, got, w)
		}
		n++
	}
	if st.Docs != int64(n) {
		t.Errorf("%d documents, but the first %d ids of the input are the ones there", st.Docs, n)
	}
	return n
}

// TestRobustKillDedup kills "neardup dedup --index … --pairs …" with
// SIGKILL, each run resuming the last: one kill in five during the
// start-up, the others once the progress line shows a random number of
// records done; 6 kills, and more (up to 16) until 2 have hit runs that
// had stored originals. After every kill the index opens (stats) and no
// partial output is left under its final name; a final run resumes the
// job, says so, and writes outputs byte-identical to an uninterrupted run
// into a fresh index.
func TestRobustKillDedup(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: kills dedup 6 to 16 times")
	}
	t.Parallel()
	tmp := t.TempDir()
	const n = 3000
	robustArticles(t, filepath.Join(tmp, "in.jsonl"), n, 2)
	// A bad line, so that --rejects has something too.
	f, err := os.OpenFile(filepath.Join(tmp, "in.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, `{"id":"bad","text":`+"\n")
	f.Close()
	c := robustCmd{dir: tmp}
	args := func(idx, out string) []string {
		a := []string{"dedup", "--index", idx, "--workers", "2", "--progress", "always", "in.jsonl"}
		for _, o := range []string{"pairs", "clusters", "unique", "rejects"} {
			a = append(a, "--"+o, filepath.Join(out, o))
		}
		return a
	}
	for _, d := range []string{"fresh-out", "out"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, d := robustTimed(t, c, args("fresh", "fresh-out")...)
	if r.code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", r.code, r.stderr)
	}
	start := robustStartup(t, c, "dedup", "--index", "startup")
	rng := rand.New(rand.NewPCG(20, 4))
	docs := regexp.MustCompile(`"docs":([0-9]+),`)
	killed, partial, stored := 0, 0, 0
	round := 0
	for ; round < 6 || partial < 2 && round < 16; round++ {
		var k bool
		var when string
		if round%5 == 0 {
			delay := time.Duration(rng.Int64N(int64(start)))
			k = robustKillAt(t, c, delay, args("idx", "out")...)
			when = fmt.Sprintf("after %v", delay.Round(time.Millisecond))
		} else {
			target := rng.IntN(n)
			k = robustKillAfter(t, c, target, args("idx", "out")...)
			when = fmt.Sprintf("after %d records", target)
		}
		if k {
			killed++
		}
		// (In-process: opening the index is what is tested, not a process.)
		r := runCLI(t, "stats", "--index", filepath.Join(tmp, "idx"), "--json")
		if r.code != 0 && !strings.Contains(r.stderr, "no index in ") {
			t.Errorf("round %d (killed %s): stats: exit %d: %s", round, when, r.code, r.stderr)
		}
		stored = 0
		if m := docs.FindStringSubmatch(r.stdout); m != nil {
			stored, _ = strconv.Atoi(m[1])
		}
		if k && stored > 0 {
			partial++
		}
		// A killed run leaves no partial output under its final name:
		// only complete ones (it may be killed after renaming them into
		// place, while it closes the index).
		entries, _ := os.ReadDir(filepath.Join(tmp, "out"))
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") && readFile(t, filepath.Join(tmp, "out", e.Name())) != readFile(t, filepath.Join(tmp, "fresh-out", e.Name())) {
				t.Errorf("round %d: the killed run left a partial %s", round, e.Name())
			}
		}
	}
	t.Logf("%d of %d runs killed (start-up %v, an uninterrupted run %v); %d after some originals were stored",
		killed, round, start.Round(time.Millisecond), d.Round(time.Millisecond), partial)
	if partial == 0 {
		t.Errorf("no kill hit a run that had stored originals: the test proved nothing")
	}
	r = c.run(t, args("idx", "out")...)
	if r.code != 0 {
		t.Fatalf("final run: exit %d: %s", r.code, r.stderr)
	}
	if stored > 0 && !strings.Contains(r.stderr, "resumed an interrupted run") && !strings.Contains(r.stderr, "this run had finished before") {
		t.Errorf("the final run did not resume the %d originals in the index:\n%s", stored, r.stderr)
	}
	for _, o := range []string{"pairs", "clusters", "unique", "rejects"} {
		got, want := readFile(t, filepath.Join(tmp, "out", o)), readFile(t, filepath.Join(tmp, "fresh-out", o))
		if got != want {
			t.Errorf("--%s after %d kills differs from an uninterrupted run:\n%s", o, killed, diff(want, got))
		}
	}
	if p := countLines(readFile(t, filepath.Join(tmp, "fresh-out", "pairs"))); p < 300 {
		t.Errorf("%d pairs: not the input the test means", p)
	}
}

// TestRobustWorkers: dedup's outputs are the same with 1, 2, 3 and 8
// workers, on a corpus with exact and near duplicates and bad records.
func TestRobustWorkers(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	n := 1500
	if testing.Short() {
		n = 300
	}
	robustArticles(t, filepath.Join(tmp, "in.jsonl"), n, 3)
	f, err := os.OpenFile(filepath.Join(tmp, "in.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, `{"id":"bad","text":`+"\n"+testfixtures.JSONLine("short", "abc")+"\n")
	f.Close()
	c := cliRun{}
	var first [4]string
	var firstSum robustCounts
	for i, w := range []string{"1", "2", "3", "8"} {
		out := filepath.Join(tmp, "w"+w)
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		r, outs := dedupOutputs(t, c, out, "--json", "--workers", w, filepath.Join(tmp, "in.jsonl"))
		if r.code != 0 {
			t.Fatalf("--workers %s: exit %d: %s", w, r.code, r.stderr)
		}
		sum := robustCountsOf(robustSummary(t, r))
		if i == 0 {
			first, firstSum = outs, sum
			if sum.Exact < int64(n/20) || sum.Near < int64(n/20) || sum.Rejected != 1 || sum.TooShort != 1 {
				t.Fatalf("--workers 1: %+v: not the corpus the test means", sum)
			}
			continue
		}
		if sum != firstSum {
			t.Errorf("--workers %s: summary %+v, --workers 1: %+v", w, sum, firstSum)
		}
		for j, name := range []string{"pairs", "clusters", "unique", "rejects"} {
			if outs[j] != first[j] {
				t.Errorf("--%s differs between --workers 1 and %s:\n%s", name, w, diff(first[j], outs[j]))
			}
		}
	}
}
