package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/index"
)

func TestTransient(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{redis.Nil, false},
		{io.EOF, true},
		{fmt.Errorf("apply: %w", io.ErrUnexpectedEOF), true},
		{refused, true},
		{&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{syscall.EPIPE, true},
		{errors.New("redis: connection pool timeout"), true},
		{context.Canceled, false},
		{fmt.Errorf("dial: %w", context.DeadlineExceeded), false},
		{redis.ErrClosed, false},
		{errors.New("127.0.0.1:7000: 0 of 1 replicas acknowledged the writes within 1s"), false},
	} {
		if got := transient(tt.err); got != tt.want {
			t.Errorf("transient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// The server's errors, as go-redis returns them.
func TestTransientServerErrors(t *testing.T) {
	s := open(t, nil)
	for _, tt := range []struct {
		script string
		want   bool
	}{
		{"return redis.error_reply('CLUSTERDOWN The cluster is down')", true},
		{"return redis.error_reply('TRYAGAIN Multiple keys request during rehashing of slot')", true},
		{"return redis.error_reply('LOADING Redis is loading the dataset in memory')", true},
		{"return redis.error_reply('MASTERDOWN Link with MASTER is down')", true},
		{"return redis.error_reply('READONLY You can not write against a read only replica.')", true},
		{"return redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value')", false},
		{"return redis.error_reply('ERR unknown command')", false},
	} {
		err := s.Client().Eval(ctx, tt.script, []string{"k"}).Err()
		if err == nil {
			t.Fatalf("%s: no error", tt.script)
		}
		if got := transient(err); got != tt.want {
			t.Errorf("transient(%q) = %v, want %v", err, got, tt.want)
		}
	}
}

func TestPostingEnd(t *testing.T) {
	for _, tt := range []struct {
		bucket, rec string
		want        int64
	}{
		{"", "abc", 0},
		{"abc", "abc", 3},
		{"xyzabc", "abc", 6},
		{"xyzabcabc", "abc", 6},
		{"xabcyz", "abc", 0}, // not at a record's start
		{"xyzab", "abc", 0},
	} {
		if got := postingEnd([]byte(tt.bucket), []byte(tt.rec)); got != tt.want {
			t.Errorf("postingEnd(%q, %q) = %d, want %d", tt.bucket, tt.rec, got, tt.want)
		}
	}
}

// An APPEND whose reply was lost is retried without doubling its
// posting when the first one was executed, and appended when not; a
// retried command of another kind gets its result.
func TestRetryAppend(t *testing.T) {
	s := open(t, nil)
	bk := s.prefix + "test-bucket"
	if err := s.Client().Append(ctx, bk, "AAAAABBBBB").Err(); err != nil {
		t.Fatal(err)
	}
	lost := func(args ...any) *redis.IntCmd {
		c := redis.NewIntCmd(ctx, args...)
		c.SetErr(io.EOF)
		return c
	}
	executed := lost("append", bk, "BBBBB")     // there already: its reply was lost
	notYet := lost("append", bk, "CCCCC")       // never reached the server
	count := lost("incrby", s.prefix+"test", 2) // another kind: sent again
	cmds := []redis.Cmder{executed, notYet, count}
	s.retry(ctx, cmds, func(cmds []redis.Cmder) { s.pipeline(ctx, cmds) }, false)
	if got, err := s.Client().Get(ctx, bk).Result(); err != nil || got != "AAAAABBBBBCCCCC" {
		t.Errorf("bucket after the retry: %q, %v; want AAAAABBBBBCCCCC", got, err)
	}
	for _, tt := range []struct {
		c    *redis.IntCmd
		want int64
	}{{executed, 10}, {notYet, 15}, {count, 2}} {
		if tt.c.Err() != nil || tt.c.Val() != tt.want {
			t.Errorf("%v: %d, %v; want %d", tt.c.Args(), tt.c.Val(), tt.c.Err(), tt.want)
		}
	}
}

// A canceled context stops the retries at once; a negative window
// means none; a non-transient error is not retried.
func TestRetryStops(t *testing.T) {
	s := open(t, &Options{RetryWindow: time.Hour})
	runs := 0
	run := func([]redis.Cmder) { runs++ }
	c := redis.NewIntCmd(ctx, "incr", s.prefix+"x")
	c.SetErr(io.EOF)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	start := time.Now()
	s.retry(cctx, []redis.Cmder{c}, run, false)
	if runs != 0 || c.Err() != io.EOF || time.Since(start) > 10*time.Second {
		t.Errorf("canceled: %d runs, %v, after %v; want none, EOF, at once", runs, c.Err(), time.Since(start))
	}
	c.SetErr(errors.New("WRONGTYPE Operation against a key holding the wrong kind of value"))
	s.retry(ctx, []redis.Cmder{c}, run, false)
	if runs != 0 {
		t.Errorf("a non-transient error: %d runs, want none", runs)
	}
	s.opts.RetryWindow = -1
	c.SetErr(io.EOF)
	s.retry(ctx, []redis.Cmder{c}, run, false)
	if runs != 0 {
		t.Errorf("no retry window: %d runs, want none", runs)
	}
}

// With WaitReplicas, an APPEND found executed on retry is still waited
// for: on a cluster without replicas, it fails as the WAIT does.
func TestRetryAppendWaits(t *testing.T) {
	s := open(t, nil)
	s.opts.WaitReplicas, s.opts.WaitTimeout = 1, 50*time.Millisecond // Open would wait for its markers
	bk := s.prefix + "test-bucket"
	if err := s.Client().Append(ctx, bk, "AAAAA").Err(); err != nil {
		t.Fatal(err)
	}
	c := redis.NewIntCmd(ctx, "append", bk, "AAAAA")
	c.SetErr(io.EOF)
	s.retry(ctx, []redis.Cmder{c}, func(cmds []redis.Cmder) { s.execWait(ctx, cmds) }, true)
	if c.Err() == nil || !strings.Contains(c.Err().Error(), "0 of 1 replicas acknowledged") {
		t.Errorf("retried APPEND with WaitReplicas and no replica: %d, %v; want the WAIT error", c.Val(), c.Err())
	}
	if got, _ := s.Client().Get(ctx, bk).Result(); got != "AAAAA" {
		t.Errorf("bucket after the retry: %q, want AAAAA", got)
	}
}

// A record's SET executed before its reply was lost, then sent again,
// answers with the record of the write's own number: AppendRead and
// Apply take it as their write (not as a taken ID), counted once.
func TestRepeatedSet(t *testing.T) {
	s := open(t, nil)
	key := index.Key{Kind: index.KindTable, Table: 1, Bits: 16, Value: 0xbeef}
	for _, shared := range []bool{true, false} {
		id := fmt.Sprintf("doc-%v", shared)
		last, err := s.Client().Get(ctx, s.prefix+string(kindNext)).Int64()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		// The first SET, as if its reply were lost: the number the
		// next INCRBY hands out, then the record.
		rec := []byte("rec " + id)
		if err := s.Client().Set(ctx, s.recordKey(id), numString(uint64(last+1))+string(rec), 0).Err(); err != nil {
			t.Fatal(err)
		}
		before, err := s.docs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ws := []index.Write{{ID: id, Record: rec, Fingerprint: 0xbeef << 48, Keys: []index.Key{key}}}
		var num uint64
		if shared {
			app, err := s.AppendRead(ctx, ws)
			if err != nil {
				t.Fatal(err)
			}
			num = app[0].Num
		} else {
			nums, err := s.apply(ctx, ws, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			num = nums[0]
		}
		after, err := s.docs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if num != uint64(last+1) || after != before+1 {
			t.Errorf("shared %v: number %d, documents %d → %d; want %d, one more", shared, num, before, after, last+1)
		}
		ps, err := s.Postings(ctx, []index.Key{key})
		if err != nil || !slices.ContainsFunc(ps[0], func(p index.Posting) bool { return p.ID == id }) {
			t.Errorf("shared %v: postings %v, %v; want %s", shared, ps, err, id)
		}
	}
}
