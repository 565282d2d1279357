package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// group is a set of documents ingested at the same instant by
// different writers, and which of them match.
type group struct {
	kind  string
	docs  []index.Doc
	edges [][2]int // matching pairs
}

func (g *group) match(a, b int) bool {
	for _, e := range g.edges {
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

// newGroup returns a group of kind "pair" (A, and B = A with one bit
// flipped in block 1 and a quarter of its sketch changed: Jaccard
// 0.75), "triple" (A, B as in a pair, C = B with one bit flipped in
// block 0 and another quarter changed: A and C are 2 bits apart but
// agree on half their sketch, so do not match) or "exact" (three
// copies under three IDs).
func newGroup(r *rand.Rand, kind string, n int) *group {
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
	g := &group{kind: kind}
	switch kind {
	case "pair":
		g.docs, g.edges = []index.Doc{a, b}, [][2]int{{0, 1}}
	case "triple":
		c := b
		c.ID, c.Title, c.ContentHash = fmt.Sprintf("g%d-%s-c", n, kind), "c", r.Uint64()
		c.Fingerprint ^= bit(0)
		c.Sketch = change(r, b.Sketch, 16, 16)
		g.docs, g.edges = []index.Doc{a, b, c}, [][2]int{{0, 1}, {1, 2}}
	case "exact":
		b, c := a, a
		b.ID, c.ID = fmt.Sprintf("g%d-%s-b", n, kind), fmt.Sprintf("g%d-%s-c", n, kind)
		g.docs, g.edges = []index.Doc{a, b, c}, [][2]int{{0, 1}, {1, 2}, {0, 2}}
	}
	return g
}

// check verifies one group's decisions: every member decided, no two
// originals match, every duplicate names only originals it matches and
// at least one (nothing lost). It returns the originals.
func (g *group) check(t *testing.T, res []index.Ingested) []int {
	t.Helper()
	var orig []int
	at := map[string]int{}
	for i, d := range g.docs {
		at[d.ID] = i
	}
	for i, r := range res {
		if r.Num == 0 || r.Taken != nil {
			t.Errorf("%s: not written: %+v", g.docs[i].ID, r)
		}
		if r.Original {
			orig = append(orig, i)
			if len(r.Matches) > 0 {
				t.Errorf("%s: an original with matches %v", g.docs[i].ID, r.Matches)
			}
		}
	}
	for _, i := range orig {
		for _, j := range orig {
			if i < j && g.match(i, j) {
				t.Errorf("%s: %s and %s are both originals", g.kind, g.docs[i].ID, g.docs[j].ID)
			}
		}
	}
	for i, r := range res {
		if r.Original {
			continue
		}
		if len(r.Matches) == 0 {
			t.Errorf("%s: %s is a duplicate of nothing (lost): originals %v", g.kind, g.docs[i].ID, orig)
		}
		for _, m := range r.Matches {
			j, ok := at[m.ID]
			if !ok || !g.match(i, j) || !res[j].Original {
				t.Errorf("%s: %s duplicates %s, which is not an original it matches", g.kind, g.docs[i].ID, m.ID)
			}
			if g.kind == "exact" && !m.Exact {
				t.Errorf("exact copy %s matched %s with Exact false", g.docs[i].ID, m.ID)
			}
		}
	}
	return orig
}

// TestIngestRace: groups of near-duplicates (pairs, adversarial
// triples, exact copies) ingested at the same instant, each member by
// another writer (a store of its own) in a goroutine of its own,
// released together by a barrier, many groups at a time. Every member
// is decided, no two originals match, and every duplicate duplicates
// an original (a triple ends as {A, C} or {B}, never with C a
// duplicate of a duplicate).
func TestIngestRace(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	const writers = 3
	xs := make([]*index.Index, writers)
	for w := range xs {
		x, err := OpenIndex(ctx, url, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		xs[w] = x
	}
	rounds, perRound := 30, 25 // groups of each kind per round
	if testing.Short() {
		rounds = 4
	}
	r := rand.New(rand.NewPCG(15, 1))
	counts := map[string]int{}
	n := 0
	start := time.Now()
	for round := 0; round < rounds; round++ {
		var groups []*group
		for range perRound {
			for _, kind := range []string{"pair", "triple", "exact"} {
				groups = append(groups, newGroup(r, kind, n))
				n++
			}
		}
		res := make([][]index.Ingested, len(groups))
		barrier := make(chan struct{})
		var wg sync.WaitGroup
		for gi, g := range groups {
			res[gi] = make([]index.Ingested, len(g.docs))
			for j := range g.docs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-barrier
					got, err := xs[j%writers].Ingest(ctx, g.docs[j:j+1], index.IngestOptions{Distance: 3, Wait: 10 * time.Second})
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
			orig := g.check(t, res[gi])
			key := g.kind + " originals"
			for _, i := range orig {
				key += " " + string(rune('A'+i))
			}
			counts[key]++
		}
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
	if counts["exact originals A"]+counts["exact originals B"]+counts["exact originals C"] != rounds*perRound {
		t.Errorf("exact groups with one original: %d of %d", counts["exact originals A"]+counts["exact originals B"]+counts["exact originals C"], rounds*perRound)
	}
}

// dying is a store whose writer dies before deciding anything.
type dying struct{ *Store }

func (d dying) Decide(context.Context, []index.Decision) ([]index.State, error) {
	return nil, errors.New("killed")
}

// TestIngestDeadWriter: a document left pending by a writer that died
// (written by AppendRead, never decided) holds up a later document that
// matches it for IngestOptions.Wait, then counts as an original: the
// later one becomes its duplicate rather than risk two originals. When
// the dead writer's run is resumed, its document is decided original.
func TestIngestDeadWriter(t *testing.T) {
	url := redistest.Shared(t).URL(redistest.Name(t))
	open := func(die bool) *index.Index {
		s, err := Open(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		var st index.Store = s
		if die {
			st = dying{s}
		}
		x, err := index.New(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		return x
	}
	g := newGroup(rand.New(rand.NewPCG(15, 3)), "pair", 0)
	a, b := g.docs[0], g.docs[1]
	a.Job, b.Job = "dead", "alive"
	if _, err := open(true).Ingest(ctx, []index.Doc{a}, index.IngestOptions{Distance: 3}); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("Ingest by a writer that dies: %v", err)
	}
	start := time.Now()
	res, err := open(false).Ingest(ctx, []index.Doc{b}, index.IngestOptions{Distance: 3, Wait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); res[0].Original || len(res[0].Matches) != 1 || res[0].Matches[0].ID != a.ID || waited < 200*time.Millisecond {
		t.Errorf("Ingest next to a pending document: %+v after %v; want a duplicate of %s after waiting 200ms", res[0], waited, a.ID)
	}
	res, err = open(false).Ingest(ctx, []index.Doc{a}, index.IngestOptions{Distance: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].Original || !res[0].Resumed {
		t.Errorf("the dead writer's document resumed: %+v; want a resumed original", res[0])
	}
}
