package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"
)

// TestMain runs the tests, or, when NEARDUP_BENCH_CLIENT is set, makes
// the test binary BenchmarkCheckOverhead's client in a process of its
// own (see benchClient).
func TestMain(m *testing.M) {
	if url := os.Getenv("NEARDUP_BENCH_CLIENT"); url != "" {
		if err := benchClient(url, os.Getenv("NEARDUP_BENCH_BODY"), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench client:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// benchClient POSTs the JSON body in the file named body to url once
// for each line it reads from in, and answers each with the time the
// request took, in nanoseconds, on a line of out. Any answer but 200 is
// an error.
func benchClient(url, body string, in io.Reader, out io.Writer) error {
	b, err := os.ReadFile(body)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: time.Minute}
	sc := bufio.NewScanner(in)
	for i := 0; sc.Scan(); i++ {
		t0 := time.Now()
		resp, err := client.Post(url, "application/json", bytes.NewReader(b))
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("request %d: status %d", i, resp.StatusCode)
		}
		if _, err := fmt.Fprintln(out, int64(d)); err != nil {
			return err
		}
	}
	return sc.Err()
}
