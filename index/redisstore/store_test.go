package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/simhash"
)

var ctx = context.Background()

func ids(ms []index.Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s/%d", m.ID, m.Distance))
	}
	return out
}

// The index over a Redis archive answers as the literal expectations say.
func TestIndex(t *testing.T) {
	x, s := openIndex(t, nil, &index.Options{AnalyzerID: "test-analyzer"})
	const base = simhash.Fingerprint(0x0123456789abcdef)
	a := doc("a", base, 1)
	b := doc("b", base^0b111, 2)               // 3 bits from a, in one block
	c := doc("c", base^(1<<63|1<<47|1<<31), 3) // 3 bits from a, one in each of three blocks
	d := doc("d", base^0xf, 4)                 // 4 bits from a
	e := doc("e", ^base, 5)                    // far from everything
	e.ContentHash = a.ContentHash              // ... but a's exact copy by content
	f := doc("f", base^0xff00000000000000, 6)  // 8 bits from a, sharing a band
	f.Sketch = edit(rand.New(rand.NewPCG(9, 9)), a.Sketch, 4)
	if err := x.Add(ctx, a, b, c, d, e, f); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		fp   simhash.Fingerprint
		k    int
		want []string
	}{
		{base, 0, []string{"a/0"}},
		{base, 1, []string{"a/0"}},
		{base, 3, []string{"a/0", "b/3", "c/3"}},
		{base ^ 1, 3, []string{"a/1", "b/2", "d/3"}},
		{^base, 0, []string{"e/0"}},
		{0x5555555555555555, 3, nil},
	} {
		got, err := x.Near(ctx, tt.fp, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), tt.want) {
			t.Errorf("Near(%x, %d) = %v, want %v", tt.fp, tt.k, ids(got), tt.want)
		}
	}
	ex, err := x.Exact(ctx, a.ContentHash)
	if err != nil || !slices.Equal(ex, []string{"a", "e"}) {
		t.Errorf("Exact = %v, %v; want [a e]", ex, err)
	}
	if ex, err := x.Exact(ctx, 42); err != nil || ex != nil {
		t.Errorf("Exact(42) = %v, %v; want none", ex, err)
	}
	q := a
	q.ID = "query"
	sim, err := x.Similar(ctx, &q, 3)
	if err != nil {
		t.Fatal(err)
	}
	// a and e: exact; b, c: SimHash candidates without content in common
	// (their sketches are unrelated), so refused; f: by band.
	var got []string
	for _, m := range sim {
		got = append(got, fmt.Sprintf("%s/%d/exact=%v/%.2f", m.ID, m.Distance, m.Exact, m.Content))
	}
	wantF := fmt.Sprintf("f/8/exact=false/%.2f", a.Sketch.Jaccard(f.Sketch))
	if want := []string{"a/0/exact=true/1.00", "e/64/exact=true/1.00", wantF}; !slices.Equal(got, want) {
		t.Errorf("Similar = %v, want %v", got, want)
	}
	g, err := x.Get(ctx, "c")
	if err != nil || !reflect.DeepEqual(g, c) {
		t.Errorf("Get(c) = %+v, %v; want %+v", g, err, c)
	}
	if _, err := x.Get(ctx, "zz"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("Get(zz): %v, want ErrNotFound", err)
	}
	st, err := x.Stats(ctx)
	if err != nil || st.Docs != 6 || st.AnalyzerID != "test-analyzer" || st.Tables != 4 {
		t.Errorf("Stats = %+v, %v; want 6 docs, 4 tables, test-analyzer", st, err)
	}

	// Replace b with a far fingerprint: its old postings are gone, so
	// Near at its old place no longer names it.
	b2 := doc("b", ^base^0b111, 12)
	if err := x.Add(ctx, b2); err != nil {
		t.Fatal(err)
	}
	if got, _ := x.Near(ctx, base, 3); !slices.Equal(ids(got), []string{"a/0", "c/3"}) {
		t.Errorf("after replacing b: Near = %v, want [a/0 c/3]", ids(got))
	}
	if got, _ := x.Near(ctx, ^base, 3); !slices.Equal(ids(got), []string{"e/0", "b/3"}) {
		t.Errorf("after replacing b: Near(^base) = %v, want [e/0 b/3]", ids(got))
	}
	if err := x.Delete(ctx, "a", "e"); err != nil {
		t.Fatal(err)
	}
	if ex, _ := x.Exact(ctx, a.ContentHash); ex != nil {
		t.Errorf("after deleting a and e: Exact = %v", ex)
	}
	if err := x.Delete(ctx, "a"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("deleting a again: %v, want ErrNotFound", err)
	}
	if st, _ := x.Stats(ctx); st.Docs != 4 {
		t.Errorf("Docs = %d, want 4", st.Docs)
	}
	// The removed postings are gone from the buckets, not only unlinked.
	k, _ := s.bucketOf(index.Key{Kind: index.KindContent, Value: a.ContentHash})
	if n, err := s.Client().StrLen(ctx, k.key).Result(); err != nil || n != 0 {
		t.Errorf("content bucket of a: %d bytes, %v; want none", n, err)
	}
}

// The archive records its layout, analyzer and bucket bits, and refuses
// others.
func TestMismatch(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	x, err := OpenIndex(ctx, url, &Options{BucketBits: 20}, &index.Options{AnalyzerID: "one", Blocks: 5, MaxDistance: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ctx, doc("a", 1, 1)); err != nil {
		t.Fatal(err)
	}
	x.Close()
	for _, tt := range []struct {
		opts  *Options
		iopts *index.Options
		want  string
	}{
		{nil, &index.Options{AnalyzerID: "two"}, `analyzer "one"`},
		{nil, &index.Options{AnalyzerID: "one", Blocks: 4}, "5 blocks"},
		{&Options{BucketBits: 16}, nil, "bucket bits 20"},
	} {
		x, err := OpenIndex(ctx, url, tt.opts, tt.iopts)
		if err == nil {
			x.Close()
		}
		if !errors.Is(err, index.ErrMismatch) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v %+v: %v, want ErrMismatch naming %s", tt.opts, tt.iopts, err, tt.want)
		}
	}
	x, err = OpenIndex(ctx, url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	st, _ := x.Stats(ctx)
	if st.Blocks != 5 || st.Tables != 10 || st.AnalyzerID != "one" || st.Docs != 1 || x.Store().(*Store).BucketBits() != 20 {
		t.Errorf("reopened with defaults: %+v, bucket bits %d", st, x.Store().(*Store).BucketBits())
	}
	if m, _ := x.Near(ctx, 1, 3); len(m) != 1 || m[0].ID != "a" {
		t.Errorf("Near = %v", m)
	}
}

// A Redis archive gives the answers an in-memory reference gives, over random
// adds, replacements and deletes, for several layouts and bucket bits.
func TestAgainstMemory(t *testing.T) {
	for _, tt := range []struct {
		blocks, dist, bits int
	}{
		{4, 3, 16},
		{4, 3, 8},  // 8-bit table buckets: a match byte in every table posting
		{5, 3, 16}, // 26-bit table keys: 10 bits of match
		{6, 2, 24},
	} {
		t.Run(fmt.Sprintf("b%dk%dbits%d", tt.blocks, tt.dist, tt.bits), func(t *testing.T) {
			iopts := &index.Options{Blocks: tt.blocks, MaxDistance: tt.dist}
			x, _ := openIndex(t, &Options{BucketBits: tt.bits}, iopts)
			m, err := index.New(ctx, newRef(), iopts)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			r := rand.New(rand.NewPCG(uint64(tt.blocks), uint64(tt.bits)))
			var live []index.Doc
			var centers []simhash.Fingerprint
			for i := 0; i < 20; i++ {
				centers = append(centers, simhash.Fingerprint(r.Uint64()))
			}
			both := func(f func(x *index.Index) error) {
				t.Helper()
				if err := f(x); err != nil {
					t.Fatal(err)
				}
				if err := f(m); err != nil {
					t.Fatal(err)
				}
			}
			for round := 0; round < 4; round++ {
				var batch []index.Doc
				for i := 0; i < 150; i++ {
					fp := flip(r, centers[r.IntN(len(centers))], r.IntN(5))
					d := doc(fmt.Sprintf("d%d-%d", round, i), fp, r.Uint64())
					if len(live) > 0 && r.IntN(4) == 0 {
						// A near copy of a live document, by sketch or by content.
						o := live[r.IntN(len(live))]
						d.Sketch = edit(r, o.Sketch, r.IntN(16))
						if r.IntN(2) == 0 {
							d.ContentHash = o.ContentHash
						}
					}
					if len(live) > 0 && r.IntN(8) == 0 {
						d.ID = live[r.IntN(len(live))].ID // a replacement
					}
					if r.IntN(10) == 0 {
						d.Sketch = minhash.Sketch{} // no sketch, no bands
					}
					batch = append(batch, d)
				}
				both(func(x *index.Index) error { return x.Add(ctx, batch...) })
				byID := map[string]index.Doc{}
				for _, d := range live {
					byID[d.ID] = d
				}
				for _, d := range batch {
					byID[d.ID] = d
				}
				var del []string
				for id := range byID {
					if r.IntN(12) == 0 {
						del = append(del, id)
					}
				}
				both(func(x *index.Index) error { return x.Delete(ctx, del...) })
				for _, id := range del {
					delete(byID, id)
				}
				live = live[:0]
				for _, d := range byID {
					live = append(live, d)
				}
				slices.SortFunc(live, func(a, b index.Doc) int { return strings.Compare(a.ID, b.ID) })

				for q := 0; q < 60; q++ {
					var qd index.Doc
					if q%2 == 0 && len(live) > 0 {
						qd = live[r.IntN(len(live))]
						qd.Fingerprint = flip(r, qd.Fingerprint, r.IntN(tt.dist+1))
						qd.ID = "q"
					} else {
						qd = doc("q", flip(r, centers[r.IntN(len(centers))], r.IntN(4)), r.Uint64())
					}
					for k := 0; k <= tt.dist; k++ {
						a, err1 := x.Near(ctx, qd.Fingerprint, k)
						b, err2 := m.Near(ctx, qd.Fingerprint, k)
						if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
							t.Fatalf("round %d: Near(%x, %d): redis %v %v, memory %v %v", round, qd.Fingerprint, k, ids(a), err1, ids(b), err2)
						}
					}
					a, err1 := x.Similar(ctx, &qd, tt.dist)
					b, err2 := m.Similar(ctx, &qd, tt.dist)
					if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
						t.Fatalf("round %d: Similar: redis %v %v, memory %v %v", round, ids(a), err1, ids(b), err2)
					}
					e1, err1 := x.Exact(ctx, qd.ContentHash)
					e2, err2 := m.Exact(ctx, qd.ContentHash)
					if err1 != nil || err2 != nil || !slices.Equal(e1, e2) {
						t.Fatalf("round %d: Exact: redis %v %v, memory %v %v", round, e1, err1, e2, err2)
					}
				}
				s1, err1 := x.Stats(ctx)
				s2, err2 := m.Stats(ctx)
				if err1 != nil || err2 != nil || s1.Docs != s2.Docs || s1.Docs != int64(len(live)) {
					t.Fatalf("round %d: Docs: redis %d %v, memory %d %v, want %d", round, s1.Docs, err1, s2.Docs, err2, len(live))
				}
			}
		})
	}
}

// Applying a batch again (what a caller does after an error) leaves the
// archive as applying it once does.
func TestApplyAgain(t *testing.T) {
	s := open(t, nil)
	x, err := index.New(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	a := doc("a", 0x1111, 1)
	if err := x.Add(ctx, a); err != nil {
		t.Fatal(err)
	}
	// The batch that Add would hand the store for a new b and a
	// replaced a, applied twice.
	keys := func(d index.Doc) []index.Key {
		ks := []index.Key{}
		for t := 0; t < 4; t++ {
			ks = append(ks, index.Key{Kind: index.KindTable, Table: uint8(t), Bits: 16, Value: uint64(d.Fingerprint) >> (48 - 16*t) & 0xffff})
		}
		return append(ks, index.Key{Kind: index.KindContent, Value: d.ContentHash})
	}
	a2 := doc("a", 0x2222, 2)
	a2.Sketch = minhash.Sketch{}
	b := doc("b", 0x1111, 3)
	b.Sketch = minhash.Sketch{}
	// The records, as the index encodes them, from an in-memory store.
	ms := newRef()
	mx, err := index.New(ctx, ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mx.Close()
	if err := mx.Add(ctx, a2, b); err != nil {
		t.Fatal(err)
	}
	recs, _ := ms.Records(ctx, []string{"a", "b"})
	batch := &index.Batch{Writes: []index.Write{
		{ID: "a", Record: recs[0], Fingerprint: a2.Fingerprint, Keys: keys(a2),
			Replaces: true, OldFingerprint: a.Fingerprint, OldKeys: keys(a)},
		{ID: "b", Record: recs[1], Fingerprint: b.Fingerprint, Keys: keys(b)},
	}}
	for i := 0; i < 2; i++ {
		if err := s.Apply(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		fp   simhash.Fingerprint
		want []string
	}{
		{0x1111, []string{"b/0"}},
		{0x2222, []string{"a/0"}},
	} {
		got, err := x.Near(ctx, tt.fp, 0)
		if err != nil || !slices.Equal(ids(got), tt.want) {
			t.Errorf("Near(%x, 0) = %v, %v; want %v", tt.fp, ids(got), err, tt.want)
		}
	}
	if st, _ := s.Stats(ctx); st.Docs != 2 {
		t.Errorf("Docs = %d, want 2", st.Docs)
	}
	for _, d := range []index.Doc{a2, b} {
		if g, err := x.Get(ctx, d.ID); err != nil || !reflect.DeepEqual(g, d) {
			t.Errorf("Get(%s) = %+v, %v; want %+v", d.ID, g, err, d)
		}
	}
}

// Claim is put-if-absent across stores (processes) racing for it.
func TestClaim(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(ctx, url, nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			v, err := s.Claim(ctx, map[string][]byte{"winner": []byte(fmt.Sprint(i)), "second": []byte(fmt.Sprint(i))})
			if err != nil {
				t.Error(err)
			}
			if string(v["winner"]) != string(v["second"]) {
				t.Errorf("one Claim recorded %q and %q: not atomically", v["winner"], v["second"])
			}
			got[i] = string(v["winner"])
		}()
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] || g == "" {
			t.Fatalf("Claim results %q: want one value everywhere", got)
		}
	}
	s := open(t, nil)
	if v, err := s.Claim(ctx, map[string][]byte{"empty": {}}); err != nil || v["empty"] == nil || len(v["empty"]) != 0 {
		t.Errorf("Claim of an empty value = %q, %v", v, err)
	}
	if v, err := s.Claim(ctx, map[string][]byte{"bin": {0, 255, '{', '}'}}); err != nil || string(v["bin"]) != "\x00\xff{}" {
		t.Errorf("Claim of a binary value = %q, %v", v, err)
	}
}

// Several stores (processes) adding to one archive at once, each its
// own documents, make the archive one store would.
func TestConcurrentWriters(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	const writers, each = 4, 200
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x, err := OpenIndex(ctx, url, nil, &index.Options{AnalyzerID: "an"})
			if err != nil {
				t.Error(err)
				return
			}
			defer x.Close()
			for i := 0; i < each; i += 20 {
				var docs []index.Doc
				for j := i; j < i+20; j++ {
					docs = append(docs, doc(fmt.Sprintf("w%d-%d", w, j), simhash.Fingerprint(uint64(w)<<56|uint64(j)), uint64(w*1000+j)))
				}
				if err := x.Add(ctx, docs...); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	x, err := OpenIndex(ctx, url, &Options{ReadOnly: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	st, err := x.Stats(ctx)
	if err != nil || st.Docs != writers*each {
		t.Fatalf("Docs = %d, %v; want %d", st.Docs, err, writers*each)
	}
	for w := 0; w < writers; w++ {
		got, err := x.Near(ctx, simhash.Fingerprint(uint64(w)<<56|7), 0)
		if err != nil || !slices.Equal(ids(got), []string{fmt.Sprintf("w%d-7/0", w)}) {
			t.Errorf("Near = %v, %v", ids(got), err)
		}
	}
}

func TestReadOnly(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	if _, err := Open(ctx, url, &Options{ReadOnly: true}); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("read-only open of no archive: %v, want ErrNotFound", err)
	}
	x, err := OpenIndex(ctx, url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.Add(ctx, doc("a", 5, 5))
	x.Close()
	ro, err := OpenIndex(ctx, url, &Options{ReadOnly: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Add(ctx, doc("b", 6, 6)); !errors.Is(err, index.ErrReadOnly) {
		t.Errorf("read-only Add: %v, want ErrReadOnly", err)
	}
	if _, err := ro.Store().Claim(ctx, map[string][]byte{"new": []byte("x")}); !errors.Is(err, index.ErrReadOnly) {
		t.Errorf("read-only Claim of a new name: %v, want ErrReadOnly", err)
	}
	if g, err := ro.Get(ctx, "a"); err != nil || g.ID != "a" {
		t.Errorf("read-only Get = %v, %v", g.ID, err)
	}
}

func TestClosed(t *testing.T) {
	s := open(t, nil)
	s.Close()
	if _, err := s.Postings(ctx, []index.Key{{Kind: index.KindContent}}); !errors.Is(err, index.ErrClosed) {
		t.Errorf("Postings after Close: %v", err)
	}
	if err := s.Apply(ctx, &index.Batch{}); !errors.Is(err, index.ErrClosed) {
		t.Errorf("Apply after Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// IDs are binary-safe: braces (hash tags in Redis), NULs, long IDs.
func TestIDs(t *testing.T) {
	x, _ := openIndex(t, nil, nil)
	long := strings.Repeat("x", 300) // longer than a listpack value: the number hash converts
	var docs []index.Doc
	for i, id := range []string{"{tag}a", "{tag}b", "a\x00b", "é/中文", long, "}{", "{}"} {
		docs = append(docs, doc(id, simhash.Fingerprint(0xabcd0000+uint64(i)), uint64(i)))
	}
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		g, err := x.Get(ctx, d.ID)
		if err != nil || g.ID != d.ID {
			t.Errorf("Get(%q) = %q, %v", d.ID, g.ID, err)
		}
		got, err := x.Near(ctx, d.Fingerprint, 0)
		if err != nil || len(got) != 1 || got[0].ID != d.ID {
			t.Errorf("Near of %q = %v, %v", d.ID, ids(got), err)
		}
	}
	if err := x.Delete(ctx, "{tag}a", long); err != nil {
		t.Fatal(err)
	}
	if st, _ := x.Stats(ctx); st.Docs != int64(len(docs)-2) {
		t.Errorf("Docs = %d, want %d", st.Docs, len(docs)-2)
	}
}

// Stats shows the buckets that grew large.
func TestLargestBuckets(t *testing.T) {
	x, s := openIndex(t, nil, nil)
	var docs []index.Doc
	for i := 0; i < 130; i++ {
		// All share table 0's key 0x7777; tables 1-3 differ, in
		// level 0's buckets too (their top 10 bits).
		d := doc(fmt.Sprintf("d%d", i), simhash.Fingerprint(0x7777<<48|uint64(i)<<6*0x0001000100010001&0x0000ffffffffffff), uint64(i))
		d.Sketch = minhash.Sketch{}
		docs = append(docs, d)
	}
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	st, err := s.ClusterStats(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if st.Docs != 130 || st.Masters != 3 || st.UsedMemory <= 0 || st.LastNumber != 130 || st.BucketBits != 16 || st.StateSamples != 0 || st.StateBytesPerDoc != 0 {
		t.Errorf("ClusterStats = %+v; want 130 documents added without ingest states", st)
	}
	// Level 0's bucket of 0x7777: its top 10 bits, 0x1dd; a posting
	// has the other 6 bits in a byte, the fingerprint and the number
	// (2 bytes at level 0).
	if len(st.Largest) != 1 || st.Largest[0] != (index.BigKey{Key: "t0 level 0 bucket 01dd", Bytes: 130 * 11, Postings: 130}) {
		t.Errorf("Largest = %+v, want t0 level 0 bucket 01dd with 130 postings", st.Largest)
	}
	// The index's Describe has them too (its ClusterReport).
	d, err := x.Describe(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if cs := d.Cluster; cs == nil || cs.Docs != 130 || !reflect.DeepEqual(cs.Largest, st.Largest) {
		t.Errorf("Describe: Cluster = %+v; want the ClusterStats of 130 documents", d.Cluster)
	} else if err := report.WriteStats(&b, &d, "x"); err != nil || !strings.HasSuffix(b.String(), "\nlargest keys  t0 level 0 bucket 01dd: 130 postings, 1.4 kB\n") {
		t.Errorf("report.WriteStats = %v\n%s\nwant it to end with the largest key", err, b.String())
	}
}

// Compact rewrites buckets at their size, keeping their postings.
func TestCompact(t *testing.T) {
	x, s := openIndex(t, nil, nil)
	var docs []index.Doc
	for i := 0; i < 300; i++ {
		docs = append(docs, doc(fmt.Sprintf("d%d", i), simhash.Fingerprint(0x5151<<48|uint64(i)*0x0001000100010001&0x0000ffffffffffff), uint64(i)))
	}
	for i := 0; i < len(docs); i += 7 { // small batches: many APPENDs to the shared bucket
		if err := x.Add(ctx, docs[i:min(i+7, len(docs))]...); err != nil {
			t.Fatal(err)
		}
	}
	before, err := x.Near(ctx, 0x5151<<48, 3)
	if err != nil || len(before) < 1 || before[0].ID != "d0" {
		t.Fatalf("Near = %v, %v", ids(before), err)
	}
	// Level 0's bucket (numbers 1 to 300 are all level 0).
	k := s.levelBucket(index.Key{Kind: index.KindTable, Table: 0, Bits: 16, Value: 0x5151}, 0)
	c := s.Client()
	var buckets int64
	if err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		keys, err := m.Keys(ctx, s.prefix+"[tbcp]*").Result()
		atomic.AddInt64(&buckets, int64(len(keys)))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	m0, err := c.MemoryUsage(ctx, k.key, 0).Result()
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Compact(ctx)
	if err != nil || n != buckets {
		t.Fatalf("Compact = %d, %v; want the %d buckets of 300 documents", n, err, buckets)
	}
	m1, _ := c.MemoryUsage(ctx, k.key, 0).Result()
	if l, _ := c.StrLen(ctx, k.key).Result(); l != 300*11 || m1 >= m0 || m1 > l+l/4+100 { // jemalloc's classes are 25% apart from 4 KB
		t.Errorf("bucket of 300 postings (%d bytes): MEMORY USAGE %d before compacting, %d after", l, m0, m1)
	}
	after, err := x.Near(ctx, 0x5151<<48, 3)
	if err != nil || !reflect.DeepEqual(before, after) {
		t.Errorf("Near after compacting = %v, %v; before %v", ids(after), err, ids(before))
	}
	for _, d := range docs[:20] {
		q := d
		q.ID = "q"
		sim, err := x.Similar(ctx, &q, 3)
		if err != nil || len(sim) == 0 || sim[0].ID != d.ID || !sim[0].Exact {
			t.Errorf("Similar(copy of %s) after compacting = %v, %v", d.ID, ids(sim), err)
		}
	}
}

// AppendRead: of documents racing to share a key, each sees exactly the
// ones appended before it, so of every pair exactly one sees the other.
func TestAppendRead(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	const writers, each = 4, 25
	key := index.Key{Kind: index.KindTable, Table: 1, Bits: 16, Value: 0xbeef}
	type seen struct {
		num    uint64
		id     string
		before []index.Earlier
	}
	var mu sync.Mutex
	var all []seen
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(ctx, url, nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			for i := 0; i < each; i++ {
				id := fmt.Sprintf("w%d-%d", w, i)
				ws := []index.Write{{ID: id, Record: []byte("rec " + id), Fingerprint: simhash.Fingerprint(w<<8 | i),
					Keys: []index.Key{key, {Kind: index.KindContent, Value: uint64(w<<8 | i)}}}}
				app, err := s.AppendRead(ctx, ws)
				if err != nil {
					t.Error(err)
					return
				}
				if len(app[0].Before[1]) != 0 {
					t.Errorf("%s: a content key of its own shows %v", id, app[0].Before[1])
				}
				mu.Lock()
				all = append(all, seen{app[0].Num, id, app[0].Before[0]})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// Sorted by how many came before, the documents form one chain: the
	// k-th saw exactly the k before it, with their IDs and fingerprints.
	slices.SortFunc(all, func(a, b seen) int { return len(a.before) - len(b.before) })
	for k, x := range all {
		if len(x.before) != k {
			t.Fatalf("%s saw %d earlier documents, want %d", x.id, len(x.before), k)
		}
		for j, e := range x.before {
			if e.ID != all[j].id || e.Num != all[j].num {
				t.Fatalf("%s: earlier %d is %+v, want %s (%d)", x.id, j, e, all[j].id, all[j].num)
			}
		}
	}
	s := open(t, nil)
	if _, err := s.AppendRead(ctx, []index.Write{{ID: "x", Replaces: true, Record: []byte("r")}}); err == nil {
		t.Error("AppendRead of a replacement: no error")
	}
}
