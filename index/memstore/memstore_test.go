package memstore

import (
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

func TestConformance(t *testing.T) {
	indextest.Run(t, func(*testing.T) index.Store { return New() })
}

func TestTextStats(t *testing.T) {
	indextest.TextStats(t, func(*testing.T) index.Store { return New() })
}

// hashTable against a map: adds and removes of keys that share their
// home slots and wrap around the end of the table leave every key's
// documents findable.
func TestHashTable(t *testing.T) {
	for _, tt := range []struct {
		name string
		ops  []struct {
			add  bool
			v    uint64
			docs []uint32
		}
		want map[uint64][]uint32
	}{
		{name: "add and remove one", ops: []struct {
			add  bool
			v    uint64
			docs []uint32
		}{{true, 7, []uint32{1}}, {false, 7, []uint32{1}}}, want: map[uint64][]uint32{7: nil}},
		{name: "several documents under one value", ops: []struct {
			add  bool
			v    uint64
			docs []uint32
		}{{true, 7, []uint32{1, 2, 3}}, {true, 8, []uint32{4}}, {false, 7, []uint32{2}}, {true, 7, []uint32{2}}, {true, 7, []uint32{2}}},
			want: map[uint64][]uint32{7: {1, 2, 3}, 8: {4}}},
		{name: "remove what is not there", ops: []struct {
			add  bool
			v    uint64
			docs []uint32
		}{{true, 7, []uint32{1}}, {false, 7, []uint32{9}}, {false, 9, []uint32{1}}}, want: map[uint64][]uint32{7: {1}, 9: nil}},
	} {
		var pt hashTable
		for _, op := range tt.ops {
			for _, d := range op.docs {
				if op.add {
					pt.add(op.v, d)
				} else {
					pt.remove(op.v, d)
				}
			}
		}
		for v, want := range tt.want {
			var got []uint32
			pt.each(v, func(d uint32) { got = append(got, d) })
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s: documents of %d: %v, want %v", tt.name, v, got, want)
			}
		}
	}
}

// Many values in a small table: every home slot is shared and probe
// runs wrap around, and removals shift entries back. The table agrees
// with a map after each step.
func TestHashTableModel(t *testing.T) {
	var pt hashTable
	model := map[uint64]map[uint32]bool{}
	x := uint64(1)
	for step := range 20000 {
		x = x*6364136223846793005 + 1442695040888963407
		v, d := (x>>40)%300, uint32(x>>20)%50+1
		if model[v] == nil {
			model[v] = map[uint32]bool{}
		}
		if step%3 == 2 {
			pt.remove(v, d)
			delete(model[v], d)
		} else {
			pt.add(v, d)
			model[v][d] = true
		}
		if step%997 != 0 && step != 19999 {
			continue
		}
		n := 0
		for v, ds := range model {
			var got []uint32
			pt.each(v, func(d uint32) { got = append(got, d) })
			want := slices.Sorted(maps.Keys(ds))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: documents of %d: %v, want %v", step, v, got, want)
			}
			n += len(ds)
		}
		if pt.n != n {
			t.Fatalf("step %d: %d postings, want %d", step, pt.n, n)
		}
	}
}

// A merge empties the recent table: a small one keeps its slots,
// cleared, for the next postings; one above keepSlots is dropped.
func TestHashTableReset(t *testing.T) {
	for _, tc := range []struct {
		adds  int
		slots int // after the reset: 0, dropped above keepSlots
	}{{1000, 2048}, {40000, 0}} {
		var ht hashTable
		for i := range tc.adds {
			ht.add(uint64(i)*0x9e3779b97f4a7c15, uint32(i+1))
		}
		ht.reset()
		if ht.n != 0 || len(ht.slots) != tc.slots {
			t.Fatalf("%d adds, reset: %d postings in %d slots, want 0 in %d", tc.adds, ht.n, len(ht.slots), tc.slots)
		}
		for i := range tc.adds {
			if v := uint64(i) * 0x9e3779b97f4a7c15; ht.taken(v) {
				t.Fatalf("%d adds, reset: value %d still taken", tc.adds, i)
			}
		}
		ht.add(7, 1)
		var got []uint32
		ht.each(7, func(d uint32) { got = append(got, d) })
		if !slices.Equal(got, []uint32{1}) {
			t.Fatalf("%d adds, reset, add: documents of 7: %v, want [1]", tc.adds, got)
		}
	}
}

// IDs deleted and added again, many more than the ID table's first
// size: Records finds each live one and no deleted one, and Postings
// returns no deleted document.
func TestManyIDs(t *testing.T) {
	s := New()
	ctx := t.Context()
	key := func(i int) index.Key { return index.Key{Kind: index.KindContent, Value: uint64(i % 100)} }
	var b index.Batch
	for i := range 5000 {
		b.Writes = append(b.Writes, index.Write{ID: fmt.Sprintf("doc-%d", i), Record: []byte{byte(i)}, Keys: []index.Key{key(i)}})
	}
	if err := s.Apply(ctx, &b); err != nil {
		t.Fatal(err)
	}
	b.Writes = nil
	for i := 0; i < 5000; i += 2 { // delete the even ones
		b.Writes = append(b.Writes, index.Write{ID: fmt.Sprintf("doc-%d", i), Replaces: true, OldKeys: []index.Key{key(i)}})
	}
	for i := 1; i < 5000; i += 10 { // replace some odd ones
		b.Writes = append(b.Writes, index.Write{ID: fmt.Sprintf("doc-%d", i), Record: []byte{byte(i + 1)}, Keys: []index.Key{key(i + 1)},
			Replaces: true, OldKeys: []index.Key{key(i)}})
	}
	if err := s.Apply(ctx, &b); err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		id := fmt.Sprintf("doc-%d", i)
		recs, err := s.Records(ctx, []string{id})
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		switch {
		case i%2 == 0:
		case i%10 == 1:
			want = []byte{byte(i + 1)}
		default:
			want = []byte{byte(i)}
		}
		if !slices.Equal(recs[0], want) || (recs[0] == nil) != (want == nil) {
			t.Fatalf("record of %s: %v, want %v", id, recs[0], want)
		}
	}
	if st, err := s.Stats(ctx); err != nil || st.Docs != 2500 {
		t.Errorf("Stats = %+v, %v; want 2500 docs", st, err)
	}
	ps, err := s.Postings(ctx, []index.Key{key(2), key(3)})
	if err != nil {
		t.Fatal(err)
	}
	// Key 2 (value 2): doc-i with i%100 == 2 are even, deleted; doc-1,
	// doc-101, ... (i%10 == 1, i%100 == 1) moved there. Key 3: doc-3,
	// doc-103, ... (odd, not replaced).
	for j, want := range []int{50, 50} {
		if len(ps[j]) != want {
			t.Errorf("postings of key %d: %d, want %d", j+2, len(ps[j]), want)
		}
		for _, p := range ps[j] {
			var i int
			fmt.Sscanf(p.ID, "doc-%d", &i)
			if i%2 == 0 || (j == 0 && i%10 != 1) || (j == 1 && i%10 == 1) {
				t.Errorf("postings of key %d hold %s", j+2, p.ID)
			}
		}
	}
}

// Open is index.New over a new Store.
func TestOpen(t *testing.T) {
	x, err := Open(t.Context(), &index.Options{Blocks: 5, MaxDistance: 3, AnalyzerID: "an"})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if s, err := x.Stats(t.Context()); err != nil || s.Tables != 10 || s.AnalyzerID != "an" || s.DiskBytes != 0 || s.Bloom != (index.BloomStats{}) {
		t.Errorf("Stats = %+v, %v", s, err)
	}
	if _, err := Open(t.Context(), &index.Options{Blocks: 3, MaxDistance: 3}); !errors.Is(err, index.ErrLayout) {
		t.Errorf("Open with a bad layout: %v", err)
	}
	_, err = x.Get(t.Context(), "nope")
	if want := `index: memory: document "nope": not found`; err == nil || err.Error() != want {
		t.Errorf("Get(nope): %v, want %s", err, want)
	}
}

// The store keeps copies of the IDs and records it is given, not the
// larger strings and buffers they may be slices of: Dedup passes IDs cut
// from whole input lines.
func TestStoreOwnsData(t *testing.T) {
	text := strings.Repeat("news article text ", 1000)
	within := func(p unsafe.Pointer) bool {
		start := uintptr(unsafe.Pointer(unsafe.StringData(text)))
		return start <= uintptr(p) && uintptr(p) < start+uintptr(len(text))
	}
	x, err := Open(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	d := index.Doc{ID: text[:4], Title: text[5:12], Fingerprint: 0x0123456789abcdef, ContentHash: 3,
		Keywords: []tfidf.Keyword{{Word: text[13:17], Weight: 2}}}
	if err := x.Add(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	ms, err := x.Near(t.Context(), d.Fingerprint, 0)
	if err != nil || len(ms) != 1 || ms[0].ID != "news" {
		t.Fatalf("Near = %v, %v", ms, err)
	}
	ids, err := x.Exact(t.Context(), 3)
	if err != nil || len(ids) != 1 {
		t.Fatalf("Exact = %q, %v", ids, err)
	}
	s := x.Store().(*Store)
	// And postings without a record.
	ghost := index.Write{ID: text[20:25], Keys: []index.Key{{Kind: index.KindContent, Value: 3}}}
	if err := s.Apply(t.Context(), &index.Batch{Writes: []index.Write{ghost}}); err != nil {
		t.Fatal(err)
	}
	var kept []string
	if err := s.ScanRecords(t.Context(), func(id string, _ []byte) error {
		kept = append(kept, id)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ps, err := s.Postings(t.Context(), []index.Key{{Kind: index.KindContent, Value: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps[0] {
		kept = append(kept, p.ID)
	}
	kept = append(kept, ms[0].ID, ids[0])
	for _, id := range kept {
		if within(unsafe.Pointer(unsafe.StringData(id))) {
			t.Errorf("the store keeps the ID %q as a slice of the text it was cut from", id)
		}
	}
	recs, err := s.Records(t.Context(), []string{"news"})
	if err != nil || recs[0] == nil {
		t.Fatalf("Records = %q, %v", recs, err)
	}
	got, err := x.Get(t.Context(), "news")
	if err != nil || got.Title != "article" || got.Keywords[0].Word != "text" {
		t.Errorf("Get = %+v, %v", got, err)
	}
	if within(unsafe.Pointer(unsafe.StringData(got.Title))) || within(unsafe.Pointer(unsafe.StringData(got.Keywords[0].Word))) {
		t.Errorf("Get returns strings that are slices of the text they were cut from")
	}
}

// A closed Store fails every method with ErrClosed and frees its maps.
func TestClosed(t *testing.T) {
	s := New()
	ctx := t.Context()
	if err := s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "a", Record: []byte{1}}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if s.lists != nil || s.docs.chunks != nil || s.data.chunks != nil || s.ids.slots != nil || s.meta != nil {
		t.Errorf("Close kept the maps")
	}
	_, err := s.Records(ctx, []string{"a"})
	if want := "index: memory: index is closed"; !errors.Is(err, index.ErrClosed) || err.Error() != want {
		t.Errorf("Records after Close: %v, want %s", err, want)
	}
	if err := s.Apply(ctx, &index.Batch{}); !errors.Is(err, index.ErrClosed) {
		t.Errorf("Apply after Close: %v", err)
	}
}

// Apply checks every ID before it writes any.
func TestApplyInvalidID(t *testing.T) {
	s := New()
	ctx := t.Context()
	err := s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "a", Record: []byte{1}}, {ID: "", Record: []byte{2}}}})
	if !errors.Is(err, index.ErrID) || !strings.Contains(err.Error(), "write 1") {
		t.Errorf("Apply with an empty ID: %v", err)
	}
	if st, _ := s.Stats(ctx); st.Docs != 0 {
		t.Errorf("%d docs after a refused Apply", st.Docs)
	}
}

// A lean store finds and confirms what a full one does, and keeps the
// cluster, job and sketches of a record but not its title, keywords or
// text.
func TestLean(t *testing.T) {
	ctx := t.Context()
	x, err := index.New(ctx, NewLean(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var sk minhash.Sketch
	for i := range sk {
		sk[i] = uint16(3*i + 1)
	}
	d := index.Doc{ID: "copy", Fingerprint: 0x0123456789abcdef, ContentHash: 3, Title: "A title",
		Keywords: []tfidf.Keyword{{Word: "news", Weight: 2}}, Sketch: sk, Shingles: 40,
		Original: "orig", Via: "orig", Hops: 1, Job: "j", Seq: 7, Text: "the text"}
	if err := x.Add(ctx, d); err != nil {
		t.Fatal(err)
	}
	got, err := x.Get(ctx, "copy")
	if err != nil {
		t.Fatal(err)
	}
	want := d
	want.Title, want.Keywords, want.Text = "", nil, ""
	got.Added, want.Added = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get = %+v\nwant  %+v", got, want)
	}
	q := d
	q.ID, q.ContentHash = "q", 4
	ms, err := x.Similar(ctx, &q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].ID != "copy" || ms[0].Distance != 0 || ms[0].Content != 1 || ms[0].Title != "" || ms[0].Keywords != nil || ms[0].Original != "orig" {
		t.Errorf("Similar = %+v, want copy at distance 0, content 1, without title or keywords", ms)
	}

	// With a confirmation sketch, the record keeps band digests for
	// the 64 values (index.BatchRecord, which see for the first
	// digest), and the Long confirms.
	l := index.Doc{ID: "long", Fingerprint: 0x0f0f0f0f0f0f0f0f, ContentHash: 5, Sketch: sk, Shingles: 40}
	for i := range l.Long {
		l.Long[i] = uint8(i + 1)
	}
	if err := x.Add(ctx, l); err != nil {
		t.Fatal(err)
	}
	got, err = x.Get(ctx, "long")
	if err != nil {
		t.Fatal(err)
	}
	if got.Sketch == sk || got.Sketch.IsZero() || got.Long != l.Long || got.Sketch[0] != 0xfb || got.Sketch[1] != 0 {
		t.Errorf("Get(long).Sketch = %v, want band digests (0xfb first, then three zeros, …)", got.Sketch)
	}
	// A query sharing one band (the first) and 255 of the Long's 256
	// values, far by SimHash: found through the band, confirmed.
	q = l
	q.ID, q.ContentHash, q.Fingerprint = "q2", 6, ^l.Fingerprint
	for i := BandRowsAfterFirst; i < len(q.Sketch); i++ {
		q.Sketch[i]++
	}
	q.Long[255]++
	ms, err = x.Similar(ctx, &q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].ID != "long" || ms[0].Content != 254.0/255 || ms[0].Distance != 64 {
		t.Errorf("Similar = %+v, want long at distance 64, content (255/256-1/256)/(1-1/256)", ms)
	}
	for i := range 100 { // 156 of 256 values agree: an estimate of 155/255
		q.Long[i] += 100
	}
	if ms, _ = x.Similar(ctx, &q, 3); len(ms) != 0 {
		t.Errorf("Similar = %+v with a content far below MinContent, want none", ms)
	}
}

// BandRowsAfterFirst is the index of the first sketch value after the
// first band.
const BandRowsAfterFirst = index.BandRows

// The store holds no object per document, nor per key value: after
// 50,000 documents of 21 keys each (as the default layout gives), with
// table keys of 16 bits (i, 2i, 3i and 4i mod 1,024 for document i:
// 1,024 + 512 + 1,024 + 256 values), it keeps a few dozen chunks and
// tables (105 here, 87 before each postTable's run had a list of pages;
// with a list of documents per table key value it kept 2,890, and the
// store of maps and strings before that about 20 a document).
func TestFewObjects(t *testing.T) {
	const docs = 50000
	b := &index.Batch{}
	for i := range docs {
		w := index.Write{ID: fmt.Sprintf("news.example.com/2026/11/%09d.html", i), Record: make([]byte, 400), Fingerprint: simhash.Fingerprint(i)}
		for tb := range 4 {
			w.Keys = append(w.Keys, index.Key{Kind: index.KindTable, Table: uint8(tb), Bits: 16, Value: uint64(i*(tb+1)) % 1024})
		}
		for band := range index.Bands {
			w.Keys = append(w.Keys, index.Key{Kind: index.KindBand, Table: uint8(band), Value: uint64(i)<<8 | uint64(band)})
		}
		w.Keys = append(w.Keys, index.Key{Kind: index.KindContent, Value: uint64(i)})
		b.Writes = append(b.Writes, w)
	}
	objects := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapObjects
	}
	before := objects()
	s := New()
	if err := s.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	kept := int64(objects()) - int64(before)
	if st, _ := s.Stats(t.Context()); st.Docs != docs {
		t.Fatalf("%d documents, want %d", st.Docs, docs)
	}
	if kept > 120 {
		t.Errorf("the store of %d documents keeps %d objects: want at most 120", docs, kept)
	}
	runtime.KeepAlive(b)
}

// Apply refuses a table key whose value is wider than its bits (the
// store files it by value), before it writes anything.
func TestApplyWideTableKey(t *testing.T) {
	s := New()
	ctx := t.Context()
	k := index.Key{Kind: index.KindTable, Table: 1, Bits: 16, Value: 1 << 16}
	err := s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "a", Record: []byte{1}}, {ID: "b", Record: []byte{2}, Keys: []index.Key{k}}}})
	if want := `index: memory: write 1 (id "b"): table key t1/16:10000: value wider than its 16 bits`; err == nil || err.Error() != want {
		t.Errorf("Apply: %v, want %s", err, want)
	}
	if st, _ := s.Stats(ctx); st.Docs != 0 {
		t.Errorf("%d docs after a refused Apply", st.Docs)
	}
}

// postTable against a map, with merges every few hundred steps: values
// whose postings are split between the run and the recent table,
// documents deleted (gone) with postings left in the run, and postings
// added after a merge.
func TestPostTableModel(t *testing.T) {
	var pt postTable
	testRunModel(t, &pt, pt.runDocs, func() int { return pt.recent.n })
	// The run is ordered by h, then document, and start indexes h's top bits.
	for top := range 1 << dirBits {
		for i := int(pt.start[top]); i < int(pt.start[top+1]); i++ {
			if i > int(pt.start[top]) && (pt.rem(i-1) > pt.rem(i) || pt.rem(i-1) == pt.rem(i) && pt.doc(i-1) >= pt.doc(i)) {
				t.Fatalf("run out of order at %d", i)
			}
		}
	}
}

// keyRun against a map, as postTable, its documents' fingerprints
// docFP; then eachNear against a filter by distance.
func TestKeyRunModel(t *testing.T) {
	r := newKeyRun(9)
	testRunModel(t, keyRunOf{r}, func() []uint32 { return r.docs }, func() int { return r.recent.n })
	if len(r.start) != 513 || int(r.start[512]) != len(r.docs) || len(r.folds) != len(r.docs) {
		t.Fatalf("index of %d entries ending at %d, want 513 ending at %d; %d folds", len(r.start), r.start[len(r.start)-1], len(r.docs), len(r.folds))
	}
	for v := range 512 {
		if r.start[v] > r.start[v+1] || !slices.IsSorted(r.docs[r.start[v]:r.start[v+1]]) {
			t.Fatalf("run of value %d: %v", v, r.docs[r.start[v]:r.start[v+1]])
		}
	}
	for i, d := range r.docs {
		if r.folds[i] != fold(docFP(d)) {
			t.Fatalf("posting %d (document %d): fold %#x, want %#x", i, d, r.folds[i], fold(docFP(d)))
		}
	}
	// A query near some documents of value v: eachNear passes every
	// document within k of it, and of the others those whose fold is
	// within k (few).
	r.add(5, 1<<20) // one recent posting, always passed
	passed, far := 0, 0
	for v := range uint64(400) {
		ds := r.docs[r.start[v]:r.start[v+1]]
		if len(ds) == 0 {
			continue
		}
		q := docFP(ds[0]) ^ 0b1011<<40 // 3 bits from ds[0]
		got := map[uint32]bool{}
		r.eachNear(v, fold(q), 3, func(d uint32) { got[d] = true })
		for _, d := range ds {
			dist := bits.OnesCount64(docFP(d) ^ q)
			passes := bits.OnesCount16(fold(docFP(d))^fold(q)) <= 3
			if got[d] != passes || dist <= 3 && !got[d] {
				t.Fatalf("value %d: document %d at distance %d (fold within 3: %v): passed %v", v, d, dist, passes, got[d])
			}
			if dist > 3 {
				far++
				if got[d] {
					passed++
				}
			}
		}
		if !got[ds[0]] || got[1<<20] != (v == 5) {
			t.Fatalf("value %d: passed %v", v, got)
		}
	}
	// Unrelated fingerprints pass with a chance of about 1% (16
	// random bits within 3 of the query's fold: 697/65,536).
	if far < 5000 || passed*20 > far {
		t.Errorf("%d of %d far postings passed", passed, far)
	}
}

// docFP is the fingerprint of document d in TestKeyRunModel.
func docFP(d uint32) uint64 { return mix(uint64(d)) }

// keyRunOf is a keyRun as a runTable, its documents' fingerprints
// docFP.
type keyRunOf struct{ *keyRun }

func (r keyRunOf) merge(gone func(uint32) bool) { r.keyRun.merge(gone, docFP) }

// runDocs returns the documents of pt's run, in order.
func (pt *postTable) runDocs() []uint32 {
	var ds []uint32
	for i := range pt.len() {
		ds = append(ds, pt.doc(i))
	}
	return ds
}

// runBytes returns pt's run as one byte string.
func (pt *postTable) runBytes() []byte {
	var b []byte
	for _, pg := range pt.run.pages {
		b = append(b, pg...)
	}
	return b
}

// runCap returns the bytes pt's run's pages hold.
func (pt *postTable) runCap() int {
	n := 0
	for _, pg := range pt.run.pages {
		n += cap(pg)
	}
	return n
}

// A run of several pages, merged many times both ways, against a
// model: every value's documents found, the pages full but the last,
// each posting where its number says, and the pool handing the pages
// a merge is done with to the next, so that merges take few new pages.
func TestPostTablePages(t *testing.T) {
	var pool pagePool
	pt := postTable{pool: &pool}
	model := map[uint64][]uint32{}
	var values []uint64
	x := uint64(11)
	d := uint32(0)
	for round := range 14 {
		for range 40000 {
			x = x*6364136223846793005 + 1442695040888963407
			v := x >> 20
			if round > 0 && x%7 == 0 { // another document under a value the run holds
				v = values[int(x>>40)%len(values)]
			}
			d++
			pt.add(v, d)
			if model[v] == nil {
				values = append(values, v)
			}
			model[v] = append(model[v], d)
		}
		if round%4 == 3 { // a purge of every tenth document
			pt.merge(func(d uint32) bool { return d%10 == 0 })
			for v, ds := range model {
				model[v] = slices.DeleteFunc(ds, func(d uint32) bool { return d%10 == 0 })
			}
		} else {
			pt.merge(nil)
		}
		n := 0
		for _, ds := range model {
			n += len(ds)
		}
		if pt.len() != n {
			t.Fatalf("round %d: %d postings in the run, want %d", round, pt.len(), n)
		}
		pages := pt.run.pages
		if want := (n + pagePostings - 1) / pagePostings; n >= pagePostings && len(pages) != want {
			t.Fatalf("round %d: %d pages for %d postings, want %d", round, len(pages), n, want)
		}
		for k, pg := range pages {
			if n >= pagePostings && (cap(pg) != pageBytes || k < len(pages)-1 && len(pg) != pageBytes) {
				t.Fatalf("round %d: page %d of %d: %d bytes of %d", round, k, len(pages), len(pg), cap(pg))
			}
		}
		for i, v := range values {
			if i%17 != round%17 && i > 50 {
				continue
			}
			var got []uint32
			pt.each(v, func(d uint32) { got = append(got, d) })
			if !slices.Equal(got, model[v]) {
				t.Fatalf("round %d: documents of %#x: %v, want %v", round, v, got, model[v])
			}
		}
	}
	if pt.len() < 3*pagePostings {
		t.Fatalf("%d postings: want a run of more than 3 pages", pt.len())
	}
	// Without the pool, the merges would have taken about 40 pages
	// in all; with it, about as many as the run holds.
	if inUse := len(pt.run.pages); pool.blocks*blockPages > inUse+blockPages+1 {
		t.Errorf("%d blocks of %d pages made for a run of %d pages", pool.blocks, blockPages, inUse)
	}
}

// runTable is what postTable and keyRun have in common.
type runTable interface {
	add(v uint64, d uint32)
	each(v uint64, fn func(uint32))
	remove(v uint64, d uint32)
	merge(gone func(uint32) bool)
}

// testRunModel drives pt, whose run's documents and recent postings
// docs and recent return, with values below 400, against a map.
func testRunModel(t *testing.T, pt runTable, docs func() []uint32, recent func() int) {
	model := map[uint64]map[uint32]bool{}
	dead := map[uint32]bool{}
	x := uint64(7)
	check := func(step int) {
		t.Helper()
		for v, ds := range model {
			var got []uint32
			pt.each(v, func(d uint32) {
				if !dead[d] {
					got = append(got, d)
				}
			})
			want := slices.Sorted(maps.Keys(ds))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: documents of %#x: %v, want %v", step, v, got, want)
			}
		}
	}
	next := uint32(1)
	for step := range 30000 {
		x = x*6364136223846793005 + 1442695040888963407
		v := (x >> 40) % 400 // many documents a value
		switch {
		case step%5 == 4 && next > 1: // delete a document
			d := uint32(x>>20)%(next-1) + 1
			if !dead[d] {
				dead[d] = true
				for v, ds := range model {
					if ds[d] {
						pt.remove(v, d)
						delete(ds, d)
					}
				}
			}
		default:
			d := next
			if step%3 == 0 && next > 1 { // another value for a recent document
				d = next - 1
			} else {
				next++
			}
			if dead[d] {
				continue
			}
			pt.add(v, d)
			if model[v] == nil {
				model[v] = map[uint32]bool{}
			}
			model[v][d] = true
		}
		if step%1402 == 701 {
			// A merge that keeps every posting (as Apply's unless
			// deleted documents' may be an eighth of the run).
			pt.merge(nil)
			if recent() != 0 {
				t.Fatalf("step %d: %d recent postings after a merge", step, recent())
			}
		}
		if step%1402 == 0 {
			pt.merge(func(d uint32) bool { return dead[d] })
			if recent() != 0 {
				t.Fatalf("step %d: %d recent postings after a merge", step, recent())
			}
			for _, d := range docs() {
				if dead[d] {
					t.Fatalf("step %d: deleted document %d kept in the run", step, d)
				}
			}
		}
		if step%997 == 0 || step == 29999 {
			check(step)
		}
	}
	pt.merge(func(d uint32) bool { return dead[d] })
	check(30000)
	n := 0
	for _, ds := range model {
		n += len(ds)
	}
	if len(docs()) != n {
		t.Errorf("%d postings in the run, want %d", len(docs()), n)
	}
}

// A merge that keeps every posting (mergeAll) leaves the run exactly
// as a merge through gone that reports no document gone: the same bytes
// and directory, with recent postings among the run's of the same top
// bits, at both ends of them, in empty top bits, under values the run
// has (before and after its documents), and repeating postings of the
// run (left out).
func TestMergeAllSame(t *testing.T) {
	x := uint64(99)
	rnd := func() uint64 {
		x = x*6364136223846793005 + 1442695040888963407
		return x
	}
	var a, b postTable
	var vs []uint64
	next := uint32(1)
	for round := range 12 {
		for i := range 500 * (round + 1) {
			var v uint64
			switch {
			case i%7 == 3 && len(vs) > 0: // a value the table has, a new document
				v = vs[rnd()%uint64(len(vs))]
			case i%5 == 1: // crowded top bits
				v = rnd()%64 | 0x1234<<32
			default:
				v = rnd()
			}
			vs = append(vs, v)
			d := next
			if i%11 == 5 && next > 10 { // an older document: before others under v
				d = uint32(rnd()%uint64(next-1)) + 1
			} else {
				next++
			}
			a.add(v, d)
			b.add(v, d)
		}
		if round%3 == 2 && a.len() > 0 { // repeat postings the run holds
			for i := range 40 {
				k := (i * 37) % a.len()
				top := uint64(0)
				for a.start[top+1] <= uint32(k) {
					top++
				}
				h := top<<48 | a.rem(k)
				v := unmixForTest(h)
				a.add(v, a.doc(k))
				b.add(v, b.doc(k))
			}
		}
		a.merge(nil)
		b.merge(func(uint32) bool { return false })
		if !slices.Equal(a.runBytes(), b.runBytes()) || !slices.Equal(a.start, b.start) {
			t.Fatalf("round %d: runs differ: %d and %d postings", round, a.len(), b.len())
		}
	}
	if a.len() < 30000 {
		t.Fatalf("%d postings in the run, want at least 30,000", a.len())
	}
}

// unmixForTest is the inverse of mix.
func unmixForTest(h uint64) uint64 {
	h ^= h >> 33
	h *= 0x9cb4b2f8129337db // inverse of 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	h *= 0x4f74430c22a54005 // inverse of 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// Values whose h = mix(v) agree in their top 16 bits, or in their low
// 48 bits, stay apart in the run, and a lookup finds a value wherever
// it lies among those of its top bits.
func TestPostTableNeighbours(t *testing.T) {
	unmix := func(h uint64) uint64 { // the inverse of mix
		h ^= h >> 33
		h *= 0x9cb4b2f8129337db // inverse of 0xc4ceb9fe1a85ec53
		h ^= h >> 33
		h *= 0x4f74430c22a54005 // inverse of 0xff51afd7ed558ccd
		h ^= h >> 33
		return h
	}
	hs := []uint64{0x1234_0000_0000_0001, 0x1234_0000_0000_0002, 0x1235_0000_0000_0001, 0x1233_ffff_ffff_ffff, 0, ^uint64(0)}
	var pt postTable
	for i, h := range hs {
		v := unmix(h)
		if mix(v) != h {
			t.Fatalf("unmix(%#x) = %#x, whose mix is %#x", h, v, mix(v))
		}
		pt.add(v, uint32(i+1))
		if i == 2 {
			pt.merge(func(uint32) bool { return false })
		}
	}
	for i, h := range hs {
		var got []uint32
		pt.each(unmix(h), func(d uint32) { got = append(got, d) })
		if !slices.Equal(got, []uint32{uint32(i + 1)}) {
			t.Errorf("documents of h %#x: %v, want [%d]", h, got, i+1)
		}
	}
	pt.merge(func(uint32) bool { return false })
	for i, h := range hs {
		var got []uint32
		pt.each(unmix(h), func(d uint32) { got = append(got, d) })
		if !slices.Equal(got, []uint32{uint32(i + 1)}) {
			t.Errorf("after a merge: documents of h %#x: %v, want [%d]", h, got, i+1)
		}
	}
	// Values far from evenly spread among those of their top bits (the
	// place a lookup guesses first): 3,000 at the bottom of top bits
	// 0x4242, 20 at its top, each under 2 documents, and values between
	// them that are not there.
	var crowd postTable
	var in, out []uint64
	for i := range uint64(3000) {
		in = append(in, 0x4242<<48|i*3)
		out = append(out, 0x4242<<48|i*3+1)
	}
	for i := range uint64(20) {
		in = append(in, 0x4242<<48|(1<<48-1-i*2))
		out = append(out, 0x4242<<48|(1<<48-2-i*2))
	}
	for i, h := range in {
		crowd.add(unmix(h), uint32(2*i+1))
		crowd.add(unmix(h), uint32(2*i+2))
	}
	crowd.merge(func(uint32) bool { return false })
	for i, h := range in {
		var got []uint32
		crowd.each(unmix(h), func(d uint32) { got = append(got, d) })
		if !slices.Equal(got, []uint32{uint32(2*i + 1), uint32(2*i + 2)}) {
			t.Fatalf("documents of h %#x: %v, want [%d %d]", h, got, 2*i+1, 2*i+2)
		}
	}
	for _, h := range out {
		crowd.each(unmix(h), func(d uint32) { t.Fatalf("h %#x, not added, has document %d", h, d) })
	}
}

// Through Apply, past the size at which the sketch band and content
// postings are merged into sorted runs: 20,000 documents in batches of
// 1,000, every third of the first 12,000 replaced (with new keys) or
// deleted later. Postings find each live document under its keys and no
// other, the replaced ones under their new keys only; the runs hold
// no posting of a deleted document once merged again, and take 10
// bytes a posting; the recent tables stay below their share of the
// runs.
func TestPostingsMerged(t *testing.T) {
	const docs = 20000
	s := New()
	ctx := t.Context()
	keys := func(i, gen int) []index.Key {
		ks := []index.Key{{Kind: index.KindContent, Value: uint64(i)<<4 | uint64(gen)}}
		for band := range index.Bands {
			ks = append(ks, index.Key{Kind: index.KindBand, Table: uint8(band), Value: uint64(i)<<8 | uint64(band)<<4 | uint64(gen)})
		}
		return ks
	}
	id := func(i int) string { return fmt.Sprintf("doc-%d", i) }
	var b index.Batch
	flush := func() {
		t.Helper()
		if err := s.Apply(ctx, &b); err != nil {
			t.Fatal(err)
		}
		b.Writes = b.Writes[:0]
	}
	for i := range docs {
		b.Writes = append(b.Writes, index.Write{ID: id(i), Record: []byte{1}, Keys: keys(i, 0)})
		if len(b.Writes) == 1000 {
			flush()
		}
	}
	for i := 0; i < 12000; i += 3 {
		w := index.Write{ID: id(i), Replaces: true, OldKeys: keys(i, 0)}
		if i%2 == 0 {
			w.Record, w.Keys = []byte{2}, keys(i, 1)
		}
		b.Writes = append(b.Writes, w)
		if len(b.Writes) == 1000 {
			flush()
		}
	}
	flush()
	probe := func(i int) {
		t.Helper()
		for gen := range 2 {
			ks := keys(i, gen)
			ps, err := s.Postings(ctx, ks)
			if err != nil {
				t.Fatal(err)
			}
			// The documents are numbered in the order of their
			// writes: the first 20,000 from 1, the replaced ones
			// (every sixth of the first 12,000) from 20,001.
			var want []index.Posting
			switch {
			case i >= 12000 || i%3 != 0:
				if gen == 0 {
					want = []index.Posting{{ID: id(i), Num: uint64(i + 1)}}
				}
			case i%2 == 0:
				if gen == 1 {
					want = []index.Posting{{ID: id(i), Num: uint64(docs + i/6 + 1)}}
				}
			}
			for j, k := range ks {
				if !slices.Equal(ps[j], want) {
					t.Fatalf("postings of document %d's key %v: %v, want %v", i, k, ps[j], want)
				}
			}
		}
	}
	for i := 0; i < docs; i += 7 {
		probe(i)
	}
	for lk, l := range s.lists {
		pt := &l.table
		if l.run != nil || pt.start == nil {
			t.Fatalf("list %v: no run", lk)
		}
		if limit := max(minMerge, pt.len()/mergeShare); pt.recent.n >= limit {
			t.Errorf("list %v: %d recent postings, want fewer than %d", lk, pt.recent.n, limit)
		}
		// Merge what is left: the deleted documents' postings go, and
		// the run has no room unused.
		pt.merge(s.deleted)
		for _, d := range pt.runDocs() {
			if s.deleted(d) {
				t.Fatalf("list %v: deleted document %d in the merged run", lk, d)
			}
		}
		if want := 16000 + 2000; pt.len() != want {
			t.Errorf("list %v: %d postings in the run, want %d", lk, pt.len(), want)
		}
		if got := pt.runCap(); got != 10*pt.len() {
			t.Errorf("list %v: %d bytes for %d postings, want 10 each", lk, got, pt.len())
		}
	}
	for i := 0; i < docs; i += 7 {
		probe(i)
	}
}

// A merge reads the documents' slots only to purge: with few deleted
// documents (fewer than an eighth of a run's postings since its last
// purge) Apply's merges keep their postings in the run, which Postings
// skips; with more, the next merge leaves them out.
func TestMergePurge(t *testing.T) {
	s := New()
	ctx := t.Context()
	key := func(i int) []index.Key { return []index.Key{{Kind: index.KindContent, Value: uint64(i)}} }
	add := func(from, to int) {
		t.Helper()
		var b index.Batch
		for i := from; i < to; i++ {
			b.Writes = append(b.Writes, index.Write{ID: fmt.Sprint(i), Record: []byte{1}, Keys: key(i)})
		}
		if err := s.Apply(ctx, &b); err != nil {
			t.Fatal(err)
		}
	}
	del := func(from, to int) {
		t.Helper()
		var b index.Batch
		for i := from; i < to; i++ {
			b.Writes = append(b.Writes, index.Write{ID: fmt.Sprint(i), Replaces: true, OldKeys: key(i)})
		}
		if err := s.Apply(ctx, &b); err != nil {
			t.Fatal(err)
		}
	}
	pt := func() *postTable { return &s.lists[listKey{kind: index.KindContent}].table }
	add(0, 8000) // merged once, at 4,096 or more
	del(0, 500)  // in the run
	add(8000, 12096)
	if got := pt().len(); got != 12096 {
		t.Fatalf("%d postings in the run after 500 deletions, want 12096 (no purge)", got)
	}
	if ps, err := s.Postings(ctx, key(7)); err != nil || len(ps[0]) != 0 {
		t.Fatalf("postings of a deleted document: %v, %v", ps, err)
	}
	del(500, 2000) // 2,000 deleted since the last purge: more than 12,096/8
	add(12096, 16192)
	if got, want := pt().len(), 16192-2000; got != want {
		t.Fatalf("%d postings in the run after 2,000 deletions, want %d (purged)", got, want)
	}
	if ps, err := s.Postings(ctx, key(2500)); err != nil || len(ps[0]) != 1 {
		t.Fatalf("postings of a live document: %v, %v", ps, err)
	}
}

// PostingsNear leaves out the table postings too far from the query,
// keeps the near ones, and leaves other kinds of keys alone. Five
// documents share the query's top block (table 0, value 0x0123) at
// distances 0, 1, 3, 4 and 20 from it.
func TestPostingsNearLeavesOutFar(t *testing.T) {
	ctx := t.Context()
	x, err := Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	const q = simhash.Fingerprint(0x0123_0000_0000_0000)
	docs := []index.Doc{
		{ID: "d0", Fingerprint: q, ContentHash: 7},
		{ID: "d1", Fingerprint: q | 0x1, ContentHash: 7},
		{ID: "d3", Fingerprint: q | 0x7, ContentHash: 7},
		{ID: "d4", Fingerprint: q | 0xf, ContentHash: 7},
		{ID: "d20", Fingerprint: q | 0xfffff, ContentHash: 7},
	}
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	keys := []index.Key{
		{Kind: index.KindTable, Table: 0, Bits: 16, Value: 0x0123},
		{Kind: index.KindContent, Value: 7},
	}
	for _, tc := range []struct {
		k          int
		table, all []string
	}{
		{0, []string{"d0"}, []string{"d0", "d1", "d20", "d3", "d4"}},
		{3, []string{"d0", "d1", "d3"}, []string{"d0", "d1", "d20", "d3", "d4"}},
		{9, []string{"d0", "d1", "d3", "d4"}, []string{"d0", "d1", "d20", "d3", "d4"}},
	} {
		ps, err := x.Store().(*Store).PostingsNear(ctx, keys, []simhash.Fingerprint{q, q}, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		ids := func(l []index.Posting) []string {
			var out []string
			for _, p := range l {
				out = append(out, p.ID)
			}
			slices.Sort(out)
			return out
		}
		if got := ids(ps[0]); !slices.Equal(got, tc.table) {
			t.Errorf("k=%d: table postings %q, want %q", tc.k, got, tc.table)
		}
		if got := ids(ps[1]); !slices.Equal(got, tc.all) {
			t.Errorf("k=%d: content postings %q, want %q", tc.k, got, tc.all)
		}
	}
	if _, err := x.Store().(*Store).PostingsNear(ctx, keys, []simhash.Fingerprint{q}, 3); err == nil {
		t.Error("PostingsNear with one fingerprint for two keys: no error")
	}
}

// A lean store takes a table posting's fingerprint from the record: it
// refuses a write whose record's fingerprint is not the write's, and a
// document deleted before its recent postings are merged costs the
// merge nothing.
func TestLeanFingerprint(t *testing.T) {
	ctx := t.Context()
	full := New()
	x, err := index.New(ctx, full, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sk minhash.Sketch
	for i := range sk {
		sk[i] = uint16(i + 1)
	}
	d := index.Doc{ID: "a", Fingerprint: 0x1111222233334444, ContentHash: 1, Sketch: sk, Shingles: 9}
	d.Long[0] = 1
	if err := x.Add(ctx, d); err != nil {
		t.Fatal(err)
	}
	recs, err := full.Records(ctx, []string{"a"})
	if err != nil || recs[0] == nil {
		t.Fatalf("Records: %v, %v", recs, err)
	}
	rec := recs[0]
	s := NewLean()
	key := index.Key{Kind: index.KindTable, Table: 0, Bits: 16, Value: 0x4444}
	err = s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "a", Record: rec, Fingerprint: 0x1111222233334445, Keys: []index.Key{key}}}})
	if want := `index: memory: write 0 (id "a"): the record's fingerprint is 1111222233334444, the write's 1111222233334445`; err == nil || err.Error() != want {
		t.Errorf("Apply with another fingerprint: %v, want %s", err, want)
	}
	// minMerge+1 documents under one table key, the first deleted
	// before the merge (without its keys: its posting stays until the
	// merge): the others' postings carry the fingerprint.
	b := &index.Batch{}
	for i := range minMerge + 1 {
		b.Writes = append(b.Writes, index.Write{ID: fmt.Sprint("d", i), Record: rec, Fingerprint: d.Fingerprint, Keys: []index.Key{key}})
	}
	if err := s.Apply(ctx, &index.Batch{Writes: b.Writes[:1]}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "d0", Replaces: true}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, &index.Batch{Writes: b.Writes[1:]}); err != nil {
		t.Fatal(err)
	}
	ps, err := s.PostingsNear(ctx, []index.Key{key}, []simhash.Fingerprint{d.Fingerprint ^ 0b111}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps[0]) != minMerge || ps[0][0].Fingerprint != d.Fingerprint {
		t.Errorf("PostingsNear: %d postings, the first %+v; want %d with fingerprint %v", len(ps[0]), ps[0][0], minMerge, d.Fingerprint)
	}
	if ps, _ = s.PostingsNear(ctx, []index.Key{key}, []simhash.Fingerprint{d.Fingerprint ^ 0b1111}, 3); len(ps[0]) != 0 {
		t.Errorf("PostingsNear 4 bits away: %d postings, want none", len(ps[0]))
	}
}

// RecordsByNum reads the record of each number that Postings gave and
// Nums returns, and none of a number replaced, deleted or never given.
func TestRecordsByNum(t *testing.T) {
	ctx := t.Context()
	s := New()
	key := index.Key{Kind: index.KindContent, Value: 9}
	b := &index.Batch{Writes: []index.Write{
		{ID: "a", Record: []byte("ra"), Keys: []index.Key{key}},
		{ID: "b", Record: []byte("rb"), Keys: []index.Key{key}},
		{ID: "c", Record: []byte("rc"), Keys: []index.Key{key}},
	}}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	b = &index.Batch{Writes: []index.Write{
		{ID: "a", Record: []byte("ra2"), Keys: []index.Key{key}, Replaces: true, OldKeys: []index.Key{key}},
		{ID: "b", Replaces: true, OldKeys: []index.Key{key}},
	}}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	nums, err := s.Nums(ctx, []string{"a", "b", "c", "d"})
	if err != nil || !slices.Equal(nums, []uint64{4, 0, 3, 0}) {
		t.Errorf("Nums(a, b, c, d) = %v, %v; want [4 0 3 0]", nums, err)
	}
	recs, err := s.RecordsByNum(ctx, []uint64{0, 1, 2, 3, 4, 5, 1 << 32})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "", "", "rc", "ra2", "", ""} // 1 a replaced, 2 b deleted
	for i, r := range recs {
		if string(r) != want[i] || (r == nil) != (want[i] == "") {
			t.Errorf("RecordsByNum: record %d = %q; want %q", i, r, want[i])
		}
	}
	ps, err := s.Postings(ctx, []index.Key{key})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, p := range ps[0] {
		got[p.ID] = p.Num
	}
	if len(got) != 2 || got["a"] != 4 || got["c"] != 3 {
		t.Errorf("Postings: numbers %v; want a 4, c 3", got)
	}
	s.Close()
	if _, err := s.RecordsByNum(ctx, []uint64{3}); err == nil {
		t.Error("RecordsByNum after Close: no error")
	}
	if _, err := s.Nums(ctx, []string{"c"}); err == nil {
		t.Error("Nums after Close: no error")
	}
}

// sortPostings orders by h, then document, whatever the spread of h:
// a literal case, then uniform, small (a keyRun's), equal and skewed
// values against slices.SortFunc.
func TestSortPostings(t *testing.T) {
	got := sortPostings([]posting{{5, 2}, {1, 9}, {5, 1}, {1 << 63, 3}, {0, 4}, {5, 0}})
	want := []posting{{0, 4}, {1, 9}, {5, 0}, {5, 1}, {5, 2}, {1 << 63, 3}}
	if !slices.Equal(got, want) {
		t.Fatalf("sortPostings: %v, want %v", got, want)
	}
	x := uint64(5)
	rnd := func() uint64 {
		x = x*6364136223846793005 + 1442695040888963407
		return x
	}
	spreads := map[string]func() uint64{
		"uniform": rnd,
		"small":   func() uint64 { return rnd() >> 48 },
		"equal":   func() uint64 { return 77 },
		"skewed":  func() uint64 { return rnd() >> (rnd() % 64) },
		"two":     func() uint64 { return rnd() >> 63 << 40 },
	}
	for name, h := range spreads {
		for _, n := range []int{0, 1, 2, 3, 13, 100, 5000} {
			ps := make([]posting, n)
			for i := range ps {
				ps[i] = posting{h(), uint32(rnd() % 50)}
			}
			want := slices.Clone(ps)
			slices.SortFunc(want, comparePostings)
			if got := sortPostings(ps); !slices.Equal(got, want) {
				t.Errorf("%s, %d postings: not sorted", name, n)
			}
		}
	}
}

// A keyRun's merge that keeps every posting leaves the run as one
// through gone that reports no document gone: the same index, documents
// and folds, with values the run has, values it has not, and the first
// and last values.
func TestKeyRunMergeAllSame(t *testing.T) {
	x := uint64(3)
	rnd := func() uint64 {
		x = x*6364136223846793005 + 1442695040888963407
		return x >> 20
	}
	a, b := newKeyRun(10), newKeyRun(10)
	next := uint32(1)
	for round := range 8 {
		for i := range 300 * (round + 1) {
			v := rnd() % 1024
			switch i % 50 {
			case 0:
				v = 0
			case 1:
				v = 1023
			}
			a.add(v, next)
			b.add(v, next)
			next++
		}
		a.merge(nil, docFP)
		b.merge(func(uint32) bool { return false }, docFP)
		if !slices.Equal(a.start, b.start) || !slices.Equal(a.docs, b.docs) || !slices.Equal(a.folds, b.folds) {
			t.Fatalf("round %d: runs differ", round)
		}
	}
	if len(a.docs) != int(next-1) {
		t.Fatalf("%d postings in the run, want %d", len(a.docs), next-1)
	}
}

// TestListCacheEntries checks that the lists of a layout of up to 16
// SimHash tables and 32 bands, and the content hash's, each have an
// entry of Store.listCache of their own: two lists in one entry send
// every document's lookups of both to the map.
func TestListCacheEntries(t *testing.T) {
	var keys []listKey
	for table := range uint8(16) {
		keys = append(keys, listKey{index.KindTable, table, 16})
	}
	for band := range uint8(32) {
		keys = append(keys, listKey{index.KindBand, band, 0})
	}
	keys = append(keys, listKey{index.KindContent, 0, 0})
	taken := make(map[int]listKey)
	for _, lk := range keys {
		at := lk.at()
		if at < 0 || at >= len(Store{}.listCache) {
			t.Fatalf("%+v: entry %d, outside the cache's %d", lk, at, len(Store{}.listCache))
		}
		if o, ok := taken[at]; ok {
			t.Errorf("%+v and %+v share entry %d", o, lk, at)
		}
		taken[at] = lk
	}
	if got := (listKey{'x', 255, 64}).at(); got < 49 || got > 63 {
		t.Errorf("a key of another kind: entry %d, want 49–63", got)
	}
}

// TestApplyBatchesModel applies batches of new, replaced and deleted
// documents, large enough that Apply changes the lists on several cores
// (parallelOps) and merges them, to one store, and the same writes one
// at a time to another, and checks both against a map of what each key
// holds after every batch.
func TestApplyBatchesModel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(4, runtime.GOMAXPROCS(0))))
	x := uint64(11)
	rnd := func(n uint64) uint64 {
		x = x*6364136223846793005 + 1442695040888963407
		return (x >> 20) % n
	}
	keysOf := func() []index.Key {
		var ks []index.Key
		for tb := range 4 {
			ks = append(ks, index.Key{Kind: index.KindTable, Table: uint8(tb), Bits: 16, Value: rnd(64)})
		}
		for band := range index.Bands {
			ks = append(ks, index.Key{Kind: index.KindBand, Table: uint8(band), Value: rnd(1500)})
		}
		return append(ks, index.Key{Kind: index.KindContent, Value: rnd(1000)})
	}
	whole, one := New(), New()
	held := map[string][]index.Key{} // each live document's keys
	all := map[index.Key]bool{}
	for batch := range 4 {
		b := &index.Batch{}
		for range 2000 {
			id := fmt.Sprintf("d%d", rnd(16000))
			old, ok := held[id]
			w := index.Write{ID: id, Replaces: ok, OldKeys: old}
			if ok && rnd(5) == 0 {
				delete(held, id) // deleted
			} else {
				w.Record, w.Keys = []byte(id), keysOf()
				w.Fingerprint = simhash.Fingerprint(rnd(1 << 40))
				held[id] = w.Keys
				for _, k := range w.Keys {
					all[k] = true
				}
			}
			b.Writes = append(b.Writes, w)
		}
		if err := whole.Apply(t.Context(), b); err != nil {
			t.Fatal(err)
		}
		for i := range b.Writes {
			if err := one.Apply(t.Context(), &index.Batch{Writes: b.Writes[i : i+1]}); err != nil {
				t.Fatal(err)
			}
		}
		want := map[index.Key][]string{}
		for id, ks := range held {
			for _, k := range ks {
				want[k] = append(want[k], id)
			}
		}
		keys := slices.Collect(maps.Keys(all)) // each key's answer is checked at its place
		for name, s := range map[string]*Store{"one batch": whole, "one write a batch": one} {
			ps, err := s.Postings(t.Context(), keys)
			if err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				var got []string
				for _, p := range ps[i] {
					got = append(got, p.ID)
				}
				slices.Sort(got)
				w := slices.Sorted(slices.Values(want[k]))
				if !slices.Equal(got, w) {
					t.Fatalf("%s, batch %d: %v holds %v, want %v", name, batch, k, got, w)
				}
			}
			if st, _ := s.Stats(t.Context()); st.Docs != int64(len(held)) {
				t.Fatalf("%s, batch %d: %d documents, want %d", name, batch, st.Docs, len(held))
			}
		}
	}
	merged := 0
	for _, l := range whole.lists {
		if l.run == nil && l.table.len() > 0 {
			merged++
		}
	}
	if merged < index.Bands {
		t.Fatalf("%d band or content lists merged in the store of whole batches, want all %d bands: the test does not reach the merges", merged, index.Bands)
	}
}
