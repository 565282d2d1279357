package corpora

import (
	"bufio"
	"compress/gzip"
	"os"
	"testing"
)

// Lines calls fn with each line of the gzip-compressed file at path (a
// corpus, or a gzipped golden file) until fn returns false; a file that
// cannot be read to the end fails tb. Lines are valid only during the
// call.
func Lines(tb testing.TB, path string, fn func(line []byte) bool) {
	tb.Helper()
	fh, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if !fn(sc.Bytes()) {
			return
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}
