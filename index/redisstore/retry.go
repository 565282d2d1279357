package redisstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// Retries. go-redis retries a pipeline at most MaxRedirects times (3)
// with backoffs of 8 to 512 ms, shorter than a failover (a replica takes
// over a few seconds after its master stops answering: cluster-node-
// timeout, then an election). So exec retries the commands of a
// pipeline that failed with a transient error (see transient) itself,
// with backoffs of 100 ms doubling to 1 s, reloading go-redis's view of
// the cluster before each try, until Options.RetryWindow has passed
// since the first failure or ctx is done.
//
// A command retried may have been executed before its reply was lost
// (a connection reset after the write), so every command a write may
// send again must be idempotent; the package doc says why each is.
// APPEND is not: exec sends it with go-redis's own retries off
// (noRetry), and before trying one again reads the bucket and appends
// only if the posting is not there yet (only the writer of a document
// appends its postings, so the read does not race with another append
// of it).
const (
	DefaultRetryWindow = 30 * time.Second

	retryMinBackoff = 100 * time.Millisecond
	retryMaxBackoff = time.Second
)

// noRetry is a command that go-redis does not send again by itself:
// a pipeline holding one is not retried (redis.Cmder.NoRetry).
type noRetry struct{ redis.Cmder }

func (noRetry) NoRetry() bool { return true }

// isAppend reports whether c is one of the store's APPENDs of a posting.
func isAppend(c redis.Cmder) bool {
	_, ok := c.(*redis.IntCmd)
	return ok && len(c.Args()) == 3 && c.Args()[0] == "append"
}

// transient reports whether err may go away by itself while a cluster
// heals: a network error (connection refused or reset, EOF, a timeout),
// or a redirection or refusal of a cluster that is changing (MOVED,
// ASK, CLUSTERDOWN, TRYAGAIN, LOADING, MASTERDOWN, READONLY). Context
// errors and the store's own errors (a WAIT without enough replicas, a
// lost marker) are not.
func transient(err error) bool {
	if err == nil || err == redis.Nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, redis.ErrClosed) {
		return false
	}
	var re redis.Error
	if errors.As(err, &re) {
		msg := err.Error()
		for _, p := range []string{"MOVED ", "ASK ", "CLUSTERDOWN ", "TRYAGAIN ", "LOADING ", "MASTERDOWN ", "READONLY "} {
			if strings.HasPrefix(msg, p) {
				return true
			}
		}
		return false
	}
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "connection pool timeout")
}

// retry tries again, until the retry window has passed or ctx is done,
// the commands of cmds that failed with a transient error; run runs a
// pipeline as exec does, wait says whether it WAITs for replicas.
func (s *Store) retry(ctx context.Context, cmds []redis.Cmder, run func([]redis.Cmder), wait bool) {
	if s.opts.RetryWindow <= 0 {
		return
	}
	var deadline time.Time
	backoff := retryMinBackoff
	for {
		var failed []redis.Cmder
		for _, c := range cmds {
			if transient(c.Err()) {
				failed = append(failed, c)
			}
		}
		if len(failed) == 0 {
			return
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(s.opts.RetryWindow)
		}
		if time.Now().Add(backoff).After(deadline) {
			return
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, retryMaxBackoff)
		s.c.ReloadState(ctx)

		// An APPEND that may have been executed: is its posting there?
		var gets []redis.Cmder
		for _, c := range failed {
			if isAppend(c) {
				gets = append(gets, redis.NewStringCmd(ctx, "get", c.Args()[1]))
			}
		}
		if len(gets) > 0 {
			s.pipeline(ctx, gets) // reads: no WAIT
		}
		var redo []redis.Cmder
		var done []func()
		ai := 0
		for _, c := range failed {
			if isAppend(c) {
				g := gets[ai].(*redis.StringCmd)
				ai++
				if g.Err() != nil && g.Err() != redis.Nil {
					continue // still failing: the next round
				}
				rec := []byte(c.Args()[2].(string))
				if end := postingEnd([]byte(g.Val()), rec); end > 0 {
					c.(*redis.IntCmd).SetVal(end)
					c.SetErr(nil)
					if wait {
						// Still to be acknowledged: an empty APPEND
						// changes nothing, and is WAITed for.
						n := redis.NewIntCmd(ctx, "append", c.Args()[1], "")
						redo = append(redo, n)
						done = append(done, func() { c.SetErr(n.Err()) })
					}
					continue
				}
			}
			n, copyBack := again(ctx, c)
			if n == nil {
				continue // a kind exec does not retry: its error stands
			}
			redo = append(redo, n)
			done = append(done, copyBack)
		}
		if len(redo) > 0 {
			run(redo)
			for _, f := range done {
				f()
			}
		}
	}
}

// postingEnd returns where rec ends in bucket, if it is one of its
// records (len(rec) bytes each), else 0.
func postingEnd(bucket, rec []byte) int64 {
	n := len(rec)
	for off := 0; off+n <= len(bucket); off += n {
		if bytes.Equal(bucket[off:off+n], rec) {
			return int64(off + n)
		}
	}
	return 0
}

// again returns a new command with c's arguments and a function that
// copies its result to c; nil for a kind of command the store does not
// send.
func again(ctx context.Context, c redis.Cmder) (redis.Cmder, func()) {
	switch o := c.(type) {
	case *redis.IntCmd:
		n := redis.NewIntCmd(ctx, o.Args()...)
		return n, func() { o.SetVal(n.Val()); o.SetErr(n.Err()) }
	case *redis.StringCmd:
		n := redis.NewStringCmd(ctx, o.Args()...)
		return n, func() { o.SetVal(n.Val()); o.SetErr(n.Err()) }
	case *redis.BoolCmd:
		n := redis.NewBoolCmd(ctx, o.Args()...)
		return n, func() { o.SetVal(n.Val()); o.SetErr(n.Err()) }
	case *redis.StatusCmd:
		n := redis.NewStatusCmd(ctx, o.Args()...)
		return n, func() { o.SetVal(n.Val()); o.SetErr(n.Err()) }
	case *redis.Cmd:
		n := redis.NewCmd(ctx, o.Args()...)
		return n, func() { o.SetVal(n.Val()); o.SetErr(n.Err()) }
	}
	return nil, nil
}

// sendable returns c as exec hands it to go-redis: an APPEND with
// go-redis's retries off.
func sendable(c redis.Cmder) redis.Cmder {
	if isAppend(c) {
		return noRetry{c}
	}
	return c
}
