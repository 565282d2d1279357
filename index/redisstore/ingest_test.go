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

	"github.com/redis/go-redis/v9"

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

// joinMinContent is the drift guard of the race tests, dedup's.
const joinMinContent = 0.5

// newGroup returns a group of kind "pair" (A, and B = A with one bit
// flipped in block 1 and a quarter of its sketch changed: Jaccard
// 0.75), "triple" (A, B as in a pair, C = B with one bit flipped in
// block 0 and another quarter changed: A and C are 2 bits apart but
// agree on half their sketch, so do not match; C is a copy of a copy
// that may join A's cluster through B, the drift guard at 0.5
// passing), "drift" (as a triple, but C changes 18 values of B: it
// matches B at 0.72, and agrees with A on 30 of 64 values, under the
// drift guard, so never joins A through B) or "exact" (three copies
// under three IDs).
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
	case "triple", "drift":
		c := b
		c.ID, c.Title, c.ContentHash = fmt.Sprintf("g%d-%s-c", n, kind), "c", r.Uint64()
		c.Fingerprint ^= bit(0)
		changed := 16
		if kind == "drift" {
			changed = 18
		}
		c.Sketch = change(r, b.Sketch, 16, changed)
		g.docs, g.edges = []index.Doc{a, b, c}, [][2]int{{0, 1}, {1, 2}}
	case "exact":
		b, c := a, a
		b.ID, c.ID = fmt.Sprintf("g%d-%s-b", n, kind), fmt.Sprintf("g%d-%s-c", n, kind)
		g.docs, g.edges = []index.Doc{a, b, c}, [][2]int{{0, 1}, {1, 2}, {0, 2}}
	}
	return g
}

// check verifies one group's decisions: every member decided, no two
// originals match, and every duplicate (nothing lost) matches only
// documents it matches, one per cluster: originals, or members (decided
// duplicates) of an original's cluster, named with its original and
// its hops, the duplicate passing the drift guard against that
// original. It returns the originals.
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
	// cluster returns the original of i's cluster and its hops from it.
	cluster := func(i int) (string, int) {
		if res[i].Original || len(res[i].Matches) == 0 {
			return g.docs[i].ID, 0
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
			t.Errorf("%s: %s is a duplicate of nothing (lost): originals %v", g.kind, g.docs[i].ID, orig)
		}
		clusters := map[string]bool{}
		for _, m := range r.Matches {
			j, ok := at[m.ID]
			if !ok || !g.match(i, j) {
				t.Errorf("%s: %s duplicates %s, which it does not match", g.kind, g.docs[i].ID, m.ID)
				continue
			}
			if g.kind == "exact" && !m.Exact {
				t.Errorf("exact copy %s matched %s with Exact false", g.docs[i].ID, m.ID)
			}
			c, hops := cluster(j)
			switch o, ok := at[c]; {
			case res[j].Original && (m.Original != "" || m.Hops != 0):
				t.Errorf("%s: %s's match of the original %s names a cluster: %+v", g.kind, g.docs[i].ID, m.ID, m)
			case !ok || !res[o].Original:
				t.Errorf("%s: %s joins %s, whose cluster %q has no original", g.kind, g.docs[i].ID, m.ID, c)
			case !res[j].Original && (m.Original != c || m.Hops != hops):
				t.Errorf("%s: %s's match of the member %s: cluster %q, hops %d; want %q, %d", g.kind, g.docs[i].ID, m.ID, m.Original, m.Hops, c, hops)
			case !res[j].Original && !index.Confirmed(&g.docs[i], &g.docs[o], joinMinContent):
				t.Errorf("%s: %s joins %s's cluster through %s, past the drift guard", g.kind, g.docs[i].ID, c, m.ID)
			}
			if clusters[c] {
				t.Errorf("%s: %s matches cluster %s twice: %v", g.kind, g.docs[i].ID, c, r.Matches)
			}
			clusters[c] = true
		}
	}
	return orig
}

// perms are the orders in which a group's members are started.
var perms = [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}

// TestIngestOrders: a copy of a copy (triple) or one past the drift
// guard (drift), ingested one document at a time in each of the six
// orders, ends as dedup.Run would decide that order.
func TestIngestOrders(t *testing.T) {
	url := redistest.Shared(t).URL(redistest.Name(t))
	x, err := OpenIndex(ctx, url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	r := rand.New(rand.NewPCG(15, 4))
	n := 0
	for _, c := range []struct {
		kind string
		want [6]string // A, B, C: "o" (original), or the matches (through a member: member/original/its hops), by perms
	}{
		{"triple", [6]string{"o a b/a/1", "o a,c o", "b o b", "b o b", "o a,c o", "b/c/1 c o"}},
		{"drift", [6]string{"o a o", "o a,c o", "b o b", "b o b", "o a,c o", "o c o"}},
	} {
		for p, perm := range perms {
			g := newGroup(r, c.kind, n)
			n++
			res := make([]index.Ingested, 3)
			for _, i := range perm {
				got, err := x.Ingest(ctx, g.docs[i:i+1], index.IngestOptions{Distance: 3, JoinMinContent: joinMinContent})
				if err != nil {
					t.Fatal(err)
				}
				res[i] = got[0]
			}
			g.check(t, res)
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

// TestIngestRace: groups of near-duplicates (pairs, adversarial
// triples that are copies of copies, triples past the drift guard,
// exact copies) ingested at the same instant, each member by another
// writer (a store of its own) in a goroutine of its own, released
// together by a barrier and started in each of the six orders (the
// k-th after k pauses of 50µs), many groups at a time, joining
// clusters through members as dedup does. Every member is decided, no
// two originals match, and every duplicate joins originals' clusters
// only, within the drift guard (see check). Then each duplicate's
// record names the cluster Ingest said.
func TestIngestRace(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	const writers = 3
	xs := openWriters(t, url, writers)
	rounds, perRound := 30, 25 // groups of each kind per round (twice as many triples)
	if testing.Short() {
		rounds = 4
	}
	r := rand.New(rand.NewPCG(15, 1))
	counts := map[string]int{}
	n, exactOne := 0, 0
	start := time.Now()
	var last []*group
	var lastRes [][]index.Ingested
	for round := 0; round < rounds; round++ {
		var groups []*group
		for range perRound {
			for _, kind := range []string{"pair", "triple", "triple", "drift", "exact"} {
				groups = append(groups, newGroup(r, kind, n))
				n++
			}
		}
		res := make([][]index.Ingested, len(groups))
		barrier := make(chan struct{})
		var wg sync.WaitGroup
		for gi, g := range groups {
			res[gi] = make([]index.Ingested, len(g.docs))
			perm := perms[gi%len(perms)]
			for k, j := range perm {
				if j >= len(g.docs) {
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-barrier
					if k > 0 {
						time.Sleep(time.Duration(k) * 50 * time.Microsecond)
					}
					got, err := xs[k%writers].Ingest(ctx, g.docs[j:j+1], index.IngestOptions{Distance: 3, Wait: 10 * time.Second, JoinMinContent: joinMinContent})
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
			if g.kind == "exact" && len(orig) == 1 {
				exactOne++
			}
			key := g.kind + " originals"
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
		for i, d := range g.docs {
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

// TestIngestStateStats: ClusterStats measures the ingest states: 300
// documents written by Ingest (numbers 1 to 300, in three state
// hashes) are 300 states sampled, each a few bytes (a status byte and
// a one-byte field in a listpack of up to 128).
func TestIngestStateStats(t *testing.T) {
	x, s := openIndex(t, nil, nil)
	r := rand.New(rand.NewPCG(15, 5))
	var docs []index.Doc
	for i := range 300 {
		docs = append(docs, doc(fmt.Sprintf("s%d", i), simhash.Fingerprint(r.Uint64()), uint64(i)))
	}
	for i := 0; i < len(docs); i += 100 {
		if _, err := x.Ingest(ctx, docs[i:i+100], index.IngestOptions{Distance: 3}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.ClusterStats(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.LastNumber != 300 || st.StateSamples != 300 || st.StateBytesPerDoc < 2 || st.StateBytesPerDoc > 16 {
		t.Errorf("ClusterStats: last number %d, %d states sampled at %.1f bytes each; want 300, 300, 2 to 16 bytes", st.LastNumber, st.StateSamples, st.StateBytesPerDoc)
	}
	t.Logf("%.2f bytes per state", st.StateBytesPerDoc)
}

// TestIngestDeleteRecordOnly: a duplicate Ingest archived RecordOnly
// keeps the postings it was appended under (Ingest files every document
// under all its keys before deciding it); deleting it removes them from
// the table buckets too, not only from its content key.
func TestIngestDeleteRecordOnly(t *testing.T) {
	x, s := openIndex(t, nil, nil)
	g := newGroup(rand.New(rand.NewPCG(15, 6)), "pair", 0)
	res, err := x.Ingest(ctx, g.docs, index.IngestOptions{Distance: 3, JoinMinContent: joinMinContent,
		Member: func(*index.Doc, *index.Match) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	b := g.docs[1]
	if d, err := x.Get(ctx, b.ID); err != nil || !d.RecordOnly || d.Original != g.docs[0].ID {
		t.Fatalf("B after Ingest: %+v, %v; want RecordOnly in A's cluster", d, err)
	}
	held := func() int {
		n := 0
		for tb := range 4 {
			bk, err := s.bucketOf(index.Key{Kind: index.KindTable, Table: uint8(tb), Bits: 16, Value: uint64(b.Fingerprint>>(48-16*tb)) & 0xffff})
			if err != nil {
				t.Fatal(err)
			}
			val, err := s.Client().Get(ctx, bk.key).Result()
			if err != nil && err != redis.Nil {
				t.Fatal(err)
			}
			if err := bk.scan(val, func(_ simhash.Fingerprint, num uint64) {
				if num == res[1].Num {
					n++
				}
			}); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	if n := held(); n != 4 {
		t.Fatalf("B's number in %d of its 4 table buckets after Ingest; want 4", n)
	}
	if err := x.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if n := held(); n != 0 {
		t.Errorf("B's number in %d of its table buckets after Delete; want none", n)
	}
}

// countingRecords counts the records read.
type countingRecords struct {
	*Store
	read int
}

func (c *countingRecords) Records(ctx context.Context, ids []string) ([][]byte, error) {
	c.read += len(ids)
	return c.Store.Records(ctx, ids)
}

// TestIngestReadsCandidatesOnly: of the documents a new one sees under
// its table keys, Ingest reads the records of those within the distance
// only, as Similar does: 40 documents sharing a table bucket with it
// but 16 or more bits away cost no record read.
func TestIngestReadsCandidatesOnly(t *testing.T) {
	c := &countingRecords{Store: open(t, nil)}
	x, err := index.New(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	r := rand.New(rand.NewPCG(15, 7))
	var docs []index.Doc
	for i := range 41 {
		// Table 0's 16 bits shared; the other 48 random (a distance of
		// about 24 bits), none within 3 of another.
		docs = append(docs, index.Doc{ID: fmt.Sprintf("far%d", i), Fingerprint: 0xABCD<<48 | simhash.Fingerprint(r.Uint64()>>16), ContentHash: uint64(i) + 1})
	}
	for i := range docs {
		for j := range i {
			if docs[i].Fingerprint.Distance(docs[j].Fingerprint) <= 3 {
				t.Fatalf("%s and %s are within 3 bits", docs[i].ID, docs[j].ID)
			}
		}
	}
	if _, err := x.Ingest(ctx, docs[:40], index.IngestOptions{Distance: 3}); err != nil {
		t.Fatal(err)
	}
	c.read = 0
	res, err := x.Ingest(ctx, docs[40:], index.IngestOptions{Distance: 3})
	if err != nil || !res[0].Original {
		t.Fatalf("Ingest = %+v, %v; want an original", res, err)
	}
	if c.read != 1 {
		t.Errorf("Ingest of a document 40 far ones share a bucket with read %d records; want 1 (its own ID, to see it is new)", c.read)
	}
}

// openWriters opens n indexes on the archive url, one a writer, closed
// when the test ends.
func openWriters(t *testing.T, url string, n int) []*index.Index {
	t.Helper()
	xs := make([]*index.Index, n)
	for w := range xs {
		x, err := OpenIndex(ctx, url, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		xs[w] = x
	}
	return xs
}
