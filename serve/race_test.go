package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/index/redisstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/internal/testfixtures"
)

// raceVocab returns the distinct words of the sample corpus's English
// texts (letters only, 4 to 12 of them), sorted.
func raceVocab(t testing.TB) []string {
	seen := map[string]bool{}
	for _, text := range sampleTexts(t) {
		for _, w := range strings.Fields(text) {
			w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
			if len(w) >= 4 && len(w) <= 12 && strings.IndexFunc(w, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) }) < 0 {
				seen[w] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// raceGroup is a group of articles posted at the same moment.
type raceGroup struct {
	kind  string // pair, triple (a copy of a copy), exact (three copies)
	ids   []string
	texts []string
}

// newRaceGroup makes a group: A is 150 words of vocab; in a pair B is A
// with 3 words replaced; in a triple C is B with 3 more replaced; exact
// copies are A three times under three IDs.
func newRaceGroup(r *rand.Rand, vocab []string, kind string, n int) *raceGroup {
	a := make([]string, 150)
	for i := range a {
		a[i] = vocab[r.IntN(len(vocab))]
	}
	edit := func(w []string) []string {
		w = slices.Clone(w)
		for range 3 {
			w[r.IntN(len(w))] = vocab[r.IntN(len(vocab))]
		}
		return w
	}
	g := &raceGroup{kind: kind}
	add := func(w []string) {
		g.ids = append(g.ids, fmt.Sprintf("r%d-%s-%c", n, kind, 'a'+len(g.ids)))
		g.texts = append(g.texts, strings.Join(w, " "))
	}
	add(a)
	switch kind {
	case "pair":
		add(edit(a))
	case "triple":
		b := edit(a)
		add(b)
		add(edit(b))
	case "exact":
		add(a)
		add(a)
	}
	return g
}

// raceResult is what the posts of a race were answered.
type raceResult struct {
	mu    sync.Mutex
	acked map[string]bool // IDs whose add was acknowledged (201, or added:true)
	errs  []string
}

// post sends one article to s the way mode says ("check": POST
// /v1/check?add=true, "documents": POST /v1/documents) and notes an
// acknowledged add.
func (res *raceResult) post(s http.Handler, mode, id, text string) {
	body := fmt.Sprintf(`{"id":%q,"text":%q}`, id, text)
	var w interface {
		Result() *http.Response
	}
	acked := false
	switch mode {
	case "check":
		rr := do(s, "POST", "/v1/check?add=true", body)
		w = rr
		var a struct{ Added bool }
		if rr.Code == http.StatusOK && json.Unmarshal(rr.Body.Bytes(), &a) == nil {
			acked = a.Added
		} else {
			res.fail("%s: check: %d %s", id, rr.Code, rr.Body)
		}
	case "documents":
		rr := do(s, "POST", "/v1/documents", body)
		w = rr
		if rr.Code == http.StatusCreated {
			acked = true
		} else {
			res.fail("%s: documents: %d %s", id, rr.Code, rr.Body)
		}
	}
	_ = w
	if acked {
		res.mu.Lock()
		res.acked[id] = true
		res.mu.Unlock()
	}
}

func (res *raceResult) fail(format string, args ...any) {
	res.mu.Lock()
	defer res.mu.Unlock()
	if len(res.errs) < 10 {
		res.errs = append(res.errs, fmt.Sprintf(format, args...))
	}
}

// raceGroups posts each group's articles at the same moment, each from
// a goroutine of its own released by a barrier, article k to
// servers[k % len(servers)], in the mode of modes[group % len(modes)],
// perRound groups at a time.
func raceGroups(t *testing.T, servers []http.Handler, modes []string, groups []*raceGroup, perRound int) *raceResult {
	res := &raceResult{acked: map[string]bool{}}
	for start := 0; start < len(groups); start += perRound {
		barrier := make(chan struct{})
		var wg sync.WaitGroup
		for gi := start; gi < min(start+perRound, len(groups)); gi++ {
			g := groups[gi]
			mode := modes[gi%len(modes)]
			for k := range g.ids {
				wg.Go(func() {
					<-barrier
					res.post(servers[(gi+k)%len(servers)], mode, g.ids[k], g.texts[k])
				})
			}
		}
		close(barrier)
		wg.Wait()
	}
	if len(res.errs) > 0 {
		t.Fatalf("failed posts: %s", strings.Join(res.errs, "\n"))
	}
	return res
}

// checkRace checks the archive x after a race: every acknowledged add
// is there; no two originals match (index.Similar, at the index's
// distance, finds no original among any original's matches); each
// group of exact copies has one original. It logs the groups by kind
// and by their originals and returns how many groups had two matching
// members (the pairs the race could have got wrong).
func checkRace(t *testing.T, x *index.Index, groups []*raceGroup, res *raceResult) int {
	t.Helper()
	ctx := t.Context()
	docs := map[string]*index.Doc{}
	for _, g := range groups {
		for _, id := range g.ids {
			d, err := x.Get(ctx, id)
			switch {
			case err == nil:
				docs[id] = &d
			case res.acked[id]:
				t.Errorf("%s: acknowledged, not in the archive: %v", id, err)
			}
		}
	}
	original := func(id string) bool { d := docs[id]; return d != nil && d.Original == "" }
	counts := map[string]int{}
	contested := 0
	for _, g := range groups {
		var origs []string
		matching := false
		for _, id := range g.ids {
			if !original(id) {
				continue
			}
			origs = append(origs, id[strings.LastIndexByte(id, '-')+1:])
			ms, err := x.Similar(ctx, docs[id], x.MaxDistance())
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				if original(m.ID) {
					t.Errorf("%s and %s are both originals and match: %+v", id, m.ID, m)
				}
			}
		}
		// Did two members match (index.Similar among the group alone)?
		m, err := memstore.Open(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var gd []index.Doc
		for k, id := range g.ids {
			an, err := testfixtures.Analyzer(t, "").Analyze(g.texts[k])
			if err != nil {
				t.Fatal(err)
			}
			gd = append(gd, dedup.DocOf(an, id, "", 32))
		}
		if err := m.Add(ctx, gd...); err != nil {
			t.Fatal(err)
		}
		for k := range gd {
			if ms, err := m.Similar(ctx, &gd[k], x.MaxDistance()); err != nil {
				t.Fatal(err)
			} else if len(ms) > 0 {
				matching = true
			}
		}
		m.Close()
		if g.kind == "exact" {
			if len(origs) != 1 {
				t.Errorf("exact copies %v: originals %v; want one", g.ids, origs)
			}
		}
		if matching {
			contested++
		}
		counts[fmt.Sprintf("%s, members match %v, originals %s", g.kind, matching, strings.Join(origs, " "))]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Logf("%5d groups: %s", counts[k], k)
	}
	return contested
}

// raceCorpus returns n groups of each kind (twice as many triples),
// seeded by seed.
func raceCorpus(t *testing.T, seed uint64, n int) []*raceGroup {
	vocab := raceVocab(t)
	if len(vocab) < 2000 {
		t.Fatalf("%d words in the sample's vocabulary: too few", len(vocab))
	}
	r := rand.New(rand.NewPCG(seed, 26))
	var gs []*raceGroup
	for i := range n {
		for _, kind := range []string{"pair", "triple", "triple", "exact"} {
			gs = append(gs, newRaceGroup(r, vocab, kind, 4*i+len(gs)%4))
		}
	}
	return gs
}

// raceSizes: groups of each kind, and groups at a time.
func raceSizes() (int, int) {
	if testing.Short() {
		return 60, 40
	}
	return 500, 100
}

// TestRaceServers: two servers on one Redis archive (as two serve
// replicas behind a load balancer) are posted the members of
// near-duplicate pairs, triples (copies of copies) and exact copies at
// the same moment, one member to each, with POST /v1/check?add=true,
// with POST /v1/documents, and with both mixed: no two originals match,
// each group of exact copies has one original, and every acknowledged
// add is archived.
func TestRaceServers(t *testing.T) {
	c := redistest.Start(t, redistest.Options{})
	a := testfixtures.Analyzer(t, "")
	n, perRound := raceSizes()
	for i, modes := range [][]string{{"check"}, {"documents"}, {"check", "documents"}} {
		t.Run(strings.Join(modes, "+"), func(t *testing.T) {
			url := c.URL(redistest.Name(t))
			var servers []http.Handler
			var xs []*index.Index
			for range 2 {
				x, err := redisstore.OpenIndex(t.Context(), url, nil, &index.Options{AnalyzerID: a.ID()})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { x.Close() })
				s, err := New(Options{Index: x, Analyzer: a, Now: func() time.Time { return fixedNow }})
				if err != nil {
					t.Fatal(err)
				}
				servers, xs = append(servers, s), append(xs, x)
			}
			groups := raceCorpus(t, uint64(i), n)
			res := raceGroups(t, servers, modes, groups, perRound)
			contested := checkRace(t, xs[0], groups, res)
			t.Logf("%d groups, %d with matching members, %d adds acknowledged", len(groups), contested, len(res.acked))
		})
	}
}

// TestRaceOneServer: the same race, on one server over an archive one
// process owns (memory, Badger): its concurrent requests get the same
// guarantee.
func TestRaceOneServer(t *testing.T) {
	a := testfixtures.Analyzer(t, "")
	n, perRound := raceSizes()
	for _, backend := range []string{"memory", "badger"} {
		for i, modes := range [][]string{{"check"}, {"documents"}, {"check", "documents"}} {
			t.Run(backend+"/"+strings.Join(modes, "+"), func(t *testing.T) {
				var x *index.Index
				var err error
				if backend == "memory" {
					x, err = memstore.Open(t.Context(), &index.Options{AnalyzerID: a.ID()})
				} else {
					x, err = badgerstore.OpenIndex(t.Context(), filepath.Join(t.TempDir(), "archive"), nil, &index.Options{AnalyzerID: a.ID()})
				}
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { x.Close() })
				s, err := New(Options{Index: x, Analyzer: a, Now: func() time.Time { return fixedNow }})
				if err != nil {
					t.Fatal(err)
				}
				groups := raceCorpus(t, uint64(10+i), n)
				res := raceGroups(t, []http.Handler{s}, modes, groups, perRound)
				contested := checkRace(t, x, groups, res)
				t.Logf("%d groups, %d with matching members, %d adds acknowledged", len(groups), contested, len(res.acked))
			})
		}
	}
}

// raceCheckDedup runs dedup.Run (a dedup --index worker) on xRun over
// the first and third members of every group while the second members
// are posted to s with check?add=true (neardup check --add), each group's
// once the run has decided the records up to a batch before the group's
// (so that the check lands while the run decides the group), perRound at
// most at a time, and checks the archive: the originals Run reported
// are there, and checkRace holds.
func raceCheckDedup(t *testing.T, xRun *index.Index, s http.Handler, groups []*raceGroup, perRound int) {
	a := testfixtures.Analyzer(t, "")
	var jsonl strings.Builder
	at := make([]int64, len(groups)) // the group's first record in the run's input
	var records int64
	for gi, g := range groups {
		at[gi] = records
		for k := range g.ids {
			if k != 1 {
				fmt.Fprintf(&jsonl, "{\"id\":%q,\"text\":%q}\n", g.ids[k], g.texts[k])
				records++
			}
		}
	}
	lead := int64(dedup.DefaultBatch)
	if xRun.SharedStore() {
		lead = dedup.SharedBatch
	}
	res := &raceResult{acked: map[string]bool{}}
	var decided atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		sem := make(chan struct{}, perRound)
		var wg sync.WaitGroup
		for gi, g := range groups {
			for decided.Load() < at[gi]-lead {
				time.Sleep(100 * time.Microsecond)
			}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				res.post(s, "check", g.ids[1], g.texts[1])
			})
		}
		wg.Wait()
	}()
	r := input.NewReader([]string{"-"}, strings.NewReader(jsonl.String()), nil)
	var unique []string
	sum, err := dedup.Run(context.Background(), r, a, xRun, &dedup.Options{Job: "race", Workers: 2}, func(o *dedup.Outcome) error {
		if o.Verdict == dedup.Unique {
			unique = append(unique, o.Record.ID)
		}
		decided.Add(1)
		return nil
	})
	if err != nil {
		decided.Store(records) // the checks go on to their end
	}
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if len(res.errs) > 0 {
		t.Fatalf("failed posts: %s", strings.Join(res.errs, "\n"))
	}
	for _, id := range unique {
		res.acked[id] = true
	}
	contested := checkRace(t, xRun, groups, res)
	t.Logf("%d groups, %d with matching members; dedup: %d unique, %d near, %d exact; check --add: %d added",
		len(groups), contested, sum.Unique, sum.Near, sum.Exact, len(res.acked)-len(unique))
}

// TestRaceCheckDedup: check --add (a server's check?add=true) races a
// dedup --index worker on one archive: Redis (two processes' worth:
// an Index each), Badger and memory (one Index).
func TestRaceCheckDedup(t *testing.T) {
	a := testfixtures.Analyzer(t, "")
	n, perRound := raceSizes()
	t.Run("redis", func(t *testing.T) {
		c := redistest.Start(t, redistest.Options{})
		url := c.URL("race")
		var xs []*index.Index
		for range 2 {
			x, err := redisstore.OpenIndex(t.Context(), url, nil, &index.Options{AnalyzerID: a.ID()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { x.Close() })
			xs = append(xs, x)
		}
		s, err := New(Options{Index: xs[1], Analyzer: a, Now: func() time.Time { return fixedNow }})
		if err != nil {
			t.Fatal(err)
		}
		raceCheckDedup(t, xs[0], s, raceCorpus(t, 20, n), perRound)
	})
	for i, backend := range []string{"memory", "badger"} {
		t.Run(backend, func(t *testing.T) {
			var x *index.Index
			var err error
			if backend == "memory" {
				x, err = memstore.Open(t.Context(), &index.Options{AnalyzerID: a.ID()})
			} else {
				x, err = badgerstore.OpenIndex(t.Context(), filepath.Join(t.TempDir(), "archive"), nil, &index.Options{AnalyzerID: a.ID()})
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { x.Close() })
			s, err := New(Options{Index: x, Analyzer: a, Now: func() time.Time { return fixedNow }})
			if err != nil {
				t.Fatal(err)
			}
			raceCheckDedup(t, x, s, raceCorpus(t, uint64(21+i), n), perRound)
		})
	}
}
