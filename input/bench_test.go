package input

import (
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/internal/testfixtures/corpora"
)

// zhNews returns the path of the shared news corpus zh_news.jsonl.gz, or
// skips b when it is not there (see corpora.Require).
func zhNews(b *testing.B) string {
	return filepath.Join(corpora.Require(b, "zh_news.jsonl.gz"), "zh_news.jsonl.gz")
}

// BenchmarkReadJSONL reads a real gzipped news corpus; the bytes are those
// of the decompressed JSONL.
func BenchmarkReadJSONL(b *testing.B) {
	corpus := zhNews(b)
	for b.Loop() {
		r := NewReader([]string{corpus}, nil, nil)
		var n int64
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += int64(len(rec.Raw)) + 1
		}
		b.SetBytes(n)
	}
}

// BenchmarkParseJSONL parses lines already in memory: the cost of reading
// without decompression.
func BenchmarkParseJSONL(b *testing.B) {
	corpus := zhNews(b)
	var lines [][]byte
	var n int64
	r := NewReader([]string{corpus}, nil, nil)
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, rec.Raw)
		n += int64(len(rec.Raw)) + 1
	}
	opts, _ := (*Options)(nil).resolved()
	b.SetBytes(n)
	for b.Loop() {
		for i, line := range lines {
			if _, reason, _ := parseJSONLRecord(line, &opts, "bench", i+1); reason != "" {
				b.Fatal(reason)
			}
		}
	}
}
