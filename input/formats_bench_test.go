package input

import (
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
