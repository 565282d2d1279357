package input

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// readFuzzed reads r to its end and checks what every parser of many
// records promises: each result is a record with a text and an ID, a
// *RecordError or an *Error; record numbers (Line) grow; an *Error ends
// the input; there are never more results than max.
func readFuzzed(t *testing.T, r *Reader, limit int) []Record {
	t.Helper()
	return readFuzzedUpTo(t, r, limit, 0)
}

// readFuzzedUpTo is readFuzzed that stops after stop results when stop
// is not 0: a Parquet file of a few bytes may hold millions of rows (a
// run of nulls), each a rejection, which would take the fuzzer seconds.
func readFuzzedUpTo(t *testing.T, r *Reader, limit, stop int) []Record {
	t.Helper()
	var recs []Record
	line := 0
	for n := 0; ; n++ {
		if n > limit {
			t.Fatalf("more than %d results", limit)
		}
		if stop > 0 && n == stop {
			r.Close()
			return recs
		}
		rec, err := r.Next()
		if err == io.EOF {
			return recs
		}
		var re *RecordError
		var ie *Error
		switch {
		case errors.As(err, &re):
			if re.Line != 0 && re.Line <= line {
				t.Fatalf("rejected record %d after record %d", re.Line, line)
			}
			line = max(line, re.Line)
		case errors.As(err, &ie):
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("after %v: %v, want io.EOF", ie, err)
			}
			return recs
		case err != nil:
			t.Fatalf("error of type %T: %v", err, err)
		default:
			if isBlankText(rec.Text) || rec.ID == "" || rec.Line <= line {
				t.Fatalf("record %+v after line %d", rec, line)
			}
			line = rec.Line
			recs = append(recs, rec)
		}
	}
}

func FuzzReadWARC(f *testing.F) {
	page := "<html><head><title>T</title></head><body><p>page text</p></body></html>"
	for _, s := range []string{
		warcRecord("conversion", "http://a/1", "<urn:uuid:1>", "text/plain", "wet text") +
			warcRecord("conversion", "http://a/1", "<urn:uuid:2>", "text/plain", "again"),
		warcRecord("warcinfo", "", "<urn:uuid:0>", "application/warc-fields", "x: y\r\n") +
			warcRecord("response", "http://a/p", "<urn:uuid:3>", "application/http; msgtype=response",
				httpResponse("200 OK", []string{"Content-Type: text/html; charset=gbk"}, page)),
		warcRecord("response", "http://a/c", "<urn:uuid:4>", "application/http",
			httpResponse("200 OK", []string{"Content-Type: text/html", "Transfer-Encoding: chunked"}, "5\r\nhello\r\n0\r\n\r\n")),
		warcRecord("resource", "file:///x", "<urn:uuid:5>", "text/html", page),
		"WARC/1.1\r\nWARC-Type: conversion\r\n continued\r\nContent-Length: 3\r\n\r\nabc",
		"WARC/1.0\r\nContent-Length: -1\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, []byte(warcMagic)) {
			return
		}
		r := NewReader([]string{"-"}, bytes.NewReader(data), &Options{MaxBytes: 1000})
		recs := readFuzzed(t, r, bytes.Count(data, []byte("WARC/"))+1)
		for i, rec := range recs {
			if i > 0 && rec.Offset <= recs[i-1].Offset {
				t.Fatalf("record %d at byte %d after byte %d", i, rec.Offset, recs[i-1].Offset)
			}
			if rec.Offset < 0 || rec.Offset >= int64(len(data)) || !bytes.HasPrefix(data[rec.Offset:], []byte("WARC/")) {
				t.Fatalf("record %+v: its offset is not that of a record", rec)
			}
		}
		// The targets of the same data: records in order, as many as
		// records start there at most, an *Error or nil at the end.
		last := 0
		targets := map[int]bool{}
		_, err := ReadWARCTargets(bufio.NewReader(bytes.NewReader(data)), "-", func(w WARCTarget) error {
			if w.Record <= last || w.Record > bytes.Count(data, []byte("WARC/")) {
				t.Fatalf("target %+v after record %d", w, last)
			}
			last = w.Record
			targets[w.Record] = true
			return nil
		})
		var ie *Error
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("ReadWARCTargets: error of type %T: %v", err, err)
		}
		// Both skip the same records: what the Reader reads is a target.
		if err == nil {
			for _, rec := range recs {
				if !targets[rec.Line] {
					t.Fatalf("record %d (%s) read by the Reader is not a target", rec.Line, rec.ID)
				}
			}
		}
	})
}

func FuzzReadParquet(f *testing.F) {
	f.Add(writeParquet(f, testArticles, 2, &parquet.Snappy))
	f.Add(writeParquet(f, testArticles[:2], 1, &parquet.Zstd))
	f.Add(writeParquet(f, testArticles[2:], 10, &parquet.Uncompressed))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, []byte(parquetMagic)) || len(data) > 1<<16 {
			return
		}
		// From a file, read in place, and from standard input, copied.
		path := filepath.Join(dir, "f.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		a := readFuzzedUpTo(t, NewReader([]string{path}, nil, &Options{MaxBytes: 1000}), 1<<20, 10000)
		b := readFuzzedUpTo(t, NewReader([]string{"-"}, bytes.NewReader(data), &Options{MaxBytes: 1000}), 1<<20, 10000)
		if len(a) != len(b) {
			t.Fatalf("%d records from the file, %d from standard input", len(a), len(b))
		}
		// Whole rows: every column is read, so fewer records may be.
		readFuzzedUpTo(t, NewReader([]string{path}, nil, &Options{MaxBytes: 1000, ParquetRows: true}), 1<<20, 10000)
	})
}

// FuzzDecompress compresses text with each format and reads it back; a
// damaged stream (a byte of it changed) reads to an error or its end.
func FuzzDecompress(f *testing.F) {
	f.Add("some text\nand more", 3, byte(0))
	f.Add(strings.Repeat("abc", 1000), 100, byte(0x55))
	f.Add("", 0, byte(0))
	f.Fuzz(func(t *testing.T, text string, at int, flip byte) {
		streams := map[string]string{
			"gzip": gzipString(t, text) + gzipString(t, text),
			"zstd": zstdString(t, text),
			"xz":   xzString(t, text),
		}
		for kind, data := range streams {
			want := text
			if kind == "gzip" {
				want += text
			}
			br, compressed, err := Decompress(bufio.NewReader(strings.NewReader(data)), 4096)
			if err != nil || !compressed {
				t.Fatalf("%s: Decompress = %v, %v", kind, compressed, err)
			}
			got, err := io.ReadAll(br)
			if err != nil || string(got) != want {
				t.Fatalf("%s: read %q, %v; want %q", kind, got, err, want)
			}
			if at < 0 || at >= len(data) || flip == 0 {
				continue
			}
			b := []byte(data)
			b[at] ^= flip
			if br, _, err := Decompress(bufio.NewReader(bytes.NewReader(b)), 4096); err == nil {
				io.Copy(io.Discard, io.LimitReader(br, 1<<24))
			}
		}
	})
}
