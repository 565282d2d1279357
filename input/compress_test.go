package input

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

func zstdString(t testing.TB, s string) string {
	var b bytes.Buffer
	zw, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func xzString(t testing.TB, s string) string {
	var b bytes.Buffer
	zw, err := xz.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestReaderCompressed reads zstd, xz and bzip2 data by its magic bytes,
// whatever the file is named, and from standard input.
func TestReaderCompressed(t *testing.T) {
	t.Chdir(t.TempDir())
	line := `{"id":"c1","text":"compressed line"}`
	writeInputFiles(t, "dir", map[string]string{
		"a.jsonl.zst":  zstdString(t, line+"\n"),
		"b.txt.zst":    zstdString(t, "zstd text"),
		"c.jsonl.xz":   xzString(t, line+"\n"),
		"d.dat":        zstdString(t, line+"\n"), // sniffed JSONL inside
		"e.txt":        "BZh9 but plain text",    // bzip2's magic, not its block's
		"f.jsonl.zstd": zstdString(t, line+"\n") + zstdString(t, `{"id":"c2","text":"second frame"}`+"\n"),
	})
	got := readAllInputs(t, NewReader([]string{"dir"}, nil, nil))
	raw := []byte(line)
	want := []inputResult{
		{Rec: Record{ID: "c1", Text: "compressed line", Source: "dir/a.jsonl.zst", Line: 1, Raw: raw}},
		{Rec: Record{ID: "b.txt.zst", Text: "zstd text", Source: "dir/b.txt.zst"}},
		{Rec: Record{ID: "c1", Text: "compressed line", Source: "dir/c.jsonl.xz", Line: 1, Raw: raw}},
		{Rec: Record{ID: "c1", Text: "compressed line", Source: "dir/d.dat", Line: 1, Raw: raw}},
		{Rec: Record{ID: "e.txt", Text: "BZh9 but plain text", Source: "dir/e.txt"}},
		{Rec: Record{ID: "c1", Text: "compressed line", Source: "dir/f.jsonl.zstd", Line: 1, Raw: raw}},
		{Rec: Record{ID: "c2", Text: "second frame", Source: "dir/f.jsonl.zstd", Line: 2, Raw: []byte(`{"id":"c2","text":"second frame"}`), Offset: int64(len(line) + 1)}},
	}
	checkInputResults(t, got, want)

	t.Chdir(testdataDir)
	got = readAllInputs(t, NewReader([]string{"formats/small.jsonl.bz2"}, nil, nil))
	checkInputResults(t, got, []inputResult{
		{Rec: Record{ID: "b1", Text: "bzip2 compressed line one", Source: "formats/small.jsonl.bz2", Line: 1, Raw: []byte(`{"id":"b1","text":"bzip2 compressed line one"}`)}},
		{Rec: Record{ID: "b2", Text: "bzip2 compressed line two", Source: "formats/small.jsonl.bz2", Line: 2, Raw: []byte(`{"id":"b2","text":"bzip2 compressed line two"}`), Offset: 47}},
	})

	got = readAllInputs(t, NewReader([]string{"-"}, strings.NewReader(zstdString(t, line+"\n")), nil))
	checkInputResults(t, got, []inputResult{{Rec: Record{ID: "c1", Text: "compressed line", Source: "stdin", Line: 1, Raw: raw}}})
}

// testdataDir is the absolute path of testdata, taken before any test
// changes directory.
var testdataDir = func() string {
	abs, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return abs
}()

// TestReaderTruncatedZstd cuts a zstd stream short: the complete records
// come first, then an error naming the file, line and byte.
func TestReaderTruncatedZstd(t *testing.T) {
	t.Chdir(t.TempDir())
	var jsonl strings.Builder
	for i := range 30000 {
		jsonl.WriteString(`{"id":"` + strconv.Itoa(i) + `","text":"line ` + strconv.Itoa(i*i*7919%100003) + `"}` + "\n")
	}
	full := zstdString(t, jsonl.String())
	writeInputFiles(t, ".", map[string]string{"cut.jsonl.zst": full[:len(full)*2/3]})
	r := NewReader([]string{"cut.jsonl.zst"}, nil, nil)
	n := 0
	var err error
	for {
		if _, err = r.Next(); err != nil {
			break
		}
		n++
	}
	if n == 0 || n >= 30000 {
		t.Errorf("read %d complete records of 30000 before the cut", n)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("error %v, want io.ErrUnexpectedEOF", err)
	}
	if ok, _ := regexp.MatchString(`^cut\.jsonl\.zst: line \d+ \(byte \d+\): truncated zstd data: unexpected EOF$`, inputErrString(err)); !ok {
		t.Errorf("error text %q", err)
	}
}

// TestGzipMembers damages the second of three gzip members: the first
// member's records are read, and the error names the damaged member's
// offset in the compressed file.
func TestGzipMembers(t *testing.T) {
	members := []string{
		gzipString(t, `{"id":"m1","text":"first member"}`+"\n"),
		gzipString(t, `{"id":"m2","text":"second member"}`+"\n"),
		gzipString(t, `{"id":"m3","text":"third member"}`+"\n"),
	}
	whole := strings.Join(members, "")
	got := readAllInputs(t, NewReader([]string{"-"}, strings.NewReader(whole), nil))
	if len(got) != 3 || got[2].Rec.ID != "m3" {
		t.Fatalf("three members: %+v", got)
	}
	// Damage the deflate data of the second member (after its 10-byte
	// header): block type 3 is reserved.
	b := []byte(whole)
	b[len(members[0])+10] = 0xFF
	got = readAllInputs(t, NewReader([]string{"-"}, bytes.NewReader(b), nil))
	if len(got) != 2 || got[0].Rec.ID != "m1" {
		t.Fatalf("damaged: %+v", got)
	}
	want := `^stdin: line 2 \(byte 34\): gzip member at byte ` + strconv.Itoa(len(members[0])) + `: `
	if ok, _ := regexp.MatchString(want, got[1].Err); !ok {
		t.Errorf("error %q, want it to match %q", got[1].Err, want)
	}
	// Trailing garbage after the last member is an error too, as with
	// gzip.Reader's multistream mode.
	got = readAllInputs(t, NewReader([]string{"-"}, strings.NewReader(whole+"junk after the members"), nil))
	if len(got) != 4 || !strings.Contains(got[3].Err, "gzip member at byte "+strconv.Itoa(len(whole))+": gzip: invalid header") {
		t.Errorf("trailing garbage: %+v", got)
	}
}
