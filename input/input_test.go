package input

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// inputResult is one outcome of Reader.Next: a record or an error's text.
type inputResult struct {
	Rec Record
	Err string
}

// readAllInputs reads r to io.EOF and checks the error types: every error must
// be a *RecordError or an *Error.
func readAllInputs(t *testing.T, r *Reader) []inputResult {
	t.Helper()
	var out []inputResult
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("Reader does not end")
		}
		rec, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			var re *RecordError
			var ie *Error
			if !errors.As(err, &re) && !errors.As(err, &ie) {
				t.Fatalf("Next: error of type %T: %v", err, err)
			}
			if !reflect.DeepEqual(rec, Record{}) {
				t.Errorf("Next returned record %+v with error %v", rec, err)
			}
			out = append(out, inputResult{Err: err.Error()})
			continue
		}
		out = append(out, inputResult{Rec: rec})
	}
}

func checkInputResults(t *testing.T, got, want []inputResult) {
	t.Helper()
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			t.Errorf("result %d missing, want %+v", i, want[i])
		case i >= len(want):
			t.Errorf("extra result %d: %+v", i, got[i])
		case !reflect.DeepEqual(got[i], want[i]):
			t.Errorf("result %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// gbk encodes s in GBK.
func gbkString(t testing.TB, s string) string {
	b, err := simplifiedchinese.GBK.NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReaderJSONL(t *testing.T) {
	gbkLine := `{"id":"g1","title":"` + gbkString(t, "标题") + `","text":"` + gbkString(t, "中文新闻的正文。") + `"}`
	long := `{"id":"long","text":"` + strings.Repeat("x", 200) + `"}`
	tests := []struct {
		name string
		in   string
		opts *Options
		want []inputResult
	}{
		{
			name: "valid",
			in:   "{\"id\":\"a\",\"title\":\"T\",\"text\":\"hello\"}\n{\"id\":\"b\",\"text\":\"world\",\"x\":[1,{\"y\":null}]}\n",
			want: []inputResult{
				{Rec: Record{ID: "a", Title: "T", Text: "hello", Source: "data.jsonl", Line: 1, Raw: []byte(`{"id":"a","title":"T","text":"hello"}`), Offset: 0}},
				{Rec: Record{ID: "b", Text: "world", Source: "data.jsonl", Line: 2, Raw: []byte(`{"id":"b","text":"world","x":[1,{"y":null}]}`), Offset: 38}},
			},
		},
		{
			name: "id number",
			in:   `{"id":12,"text":"a"}` + "\n" + `{"id":-1.5e3,"text":"b"}`,
			want: []inputResult{
				{Rec: Record{ID: "12", Text: "a", Source: "data.jsonl", Line: 1, Raw: []byte(`{"id":12,"text":"a"}`)}},
				{Rec: Record{ID: "-1.5e3", Text: "b", Source: "data.jsonl", Line: 2, Raw: []byte(`{"id":-1.5e3,"text":"b"}`), Offset: 21}},
			},
		},
		{
			name: "missing or null id",
			in:   `{"text":"a"}` + "\n" + `{"id":null,"text":"b"}` + "\n",
			want: []inputResult{
				{Rec: Record{ID: "data.jsonl:1", Text: "a", Source: "data.jsonl", Line: 1, Raw: []byte(`{"text":"a"}`)}},
				{Rec: Record{ID: "data.jsonl:2", Text: "b", Source: "data.jsonl", Line: 2, Raw: []byte(`{"id":null,"text":"b"}`), Offset: 13}},
			},
		},
		{
			name: "bad text",
			in: `{"id":1,"text":42}` + "\n" + `{"id":2}` + "\n" + `{"id":3,"text":""}` + "\n" +
				`{"id":4,"text":null}` + "\n" + `{"id":5,"text":" \n\t"}` + "\n" + `{"id":6,"text":["a"]}` + "\n",
			want: []inputResult{
				{Err: `data.jsonl:1: field "text": not a string (number)`},
				{Err: `data.jsonl:2: field "text": missing`},
				{Err: `data.jsonl:3: field "text": empty string`},
				{Err: `data.jsonl:4: field "text": not a string (null)`},
				{Err: `data.jsonl:5: field "text": only white space`},
				{Err: `data.jsonl:6: field "text": not a string (array)`},
			},
		},
		{
			name: "bad id and title",
			in: `{"id":"","text":"a"}` + "\n" + `{"id":{},"text":"a"}` + "\n" + `{"id":true,"text":"a"}` + "\n" +
				`{"id":"t","title":7,"text":"a"}` + "\n" + `{"id":"u","title":null,"text":"a"}` + "\n" + `{"id":"v","title":[],"text":"a"}` + "\n",
			want: []inputResult{
				{Err: `data.jsonl:1: field "id": empty string`},
				{Err: `data.jsonl:2: field "id": not a string or number (object)`},
				{Err: `data.jsonl:3: field "id": not a string or number (boolean)`},
				{Rec: Record{ID: "t", Title: "7", Text: "a", Source: "data.jsonl", Line: 4, Raw: []byte(`{"id":"t","title":7,"text":"a"}`), Offset: 65}},
				{Rec: Record{ID: "u", Text: "a", Source: "data.jsonl", Line: 5, Raw: []byte(`{"id":"u","title":null,"text":"a"}`), Offset: 97}},
				{Err: `data.jsonl:6: field "title": not a string (array)`},
			},
		},
		{
			name: "malformed",
			in: `{"id":1,"text":"a"` + "\n" + `{"id":1 "text":"a"}` + "\n" + `[1,2]` + "\n" + `{"text":"a"} x` + "\n" +
				`{"text":"a\qb"}` + "\n" + `{"text":01}` + "\n" + `{"text":"tab	inside"}` + "\n" + `"just a string"` + "\n" + `{"text":tru}` + "\n",
			want: []inputResult{
				{Err: `data.jsonl:1: malformed JSON at byte 18: unexpected end of line after object value`},
				{Err: `data.jsonl:2: malformed JSON at byte 8: unexpected '"' after object value`},
				{Err: `data.jsonl:3: not a JSON object (array)`},
				{Err: `data.jsonl:4: malformed JSON at byte 13: unexpected 'x' after the object`},
				{Err: `data.jsonl:5: malformed JSON at byte 11: unexpected 'q' in string escape`},
				{Err: `data.jsonl:6: malformed JSON at byte 9: unexpected '1' after object value`},
				{Err: `data.jsonl:7: malformed JSON at byte 12: unexpected '\t' in string`},
				{Err: `data.jsonl:8: not a JSON object (string)`},
				{Err: `data.jsonl:9: malformed JSON at byte 11: unexpected '}' in literal true`},
			},
		},
		{
			name: "line over MaxLine then a good line",
			in:   long + "\n" + `{"id":"ok","text":"fine"}` + "\n",
			opts: &Options{MaxLine: 100},
			want: []inputResult{
				{Err: `data.jsonl:1: line too long: more than 100 bytes`},
				{Rec: Record{ID: "ok", Text: "fine", Source: "data.jsonl", Line: 2, Raw: []byte(`{"id":"ok","text":"fine"}`), Offset: int64(len(long) + 1)}},
			},
		},
		{
			name: "text over MaxBytes",
			in:   `{"id":1,"text":"` + strings.Repeat("y", 11) + `"}` + "\n",
			opts: &Options{MaxBytes: 10},
			want: []inputResult{{Err: `data.jsonl:1: field "text": too large: 11 bytes (maximum 10, --max-bytes)`}},
		},
		{
			name: "blank lines, CRLF, no final newline",
			in:   "\n  \r\n{\"id\":\"a\",\"text\":\"x\"}\r\n\t\n{\"id\":\"b\",\"text\":\"y\"}",
			want: []inputResult{
				{Rec: Record{ID: "a", Text: "x", Source: "data.jsonl", Line: 3, Raw: []byte("{\"id\":\"a\",\"text\":\"x\"}\r"), Offset: 5}},
				{Rec: Record{ID: "b", Text: "y", Source: "data.jsonl", Line: 5, Raw: []byte(`{"id":"b","text":"y"}`), Offset: 30}},
			},
		},
		{
			name: "UTF-8 BOM",
			in:   "\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"x\"}\n",
			want: []inputResult{{Rec: Record{ID: "a", Text: "x", Source: "data.jsonl", Line: 1, Raw: []byte(`{"id":"a","text":"x"}`), Offset: 3}}},
		},
		{
			// Files concatenated with cat: the second one's byte-order mark
			// starts a line.
			name: "UTF-8 BOM on a later line",
			in:   "{\"id\":\"a\",\"text\":\"x\"}\n\xEF\xBB\xBF{\"id\":\"b\",\"text\":\"y\"}\n",
			want: []inputResult{
				{Rec: Record{ID: "a", Text: "x", Source: "data.jsonl", Line: 1, Raw: []byte(`{"id":"a","text":"x"}`)}},
				{Rec: Record{ID: "b", Text: "y", Source: "data.jsonl", Line: 2, Raw: []byte(`{"id":"b","text":"y"}`), Offset: 22}},
			},
		},
		{
			name: "escapes",
			in:   `{"id":"\u0041\"","text":"a\nb\t\u4e2d\ud83d\ude00\ud800x\/\\","ti\u0074le":"t"}`,
			want: []inputResult{{Rec: Record{ID: `A"`, Title: "t", Text: "a\nb\t中😀\uFFFDx/\\", Source: "data.jsonl", Line: 1,
				Raw: []byte(`{"id":"\u0041\"","text":"a\nb\t\u4e2d\ud83d\ude00\ud800x\/\\","ti\u0074le":"t"}`)}}},
		},
		{
			name: "duplicate key: the last one wins",
			in:   `{"text":"first","text":"second"}`,
			want: []inputResult{{Rec: Record{ID: "data.jsonl:1", Text: "second", Source: "data.jsonl", Line: 1, Raw: []byte(`{"text":"first","text":"second"}`)}}},
		},
		{
			name: "custom fields",
			in:   `{"doc":"d1","body":"b","head":"h","text":"ignored"}`,
			opts: &Options{IDField: "doc", TextField: "body", TitleField: "head"},
			want: []inputResult{{Rec: Record{ID: "d1", Title: "h", Text: "b", Source: "data.jsonl", Line: 1, Raw: []byte(`{"doc":"d1","body":"b","head":"h","text":"ignored"}`)}}},
		},
		{
			name: "HTML",
			in:   `{"id":1,"title":"A &amp; B","text":"<p>one<script>x()</script></p><p>two &lt;3</p>"}` + "\n" + `{"id":2,"text":"<br><!-- x -->"}`,
			opts: &Options{HTML: true},
			want: []inputResult{
				{Rec: Record{ID: "1", Title: "A & B", Text: "one\ntwo <3", Source: "data.jsonl", Line: 1,
					Raw: []byte(`{"id":1,"title":"A &amp; B","text":"<p>one<script>x()</script></p><p>two &lt;3</p>"}`)}},
				{Err: `data.jsonl:2: field "text": no text after HTML stripping`},
			},
		},
		{
			name: "GBK line",
			in:   gbkLine + "\n",
			want: []inputResult{{Rec: Record{ID: "g1", Title: "标题", Text: "中文新闻的正文。", Source: "data.jsonl", Line: 1, Raw: []byte(gbkLine)}}},
		},
		{
			name: "GBK line, forced",
			in:   gbkLine + "\n",
			opts: &Options{Encoding: "gbk"},
			want: []inputResult{{Rec: Record{ID: "g1", Title: "标题", Text: "中文新闻的正文。", Source: "data.jsonl", Line: 1, Raw: []byte(gbkLine)}}},
		},
		{
			name: "GBK line, UTF-8 forced",
			in:   gbkLine + "\n",
			opts: &Options{Encoding: "utf-8"},
			want: []inputResult{{Err: `data.jsonl:1: invalid UTF-8 at byte 20 of the line`}},
		},
		{
			name: "invalid bytes",
			in:   `{"id":1,"text":"ok"}` + "\n" + "{\"id\":2,\"text\":\"caf\xe9 \xff\"}\n" + `{"id":3,"text":"still read"}`,
			want: []inputResult{
				{Rec: Record{ID: "1", Text: "ok", Source: "data.jsonl", Line: 1, Raw: []byte(`{"id":1,"text":"ok"}`)}},
				{Err: `data.jsonl:2: invalid UTF-8 (not GBK/GB18030 either) at byte 19 of the line`},
				{Rec: Record{ID: "3", Text: "still read", Source: "data.jsonl", Line: 3, Raw: []byte(`{"id":3,"text":"still read"}`), Offset: 46}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.WriteFile("data.jsonl", []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			checkInputResults(t, readAllInputs(t, NewReader([]string{"data.jsonl"}, nil, tt.opts)), tt.want)
		})
	}
}

// TestReaderLongLineMemory checks that a line far over MaxLine is skipped
// without being held in memory.
func TestReaderLongLineMemory(t *testing.T) {
	in := `{"text":"` + strings.Repeat("x", 8<<20) + `"}` + "\n" + `{"text":"after"}` + "\n"
	r := NewReader([]string{"-"}, strings.NewReader(in), &Options{MaxLine: 1000})
	_, err := r.Next()
	if err == nil || err.Error() != "stdin:1: line too long: more than 1000 bytes" {
		t.Fatalf("Next = %v, want line too long", err)
	}
	if c := cap(r.cur.(*jsonlInput).lines.buf); c > 1000+readBufferSize {
		t.Errorf("line buffer grew to %d bytes", c)
	}
	rec, err := r.Next()
	if err != nil || rec.Text != "after" || rec.Line != 2 {
		t.Errorf("Next = %+v, %v; want the line after", rec, err)
	}
}

// TestReaderLimits: a line over MaxLine and a text over MaxBytes are bad
// records naming their line; the records after them are read. MaxLine
// defaults to MaxBytes + 1 MiB; a MaxLine below MaxBytes applies.
func TestReaderLimits(t *testing.T) {
	t.Chdir(t.TempDir())
	big := strings.Repeat("Heavy rain flooded the valley roads. ", 100) // 3,700 bytes
	writeInputFiles(t, ".", map[string]string{"in.jsonl": `{"id":"a","text":"before"}` + "\n" +
		`{"id":"big","text":"` + big + `"}` + "\n" + `{"id":"b","text":"after"}` + "\n"})
	tests := []struct {
		opts Options
		bad  string
	}{
		{Options{MaxBytes: 2000}, `in.jsonl:2: field "text": too large: 3700 bytes (maximum 2000, --max-bytes)`},
		{Options{MaxLine: 2000}, `in.jsonl:2: line too long: more than 2000 bytes`},
		{Options{MaxBytes: 100000, MaxLine: 1000}, `in.jsonl:2: line too long: more than 1000 bytes`},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range readAllInputs(t, NewReader([]string{"in.jsonl"}, nil, &tt.opts)) {
			if r.Err != "" {
				got = append(got, r.Err)
			} else {
				got = append(got, r.Rec.ID)
			}
		}
		if want := []string{"a", tt.bad, "b"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%+v:\n got %q\nwant %q", tt.opts, got, want)
		}
	}
}

// writeInputFiles creates files (name → content) under dir.
func writeInputFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func gzipString(t testing.TB, s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestReaderDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	writeInputFiles(t, "corpus", map[string]string{
		"a.txt":             "Hello, world.\n",
		"b/c.txt":           "\xEF\xBB\xBFwith BOM",
		"b/d.jsonl":         `{"id":"j1","text":"from jsonl"}` + "\n",
		"b.txt":             "after the directory b",
		".hidden.txt":       "skipped",
		".git/config":       "skipped",
		"gbk.txt":           gbkString(t, "这是一篇用GBK编码的中文文章。"),
		"img.png":           "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"doc.zip":           "PK\x03\x04\x14\x00\x00\x00",
		"nul.txt":           "text\x00more",
		"latin1.txt":        "caf\xe9 au lait",
		"empty.txt":         "",
		"blank.txt":         " \n\t\n",
		"page.html":         "<html><head><title>T</title></head><body><p>Body &amp; soul</p></body></html>",
		"z.txt.gz":          gzipString(t, "compressed text"),
		"y.jsonl.gz":        gzipString(t, `{"id":"gz1","text":"compressed line"}`+"\n"),
		"x.dat":             `{"id":"sniffed","text":"jsonl without the extension"}`,
		"utf16.txt":         "\xFF\xFEh\x00i\x00",
		"controls.txt":      "\x01\x02\x03abc",
		"sub/deep/file.txt": "deep",
	})
	got := readAllInputs(t, NewReader([]string{"corpus", "corpus/a.txt"}, nil, nil))
	want := []inputResult{
		{Rec: Record{ID: "a.txt", Text: "Hello, world.\n", Source: "corpus/a.txt"}},
		{Rec: Record{ID: "b/c.txt", Text: "with BOM", Source: "corpus/b/c.txt"}},
		{Rec: Record{ID: "j1", Text: "from jsonl", Source: "corpus/b/d.jsonl", Line: 1, Raw: []byte(`{"id":"j1","text":"from jsonl"}`)}},
		{Rec: Record{ID: "b.txt", Text: "after the directory b", Source: "corpus/b.txt"}},
		{Err: "corpus/blank.txt: no text"},
		{Err: "corpus/controls.txt: binary data (3 control characters)"},
		{Err: "corpus/doc.zip: binary data (ZIP archive)"},
		{Err: "corpus/empty.txt: empty file"},
		{Rec: Record{ID: "gbk.txt", Text: "这是一篇用GBK编码的中文文章。", Source: "corpus/gbk.txt"}},
		{Err: "corpus/img.png: binary data (PNG image)"},
		{Err: "corpus/latin1.txt: invalid UTF-8 (not GBK/GB18030 either) at byte 3"},
		{Err: "corpus/nul.txt: binary data (NUL byte at byte 4)"},
		{Rec: Record{ID: "page.html", Text: "<html><head><title>T</title></head><body><p>Body &amp; soul</p></body></html>", Source: "corpus/page.html"}},
		{Rec: Record{ID: "sub/deep/file.txt", Text: "deep", Source: "corpus/sub/deep/file.txt"}},
		{Rec: Record{ID: "utf16.txt", Text: "hi", Source: "corpus/utf16.txt"}},
		{Rec: Record{ID: "sniffed", Text: "jsonl without the extension", Source: "corpus/x.dat", Line: 1, Raw: []byte(`{"id":"sniffed","text":"jsonl without the extension"}`)}},
		{Rec: Record{ID: "gz1", Text: "compressed line", Source: "corpus/y.jsonl.gz", Line: 1, Raw: []byte(`{"id":"gz1","text":"compressed line"}`)}},
		{Rec: Record{ID: "z.txt.gz", Text: "compressed text", Source: "corpus/z.txt.gz"}},
		// A file named directly: its ID is the path as given.
		{Rec: Record{ID: "corpus/a.txt", Text: "Hello, world.\n", Source: "corpus/a.txt"}},
	}
	checkInputResults(t, got, want)

	// With HTML stripping, an HTML file's title element is its title.
	got = readAllInputs(t, NewReader([]string{"corpus/page.html"}, nil, &Options{HTML: true}))
	checkInputResults(t, got, []inputResult{{Rec: Record{ID: "corpus/page.html", Title: "T", Text: "Body & soul", Source: "corpus/page.html"}}})
}

func TestReaderInputErrors(t *testing.T) {
	t.Chdir(t.TempDir())
	writeInputFiles(t, ".", map[string]string{
		"ok.txt":      "fine",
		"big.txt":     strings.Repeat("a", 20),
		"big.txt.gz":  gzipString(t, strings.Repeat("a", 20)),
		"fake.gz":     "\x1f\x8bnot really gzip",
		"header.gz":   "\x1f\x8b\x08",
		"utf16.jsonl": "\xFF\xFE{\x00}\x00",
	})
	got := readAllInputs(t, NewReader([]string{"missing.txt", "ok.txt", "big.txt", "big.txt.gz", "fake.gz", "header.gz", "utf16.jsonl", "-"}, nil, &Options{MaxBytes: 10}))
	want := []inputResult{
		{Err: "missing.txt: stat: no such file or directory"},
		{Rec: Record{ID: "ok.txt", Text: "fine", Source: "ok.txt"}},
		{Err: "big.txt: too large: 20 bytes (maximum 10, --max-bytes)"},
		{Err: "big.txt.gz: too large: more than 10 bytes (the maximum, --max-bytes)"},
		{Err: "fake.gz: gzip: invalid header"},
		{Err: "header.gz: truncated gzip data: unexpected EOF"},
		{Err: "utf16.jsonl: UTF-16 text: JSONL must be UTF-8, GBK or GB18030"},
		{Err: "stdin: no standard input"},
	}
	checkInputResults(t, got, want)

	var ie *Error
	_, err := NewReader([]string{"missing.txt"}, nil, nil).Next()
	if !errors.As(err, &ie) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Next = %v, want an *Error wrapping os.ErrNotExist", err)
	}
}

// TestReaderTruncatedGzip cuts gzip files in the middle: the complete
// records come first, then an error naming the file and the position.
func TestReaderTruncatedGzip(t *testing.T) {
	t.Chdir(t.TempDir())
	var jsonl strings.Builder
	for i := range 2000 {
		// Varying content, so that the compressed data is not tiny.
		jsonl.WriteString(`{"id":"` + strings.Repeat("k", i%7) + strconv.Itoa(i) + `","text":"line ` + strconv.Itoa(i*i*7919%100003) + `"}` + "\n")
	}
	full := gzipString(t, jsonl.String())
	writeInputFiles(t, ".", map[string]string{
		"cut.jsonl.gz": full[:len(full)/2],
		"cut.txt.gz":   full[:len(full)/2],
	})
	lines := strings.Split(jsonl.String(), "\n")

	r := NewReader([]string{"cut.jsonl.gz", "cut.txt.gz"}, nil, nil)
	n := 0
	var err error
	for {
		var rec Record
		rec, err = r.Next()
		if err != nil {
			break
		}
		if string(rec.Raw) != lines[n] || rec.Line != n+1 {
			t.Fatalf("record %d: line %d %q, want %q", n, rec.Line, rec.Raw, lines[n])
		}
		n++
	}
	if n < 100 || n >= len(lines)-1 {
		t.Errorf("read %d complete records of %d before the cut", n, len(lines)-1)
	}
	var ie *Error
	if !errors.As(err, &ie) || ie.Source != "cut.jsonl.gz" || ie.Line != n+1 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("after %d records: %#v, want an *Error for line %d", n, err, n+1)
	}
	if ok, _ := regexp.MatchString(`^cut\.jsonl\.gz: line \d+ \(byte \d+\): truncated gzip data: unexpected EOF$`, err.Error()); !ok {
		t.Errorf("error text %q", err)
	}
	// The next input is read: a whole file cut short is an error too.
	_, err = r.Next()
	if ok, _ := regexp.MatchString(`^cut\.txt\.gz: byte \d+: truncated gzip data: unexpected EOF$`, err.Error()); !ok {
		t.Errorf("whole file: error %q", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
}

func TestReaderStdin(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts *Options
		want []inputResult
	}{
		{
			name: "JSONL sniffed",
			in:   "\n  {\"text\":\"a\"}\n",
			want: []inputResult{{Rec: Record{ID: "stdin:2", Text: "a", Source: "stdin", Line: 2, Raw: []byte(`  {"text":"a"}`), Offset: 1}}},
		},
		{
			name: "text",
			in:   "plain text",
			want: []inputResult{{Rec: Record{ID: "-", Text: "plain text", Source: "stdin"}}},
		},
		{
			name: "JSONL forced to text",
			in:   `{"text":"a"}`,
			opts: &Options{Format: "text"},
			want: []inputResult{{Rec: Record{ID: "-", Text: `{"text":"a"}`, Source: "stdin"}}},
		},
		{
			name: "text forced to JSONL",
			in:   "plain text",
			opts: &Options{Format: "jsonl"},
			want: []inputResult{{Err: `stdin:1: malformed JSON at byte 0: unexpected 'p' looking for a value`}},
		},
		{
			name: "gzip",
			in:   gzipString(t, `{"id":"z","text":"a"}`),
			want: []inputResult{{Rec: Record{ID: "z", Text: "a", Source: "stdin", Line: 1, Raw: []byte(`{"id":"z","text":"a"}`)}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkInputResults(t, readAllInputs(t, NewReader([]string{"-"}, strings.NewReader(tt.in), tt.opts)), tt.want)
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		opts *Options
		want string
	}{
		{nil, ""},
		{&Options{Format: "JSONL", Encoding: "GB2312"}, ""},
		{&Options{Format: "xml"}, `input format "xml": want auto, jsonl or text`},
		{&Options{Encoding: "latin1"}, `input encoding: unknown encoding "latin1" (want auto, utf-8, gbk or gb18030)`},
		{&Options{MaxBytes: -1}, "maximum article size -1: must not be negative"},
		{&Options{MaxLine: -1}, "maximum line length -1: must not be negative"},
	}
	for _, tt := range tests {
		err := tt.opts.Validate()
		if got := inputErrString(err); got != tt.want {
			t.Errorf("Validate(%+v) = %q, want %q", tt.opts, got, tt.want)
		}
		if err != nil {
			r := NewReader([]string{"-"}, strings.NewReader("x"), tt.opts)
			for range 2 {
				if _, err := r.Next(); inputErrString(err) != tt.want {
					t.Errorf("Next = %v, want %q", err, tt.want)
				}
			}
		}
	}
}

func inputErrString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestReaderDefaults(t *testing.T) {
	o, err := (*Options)(nil).resolved()
	want := Options{IDField: "id", TextField: "text", TitleField: "title", Format: "auto", Encoding: "auto",
		MaxBytes: 16 << 20, MaxLine: 17 << 20}
	if err != nil || o != want {
		t.Errorf("defaults = %+v, %v; want %+v", o, err, want)
	}
}

func TestReaderClose(t *testing.T) {
	t.Chdir(t.TempDir())
	writeInputFiles(t, ".", map[string]string{"a.jsonl": `{"text":"a"}` + "\n" + `{"text":"b"}` + "\n"})
	r := NewReader([]string{"a.jsonl", "a.jsonl"}, nil, nil)
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("Next after Close = %v, want io.EOF", err)
	}
}

// TestReaderLineLengths checks lines longer than the read buffer and lines
// at the MaxLine limit, with and without a final newline.
func TestReaderLineLengths(t *testing.T) {
	line := func(n int) string { // a JSONL line of exactly n bytes
		return `{"text":"` + strings.Repeat("z", n-11) + `"}`
	}
	big := line(3*readBufferSize + 5)
	tests := []struct {
		name    string
		in      string
		maxLine int
		want    []int // lengths of the texts read; -1 for "line too long"
	}{
		{"long lines", big + "\n" + big + "\n" + big, 0, []int{3*readBufferSize - 6, 3*readBufferSize - 6, 3*readBufferSize - 6}},
		{"at the limit", line(100) + "\n" + line(101) + "\n" + line(100), 100, []int{89, -1, 89}},
		{"CR counts", line(100) + "\r\n" + line(101), 101, []int{89, 90}},
		{"over the limit at the end", line(100) + "\n" + line(101), 100, []int{89, -1}},
		{"long over the limit", big + "\n" + line(50) + "\n" + big, 3 * readBufferSize, []int{-1, 39, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader([]string{"-"}, strings.NewReader(tt.in), &Options{MaxLine: tt.maxLine})
			var got []int
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				var re *RecordError
				switch {
				case errors.As(err, &re) && strings.Contains(re.Reason, "line too long"):
					got = append(got, -1)
				case err != nil:
					t.Fatal(err)
				default:
					if strings.Trim(rec.Text, "z") != "" || string(rec.Raw) != strings.Split(tt.in, "\n")[rec.Line-1] {
						t.Fatalf("line %d: wrong record", rec.Line)
					}
					got = append(got, len(rec.Text))
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestReadOne: one article, or an error naming the input.
func TestReadOne(t *testing.T) {
	tests := []struct {
		stdin, id, err string
	}{
		{`{"id":"a","text":"x"}` + "\n", "a", ""},
		{"just text", "-", ""},
		{"", "", "stdin: empty file"},
		{`{"id":"a","text":"x"}` + "\n" + `{"id":"b","text":"y"}` + "\n", "a", "-: holds more than one article; want one"},
	}
	for _, tt := range tests {
		rec, err := ReadOne("-", strings.NewReader(tt.stdin), nil)
		if rec.ID != tt.id || fmt.Sprint(err) != map[bool]string{true: "<nil>", false: tt.err}[tt.err == ""] {
			t.Errorf("ReadOne(%q) = id %q, %v; want %q, %q", tt.stdin, rec.ID, err, tt.id, tt.err)
		}
	}
	dir := t.TempDir()
	if _, err := ReadOne(dir, nil, nil); err == nil || err.Error() != dir+": no article" {
		t.Errorf("ReadOne(empty directory): %v, want %q", err, dir+": no article")
	}
}

func TestQuoteIDAndName(t *testing.T) {
	t.Parallel()
	ids := map[string]string{
		"a/b.txt":                "a/b.txt",
		"新闻/0001":                "新闻/0001",
		"has space":              `"has space"`,
		"":                       `""`,
		"tab\there":              `"tab\there"`,
		`say "hi"`:               `"say \"hi\""`,
		"bad\xffutf8":            `"bad\xffutf8"`,
		strings.Repeat("x", 121): strings.Repeat("x", 117) + "...",
	}
	for id, want := range ids {
		if got := QuoteID(id); got != want {
			t.Errorf("QuoteID(%q) = %q, want %q", id, got, want)
		}
	}
	for _, tt := range []struct {
		rec  Record
		want string
	}{
		{Record{Source: "a.jsonl", Line: 17, ID: "x y"}, `a.jsonl:17 (id "x y")`},
		{Record{Source: "a.jsonl", Line: 17}, "a.jsonl:17"},
		{Record{Source: "dir/a.txt", ID: "dir/a.txt"}, "dir/a.txt"},
	} {
		if got := tt.rec.Name(); got != tt.want {
			t.Errorf("%+v.Name() = %q, want %q", tt.rec, got, tt.want)
		}
	}
}

// TestRecordBytes: the bytes counted for a record add up to its input's
// size: a JSONL line and its newline, a whole file's text.
func TestRecordBytes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		rec  Record
		err  error
		want int64
	}{
		{Record{Raw: []byte(`{"id":"a","text":"xyz"}`), Text: "xyz"}, nil, 24},
		{Record{Text: "a whole file"}, nil, 12},
		{Record{}, &RecordError{Raw: []byte(`{"text":1}`)}, 11},
	} {
		if got := RecordBytes(&tt.rec, tt.err); got != tt.want {
			t.Errorf("RecordBytes(%+v, %v) = %d, want %d", tt.rec, tt.err, got, tt.want)
		}
	}
}

// TestReaderDone: Done counts the bytes of the files read, as on disk,
// up to Size, and Size walks directories as the Reader does.
func TestReaderDone(t *testing.T) {
	t.Chdir(t.TempDir())
	jsonl := strings.Repeat(`{"id":"x","text":"some text"}`+"\n", 3)
	writeInputFiles(t, "d", map[string]string{
		"a.jsonl.gz":  gzipString(t, strings.Repeat(jsonl, 1000)),
		"b.txt":       "a whole file",
		".hidden.txt": "not read, not counted",
		"sub/c.jsonl": jsonl,
	})
	size := func(name string) int64 {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	total := size("d/a.jsonl.gz") + size("d/b.txt") + size("d/sub/c.jsonl")
	if got := Size([]string{"d", "missing"}); got != total {
		t.Errorf("Size = %d, want %d", got, total)
	}
	if got := Size([]string{"d", "-"}); got != -1 {
		t.Errorf("Size with stdin = %d, want -1", got)
	}
	r := NewReader([]string{"d"}, nil, nil)
	prev := int64(0)
	for i := 0; ; i++ {
		_, err := r.Next()
		d := r.Done()
		if d < prev || d > total {
			t.Fatalf("record %d: Done = %d after %d (total %d)", i, d, prev, total)
		}
		prev = d
		if i == 3000 && d != size("d/a.jsonl.gz")+size("d/b.txt") { // b.txt, after the gzip file
			t.Errorf("after the gzip file and b.txt: Done = %d, want %d", d, size("d/a.jsonl.gz")+size("d/b.txt"))
		}
		if err == io.EOF {
			break
		}
	}
	if prev != total {
		t.Errorf("at the end: Done = %d, want %d", prev, total)
	}
}
