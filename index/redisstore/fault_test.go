package redisstore

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/simhash"
)

// An unreachable cluster is a clear error at Open.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	start := time.Now()
	_, err = Open(ctx, "redis://u:hunter2@"+addr+"/x", nil)
	if err == nil || !strings.Contains(err.Error(), "cluster unreachable") || !strings.Contains(err.Error(), addr) ||
		strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Open of nothing: %v; want a cluster unreachable error naming %s, without the password", err, addr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Open of nothing took %v", d)
	}
	t.Logf("%v (%v)", err, time.Since(start).Round(time.Millisecond))
}

func docs(n int, prefix string) []index.Doc {
	var out []index.Doc
	for i := 0; i < n; i++ {
		out = append(out, doc(fmt.Sprintf("%s%d", prefix, i), simhash.Fingerprint(uint64(i)*0x9e3779b97f4a7c15), uint64(i)))
	}
	return out
}

// A master that restarts empty (no persistence) is detected by open
// stores and by Open, not taken for a smaller archive; a cluster that is
// not ok is refused at Open with nothing written.
func TestNodeRestartedEmpty(t *testing.T) {
	t.Parallel() // mostly waiting for the cluster to notice
	c := redistest.Start(t, redistest.Options{})
	url := c.URL("arch")
	x, err := OpenIndex(ctx, url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ds := docs(300, "d")
	if err := x.Add(ctx, ds...); err != nil {
		t.Fatal(err)
	}
	c.RestartNode(t, c.Addrs[1])
	c.Wait(t)

	// Each operation fails with ErrCorrupt naming the node; a network
	// error from the broken connections may come first, an answer never.
	lost := func(what string, f func() error) {
		t.Helper()
		for try := 0; ; try++ {
			err := f()
			if err == nil {
				t.Fatalf("%s after a node restarted empty: no error", what)
			}
			if errors.Is(err, index.ErrCorrupt) {
				if !strings.Contains(err.Error(), c.Addrs[1]) {
					t.Errorf("%s: %v; want the node %s named", what, err, c.Addrs[1])
				}
				t.Logf("%s: %v", what, err)
				return
			}
			if try == 5 {
				t.Fatalf("%s: %v; want ErrCorrupt", what, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	lost("Near", func() error { _, err := x.Near(ctx, ds[0].Fingerprint, 3); return err })
	lost("Get", func() error { _, err := x.Get(ctx, "d1"); return err })
	lost("Add", func() error { return x.Add(ctx, docs(10, "new")...) })
	lost("Stats", func() error { _, err := x.Stats(ctx); return err })
	lost("Open", func() error {
		s, err := Open(ctx, url, nil)
		if err == nil {
			s.Close()
		}
		return err
	})

	// A master down and no replica to take over: the cluster is not ok.
	c.StopNode(t, c.Addrs[2])
	redistest.WaitFor(t, 15*time.Second, "cluster_state:fail", func() bool {
		return strings.Contains(c.CLI(t, c.Addrs[0], "cluster", "info"), "cluster_state:fail")
	})
	_, err = Open(ctx, c.URL("fresh"), nil)
	if err == nil || !strings.Contains(err.Error(), "cluster state is fail") {
		t.Errorf("Open on a failed cluster: %v, want cluster state is fail", err)
	}
	for _, a := range c.Addrs[:2] {
		if keys := strings.TrimSpace(c.CLI(t, a, "--scan", "--pattern", "fresh:*")); keys != "" {
			t.Errorf("%s holds keys of the archive that failed to open: %q", a, keys)
		}
	}
}

// With replicas and WaitReplicas, a master's failure loses no
// acknowledged document; a master without a replica to wait for fails
// Apply clearly.
func TestFailover(t *testing.T) {
	t.Parallel() // mostly waiting for the cluster to notice
	c := redistest.Start(t, redistest.Options{Replicas: 1})
	url := c.URL("arch")
	x, err := OpenIndex(ctx, url, &Options{WaitReplicas: 1, WaitTimeout: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ds := docs(400, "d")
	if err := x.Add(ctx, ds...); err != nil {
		t.Fatal(err)
	}
	// The master that serves d0's record.
	s := x.Store().(*Store)
	m, err := s.Client().MasterForKey(ctx, s.recordKey("d0"))
	if err != nil {
		t.Fatal(err)
	}
	victim := m.Options().Addr
	c.StopNode(t, victim)
	start := time.Now()
	redistest.WaitFor(t, 20*time.Second, "a replica to take over", func() bool {
		_, err := x.Get(ctx, "d0")
		return err == nil
	})
	t.Logf("failover after %v", time.Since(start).Round(time.Millisecond))
	st, err := x.Stats(ctx)
	if err != nil || st.Docs != 400 {
		t.Fatalf("after failover: Docs = %d, %v; want 400", st.Docs, err)
	}
	for _, d := range ds {
		got, err := x.Near(ctx, d.Fingerprint, 0)
		if err != nil || len(got) == 0 || got[0].ID != d.ID {
			t.Fatalf("after failover: Near(%s) = %v, %v", d.ID, ids(got), err)
		}
	}
	// The promoted master has no replica: nothing acknowledges.
	err = x.Add(ctx, docs(50, "late")...)
	if err == nil || !strings.Contains(err.Error(), "replicas acknowledged") {
		t.Errorf("Add with a master without replica: %v, want a WAIT error", err)
	}
	// The old master comes back, empty, as the new master's replica.
	c.RestartNode(t, victim)
	c.Wait(t)
	redistest.WaitFor(t, 20*time.Second, "the old master to sync as a replica", func() bool {
		return strings.Contains(c.CLI(t, victim, "info", "replication"), "master_link_status:up")
	})
	if err := x.Add(ctx, docs(50, "later")...); err != nil {
		t.Errorf("Add after the replica is back: %v", err)
	}
}
