package indextest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// testIngestRace runs IngestRace with one Index, three goroutines a
// group: on a store one process owns, the in-process protocol.
func testIngestRace(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	rounds := 12
	if testing.Short() {
		rounds = 3
	}
	IngestRace(t, []*index.Index{x}, rounds, 25)
}

// Group is a set of documents ingested at the same instant by
// different writers, and which of them match.
type Group struct {
	Kind  string
	Docs  []index.Doc
	Edges [][2]int // matching pairs
}

// Match reports whether documents a and b of the group match.
func (g *Group) Match(a, b int) bool {
	for _, e := range g.Edges {
		if (e[0] == a && e[1] == b) || (e[0] == b && e[1] == a) {
			return true
		}
	}
	return false
}

// change returns s with n of its values, from position at on, replaced
// by random ones: a sketch agreeing with s on 64−n values.
func change(r *rand.Rand, s minhash.Sketch, at, n int) minhash.Sketch {
	for i := at; i < at+n; i++ {
		v := s[i]
		for v == s[i] {
			v = uint16(r.Uint32())
		}
		s[i] = v
	}
	return s
}

// JoinMinContent is the drift guard of the race tests, dedup's.
const JoinMinContent = 0.5

// NewGroup returns a Group of kind "pair" (A, and B = A with one bit
// flipped in block 1 and a quarter of its sketch changed: Jaccard
// 0.75), "triple" (A, B as in a pair, C = B with one bit flipped in
// block 0 and another quarter changed: A and C are 2 bits apart but
// agree on half their sketch, so do not match; C is a copy of a copy
// that may join A's cluster through B, the drift guard at 0.5
// passing), "drift" (as a triple, but C changes 18 values of B: it
// matches B at 0.72, and agrees with A on 30 of 64 values, under the
// drift guard, so never joins A through B) or "exact" (three copies
// under three IDs).
func NewGroup(r *rand.Rand, kind string, n int) *Group {
	var s minhash.Sketch
	for i := range s {
		s[i] = uint16(r.Uint32())
	}
	a := index.Doc{ID: fmt.Sprintf("g%d-%s-a", n, kind), Fingerprint: simhash.Fingerprint(r.Uint64()), ContentHash: r.Uint64(), Sketch: s, Title: "a"}
	bit := func(block int) simhash.Fingerprint { return 1 << (48 - 16*block + r.IntN(16)) }
	b := a
	b.ID, b.Title, b.ContentHash = fmt.Sprintf("g%d-%s-b", n, kind), "b", r.Uint64()
	b.Fingerprint ^= bit(1)
	b.Sketch = change(r, s, 0, 16)
	g := &Group{Kind: kind}
	switch kind {
	case "pair":
		g.Docs, g.Edges = []index.Doc{a, b}, [][2]int{{0, 1}}
	case "triple", "drift":
		c := b
		c.ID, c.Title, c.ContentHash = fmt.Sprintf("g%d-%s-c", n, kind), "c", r.Uint64()
		c.Fingerprint ^= bit(0)
		changed := 16
		if kind == "drift" {
			changed = 18
		}
		c.Sketch = change(r, b.Sketch, 16, changed)
		g.Docs, g.Edges = []index.Doc{a, b, c}, [][2]int{{0, 1}, {1, 2}}
	case "exact":
		b, c := a, a
		b.ID, c.ID = fmt.Sprintf("g%d-%s-b", n, kind), fmt.Sprintf("g%d-%s-c", n, kind)
		g.Docs, g.Edges = []index.Doc{a, b, c}, [][2]int{{0, 1}, {1, 2}, {0, 2}}
	}
	return g
}

// Check verifies one group's decisions: every member decided, no two
// originals match, and every duplicate (nothing lost) matches only
// documents it matches, one per cluster: originals, or members (decided
// duplicates) of an original's cluster, named with its original and
// its hops, the duplicate passing the drift guard against that
// original. It returns the originals.
func (g *Group) Check(t *testing.T, res []index.Ingested) []int {
	t.Helper()
	var orig []int
	at := map[string]int{}
	for i, d := range g.Docs {
		at[d.ID] = i
	}
	for i, r := range res {
		if r.Num == 0 || r.Taken != nil {
			t.Errorf("%s: not written: %+v", g.Docs[i].ID, r)
		}
		if r.Original {
			orig = append(orig, i)
			if len(r.Matches) > 0 {
				t.Errorf("%s: an original with matches %v", g.Docs[i].ID, r.Matches)
			}
		}
	}
	for _, i := range orig {
		for _, j := range orig {
			if i < j && g.Match(i, j) {
				t.Errorf("%s: %s and %s are both originals", g.Kind, g.Docs[i].ID, g.Docs[j].ID)
			}
		}
	}
	// cluster returns the original of i's cluster and its hops from it.
	cluster := func(i int) (string, int) {
		if res[i].Original || len(res[i].Matches) == 0 {
			return g.Docs[i].ID, 0
		}
		m := res[i].Matches[0]
		if m.Original != "" {
			return m.Original, m.Hops + 1
		}
		return m.ID, 1
	}
	for i, r := range res {
		if r.Original {
			continue
		}
		if len(r.Matches) == 0 {
			t.Errorf("%s: %s is a duplicate of nothing (lost): originals %v", g.Kind, g.Docs[i].ID, orig)
		}
		clusters := map[string]bool{}
		for _, m := range r.Matches {
			j, ok := at[m.ID]
			if !ok || !g.Match(i, j) {
				t.Errorf("%s: %s duplicates %s, which it does not match", g.Kind, g.Docs[i].ID, m.ID)
				continue
			}
			if g.Kind == "exact" && !m.Exact {
				t.Errorf("exact copy %s matched %s with Exact false", g.Docs[i].ID, m.ID)
			}
			c, hops := cluster(j)
			switch o, ok := at[c]; {
			case res[j].Original && (m.Original != "" || m.Hops != 0):
				t.Errorf("%s: %s's match of the original %s names a cluster: %+v", g.Kind, g.Docs[i].ID, m.ID, m)
			case !ok || !res[o].Original:
				t.Errorf("%s: %s joins %s, whose cluster %q has no original", g.Kind, g.Docs[i].ID, m.ID, c)
			case !res[j].Original && (m.Original != c || m.Hops != hops):
				t.Errorf("%s: %s's match of the member %s: cluster %q, hops %d; want %q, %d", g.Kind, g.Docs[i].ID, m.ID, m.Original, m.Hops, c, hops)
			case !res[j].Original && !index.Confirmed(&g.Docs[i], &g.Docs[o], JoinMinContent):
				t.Errorf("%s: %s joins %s's cluster through %s, past the drift guard", g.Kind, g.Docs[i].ID, c, m.ID)
			}
			if clusters[c] {
				t.Errorf("%s: %s matches cluster %s twice: %v", g.Kind, g.Docs[i].ID, c, r.Matches)
			}
			clusters[c] = true
		}
	}
	return orig
}

// Perms are the orders in which a group's members are started.
var Perms = [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}

// IngestOrders: a copy of a copy (triple) or one past the drift
// guard (drift), ingested one document at a time in each of the six
// orders, ends as dedup.Run would decide that order.
func testIngestOrders(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	r := rand.New(rand.NewPCG(15, 4))
	n := 0
	for _, c := range []struct {
		kind string
		want [6]string // A, B, C: "o" (original), or the matches (through a member: member/original/its hops), by Perms
	}{
		{"triple", [6]string{"o a b/a/1", "o a,c o", "b o b", "b o b", "o a,c o", "b/c/1 c o"}},
		{"drift", [6]string{"o a o", "o a,c o", "b o b", "b o b", "o a,c o", "o c o"}},
	} {
		for p, perm := range Perms {
			g := NewGroup(r, c.kind, n)
			n++
			res := make([]index.Ingested, 3)
			for _, i := range perm {
				got, err := x.Ingest(ctx, g.Docs[i:i+1], index.IngestOptions{Distance: 3, JoinMinContent: JoinMinContent})
				if err != nil {
					t.Fatal(err)
				}
				res[i] = got[0]
			}
			g.Check(t, res)
			var out []string
			for _, r := range res {
				if r.Original {
					out = append(out, "o")
					continue
				}
				var ms []string
				for _, m := range r.Matches {
					s := m.ID[strings.LastIndexByte(m.ID, '-')+1:]
					if m.Original != "" {
						s += fmt.Sprintf("/%s/%d", m.Original[strings.LastIndexByte(m.Original, '-')+1:], m.Hops)
					}
					ms = append(ms, s)
				}
				out = append(out, strings.Join(ms, ","))
			}
			if got := strings.Join(out, " "); got != c.want[p] {
				t.Errorf("%s in order %v: %q; want %q", c.kind, perm, got, c.want[p])
			}
		}
	}
}

// IngestRace: groups of near-duplicates (pairs, adversarial
// triples that are copies of copies, triples past the drift guard,
// exact copies) ingested at the same instant, each member by another
// writer (of xs; an Index of its own, or goroutines of one) in a goroutine of its own, released
// together by a barrier and started in each of the six orders (the
// k-th after k pauses of 50µs), many groups at a time, joining
// clusters through members as dedup does. Every member is decided, no
// two originals match, and every duplicate joins originals' clusters
// only, within the drift guard (see check). Then each duplicate's
// record names the cluster Ingest said. rounds × perRound groups of each
// kind are ingested (twice as many triples).
func IngestRace(t *testing.T, xs []*index.Index, rounds, perRound int) {
	writers := len(xs)
	ctx := t.Context()
	r := rand.New(rand.NewPCG(15, 1))
	counts := map[string]int{}
	n, exactOne := 0, 0
	start := time.Now()
	var last []*Group
	var lastRes [][]index.Ingested
	for round := 0; round < rounds; round++ {
		var groups []*Group
		for range perRound {
			for _, kind := range []string{"pair", "triple", "triple", "drift", "exact"} {
				groups = append(groups, NewGroup(r, kind, n))
				n++
			}
		}
		res := make([][]index.Ingested, len(groups))
		barrier := make(chan struct{})
		var wg sync.WaitGroup
		for gi, g := range groups {
			res[gi] = make([]index.Ingested, len(g.Docs))
			perm := Perms[gi%len(Perms)]
			for k, j := range perm {
				if j >= len(g.Docs) {
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-barrier
					if k > 0 {
						time.Sleep(time.Duration(k) * 50 * time.Microsecond)
					}
					got, err := xs[k%writers].Ingest(ctx, g.Docs[j:j+1], index.IngestOptions{Distance: 3, Wait: 10 * time.Second, JoinMinContent: JoinMinContent})
					if err != nil {
						t.Error(err)
						return
					}
					res[gi][j] = got[0]
				}()
			}
		}
		close(barrier)
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		for gi, g := range groups {
			orig := g.Check(t, res[gi])
			if g.Kind == "exact" && len(orig) == 1 {
				exactOne++
			}
			key := g.Kind + " originals"
			for _, i := range orig {
				key += " " + string(rune('A'+i))
			}
			for i, r := range res[gi] {
				if !r.Original && len(r.Matches) > 0 && r.Matches[0].Original != "" {
					key += fmt.Sprintf(", %c joins through %s", 'A'+i, strings.ToUpper(r.Matches[0].ID[len(r.Matches[0].ID)-1:]))
				}
			}
			counts[key]++
		}
		last, lastRes = groups, res
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Logf("%5d groups: %s", counts[k], k)
	}
	t.Logf("%d groups in %v", n, time.Since(start).Round(time.Millisecond))
	if exactOne != rounds*perRound {
		t.Errorf("exact groups with one original: %d of %d", exactOne, rounds*perRound)
	}
	// The records of the last round's documents name their clusters.
	for gi, g := range last {
		for i, d := range g.Docs {
			rec, err := xs[0].Get(ctx, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := "//0"
			if r := lastRes[gi][i]; !r.Original {
				m := r.Matches[0]
				orig, hops := m.ID, 1
				if m.Original != "" {
					orig, hops = m.Original, m.Hops+1
				}
				want = fmt.Sprintf("%s/%s/%d", orig, m.ID, hops)
			}
			if got := fmt.Sprintf("%s/%s/%d", rec.Original, rec.Via, rec.Hops); got != want {
				t.Errorf("record of %s: cluster %s; want %s", d.ID, got, want)
			}
		}
	}
}
