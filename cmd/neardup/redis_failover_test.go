//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/index/redisstore"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/internal/testfixtures"
)

// TestRedisFailoverDedup: a dedup --index redis://... that loses a
// master half way through its input (a cluster of 3 masters and 3
// replicas) waits for the replica to take over, goes on and exits 0
// with the counts of the same run in memory.
func TestRedisFailoverDedup(t *testing.T) {
	if testing.Short() {
		t.Skip("a failover takes 5 to 10 s; run without -short")
	}
	c := redistest.Start(t, redistest.Options{Replicas: 1})
	mem := runCLI(t, "dedup", "--json", sampleCorpus)
	if mem.code != 0 {
		t.Fatalf("dedup in memory: exit %d: %s", mem.code, mem.stderr)
	}
	data, err := os.ReadFile(sampleCorpus)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	first, rest := bytes.Join(lines[:len(lines)/2], nil), bytes.Join(lines[len(lines)/2:], nil)

	url := c.URL("news")
	pr, pw := io.Pipe()
	done := make(chan result, 1)
	go func() {
		env := &environment{lookupEnv: lookupIn(nil), analyzers: testfixtures.Analyzers}
		var out, errb bytes.Buffer
		inProcess.Lock()
		defer inProcess.Unlock()
		code := runEnv(context.Background(), []string{"neardup", "dedup", "--json", "--index", url, "-"}, pr, &out, &errb, env)
		pr.Close()
		done <- result{out.String(), errb.String(), code}
	}()
	if _, err := pw.Write(first); err != nil {
		t.Fatal(err)
	}
	// Once the first batches are in the archive, a master stops.
	var s *redisstore.Store
	redistest.WaitFor(t, 30*time.Second, "dedup to ingest its first batches", func() bool {
		if s == nil {
			s, _ = redisstore.Open(context.Background(), url, &redisstore.Options{ReadOnly: true})
		}
		if s == nil {
			return false
		}
		st, err := s.Stats(context.Background())
		return err == nil && st.Docs >= 64
	})
	m, err := s.Client().MasterForKey(context.Background(), "news:D")
	if err != nil {
		t.Fatal(err)
	}
	victim := m.Options().Addr
	s.Close()
	c.StopNode(t, victim)
	start := time.Now()
	if _, err := pw.Write(rest); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r := <-done
	t.Logf("master %s stopped; dedup went on for %v more", victim, time.Since(start).Round(time.Millisecond))
	if r.code != 0 {
		t.Fatalf("dedup through a failover: exit %d: %s", r.code, r.stderr)
	}
	if got, want := summary(r.stdout), summary(mem.stdout); got != want || want == "" {
		t.Errorf("dedup through a failover: %s; in memory: %s", got, want)
	}
}

// summary returns the counts of dedup --json's summary line.
func summary(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, `"records":`); i >= 0 {
			if j := strings.Index(l[i:], `,"bytes"`); j >= 0 {
				return l[i : i+j]
			}
			return l[i:]
		}
	}
	return ""
}
