package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// warcRecord formats a WARC record of typ with the header fields
// (name, value pairs) and block.
func warcRecord(typ, uri, id, ctype, block string) string {
	var b strings.Builder
	b.WriteString("WARC/1.0\r\nWARC-Type: " + typ + "\r\n")
	if uri != "" {
		b.WriteString("WARC-Target-URI: " + uri + "\r\n")
	}
	b.WriteString("WARC-Date: 2026-11-26T00:00:00Z\r\nWARC-Record-ID: " + id + "\r\n")
	if ctype != "" {
		b.WriteString("Content-Type: " + ctype + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(block)) + "\r\n\r\n" + block + "\r\n\r\n")
	return b.String()
}

// httpResponse formats an HTTP response with the header lines and body.
func httpResponse(status string, header []string, body string) string {
	return "HTTP/1.1 " + status + "\r\n" + strings.Join(header, "\r\n") + "\r\n\r\n" + body
}

func gzipEach(t testing.TB, records []string) string {
	var s strings.Builder
	for _, r := range records {
		s.WriteString(gzipString(t, r))
	}
	return s.String()
}

func TestReaderWET(t *testing.T) {
	t.Chdir(t.TempDir())
	recs := []string{
		warcRecord("warcinfo", "", "<urn:uuid:0>", "application/warc-fields", "software: test\r\n"),
		warcRecord("conversion", "http://a.example/1", "<urn:uuid:1>", "text/plain", "First page\nits text."),
		warcRecord("conversion", "http://a.example/2", "<urn:uuid:2>", "text/plain", "第二页的正文。"),
		warcRecord("conversion", "http://a.example/1", "<urn:uuid:3>", "text/plain", "The first URI again."),
		warcRecord("conversion", "http://a.example/4", "<urn:uuid:4>", "text/plain", " \r\n "),
		warcRecord("conversion", "http://a.example/5", "<urn:uuid:5>", "application/pdf", "%PDF-"),
	}
	writeInputFiles(t, ".", map[string]string{"a.wet": strings.Join(recs, ""), "b.wet.gz": gzipEach(t, recs[1:3])})
	r := NewReader([]string{"a.wet", "b.wet.gz"}, nil, nil)
	got := readAllInputs(t, r)
	off := func(n int) int64 { return int64(len(strings.Join(recs[:n], ""))) }
	checkInputResults(t, got, []inputResult{
		{Rec: Record{ID: "http://a.example/1", Text: "First page\nits text.", Source: "a.wet", Line: 2, Offset: off(1)}},
		{Rec: Record{ID: "http://a.example/2", Text: "第二页的正文。", Source: "a.wet", Line: 3, Offset: off(2)}},
		{Rec: Record{ID: "http://a.example/1 <urn:uuid:3>", Text: "The first URI again.", Source: "a.wet", Line: 4, Offset: off(3)}},
		{Err: "a.wet: record 5 (byte " + strconv.FormatInt(off(4), 10) + "): no text"},
		{Rec: Record{ID: "http://a.example/1", Text: "First page\nits text.", Source: "b.wet.gz", Line: 1}},
		{Rec: Record{ID: "http://a.example/2", Text: "第二页的正文。", Source: "b.wet.gz", Line: 2, Offset: int64(len(recs[1]))}},
	})
	want := []Skip{{"conversion (application/pdf)", 1}, {"warcinfo", 1}}
	if s := r.Skipped(); !reflect.DeepEqual(s, want) {
		t.Errorf("Skipped = %v, want %v", s, want)
	}
}

func TestReaderWARC(t *testing.T) {
	t.Chdir(t.TempDir())
	page := func(title, body string) string {
		return "<html><head><title>" + title + "</title><script>var x;</script></head><body><p>" + body + "</p></body></html>"
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(page("Zipped", "a gzip-encoded page")))
	zw.Close()
	chunked := "0c\r\n<p>chunked, \r\n" + "0d\r\nthen done</p>\r\n0\r\n\r\n"
	recs := []string{
		warcRecord("warcinfo", "", "<urn:uuid:0>", "application/warc-fields", "software: Wget\r\n"),
		warcRecord("request", "http://127.0.0.1/a.html", "<urn:uuid:1>", "application/http;msgtype=request", "GET /a.html HTTP/1.1\r\n\r\n"),
		warcRecord("response", "http://127.0.0.1/a.html", "<urn:uuid:2>", "application/http;msgtype=response",
			httpResponse("200 OK", []string{"Content-Type: text/html; charset=utf-8"}, page("Page A", "Body of A &amp; more."))),
		warcRecord("response", "http://127.0.0.1/gbk.html", "<urn:uuid:3>", "application/http; msgtype=response",
			httpResponse("200 OK", []string{"Content-Type: text/html; charset=GB2312"}, gbkString(t, page("中文", "这是一篇用GBK编码的中文文章。")))),
		warcRecord("response", "http://127.0.0.1/img.png", "<urn:uuid:4>", "application/http; msgtype=response",
			httpResponse("200 OK", []string{"Content-Type: image/png"}, "\x89PNG\r\n\x1a\n")),
		warcRecord("response", "http://127.0.0.1/missing", "<urn:uuid:5>", "application/http; msgtype=response",
			httpResponse("404 Not Found", []string{"Content-Type: text/html"}, page("404", "not found"))),
		warcRecord("response", "http://127.0.0.1/z.html", "<urn:uuid:6>", "application/http; msgtype=response",
			httpResponse("200 OK", []string{"Content-Type: text/html", "Content-Encoding: gzip", "Transfer-Encoding: chunked"},
				strconv.FormatInt(int64(gz.Len()), 16)+"\r\n"+gz.String()+"\r\n0\r\n\r\n")),
		warcRecord("response", "http://127.0.0.1/c.html", "<urn:uuid:7>", "application/http; msgtype=response",
			httpResponse("200 OK", []string{"Content-Type: text/html", "Transfer-Encoding: chunked"}, chunked)),
		warcRecord("response", "http://127.0.0.1/empty.html", "<urn:uuid:8>", "application/http; msgtype=response",
			httpResponse("200 OK", []string{"Content-Type: text/html"}, page("Empty", ""))),
		warcRecord("metadata", "http://127.0.0.1/a.html", "<urn:uuid:9>", "application/warc-fields", "outlink: x\r\n"),
		warcRecord("resource", "file:///saved.html", "<urn:uuid:10>", "text/html", page("Saved", "a resource record")),
		warcRecord("resource", "metadata://wget.log", "<urn:uuid:11>", "text/plain", "the log"),
		warcRecord("response", "dns:127.0.0.1", "<urn:uuid:12>", "text/dns", "127.0.0.1"),
	}
	writeInputFiles(t, ".", map[string]string{"a.warc.gz": gzipEach(t, recs)})
	r := NewReader([]string{"a.warc.gz"}, nil, nil)
	got := readAllInputs(t, r)
	off := func(n int) int64 { return int64(len(strings.Join(recs[:n], ""))) }
	checkInputResults(t, got, []inputResult{
		{Rec: Record{ID: "http://127.0.0.1/a.html", Title: "Page A", Text: "Body of A & more.", Source: "a.warc.gz", Line: 3, Offset: off(2)}},
		{Rec: Record{ID: "http://127.0.0.1/gbk.html", Title: "中文", Text: "这是一篇用GBK编码的中文文章。", Source: "a.warc.gz", Line: 4, Offset: off(3)}},
		{Rec: Record{ID: "http://127.0.0.1/z.html", Title: "Zipped", Text: "a gzip-encoded page", Source: "a.warc.gz", Line: 7, Offset: off(6)}},
		{Rec: Record{ID: "http://127.0.0.1/c.html", Text: "chunked, then done", Source: "a.warc.gz", Line: 8, Offset: off(7)}},
		{Err: "a.warc.gz: record 9 (byte " + strconv.FormatInt(off(8), 10) + "): no text"},
		{Rec: Record{ID: "file:///saved.html", Title: "Saved", Text: "a resource record", Source: "a.warc.gz", Line: 11, Offset: off(10)}},
	})
	want := []Skip{{"metadata", 1}, {"request", 1}, {"resource (text/plain)", 1}, {"response (HTTP 404)", 1},
		{"response (image/png)", 1}, {"response (text/dns)", 1}, {"warcinfo", 1}}
	if s := r.Skipped(); !reflect.DeepEqual(s, want) {
		t.Errorf("Skipped = %v, want %v", s, want)
	}
}

// TestReaderWARCDamaged: a damaged gzip member, a block cut short and a
// record that is not WARC end the file after the good records before
// them, naming the record and the offsets.
func TestReaderWARCDamaged(t *testing.T) {
	t.Chdir(t.TempDir())
	var recs []string
	for i := range 4 {
		recs = append(recs, warcRecord("conversion", "http://a/"+strconv.Itoa(i), "<urn:uuid:"+strconv.Itoa(i)+">", "text/plain", "page "+strconv.Itoa(i)))
	}
	var members []string
	for _, r := range recs {
		members = append(members, gzipString(t, r))
	}
	damaged := []byte(strings.Join(members, ""))
	third := len(members[0]) + len(members[1])
	damaged[third+10] = 0xFF // reserved block type
	whole := strings.Join(recs, "")
	writeInputFiles(t, ".", map[string]string{
		"damaged.warc.gz": string(damaged),
		"cut.warc":        whole[:len(whole)-len(recs[3])/2],
		"junk.warc":       recs[0] + "GARBAGE here\r\n" + recs[1],
	})
	for _, tt := range []struct {
		file string
		ids  int
		err  string
	}{
		{"damaged.warc.gz", 2, "damaged.warc.gz: record 3 (byte " + strconv.Itoa(len(recs[0])+len(recs[1])) + "): gzip member at byte " + strconv.Itoa(third) + ": flate: corrupt input before offset "},
		{"cut.warc", 3, "cut.warc: record 4 (byte " + strconv.Itoa(len(whole)-len(recs[3])) + "): truncated WARC record: unexpected EOF"},
		{"junk.warc", 1, "junk.warc: record 2 (byte " + strconv.Itoa(len(recs[0])) + "): not a WARC record: it starts \"GARBAGE here\""},
	} {
		got := readAllInputs(t, NewReader([]string{tt.file}, nil, nil))
		if len(got) != tt.ids+1 {
			t.Fatalf("%s: %+v", tt.file, got)
		}
		for i := range tt.ids {
			if got[i].Rec.ID != "http://a/"+strconv.Itoa(i) {
				t.Errorf("%s: record %d: %+v", tt.file, i, got[i])
			}
		}
		if !strings.HasPrefix(got[tt.ids].Err, tt.err) {
			t.Errorf("%s: error %q, want it to start %q", tt.file, got[tt.ids].Err, tt.err)
		}
	}
	_, err := NewReader([]string{"cut.warc"}, nil, nil).Next()
	var ie *Error
	if errors.As(err, &ie) {
		t.Errorf("first record of cut.warc: %v", err)
	}
}

func TestSkippedText(t *testing.T) {
	tests := []struct {
		in   []Skip
		want string
	}{
		{nil, ""},
		{[]Skip{{"request", 1}}, "skipped 1 WARC record that is not a page: 1 request"},
		{[]Skip{{"metadata", 2}, {"request", 3}, {"warcinfo", 1}}, "skipped 6 WARC records that are not pages: 3 request, 2 metadata, 1 warcinfo"},
	}
	for _, tt := range tests {
		if got := SkippedText(tt.in); got != tt.want {
			t.Errorf("SkippedText(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestReadWARCTargets reads the targets of the pages of a WARC file
// wget wrote (a gzip member a record) and of a WET file, and a cut
// file's targets before the error naming its record.
func TestReadWARCTargets(t *testing.T) {
	read := func(path string) ([]WARCTarget, map[string]int64, error) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		br, _, err := Decompress(bufio.NewReader(f), 64<<10)
		if err != nil {
			t.Fatal(err)
		}
		var got []WARCTarget
		skipped, err := ReadWARCTargets(br, path, func(w WARCTarget) error { got = append(got, w); return nil })
		return got, skipped, err
	}
	got, skipped, err := read("testdata/formats/pages.warc.gz")
	if err != nil {
		t.Fatal(err)
	}
	// 27 responses, after the warcinfo record and a request each: 25
	// pages, an image and a missing page, skipped as the Reader skips
	// them.
	wantSkipped := map[string]int64{"warcinfo": 1, "request": 27, "metadata": 1, "resource (text/plain)": 2,
		"response (image/png)": 1, "response (HTTP 404)": 1}
	if len(got) != 25 || !maps.Equal(skipped, wantSkipped) {
		t.Fatalf("%d targets, skipped %v; want 25 and %v", len(got), skipped, wantSkipped)
	}
	first := WARCTarget{URI: "http://127.0.0.1:18329/lo-help-en-US/text/sbasic/shared/03/lib_depot.html", Record: 3,
		Pos: got[0].Pos}
	if got[0] != first || !regexp.MustCompile(`^record 3 \(byte \d+\)$`).MatchString(got[0].Pos) {
		t.Errorf("first target %+v, want %+v at record 3", got[0], first)
	}
	for _, g := range got {
		if strings.HasSuffix(g.URI, "missing.html") || strings.HasSuffix(g.URI, ".png") {
			t.Errorf("target %+v: the missing page or the image", g)
		}
	}
	got, skipped, err = read("testdata/formats/records.wet.gz")
	if err != nil || len(got) != 25 || got[0].URI != "http://127.0.0.1:18329/lo-help-en-US/text/sbasic/shared/03/lib_depot.html" ||
		!maps.Equal(skipped, map[string]int64{"warcinfo": 1}) {
		t.Errorf("WET: %d targets (first %+v), skipped %v, %v", len(got), got[0], skipped, err)
	}
	// A record cut short: the targets before it, and an *Error.
	rec := warcRecord("conversion", "http://a/1", "<urn:uuid:1>", "text/plain", "text one")
	dir := t.TempDir()
	path := filepath.Join(dir, "cut.warc")
	if err := os.WriteFile(path, []byte(rec+rec[:len(rec)-8]), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err = read(path)
	var ie *Error
	if len(got) != 1 || !errors.As(err, &ie) || err.Error() != path+": record 2 (byte "+strconv.Itoa(len(rec))+"): truncated WARC record: unexpected EOF" {
		t.Errorf("cut: %+v, %v", got, err)
	}
}
