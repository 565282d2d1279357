package dedup

// Robustness of the library: every kind of bad input through
// input.Reader, neardup.Analyzer and dedup.Run, and concurrent use of one neardup.Analyzer.
// The command's side of the same inputs is tested in
// cmd/neardup/robust_test.go.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/encoding/unicode"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/testfixtures"
	"github.com/neardup/neardup/report"
)

// robustHTML is a page whose scripts and styles hold words that must not
// be fingerprinted with input.Options.HTML.
const robustHTML = `<!DOCTYPE html>
<html><head><title>Rates &amp; jobs</title>
<script>var trackingpixel = "zzscriptword analyticsbeacon"; function loadads() { return 1 < 2; }</script>
<style>.zzstyleword { color: red }</style>
</head><body><h1>Rates</h1><p>` + testfixtures.EN + `</p>
<script type="text/javascript">document.write("<p>zzscriptword</p>");</script>
</body></html>`

// robustOutcome describes one outcome of Reader.Next or dedup.Run in a line:
// "ID" for a record, "error: MESSAGE" for a reader error; for dedup.Run
// "unique ID", "duplicate ID of ID (exact|near)", "too-short ID: REASON",
// "rejected: MESSAGE", "input-failed: MESSAGE". The temporary directory
// is cut from messages.
func robustOutcome(o *Outcome, dir string) string {
	var s string
	switch o.Verdict {
	case Unique:
		s = "unique " + o.Record.ID
	case Duplicate:
		kind := "near"
		if o.Exact() {
			kind = "exact"
		}
		s = fmt.Sprintf("duplicate %s of %s (%s)", o.Record.ID, o.Matches[0].ID, kind)
	case TooShort:
		s = fmt.Sprintf("too-short %s: %v", o.Record.ID, o.Err)
	default:
		s = fmt.Sprintf("%s: %v", o.Verdict, o.Err)
	}
	if dir == "" {
		return s
	}
	return strings.ReplaceAll(s, dir+string(filepath.Separator), "")
}

// robustRead reads r to the end, describing each result as robustOutcome
// does, and checks that every error is a *input.RecordError or an *input.Error
// with a zero Record.
func robustRead(t *testing.T, r *input.Reader, dir string) ([]string, []input.Record) {
	t.Helper()
	var got []string
	var recs []input.Record
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("the Reader does not end")
		}
		rec, err := r.Next()
		if err == io.EOF {
			return got, recs
		}
		if err != nil {
			var re *input.RecordError
			var ie *input.Error
			if !errors.As(err, &re) && !errors.As(err, &ie) {
				t.Fatalf("Next: %T %v: want a *input.RecordError or *input.Error", err, err)
			}
			if rec.ID != "" || rec.Text != "" {
				t.Errorf("Next returned record %q with error %v", rec.ID, err)
			}
			got = append(got, "error: "+strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""))
			continue
		}
		got = append(got, rec.ID)
		recs = append(recs, rec)
	}
}

// robustDedup runs dedup.Run over r with a fresh in-memory store and a fixed
// clock, and returns the outcomes described by robustOutcome.
func robustDedup(t *testing.T, r *input.Reader, dir string, opts *Options) ([]string, []*Outcome, report.Summary, error) {
	t.Helper()
	store, err := memstore.Open(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Now = func() time.Time { return time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC) }
	var got []string
	var outs []*Outcome
	sum, err := Run(context.Background(), r, testfixtures.Analyzer(t, ""), store, &o, func(out *Outcome) error {
		got = append(got, robustOutcome(out, dir))
		outs = append(outs, out)
		return nil
	})
	return got, outs, sum, err
}

// robustSum is the counts of a report.Summary, without bytes and time.
type robustSum struct{ Records, Unique, Exact, Near, TooShort, Rejected, InputErrors int64 }

func robustCountsOf(s report.Summary) robustSum {
	return robustSum{s.Records, s.Unique, s.Exact, s.Near, s.TooShort, s.Rejected, s.InputErrors}
}

// robustFile is a file of a test case; files are read in the order
// given (their names sort in that order).
type robustFile struct {
	name string
	data []byte
}

func writeRobustFiles(t *testing.T, files []robustFile) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRobustWholeFiles puts each kind of bad whole-file input between two
// good articles, in a directory that is walked, and checks what the
// Reader returns, what dedup.Run decides and that it counts it, and that the
// good articles around it are processed.
func TestRobustWholeFiles(t *testing.T) {
	t.Parallel()
	withBOM := "\ufeff" + testfixtures.EN
	utf16 := func(s string) []byte {
		b, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cut := testfixtures.Gzip(t, strings.Repeat(testfixtures.EN+"\n", 200)+strings.Repeat(testfixtures.ZH+"\n", 200))
	tests := []struct {
		name     string
		bad      robustFile
		opts     input.Options
		read     string    // what the Reader returns for bad
		verdict  string    // what dedup.Run decides for bad
		last     string    // dedup.Run's verdict on 3-zh.txt, when not "unique 3-zh.txt"
		sum      robustSum // dedup.Run's counts
		dedupErr string
	}{
		{name: "empty", bad: robustFile{"2-empty.txt", nil},
			read: "error: 2-empty.txt: empty file", verdict: "rejected: 2-empty.txt: empty file",
			sum: robustSum{Records: 3, Unique: 2, Rejected: 1}},
		{name: "white space", bad: robustFile{"2-blank.txt", []byte(" \r\n\t \n\u3000\n")},
			read: "error: 2-blank.txt: no text", verdict: "rejected: 2-blank.txt: no text",
			sum: robustSum{Records: 3, Unique: 2, Rejected: 1}},
		{name: "punctuation", bad: robustFile{"2-punct.txt", []byte("，。！？……——!!! ... --- ??? (*) [#] 《》")},
			read: "2-punct.txt", verdict: "too-short 2-punct.txt: too few keywords to fingerprint: 0 keywords, need 4",
			sum: robustSum{Records: 3, Unique: 2, TooShort: 1}},
		{name: "stop words", bad: robustFile{"2-stop.txt", []byte("the and of a to is in it that was for on are with as 的 了 是 在 和 我们 他们 这个 那个")},
			read: "2-stop.txt", verdict: "too-short 2-stop.txt: too few keywords to fingerprint: 0 keywords, need 4",
			sum: robustSum{Records: 3, Unique: 2, TooShort: 1}},
		{name: "three characters", bad: robustFile{"2-three.txt", []byte("abc")},
			read: "2-three.txt", verdict: "too-short 2-three.txt: too few keywords to fingerprint: 1 keyword, need 4",
			sum: robustSum{Records: 3, Unique: 2, TooShort: 1}},
		{name: "three Chinese characters", bad: robustFile{"2-three.txt", []byte("你好吗")},
			read: "2-three.txt", verdict: "too-short 2-three.txt: too few keywords to fingerprint: 1 keyword, need 4",
			sum: robustSum{Records: 3, Unique: 2, TooShort: 1}},
		{name: "PNG", bad: robustFile{"2-image.png", testfixtures.PNG(t)},
			read: "error: 2-image.png: binary data (PNG image)", verdict: "rejected: 2-image.png: binary data (PNG image)",
			sum: robustSum{Records: 3, Unique: 2, Rejected: 1}},
		{name: "PNG named .txt", bad: robustFile{"2-image.txt", testfixtures.PNG(t)},
			read: "error: 2-image.txt: binary data (PNG image)", verdict: "rejected: 2-image.txt: binary data (PNG image)",
			sum: robustSum{Records: 3, Unique: 2, Rejected: 1}},
		{name: "ZIP", bad: robustFile{"2-archive.zip", testfixtures.Zip(t)},
			read: "error: 2-archive.zip: binary data (ZIP archive)", verdict: "rejected: 2-archive.zip: binary data (ZIP archive)",
			sum: robustSum{Records: 3, Unique: 2, Rejected: 1}},
		{name: "NUL bytes", bad: robustFile{"2-data.bin", []byte("some text\x00\x01\x02\x00 more")},
			read: "error: 2-data.bin: binary data (NUL byte at byte 9)", verdict: "rejected: 2-data.bin: binary data (NUL byte at byte 9)",
			sum: robustSum{Records: 3, Unique: 2, Rejected: 1}},
		{name: "invalid UTF-8", bad: robustFile{"2-bad.txt", []byte("Prices rose \xff\xfe\xfd sharply in the markets today")},
			read:    "error: 2-bad.txt: invalid UTF-8 (not GBK/GB18030 either) at byte 12",
			verdict: "rejected: 2-bad.txt: invalid UTF-8 (not GBK/GB18030 either) at byte 12",
			sum:     robustSum{Records: 3, Unique: 2, Rejected: 1}},
		{name: "invalid UTF-8 forced", bad: robustFile{"2-bad.txt", []byte(testfixtures.GBK(t, testfixtures.ZH))}, opts: input.Options{Encoding: "utf-8"},
			read: "error: 2-bad.txt: invalid UTF-8 at byte 0", verdict: "rejected: 2-bad.txt: invalid UTF-8 at byte 0",
			sum: robustSum{Records: 3, Unique: 2, Rejected: 1}},
		// GBK without a flag is detected and decoded: 3-zh.txt, the same
		// article in UTF-8, is then its exact duplicate.
		{name: "GBK", bad: robustFile{"2-gbk.txt", []byte(testfixtures.GBK(t, testfixtures.ZH))},
			read: "2-gbk.txt", verdict: "unique 2-gbk.txt", last: "duplicate 3-zh.txt of 2-gbk.txt (exact)",
			sum: robustSum{Records: 3, Unique: 2, Exact: 1}},
		{name: "UTF-8 BOM", bad: robustFile{"2-bom.txt", []byte("\ufeff" + testfixtures.ZH)},
			read: "2-bom.txt", verdict: "unique 2-bom.txt", last: "duplicate 3-zh.txt of 2-bom.txt (exact)",
			sum: robustSum{Records: 3, Unique: 2, Exact: 1}},
		{name: "UTF-16 BOM", bad: robustFile{"2-utf16.txt", utf16(testfixtures.ZH)},
			read: "2-utf16.txt", verdict: "unique 2-utf16.txt", last: "duplicate 3-zh.txt of 2-utf16.txt (exact)",
			sum: robustSum{Records: 3, Unique: 2, Exact: 1}},
		{name: "too large", bad: robustFile{"2-big.txt", []byte(strings.Repeat(testfixtures.EN2+"\n", 10))}, opts: input.Options{MaxBytes: 1000},
			read:    fmt.Sprintf("error: 2-big.txt: too large: %d bytes (maximum 1000, --max-bytes)", 10*(len(testfixtures.EN2)+1)),
			verdict: fmt.Sprintf("rejected: 2-big.txt: too large: %d bytes (maximum 1000, --max-bytes)", 10*(len(testfixtures.EN2)+1)),
			sum:     robustSum{Records: 3, Unique: 2, Rejected: 1}},
		{name: "too large gzip", bad: robustFile{"2-big.txt.gz", testfixtures.Gzip(t, strings.Repeat(testfixtures.EN2+"\n", 10))}, opts: input.Options{MaxBytes: 1000},
			read:    "error: 2-big.txt.gz: too large: more than 1000 bytes (the maximum, --max-bytes)",
			verdict: "rejected: 2-big.txt.gz: too large: more than 1000 bytes (the maximum, --max-bytes)",
			sum:     robustSum{Records: 3, Unique: 2, Rejected: 1}},
		{name: "truncated gzip", bad: robustFile{"2-cut.txt.gz", cut[:len(cut)/2]},
			read:    fmt.Sprintf("error: 2-cut.txt.gz: byte %d: truncated gzip data: unexpected EOF", testfixtures.GunzipLen(t, cut[:len(cut)/2])),
			verdict: fmt.Sprintf("input-failed: 2-cut.txt.gz: byte %d: truncated gzip data: unexpected EOF", testfixtures.GunzipLen(t, cut[:len(cut)/2])),
			sum:     robustSum{Records: 3, Unique: 2, InputErrors: 1}},
		{name: "gzip header only", bad: robustFile{"2-cut.txt.gz", cut[:5]},
			read:    "error: 2-cut.txt.gz: truncated gzip data: unexpected EOF",
			verdict: "input-failed: 2-cut.txt.gz: truncated gzip data: unexpected EOF",
			sum:     robustSum{Records: 3, Unique: 2, InputErrors: 1}},
		{name: "BOM only", bad: robustFile{"2-bom.txt", []byte("\ufeff")},
			read: "error: 2-bom.txt: no text", verdict: "rejected: 2-bom.txt: no text",
			sum: robustSum{Records: 3, Unique: 2, Rejected: 1}},
		{name: "BOM English", bad: robustFile{"2-bom.txt", []byte(withBOM)},
			read: "2-bom.txt", verdict: "duplicate 2-bom.txt of 1-en.txt (exact)",
			sum: robustSum{Records: 3, Unique: 2, Exact: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeRobustFiles(t, []robustFile{{"1-en.txt", []byte(testfixtures.EN)}, tt.bad, {"3-zh.txt", []byte(testfixtures.ZH)}})
			got, recs := robustRead(t, input.NewReader([]string{dir}, nil, &tt.opts), dir)
			if want := []string{"1-en.txt", tt.read, "3-zh.txt"}; !slices.Equal(got, want) {
				t.Errorf("Reader:\n got %q\nwant %q", got, want)
			}
			for _, r := range recs {
				if strings.ContainsRune(r.Text, '\ufeff') {
					t.Errorf("%s: the text keeps a byte-order mark", r.ID)
				}
			}
			last := tt.last
			if last == "" {
				last = "unique 3-zh.txt"
			}
			verdicts, _, sum, err := robustDedup(t, input.NewReader([]string{dir}, nil, &tt.opts), dir, nil)
			if err != nil {
				t.Fatalf("dedup.Run: %v", err)
			}
			if want := []string{"unique 1-en.txt", tt.verdict, last}; !slices.Equal(verdicts, want) {
				t.Errorf("dedup.Run:\n got %q\nwant %q", verdicts, want)
			}
			if robustCountsOf(sum) != tt.sum {
				t.Errorf("dedup.Run summary %+v, want %+v", robustCountsOf(sum), tt.sum)
			}
			// Strict mode stops at the bad record or input, after the good one.
			n := 0
			_, err = Run(context.Background(), input.NewReader([]string{dir}, nil, &tt.opts), testfixtures.Analyzer(t, ""), robustMemory(t),
				&Options{Strict: true}, func(*Outcome) error { n++; return nil })
			if bad := tt.sum.Rejected + tt.sum.InputErrors; bad > 0 {
				if err == nil || n != 2 || !strings.HasSuffix(tt.verdict, strings.ReplaceAll(err.Error(), dir+"/", "")) {
					t.Errorf("Strict: %d outcomes, %v; want 2, then the error of %q", n, err, tt.verdict)
				}
			} else if err != nil || n != 3 {
				t.Errorf("Strict: %d outcomes, %v; want 3, nil", n, err)
			}
		})
	}
}

func robustMemory(t testing.TB) *index.Index {
	t.Helper()
	m, err := memstore.Open(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestRobustHTML: with input.Options.HTML the scripts and styles of a page
// are gone and its title is the record's; without, the page is text and
// the script's words are fingerprinted.
func TestRobustHTML(t *testing.T) {
	t.Parallel()
	dir := writeRobustFiles(t, []robustFile{{"page.html", []byte(robustHTML)}})
	a := testfixtures.Analyzer(t, "")
	keywords := func(html bool) (input.Record, map[string]bool) {
		r := input.NewReader([]string{filepath.Join(dir, "page.html")}, nil, &input.Options{HTML: html})
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		an, err := a.Analyze(rec.Text)
		if err != nil {
			t.Fatal(err)
		}
		kw := map[string]bool{}
		for _, k := range an.Keywords {
			kw[k.Word] = true
		}
		return rec, kw
	}
	rec, kw := keywords(true)
	if rec.Title != "Rates & jobs" {
		t.Errorf("HTML: title %q, want %q", rec.Title, "Rates & jobs")
	}
	for _, w := range []string{"zzscriptword", "zzstyleword", "trackingpixel", "analyticsbeacon", "loadads", "script"} {
		if strings.Contains(rec.Text, w) || kw[w] {
			t.Errorf("HTML: %q is in the text or keywords:\n%s", w, rec.Text)
		}
	}
	if !strings.Contains(rec.Text, testfixtures.EN) || !kw["inflation"] {
		t.Errorf("HTML: the article text is lost:\n%s", rec.Text)
	}
	// Its fingerprint is that of the bare article plus the heading.
	an1, _ := a.Analyze(rec.Text)
	an2, _ := a.Analyze("Rates\n" + testfixtures.EN)
	if an1.Fingerprint != an2.Fingerprint {
		t.Errorf("HTML: fingerprint %s, want %s (of the visible text)", an1.Fingerprint, an2.Fingerprint)
	}

	rec, kw = keywords(false)
	if rec.Title != "" || !strings.Contains(rec.Text, "<script>") || !kw["zzscriptword"] {
		t.Errorf("text: the page is not read as it is: title %q, zzscriptword keyword %t", rec.Title, kw["zzscriptword"])
	}
}

// TestRobustJSONL puts every kind of bad JSONL line between good ones and
// checks the error (file, line, field and reason), what dedup.Run decides,
// that it counts it, and that the good records are processed.
func TestRobustJSONL(t *testing.T) {
	t.Parallel()
	longID := strings.Repeat("x", 1<<20)
	lines := []struct {
		line    string
		read    string // Reader result: id or "error: …"
		verdict string // dedup.Run outcome
	}{
		// A UTF-8 byte-order mark starts the stream.
		{"\ufeff" + testfixtures.JSONLine("en", testfixtures.EN), "en", "unique en"},
		{`{"id":"m1","text":"unterminated`, `error: in.jsonl:2: malformed JSON at byte 31: unexpected end of line in string`,
			`rejected: in.jsonl:2: malformed JSON at byte 31: unexpected end of line in string`},
		{`{"id":"m2","text":"trailing comma",}`, `error: in.jsonl:3: malformed JSON at byte 35: unexpected '}' looking for an object key`,
			`rejected: in.jsonl:3: malformed JSON at byte 35: unexpected '}' looking for an object key`},
		{`{'id':'m3'}`, `error: in.jsonl:4: malformed JSON at byte 1: unexpected '\'' looking for an object key`,
			`rejected: in.jsonl:4: malformed JSON at byte 1: unexpected '\'' looking for an object key`},
		{`[1, 2, 3]`, `error: in.jsonl:5: not a JSON object (array)`, `rejected: in.jsonl:5: not a JSON object (array)`},
		{`{"id":"m4","text":"ok"} {"id":"m5"}`, `error: in.jsonl:6: malformed JSON at byte 24: unexpected '{' after the object`,
			`rejected: in.jsonl:6: malformed JSON at byte 24: unexpected '{' after the object`},
		{``, "", ""}, // a blank line: skipped, not reported
		{`{"id":"n1","text":42}`, `error: in.jsonl:8: field "text": not a string (number)`, `rejected: in.jsonl:8: field "text": not a string (number)`},
		{`{"id":"n2"}`, `error: in.jsonl:9: field "text": missing`, `rejected: in.jsonl:9: field "text": missing`},
		{`{"id":"n3","text":null}`, `error: in.jsonl:10: field "text": not a string (null)`, `rejected: in.jsonl:10: field "text": not a string (null)`},
		{`{"id":"n4","text":["a"]}`, `error: in.jsonl:11: field "text": not a string (array)`, `rejected: in.jsonl:11: field "text": not a string (array)`},
		{`{"id":"n5","text":""}`, `error: in.jsonl:12: field "text": empty string`, `rejected: in.jsonl:12: field "text": empty string`},
		{`{"id":"n6","text":" \n\t "}`, `error: in.jsonl:13: field "text": only white space`, `rejected: in.jsonl:13: field "text": only white space`},
		{`{"id":{"a":1},"text":"x"}`, `error: in.jsonl:14: field "id": not a string or number (object)`,
			`rejected: in.jsonl:14: field "id": not a string or number (object)`},
		{testfixtures.JSONLine("dup", testfixtures.EN2), "dup", "unique dup"},
		// The same id again, for another article: the second is rejected.
		{testfixtures.JSONLine("dup", testfixtures.ZH2), "dup", `rejected: in.jsonl:16: field "id": duplicate id "dup": an earlier article has it (record 14 of this input)`},
		{testfixtures.JSONLine("line\nbreak", testfixtures.ZH), "line\nbreak", "unique line\nbreak"},
		{testfixtures.JSONLine("a/b/../c", testfixtures.EN+" Extra sentence."), "a/b/../c", "duplicate a/b/../c of en (near)"},
		{`{"id":12345,"text":` + fmt.Sprintf("%q", testfixtures.EN) + `}`, "12345", "duplicate 12345 of en (exact)"},
		{"{\"id\":\"u1\",\"text\":\"Prices rose \xff\xfe sharply\"}", `error: in.jsonl:20: invalid UTF-8 (not GBK/GB18030 either) at byte 31 of the line`,
			`rejected: in.jsonl:20: invalid UTF-8 (not GBK/GB18030 either) at byte 31 of the line`},
		// GBK without a flag: detected and decoded, so it is the exact
		// duplicate of the UTF-8 line.
		{testfixtures.GBK(t, testfixtures.JSONLine("gbk", testfixtures.ZH)), "gbk", "duplicate gbk of line\nbreak (exact)"},
		// A byte-order mark in the middle of a stream (cat a.jsonl b.jsonl)
		// is dropped like the first line's.
		{"\ufeff" + testfixtures.JSONLine("bom2", testfixtures.EN2), "bom2", "duplicate bom2 of dup (exact)"},
		{testfixtures.JSONLine("short", "abc def"), "short", "too-short short: too few keywords to fingerprint: 2 keywords, need 4"},
		// A 1 MB id cannot be stored in an index (index.MaxIDLen): the
		// record is rejected, and the run goes on.
		{testfixtures.JSONLine(longID, testfixtures.ZH2), longID, `rejected: in.jsonl:24: field "id": id is 1048576 bytes long; an index holds ids of at most 64000`},
		{testfixtures.JSONLine("last", testfixtures.ZH2), "last", "unique last"},
	}
	var in strings.Builder
	var wantRead, wantDedup []string
	for _, l := range lines {
		in.WriteString(l.line + "\n")
		if l.read != "" {
			wantRead = append(wantRead, l.read)
			wantDedup = append(wantDedup, l.verdict)
		}
	}
	dir := writeRobustFiles(t, []robustFile{{"in.jsonl", []byte(in.String())}})
	path := filepath.Join(dir, "in.jsonl")
	got, _ := robustRead(t, input.NewReader([]string{path}, nil, nil), dir)
	if !slices.Equal(got, wantRead) {
		robustDiff(t, "Reader", got, wantRead)
	}
	verdicts, outs, sum, err := robustDedup(t, input.NewReader([]string{path}, nil, nil), dir, nil)
	if err != nil {
		t.Errorf("dedup.Run: %v", err) // a bad record must not stop the run
	}
	if !slices.Equal(verdicts, wantDedup) {
		robustDiff(t, "dedup.Run", verdicts, wantDedup)
	}
	want := robustSum{Records: 24, Unique: 4, Exact: 3, Near: 1, TooShort: 1, Rejected: 15}
	if robustCountsOf(sum) != want {
		t.Errorf("dedup.Run summary %+v, want %+v", robustCountsOf(sum), want)
	}
	// Rejected records carry the RecordError with the line and field.
	for _, o := range outs {
		var re *input.RecordError
		if o.Verdict == Rejected && !errors.As(o.Err, &re) {
			t.Errorf("rejected %v: not a *input.RecordError", o.Err)
		}
		if re != nil && (re.Source != path || re.Line == 0) {
			t.Errorf("%v: source %q line %d", o.Err, re.Source, re.Line)
		}
		if re != nil && re.Line == 24 && (re.Field != "id" || string(re.Raw) != lines[23].line) {
			t.Errorf("1 MB id: field %q, raw of %d bytes", re.Field, len(re.Raw))
		}
	}
}

// robustDiff reports the first lines where got and want differ.
func robustDiff(t *testing.T, what string, got, want []string) {
	t.Helper()
	short := func(s string) string {
		if len(s) > 200 {
			return s[:200] + "…"
		}
		return s
	}
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("%s: result %d:\n got %q\nwant %q", what, i, short(g), short(w))
		}
	}
}

// TestRobustTruncatedGzipJSONL: the records before the cut are processed,
// the cut is an input error with the line, and the next input is read.
func TestRobustTruncatedGzipJSONL(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for i := range 300 {
		fmt.Fprintf(&in, "%s\n", testfixtures.JSONLine(fmt.Sprintf("r%03d", i), fmt.Sprintf("%s Record %d of %d, %x.", testfixtures.EN, i, i*i, i*7919)))
	}
	gz := testfixtures.Gzip(t, in.String())
	dir := writeRobustFiles(t, []robustFile{{"1-cut.jsonl.gz", gz[:len(gz)*2/3]}, {"2-next.jsonl", []byte(testfixtures.JSONLine("next", testfixtures.ZH) + "\n")}})
	verdicts, _, sum, err := robustDedup(t, input.NewReader([]string{dir}, nil, nil), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(verdicts) - 2 // records before the cut
	if n < 10 || n >= 299 {
		t.Fatalf("%d records before the cut of 300", n)
	}
	if verdicts[0] != "unique r000" || verdicts[n+1] != "unique next" {
		t.Errorf("first %q, last %q", verdicts[0], verdicts[n+1])
	}
	want := fmt.Sprintf("input-failed: 1-cut.jsonl.gz: line %d (byte ", n+1)
	if !strings.HasPrefix(verdicts[n], want) || !strings.HasSuffix(verdicts[n], "): truncated gzip data: unexpected EOF") {
		t.Errorf("at the cut: %q, want %q…", verdicts[n], want)
	}
	if s := robustCountsOf(sum); s.Records != int64(n+2) || s.InputErrors != 1 || s.Unique+s.Exact+s.Near != int64(n+1) {
		t.Errorf("summary %+v after %d records", s, n)
	}
}

// TestRobustDuplicateIDsAcrossRuns: a second dedup.Run run over the same
// persistent index, as another job (a grown input, a changed setting),
// reports the records whose ids the first stored as archived, with their
// verdicts then, duplicates too; the same job says it resumed; a changed
// text under a stored id is rejected, the archive keeping its text.
// On main before issue #19 item 2 the other job rejected every record
// ("duplicate id … added by job job1") and the duplicate was not stored.
func TestRobustDuplicateIDsAcrossRuns(t *testing.T) {
	t.Parallel()
	lines := testfixtures.JSONLine("a", testfixtures.EN) + "\n" + testfixtures.JSONLine("b", testfixtures.ZH) + "\n" +
		testfixtures.JSONLine("c", testfixtures.ZH2+" 新的一段。") + "\n" + testfixtures.JSONLine("d", testfixtures.EN) + "\n"
	dir := writeRobustFiles(t, []robustFile{
		{"in.jsonl", []byte(lines)},
		{"grown.jsonl", []byte(lines + testfixtures.JSONLine("e", testfixtures.ZH+" 又一段。") + "\n")},
		{"changed.jsonl", []byte(testfixtures.JSONLine("a", testfixtures.EN) + "\n" + testfixtures.JSONLine("b", testfixtures.ZH2) + "\n")},
	})
	x, err := badgerstore.OpenIndex(context.Background(), filepath.Join(dir, "idx"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	a := testfixtures.Analyzer(t, "")
	now := func() time.Time { return time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC) }
	run := func(job, file string) ([]string, report.Summary) {
		var got []string
		r := input.NewReader([]string{filepath.Join(dir, file)}, nil, nil)
		sum, err := Run(context.Background(), r, a, x, &Options{Job: job, Now: now}, func(o *Outcome) error {
			s := robustOutcome(o, dir)
			switch {
			case o.Resumed:
				s += " (resumed)"
			case o.Archived:
				s += " (archived)"
			}
			got = append(got, s)
			return nil
		})
		if err != nil {
			t.Fatalf("job %s: %v", job, err)
		}
		return got, sum
	}
	type counts struct{ Unique, Exact, Near, Rejected, Archived, Resumed, Changed int64 }
	countsOf := func(s report.Summary) counts {
		return counts{s.Unique, s.Exact, s.Near, s.Rejected, s.Archived, s.Resumed, s.Changed}
	}
	for _, tc := range []struct {
		name, job, file string
		want            []string
		sum             counts
	}{
		{"first run", "job1", "in.jsonl",
			[]string{"unique a", "unique b", "unique c", "duplicate d of a (exact)"},
			counts{Unique: 3, Exact: 1}},
		{"same job again", "job1", "in.jsonl",
			[]string{"unique a (resumed)", "unique b (resumed)", "unique c (resumed)", "duplicate d of a (exact) (resumed)"},
			counts{Unique: 3, Exact: 1, Archived: 4, Resumed: 4}},
		{"grown input", "job2", "grown.jsonl",
			[]string{"unique a (archived)", "unique b (archived)", "unique c (archived)", "duplicate d of a (exact) (archived)", "duplicate e of b (near)"},
			counts{Unique: 3, Exact: 1, Near: 1, Archived: 4}},
		{"the grown input again", "job2", "grown.jsonl",
			[]string{"unique a (archived)", "unique b (archived)", "unique c (archived)", "duplicate d of a (exact) (archived)", "duplicate e of b (near) (resumed)"},
			counts{Unique: 3, Exact: 1, Near: 1, Archived: 5, Resumed: 1}},
		{"changed text", "job3", "changed.jsonl",
			[]string{"unique a (archived)",
				`rejected: changed.jsonl:2: field "id": id "b" is archived with another text (added 2024-05-06T07:08:09Z by job job1, record 2); the archive keeps that one: delete it first to replace it`},
			counts{Unique: 1, Rejected: 1, Archived: 1, Changed: 1}},
	} {
		got, sum := run(tc.job, tc.file)
		if !slices.Equal(got, tc.want) {
			robustDiff(t, tc.name, got, tc.want)
		}
		if c := countsOf(sum); c != tc.sum {
			t.Errorf("%s: summary %+v, want %+v", tc.name, c, tc.sum)
		}
	}
	if b, err := x.Get(context.Background(), "b"); err != nil || b.Seq != 1 || b.Job != "job1" {
		t.Errorf("b after the changed text: %+v, %v; want job1's record 2 kept", b, err)
	}
}

// robustCorpus returns the first n articles of the sample corpus as
// JSONL, with every fifth followed by an exact copy and every seventh by
// a copy with an added sentence, under new ids.
func robustCorpus(t testing.TB, n int) string {
	t.Helper()
	f, err := os.Open("../testdata/sample/sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var b strings.Builder
	for i := 0; i < n && sc.Scan(); i++ {
		line := sc.Text()
		b.WriteString(line + "\n")
		if i%5 == 4 {
			b.WriteString(strings.Replace(line, `"id":"`, `"id":"copy-`, 1) + "\n")
		}
		if i%7 == 6 {
			edited := strings.Replace(line, `"id":"`, `"id":"edit-`, 1)
			edited = strings.Replace(edited, `","title"`, ` And one more sentence at the end.","title"`, 1)
			b.WriteString(edited + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRobustConcurrentDedup runs dedup.Run several times at once with one
// shared neardup.Analyzer (each with its own store): with -race it proves the
// sharing safe, and every run decides what a run alone decides. The runs
// also differ in Workers and Batch, which must not change the outcome.
func TestRobustConcurrentDedup(t *testing.T) {
	t.Parallel()
	n := 60
	if testing.Short() {
		n = 25
	}
	corpus := robustCorpus(t, n)
	a := testfixtures.Analyzer(t, "")
	run := func(workers, batch int) ([]string, error) {
		var got []string
		r := input.NewReader([]string{"-"}, strings.NewReader(corpus), nil)
		_, err := Run(context.Background(), r, a, robustMemory(t), &Options{Workers: workers, Batch: batch}, func(o *Outcome) error {
			got = append(got, robustOutcome(o, ""))
			return nil
		})
		return got, err
	}
	want, err := run(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	dups := 0
	for _, v := range want {
		if strings.HasPrefix(v, "duplicate ") {
			dups++
		}
	}
	if dups < n/7 {
		t.Fatalf("%d duplicates in the corpus: too few to compare\n%q", dups, want)
	}
	configs := []struct{ workers, batch int }{{1, 0}, {2, 0}, {3, 7}, {8, 0}, {8, 100}}
	var wg sync.WaitGroup
	results := make([][]string, len(configs))
	errs := make([]error, len(configs))
	for i, c := range configs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = run(c.workers, c.batch)
		}()
	}
	wg.Wait()
	for i, c := range configs {
		if errs[i] != nil {
			t.Errorf("workers %d batch %d: %v", c.workers, c.batch, errs[i])
		} else if !slices.Equal(results[i], want) {
			robustDiff(t, fmt.Sprintf("workers %d batch %d", c.workers, c.batch), results[i], want)
		}
	}
}

// TestRobustDedupCancel: cancelling the context stops dedup.Run with the
// context's error, without a panic or a leaked goroutine blocking it.
func TestRobustDedupCancel(t *testing.T) {
	t.Parallel()
	corpus := robustCorpus(t, 40)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	r := input.NewReader([]string{"-"}, strings.NewReader(corpus), nil)
	_, err := Run(ctx, r, testfixtures.Analyzer(t, ""), robustMemory(t), &Options{Workers: 3}, func(*Outcome) error {
		if n++; n == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: %v, want context.Canceled", err)
	}
	// An error from emit stops the run with that error.
	stop := errors.New("stop here")
	r = input.NewReader([]string{"-"}, strings.NewReader(corpus), nil)
	n = 0
	_, err = Run(context.Background(), r, testfixtures.Analyzer(t, ""), robustMemory(t), &Options{Workers: 3}, func(*Outcome) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("emit error: %v after %d outcomes, want %v after 3", err, n, stop)
	}
}
