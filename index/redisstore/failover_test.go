package redisstore

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/internal/redistest"
)

// A master stopped while three writers ingest (index.Ingest, as
// dedup.Run does on a shared archive) into a cluster of 3 masters and 3
// replicas: every writer's calls go on through the failover and return
// without an error once the replica has taken over (the store retries
// within Options.RetryWindow), and afterwards every document whose
// Ingest returned is in the archive, found by Get and Near, decided,
// with the race tests' invariants (no two matching originals, no
// duplicate of nothing).
func TestFailoverIngest(t *testing.T) {
	t.Parallel() // mostly waiting for the cluster to notice
	c := redistest.Start(t, redistest.Options{Replicas: 1})
	url := c.URL("arch")
	const writers = 3
	xs := openWriters(t, url, writers)
	s := xs[0].Store().(*Store)
	m, err := s.Client().MasterForKey(ctx, s.recordKey("g0-pair-a"))
	if err != nil {
		t.Fatal(err)
	}
	victim := m.Options().Addr

	// Writer w ingests member (w+i)%3 of group i, one call each, so that
	// the members of a group are ingested at about the same time.
	const perKind, stopAfter = 30, 30
	r := rand.New(rand.NewPCG(15, 2))
	var groups []*indextest.Group
	for range perKind {
		for _, kind := range []string{"pair", "triple", "exact"} {
			groups = append(groups, indextest.NewGroup(r, kind, len(groups)))
		}
	}
	res := make([][]index.Ingested, len(groups))
	for gi, g := range groups {
		res[gi] = make([]index.Ingested, len(g.Docs))
	}
	var (
		stopped atomic.Bool
		acked   atomic.Int64 // calls returned
		during  atomic.Int64 // calls begun before the stop, returned after
		stall   = make([]time.Duration, writers)
		wg      sync.WaitGroup
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for gi, g := range groups {
				j := (w + gi) % writers
				if j >= len(g.Docs) {
					continue
				}
				before := stopped.Load()
				start := time.Now()
				got, err := xs[w].Ingest(ctx, g.Docs[j:j+1], index.IngestOptions{Distance: 3, Wait: 30 * time.Second, JoinMinContent: indextest.JoinMinContent})
				stall[w] = max(stall[w], time.Since(start))
				if err != nil {
					t.Errorf("writer %d, %s: %v", w, g.Docs[j].ID, err)
					return
				}
				if !before && stopped.Load() {
					during.Add(1)
				}
				res[gi][j] = got[0]
				acked.Add(1)
			}
		}()
	}
	for acked.Load() < stopAfter {
		time.Sleep(time.Millisecond)
	}
	c.StopNode(t, victim)
	stopped.Store(true)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if during.Load() == 0 {
		t.Fatalf("no Ingest call was under way when %s stopped: the test needs more documents", victim)
	}
	t.Logf("master %s stopped after %d calls; %d calls under way; the longest call of each writer: %v", victim, stopAfter, during.Load(), stall)

	// Every document acknowledged is there, decided, found by Near.
	var nums []uint64
	var all []index.Doc
	originals := 0
	for gi, g := range groups {
		originals += len(g.Check(t, res[gi]))
		for i, d := range g.Docs {
			all = append(all, d)
			nums = append(nums, res[gi][i].Num)
		}
	}
	x := xs[1]
	for _, d := range all {
		got, err := x.Get(ctx, d.ID)
		if err != nil || got.Fingerprint != d.Fingerprint {
			t.Errorf("after the failover: Get(%s) = %v, %v", d.ID, got.Fingerprint, err)
		}
		near, err := x.Near(ctx, d.Fingerprint, 0)
		if err != nil || !slices.ContainsFunc(near, func(m index.Match) bool { return m.ID == d.ID }) {
			t.Errorf("after the failover: Near(%s) = %v, %v", d.ID, ids(near), err)
		}
	}
	states, err := x.Store().(*Store).States(ctx, nums)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range states {
		if st.ID != all[i].ID || (st.Status != index.StatusOriginal && st.Status != index.StatusDuplicate) {
			t.Errorf("after the failover: state of %s (%d) = %+v; want decided", all[i].ID, nums[i], st)
		}
	}
	st, err := x.Stats(ctx)
	t.Logf("%d documents acknowledged by %d writers, %d originals; Stats: %d documents, %v", len(all), writers, originals, st.Docs, err)
}
