package index_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// What Index does with its Store: the calls it makes, the number of keys,
// IDs or writes in each, and errors. The behaviour of an Index over a
// store is indextest's (run by each store's TestConformance).

type ctxKey struct{}

// spy is a memory store that logs every call ("Postings 21": the method
// and the number of keys, IDs or writes), fails the method named in
// fail with errBoom, and logs "no context" for a call whose context does
// not carry the test's value.
type spy struct {
	s    *memstore.Store
	log  []string
	fail string
}

var errBoom = errors.New("boom")

func (s *spy) call(ctx context.Context, method string, n ...any) error {
	entry := method
	for _, x := range n {
		entry += fmt.Sprint(" ", x)
	}
	s.log = append(s.log, entry)
	if ctx != nil && ctx.Value(ctxKey{}) == nil {
		s.log = append(s.log, "no context")
	}
	if s.fail == method {
		return errBoom
	}
	return nil
}

func (s *spy) Postings(ctx context.Context, keys []index.Key) ([][]index.Posting, error) {
	if err := s.call(ctx, "Postings", len(keys)); err != nil {
		return nil, err
	}
	return s.s.Postings(ctx, keys)
}

func (s *spy) Records(ctx context.Context, ids []string) ([][]byte, error) {
	if err := s.call(ctx, "Records", len(ids)); err != nil {
		return nil, err
	}
	return s.s.Records(ctx, ids)
}

func (s *spy) Apply(ctx context.Context, b *index.Batch) error {
	if err := s.call(ctx, "Apply", len(b.Writes)); err != nil {
		return err
	}
	return s.s.Apply(ctx, b)
}

func (s *spy) Claim(ctx context.Context, values map[string][]byte) (map[string][]byte, error) {
	var names []string
	for name := range values {
		names = append(names, name)
	}
	slices.Sort(names)
	if err := s.call(ctx, "Claim", strings.Join(names, ",")); err != nil {
		return nil, err
	}
	return s.s.Claim(ctx, values)
}

func (s *spy) Stats(ctx context.Context) (index.StoreStats, error) {
	if err := s.call(ctx, "Stats"); err != nil {
		return index.StoreStats{}, err
	}
	return s.s.Stats(ctx)
}

func (s *spy) Close() error {
	s.call(nil, "Close")
	return s.s.Close()
}

// takeLog returns the log so far and empties it.
func (s *spy) takeLog() []string {
	l := s.log
	s.log = nil
	return l
}

func sketchOf(seed uint16) minhash.Sketch {
	var s minhash.Sketch
	for i := range s {
		s[i] = seed + uint16(i)
	}
	return s
}

func bareDocs(prefix string, n int) []index.Doc {
	docs := make([]index.Doc, n)
	for i := range docs {
		docs[i] = index.Doc{ID: fmt.Sprintf("%s%05d", prefix, i), Fingerprint: simhash.Fingerprint(i) << 20, ContentHash: uint64(i)}
	}
	return docs
}

// Each Index method makes the store calls the package documentation
// describes, in batches, with the caller's context.
func TestStoreCalls(t *testing.T) {
	ctx := context.WithValue(t.Context(), ctxKey{}, "op")
	s := &spy{s: memstore.New()}
	x, err := index.New(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.takeLog(), []string{"Claim analyzer,format,layout"}; !slices.Equal(got, want) {
		t.Errorf("New: %q, want %q", got, want)
	}
	withSketch := index.Doc{ID: "s", Fingerprint: 0xffff_0000_0000_0000, ContentHash: 1 << 50, Sketch: sketchOf(1)}
	query := withSketch
	query.ID = "q"
	tests := []struct {
		name string
		op   func() error
		want []string
	}{
		{"Add of 3", func() error { return x.Add(ctx, withSketch, index.Doc{ID: "a"}, index.Doc{ID: "b"}) }, []string{"Records 3", "Apply 3"}},
		{"Add of 25000", func() error { return x.Add(ctx, bareDocs("d", 25000)...) },
			[]string{"Records 10000", "Apply 10000", "Records 10000", "Apply 10000", "Records 5000", "Apply 5000"}},
		{"Add of one ID twice", func() error { return x.Add(ctx, index.Doc{ID: "a"}, index.Doc{ID: "a", Title: "2"}) }, []string{"Records 1", "Apply 1"}},
		{"Add of a bad ID", func() error { return x.Add(ctx, index.Doc{ID: "a"}, index.Doc{}) }, nil},
		{"Get", func() error { _, err := x.Get(ctx, "a"); return err }, []string{"Records 1"}},
		{"Delete", func() error { return x.Delete(ctx, "d00000", "d00001", "d00000") }, []string{"Records 2", "Apply 2"}},
		{"Delete of an unknown ID", func() error { return x.Delete(ctx, "d00002", "nope") }, []string{"Records 2"}},
		{"DeleteFound", func() error { _, err := x.DeleteFound(ctx, "d00002", "nope", "d00002", "d00003"); return err }, []string{"Records 3", "Apply 2", "Stats"}},
		{"DeleteFound of unknown IDs", func() error { _, err := x.DeleteFound(ctx, "nope", "d00002"); return err }, []string{"Records 2", "Stats"}},
		{"Near at 0", func() error { _, err := x.Near(ctx, 0, 0); return err }, []string{"Postings 1"}},
		{"Near at 2", func() error { _, err := x.Near(ctx, 0, 2); return err }, []string{"Postings 3"}},
		{"Near at 3", func() error { _, err := x.Near(ctx, 0, 3); return err }, []string{"Postings 4"}},
		{"Near at 4", func() error { _, err := x.Near(ctx, 0, 4); return err }, nil},
		{"Exact", func() error { _, err := x.Exact(ctx, 7); return err }, []string{"Postings 1"}},
		{"Similar with a sketch", func() error { _, err := x.Similar(ctx, &query, 3); return err }, []string{"Postings 21", "Records 1"}},
		{"Similar without candidates", func() error {
			_, err := x.Similar(ctx, &index.Doc{ID: "q", Fingerprint: 0x1234_5678_9abc_def0, ContentHash: 1 << 40}, 0)
			return err
		}, []string{"Postings 2"}},
		{"Stats", func() error { _, err := x.Stats(ctx); return err }, []string{"Stats"}},
		{"Load into a non-empty index", func() error { _, err := x.Load(ctx, slices.Values(bareDocs("l", 3))); return err }, []string{"Stats"}},
	}
	for _, tt := range tests {
		err := tt.op()
		if got := s.takeLog(); !slices.Equal(got, tt.want) {
			t.Errorf("%s (error %v): store calls %q, want %q", tt.name, err, got, tt.want)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	x.Close()
	if got := s.takeLog(); !slices.Equal(got, []string{"Close"}) {
		t.Errorf("Close twice: %q, want one Close", got)
	}

	// Over a store that is no Loader, Load adds 1024 documents a Batch.
	s = &spy{s: memstore.New()}
	x, err = index.New(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	s.takeLog()
	if n, err := x.Load(ctx, slices.Values(bareDocs("l", 2500))); n != 2500 || err != nil {
		t.Fatalf("Load = %d, %v", n, err)
	}
	want := []string{"Stats", "Records 1024", "Apply 1024", "Records 1024", "Apply 1024", "Records 452", "Apply 452", "Stats"}
	if got := s.takeLog(); !slices.Equal(got, want) {
		t.Errorf("Load of 2500: %q, want %q", got, want)
	}
}

// A store's error comes back from the Index method that met it.
func TestStoreErrors(t *testing.T) {
	doc := index.Doc{ID: "a", Fingerprint: 1, ContentHash: 2, Sketch: sketchOf(3)}
	tests := []struct {
		fail string
		op   func(context.Context, *index.Index) error
	}{
		{"Records", func(ctx context.Context, x *index.Index) error { return x.Add(ctx, index.Doc{ID: "b"}) }},
		{"Apply", func(ctx context.Context, x *index.Index) error { return x.Add(ctx, index.Doc{ID: "b"}) }},
		{"Records", func(ctx context.Context, x *index.Index) error { _, err := x.Get(ctx, "a"); return err }},
		{"Records", func(ctx context.Context, x *index.Index) error { return x.Delete(ctx, "a") }},
		{"Apply", func(ctx context.Context, x *index.Index) error { return x.Delete(ctx, "a") }},
		{"Records", func(ctx context.Context, x *index.Index) error { _, err := x.DeleteFound(ctx, "a"); return err }},
		{"Apply", func(ctx context.Context, x *index.Index) error { _, err := x.DeleteFound(ctx, "a", "b"); return err }},
		{"Stats", func(ctx context.Context, x *index.Index) error {
			d, err := x.DeleteFound(ctx, "a", "b")
			if !slices.Equal(d.Deleted, []string{"a"}) || !slices.Equal(d.Missing, []string{"b"}) {
				return fmt.Errorf("DeleteFound = %+v with the count failing; want a deleted, b missing", d)
			}
			return err
		}},
		{"Stats", func(ctx context.Context, x *index.Index) error { _, err := x.Describe(ctx, false); return err }},
		{"Postings", func(ctx context.Context, x *index.Index) error { _, err := x.Near(ctx, 1, 3); return err }},
		{"Postings", func(ctx context.Context, x *index.Index) error { _, err := x.Exact(ctx, 2); return err }},
		{"Postings", func(ctx context.Context, x *index.Index) error {
			q := doc
			q.ID = "q"
			_, err := x.Similar(ctx, &q, 3)
			return err
		}},
		{"Records", func(ctx context.Context, x *index.Index) error {
			q := doc
			q.ID = "q"
			_, err := x.Similar(ctx, &q, 3)
			return err
		}},
		{"Stats", func(ctx context.Context, x *index.Index) error { _, err := x.Stats(ctx); return err }},
		{"Stats", func(ctx context.Context, x *index.Index) error {
			_, err := x.Load(ctx, slices.Values([]index.Doc{{ID: "b"}}))
			return err
		}},
	}
	for _, tt := range tests {
		ctx := context.WithValue(t.Context(), ctxKey{}, "op")
		s := &spy{s: memstore.New()}
		x, err := index.New(ctx, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Add(ctx, doc); err != nil {
			t.Fatal(err)
		}
		s.fail = tt.fail
		if err := tt.op(ctx, x); !errors.Is(err, errBoom) {
			t.Errorf("with %s failing: %v, want errBoom", tt.fail, err)
		}
		x.Close()
	}
	// Load over a store without Loader, failing in its second Batch:
	// the first stays, and Load says how many documents there are.
	ctx := context.WithValue(t.Context(), ctxKey{}, "op")
	s := &failAfter{spy: spy{s: memstore.New()}, applies: 1}
	x, err := index.New(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if n, err := x.Load(ctx, slices.Values(bareDocs("l", 2000))); !errors.Is(err, errBoom) || n != 1024 {
		t.Errorf("Load failing in its second Batch = %d, %v; want 1024, errBoom", n, err)
	}

	// A failed New closes the store.
	s2 := &spy{s: memstore.New(), fail: "Claim"}
	if _, err := index.New(ctx, s2, nil); !errors.Is(err, errBoom) {
		t.Errorf("New with Claim failing: %v", err)
	}
	if got := s2.takeLog(); !slices.Equal(got, []string{"Claim analyzer,format,layout", "Close"}) {
		t.Errorf("New with Claim failing: store calls %q", got)
	}
}

// failAfter fails every Apply after the first applies.
type failAfter struct {
	spy
	applies int
}

func (s *failAfter) Apply(ctx context.Context, b *index.Batch) error {
	if s.applies == 0 {
		return errBoom
	}
	s.applies--
	return s.spy.Apply(ctx, b)
}

// loader is a memory store with a Loader that keeps what it is given.
type loader struct {
	*memstore.Store
	writes   []string // "id keys=n record=bytes"
	canceled bool     // ctx was done when the writes ended
	n        int64
}

func (l *loader) Load(ctx context.Context, writes iter.Seq[*index.Write]) (int64, error) {
	ids := map[string]bool{}
	for w := range writes {
		var kinds []string
		for _, k := range w.Keys {
			kinds = append(kinds, string(rune(k.Kind)))
		}
		l.writes = append(l.writes, fmt.Sprintf("%s %s fp=%x replaces=%v record=%v", w.ID, strings.Join(kinds, ""), uint64(w.Fingerprint), w.Replaces, len(w.Record) > 0))
		ids[w.ID] = true
	}
	if l.canceled = ctx.Err() != nil; l.canceled {
		return 0, ctx.Err()
	}
	return int64(len(ids)) + l.n, nil
}

// Load hands a Loader the writes of the documents, each with its keys
// and record, and cancels its context when a document has a bad ID.
func TestLoadUsesLoader(t *testing.T) {
	ctx := t.Context()
	l := &loader{Store: memstore.New(), n: 100}
	x, err := index.New(ctx, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	n, err := x.Load(ctx, slices.Values([]index.Doc{{ID: "a", Fingerprint: 0xab}, {ID: "b", Sketch: sketchOf(1)}, {ID: "a", Fingerprint: 0xcd}}))
	if n != 102 || err != nil || l.canceled {
		t.Errorf("Load = %d, %v (cancelled %v); want what the Loader returned, 102", n, err, l.canceled)
	}
	want := []string{
		"a ttttc fp=ab replaces=false record=true",
		"b ttttcbbbbbbbbbbbbbbbb fp=0 replaces=false record=true",
		"a ttttc fp=cd replaces=false record=true",
	}
	if !reflect.DeepEqual(l.writes, want) {
		t.Errorf("writes\n%q\nwant\n%q", l.writes, want)
	}
	if st, _ := l.Stats(ctx); st.Docs != 0 {
		t.Errorf("Load applied %d documents besides the Loader's", st.Docs)
	}

	l.writes = nil
	n, err = x.Load(ctx, slices.Values([]index.Doc{{ID: "a"}, {ID: ""}, {ID: "c"}}))
	if n != 0 || !errors.Is(err, index.ErrID) || !l.canceled {
		t.Errorf("Load with a bad ID = %d, %v (cancelled %v); want ErrID, the Loader's context cancelled", n, err, l.canceled)
	}
	if want := []string{"a ttttc fp=0 replaces=false record=true"}; !reflect.DeepEqual(l.writes, want) {
		t.Errorf("writes before the bad ID %q, want %q", l.writes, want)
	}
}

func TestConfirmed(t *testing.T) {
	var zero minhash.Sketch
	a, half := sketchOf(0), sketchOf(0)
	for i := range 32 {
		half[2*i] = 60000 + uint16(i) // agrees with a on 32 of 64 values
	}
	tests := []struct {
		a, b       minhash.Sketch
		minContent float64
		want       bool
	}{
		{a, a, 1, true},
		{a, half, 0.5, true},
		{a, half, 0.51, false},
		{zero, half, 1, true}, // unconfirmed, kept
		{a, zero, 1, true},
	}
	for i, tt := range tests {
		if got := index.Confirmed(&index.Doc{Sketch: tt.a}, &index.Doc{Sketch: tt.b}, tt.minContent); got != tt.want {
			t.Errorf("case %d: Confirmed = %v, want %v", i, got, tt.want)
		}
	}

	// Containment, with the set sizes: agree on k of 64 values.
	agree := func(k int) minhash.Sketch {
		s := sketchOf(0)
		for i := k; i < minhash.Size; i++ {
			s[i] = 50000 + uint16(i)
		}
		return s
	}
	for _, tt := range []struct {
		name       string
		k, na, nb  int
		minContent float64
		want       bool
		contained  float64
	}{
		{"resemblance", 45, 100, 100, 0.7, true, 0.8256},     // J 0.703
		{"truncated to 70%", 40, 70, 100, 0.7, true, 0.9341}, // J 0.625, 0.625·170/1.625/70
		{"truncated to 70%, either order", 40, 100, 70, 0.7, true, 0.9341},
		{"truncated to 60%", 40, 60, 100, 0.7, false, 1},               // sizes too far apart
		{"under the floor", 38, 75, 100, 0.7, false, 0.8693},           // J 0.594: 0.594·175/1.594/75
		{"same size, not contained", 40, 100, 100, 0.7, false, 0.7692}, // J 0.625
		{"containment 0.89", 40, 80, 100, 0.7, false, 0.8654},
		{"size unknown", 40, 0, 100, 0.7, false, 0},
		{"size of an old record", 40, 70, 0, 0.7, false, 0},
		{"min-content 0.6", 40, 100, 100, 0.6, true, 0.7692},
	} {
		a := &index.Doc{Sketch: sketchOf(0), Shingles: tt.na}
		b := &index.Doc{Sketch: agree(tt.k), Shingles: tt.nb}
		if got := index.Confirmed(a, b, tt.minContent); got != tt.want {
			t.Errorf("%s: Confirmed = %v, want %v", tt.name, got, tt.want)
		}
		if got := index.Containment(a, b); math.Abs(got-tt.contained) > 1e-4 {
			t.Errorf("%s: Containment = %.4f, want %.4f", tt.name, got, tt.contained)
		}
	}
}

// With confirmation sketches on both documents, Confirmed uses them:
// their estimate (agree on k of 256 values: (k-1)/255) against
// minContent, or a containment of LongMinContainment at an estimate of
// LongContainmentFloor, whatever the sizes' ratio. With one missing it
// falls back to the 64-value sketches' rule.
func TestConfirmedLong(t *testing.T) {
	var base minhash.Long
	for i := range base {
		base[i] = uint8(i)
	}
	agree := func(k int) minhash.Long {
		l := base
		for i := k; i < minhash.LongSize; i++ {
			l[i] ^= 0xa5
		}
		return l
	}
	short := sketchOf(0) // the 64-value sketches agree on every value
	for _, tt := range []struct {
		name       string
		k, na, nb  int
		minContent float64
		want       bool
		content    float64
		contained  float64
	}{
		{"resemblance", 180, 1000, 1000, 0.7, true, 179.0 / 255, 0.8249},
		{"under min-content, sizes equal", 175, 1000, 1000, 0.7, false, 174.0 / 255, 0.8112}, // the 64-value sketches would confirm
		{"header added: 60% of the copy", 154, 600, 1000, 0.7, true, 153.0 / 255, 1},         // sizes beyond MinSizeRatio
		{"under the floor", 146, 550, 1000, 0.7, false, 145.0 / 255, 1},                      // J 0.569 < 0.57
		{"min-content 0.5", 147, 1000, 1000, 0.5, true, 146.0 / 255, 0.7281},
		{"floor, containment 0.850", 147, 749, 1000, 0.7, true, 146.0 / 255, 0.8502},
		{"floor, containment 0.849", 147, 751, 1000, 0.7, false, 146.0 / 255, 0.8489},
	} {
		a := &index.Doc{Sketch: short, Long: base, Shingles: tt.na}
		b := &index.Doc{Sketch: short, Long: agree(tt.k), Shingles: tt.nb}
		if got := index.Confirmed(a, b, tt.minContent); got != tt.want {
			t.Errorf("%s: Confirmed = %v, want %v", tt.name, got, tt.want)
		}
		if got := index.Content(a, b); math.Abs(got-tt.content) > 1e-12 {
			t.Errorf("%s: Content = %.4f, want %.4f", tt.name, got, tt.content)
		}
		if got := index.Containment(a, b); math.Abs(got-tt.contained) > 1e-4 {
			t.Errorf("%s: Containment = %.4f, want %.4f", tt.name, got, tt.contained)
		}
		// Without b's confirmation sketch: the 64-value sketches, which
		// agree on every value.
		b.Long = minhash.Long{}
		if got := index.Content(a, b); got != 1 || !index.Confirmed(a, b, tt.minContent) {
			t.Errorf("%s without b's long sketch: Content %v, Confirmed %v; want 1, true", tt.name, got, index.Confirmed(a, b, tt.minContent))
		}
	}
}

// A record-only document (an exact duplicate dedup archives) is filed
// under its content hash only: Similar finds it as an exact match, never
// through the tables or bands; it is deleted without touching the
// postings of the document it duplicates; an archived duplicate's matches
// carry its cluster.
func TestRecordOnlyAndClusters(t *testing.T) {
	ctx := t.Context()
	x, err := memstore.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	orig := index.Doc{ID: "orig", Fingerprint: 0xff00, ContentHash: 7, Sketch: sketchOf(1), Shingles: 100}
	exact := orig
	exact.ID, exact.Original, exact.Via, exact.Hops, exact.RecordOnly = "exact", "orig", "orig", 1, true
	member := index.Doc{ID: "member", Fingerprint: 0xff01, ContentHash: 8, Sketch: sketchOf(1), Shingles: 100,
		Original: "orig", Via: "orig", Hops: 1}
	member.Sketch[0] = 9999
	if err := x.Add(ctx, orig, exact, member); err != nil {
		t.Fatal(err)
	}
	got, err := x.Get(ctx, "exact")
	if err != nil || !got.RecordOnly || got.Original != "orig" {
		t.Fatalf("Get(exact) = %+v, %v", got, err)
	}
	q := orig
	q.ID, q.ContentHash = "query", 9 // not an exact copy: tables and bands only
	ms, err := x.Similar(ctx, &q, 3)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, m := range ms {
		found = append(found, fmt.Sprintf("%s exact=%v original=%q hops=%d", m.ID, m.Exact, m.Original, m.Hops))
	}
	want := []string{`orig exact=false original="" hops=0`, `member exact=false original="orig" hops=1`}
	if !reflect.DeepEqual(found, want) {
		t.Errorf("Similar found %q, want %q", found, want)
	}
	if ids, err := x.Exact(ctx, 7); err != nil || !reflect.DeepEqual(ids, []string{"exact", "orig"}) {
		t.Errorf("Exact = %q, %v; want [exact orig]", ids, err)
	}
	if err := x.Delete(ctx, "exact"); err != nil {
		t.Fatal(err)
	}
	if ids, err := x.Exact(ctx, 7); err != nil || !reflect.DeepEqual(ids, []string{"orig"}) {
		t.Errorf("after deleting the record-only copy, Exact = %q, %v; want [orig]", ids, err)
	}
	if st, err := x.Stats(ctx); err != nil || st.Docs != 2 {
		t.Errorf("Stats = %d docs, %v; want 2", st.Docs, err)
	}
}
