package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"html"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/neardup/neardup/internal/cputime"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

// benchRecords reads the shared news corpus (see zhNews) into memory.
func benchRecords(b *testing.B) (recs []Record, jsonl []byte) {
	r := NewReader([]string{zhNews(b)}, nil, nil)
	var buf bytes.Buffer
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return recs, buf.Bytes()
		}
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(rec.Raw)
		buf.WriteByte('\n')
		rec.Raw = nil
		recs = append(recs, rec)
	}
}

// writeBenchFile writes data to a file of the benchmark's directory.
func writeBenchFile(b *testing.B, name string, data []byte) string {
	path := filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchRead reads path over and over; the bytes (MB/s) are those of the
// records' text. It also reports, per second of process CPU time (all
// threads, GC included; steadier than wall time on a shared machine),
// the MB of text ("text-cpu-MB/s") and of the file ("in-cpu-MB/s").
func benchRead(b *testing.B, path string, want int) {
	b.Helper()
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var text int64
	ops := 0
	cpu0 := cputime.Self()
	for b.Loop() {
		r := NewReader([]string{path}, nil, nil)
		n := 0
		text = 0
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
			text += int64(len(rec.Text))
		}
		if n != want {
			b.Fatalf("read %d records, want %d", n, want)
		}
		ops++
	}
	b.SetBytes(text)
	if d := cputime.Self() - cpu0; cpu0 > 0 && d > 0 {
		b.ReportMetric(float64(text)*float64(ops)/1e6/d.Seconds(), "text-cpu-MB/s")
		b.ReportMetric(float64(st.Size())*float64(ops)/1e6/d.Seconds(), "in-cpu-MB/s")
	}
}

// BenchmarkReadFormats reads the news corpus written in each format the
// Reader knows besides JSONL and gzip (BenchmarkReadJSONL): MB/s are
// of the articles' text. Run it on one core: -cpu 1.
func BenchmarkReadFormats(b *testing.B) {
	recs, jsonl := benchRecords(b)
	b.Run("jsonl.zst", func(b *testing.B) {
		var buf bytes.Buffer
		zw, _ := zstd.NewWriter(&buf)
		zw.Write(jsonl)
		zw.Close()
		benchRead(b, writeBenchFile(b, "a.jsonl.zst", buf.Bytes()), len(recs))
	})
	type row struct {
		ID    string `parquet:"id"`
		Title string `parquet:"title"`
		Text  string `parquet:"text"`
	}
	for name, codec := range map[string]compress.Codec{"snappy": &parquet.Snappy, "zstd": &parquet.Zstd} {
		b.Run("parquet-"+name, func(b *testing.B) {
			var buf bytes.Buffer
			w := parquet.NewGenericWriter[row](&buf, parquet.Compression(codec))
			for i, rec := range recs {
				w.Write([]row{{rec.ID, rec.Title, rec.Text}})
				if i%1000 == 999 {
					w.Flush() // row groups of 1,000 rows
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			benchRead(b, writeBenchFile(b, "a.parquet", buf.Bytes()), len(recs))
		})
	}
	// WARC and WET as Common Crawl ships them: a gzip member a record.
	member := func(buf *bytes.Buffer, s string) {
		zw, _ := gzip.NewWriterLevel(buf, gzip.DefaultCompression)
		zw.Write([]byte(s))
		zw.Close()
	}
	b.Run("warc.gz", func(b *testing.B) {
		var buf bytes.Buffer
		for i, rec := range recs {
			uri := "http://news.example/" + strconv.Itoa(i)
			page := "<!DOCTYPE html><html><head><title>" + html.EscapeString(rec.Title) + "</title></head><body><article><p>" +
				html.EscapeString(rec.Text) + "</p></article></body></html>"
			member(&buf, warcRecord("request", uri, "<urn:uuid:q"+strconv.Itoa(i)+">", "application/http; msgtype=request", "GET / HTTP/1.1\r\n\r\n"))
			member(&buf, warcRecord("response", uri, "<urn:uuid:r"+strconv.Itoa(i)+">", "application/http; msgtype=response",
				httpResponse("200 OK", []string{"Content-Type: text/html; charset=utf-8", "Content-Length: " + strconv.Itoa(len(page))}, page)))
		}
		benchRead(b, writeBenchFile(b, "a.warc.gz", buf.Bytes()), len(recs))
	})
	// The same articles as a news site's pages (newsPage: head, scripts,
	// navigation, ads, footer), with wget's request and a metadata
	// record: the markup of real pages. text/html is the text's share of
	// the pages' bytes.
	b.Run("warc.gz-news", func(b *testing.B) {
		data, text, html := newsWARC(recs)
		benchRead(b, writeBenchFile(b, "a.warc.gz", data), len(recs))
		b.ReportMetric(float64(text)/float64(html), "text/html")
	})
	b.Run("wet.gz", func(b *testing.B) {
		var buf bytes.Buffer
		for i, rec := range recs {
			member(&buf, warcRecord("conversion", "http://news.example/"+strconv.Itoa(i), "<urn:uuid:"+strconv.Itoa(i)+">", "text/plain", rec.Text))
		}
		benchRead(b, writeBenchFile(b, "a.wet.gz", buf.Bytes()), len(recs))
	})
	b.Run("wet", func(b *testing.B) {
		var buf bytes.Buffer
		for i, rec := range recs {
			buf.WriteString(warcRecord("conversion", "http://news.example/"+strconv.Itoa(i), "<urn:uuid:"+strconv.Itoa(i)+">", "text/plain", rec.Text))
		}
		benchRead(b, writeBenchFile(b, "a.wet", buf.Bytes()), len(recs))
	})
}

// newsWARC writes recs as a gzipped WARC of news pages (newsPage), a
// member a record, each page after wget's request and followed by a
// metadata record, and returns it with the bytes of the articles' text
// and of the pages.
func newsWARC(recs []Record) (data []byte, text, pages int64) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	member := func(s string) {
		zw.Reset(&buf)
		zw.Write([]byte(s))
		zw.Close()
	}
	for i, rec := range recs {
		uri := "https://news.example/a/" + strconv.Itoa(i)
		page := newsPage(i, rec.Title, rec.Text)
		text += int64(len(rec.Text))
		pages += int64(len(page))
		member(warcRecord("request", uri, "<urn:uuid:q"+strconv.Itoa(i)+">", "application/http;msgtype=request",
			"GET /a/"+strconv.Itoa(i)+" HTTP/1.1\r\nUser-Agent: Wget/1.25.0\r\nAccept: */*\r\nAccept-Encoding: identity\r\nHost: news.example\r\nConnection: Keep-Alive\r\n\r\n"))
		member(warcRecord("response", uri, "<urn:uuid:r"+strconv.Itoa(i)+">", "application/http;msgtype=response",
			httpResponse("200 OK", []string{"Server: nginx", "Date: Fri, 27 Nov 2026 04:00:00 GMT", "Content-Type: text/html; charset=utf-8",
				"Content-Length: " + strconv.Itoa(len(page)), "Cache-Control: max-age=60", "Connection: keep-alive"}, page)))
		member(warcRecord("metadata", uri, "<urn:uuid:m"+strconv.Itoa(i)+">", "application/warc-fields", "fetchTimeMs: 41\r\n"))
	}
	return buf.Bytes(), text, pages
}

// BenchmarkWARCParts splits reading a gzipped WARC of news pages
// (newsWARC) into its two costs, on one core: inflating the gzip members
// ("inflate": the decompressed bytes discarded) and extracting the text
// of the pages held in memory ("extract": htmlText; "tokenizer": the
// golang.org/x/net/html path it replaces). text-cpu-MB/s is, for each,
// the articles' text per CPU second, so that the parts compare with
// BenchmarkReadFormats/warc.gz-news.
func BenchmarkWARCParts(b *testing.B) {
	recs, _ := benchRecords(b)
	data, text, _ := newsWARC(recs)
	var pages [][]byte
	for i, rec := range recs {
		pages = append(pages, []byte(newsPage(i, rec.Title, rec.Text)))
	}
	run := func(b *testing.B, f func()) {
		cpu0 := cputime.Self()
		ops := 0
		for b.Loop() {
			f()
			ops++
		}
		b.SetBytes(text)
		if d := cputime.Self() - cpu0; cpu0 > 0 && d > 0 {
			b.ReportMetric(float64(text)*float64(ops)/1e6/d.Seconds(), "text-cpu-MB/s")
		}
	}
	b.Run("inflate", func(b *testing.B) {
		run(b, func() {
			br, _, err := Decompress(bufio.NewReaderSize(bytes.NewReader(data), 64<<10), 64<<10)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, br); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("extract", func(b *testing.B) {
		run(b, func() {
			for _, p := range pages {
				htmlText(p)
			}
		})
	})
	b.Run("tokenizer", func(b *testing.B) {
		run(b, func() {
			for _, p := range pages {
				tokenizeHTML(string(p))
			}
		})
	})
}
