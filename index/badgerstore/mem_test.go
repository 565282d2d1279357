package badgerstore

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

// A memList finds what was added under a value, in the runs and among
// the additions, leaves out what was removed, and keeps both across
// merges; a table list leaves out the fingerprints too far.
func TestMemList(t *testing.T) {
	l := newMemList(true, 2, 4)
	find := func(val uint64, fp simhash.Fingerprint, k int) []string {
		var out []string
		for _, p := range l.find(val, fp, k, 0, nil) {
			out = append(out, fmt.Sprintf("%d/%x", p.num, uint64(p.fp)))
		}
		slices.Sort(out)
		return out
	}
	check := func(step string, val uint64, fp simhash.Fingerprint, k int, want ...string) {
		t.Helper()
		if got := find(val, fp, k); !slices.Equal(got, want) {
			t.Errorf("%s: find(%d, %x, %d) = %q, want %q", step, val, uint64(fp), k, got, want)
		}
	}
	l.add(7, 0xf0, 1)
	l.add(7, 0xf1, 2)
	l.add(3, 0x0f, 3)
	check("added", 7, 0xf0, -1, "1/f0", "2/f1")
	check("added", 7, 0xf0, 0, "1/f0")
	check("added", 3, 0, -1, "3/f")
	check("added", 5, 0, -1)
	if len(l.vals) != 0 || l.added.n != 3 {
		t.Fatalf("merged before %d additions: %d in the runs, %d added", l.mergeMin, len(l.vals), l.added.n)
	}
	l.add(9, 0x01, 4) // the fourth: merged
	if !slices.Equal(l.vals, []uint64{3, 7, 7, 9}) || l.added.n != 0 {
		t.Fatalf("after the merge: runs %v, %d added", l.vals, l.added.n)
	}
	check("merged", 7, 0xf0, -1, "1/f0", "2/f1")
	check("merged", 9, 0, -1, "4/1")
	l.remove(7, 1) // in the runs
	l.add(7, 0xf2, 5)
	l.remove(7, 5)  // among the additions
	l.remove(7, 99) // not there
	l.add(8, 0xf3, 6)
	check("removed", 7, 0, -1, "2/f1")
	check("removed", 8, 0, -1, "6/f3")
	if l.dead != 1 {
		t.Errorf("%d dead postings in the runs, want 1", l.dead)
	}
	l.add(1, 0xaa, 7)
	l.add(8, 0xab, 8)
	l.add(10, 0xac, 9) // the fourth since the merge: merged, the dead one dropped
	if !slices.Equal(l.vals, []uint64{1, 3, 7, 8, 8, 9, 10}) || !slices.Equal(l.nums, []uint32{7, 3, 2, 6, 8, 4, 9}) || l.dead != 0 {
		t.Fatalf("after the second merge: runs %v, numbers %v, %d dead", l.vals, l.nums, l.dead)
	}
	check("merged again", 8, 0, -1, "6/f3", "8/ab")

	// A band or content list keeps no fingerprint.
	b := newMemList(false, 8, 2)
	b.add(4, 0xff, 1)
	b.add(4, 0xfe, 2)
	b.add(4, 0xfd, 3)
	if got := b.find(4, 0, 0, 0, nil); len(got) != 3 || got[0].fp != 0 || got[2].fp != 0 {
		t.Errorf("band list: %+v, want 3 postings without fingerprints", got)
	}
}

// memKindOf reads a key prefix as appendPrefix writes it.
func TestMemKindOf(t *testing.T) {
	tests := []struct {
		key  index.Key
		want memKind
		val  uint64
	}{
		{index.Key{Kind: index.KindTable, Table: 3, Bits: 16, Value: 0xbeef}, memKind{index.KindTable, 3, 2}, 0xbeef},
		// 13 bits are kept left-aligned in 2 bytes, as Badger's key.
		{index.Key{Kind: index.KindTable, Table: 1, Bits: 13, Value: 0x1abc}, memKind{index.KindTable, 1, 2}, 0x1abc << 3},
		{index.Key{Kind: index.KindBand, Table: 15, Value: 0x0102030405060708}, memKind{index.KindBand, 15, 8}, 0x0102030405060708},
		{index.Key{Kind: index.KindContent, Value: 42}, memKind{index.KindContent, 0, 8}, 42},
	}
	for _, tt := range tests {
		mk, val, ok := memKindOf(appendPrefix(nil, tt.key))
		if !ok || mk != tt.want || val != tt.val {
			t.Errorf("%v: %+v %x %v, want %+v %x", tt.key, mk, val, ok, tt.want, tt.val)
		}
	}
	if _, _, ok := memKindOf(appendPrefix(nil, index.Key{Kind: index.KindPassage, Value: 1})); ok {
		t.Error("a passage key is kept in memory")
	}
}

// memBytes hands out each number's string, and none for a dropped or
// unknown number, or one whose string is empty or too long to keep; a
// string handed out stays as it was while others are set after it,
// into new chunks too, and appending to it leaves its neighbour alone.
func TestMemBytes(t *testing.T) {
	var m memBytes
	m.setString(3, "c")
	m.setString(1, "标识/a")
	m.setString(2, "b")
	m.drop(2)
	for num, want := range map[uint64]string{0: "", 1: "标识/a", 2: "", 3: "c", 4: "", 1 << 20: ""} {
		if got := m.id(num); got != want {
			t.Errorf("id(%d) = %q, want %q", num, got, want)
		}
	}
	c := m.id(3)
	if got := append(m.get(1), 'x'); string(got) != "标识/ax" || m.id(3) != "c" {
		t.Errorf("appending to 1's string: %q, and 3's is %q", got, m.id(3))
	}
	for _, tt := range []struct {
		num  uint64
		n    int
		kept bool
	}{{5, 0, false}, {6, memMaxLen, true}, {7, memMaxLen + 1, false}, {3, memMaxLen + 1, false}} {
		if got := m.set(tt.num, make([]byte, tt.n)); got != tt.kept || (m.get(tt.num) != nil) != tt.kept || len(m.get(tt.num)) != tt.n && tt.kept {
			t.Errorf("set(%d, %d bytes) = %v, get: %d bytes; want kept %v", tt.num, tt.n, got, len(m.get(tt.num)), tt.kept)
		}
	}
	// 3's string was refused: it has none now, but what was handed out
	// is unchanged.
	if m.id(3) != "" || c != "c" {
		t.Errorf("after a refused set, id(3) = %q and the string handed out %q; want \"\" and \"c\"", m.id(3), c)
	}
	for num := uint64(10); num < 10+2*memChunk/memMaxLen; num++ {
		b := make([]byte, memMaxLen)
		b[0] = byte(num)
		m.set(num, b)
	}
	if len(m.chunks) < 3 || m.id(1) != "标识/a" || c != "c" || m.get(10)[0] != 10 || m.get(11 + memChunk/memMaxLen)[0] != byte(11+memChunk/memMaxLen) {
		t.Errorf("after %d chunks: id(1) %q, the string handed out %q", len(m.chunks), m.id(1), c)
	}
}

// postingsList is what Postings and PostingsNear of s say of keys, each
// list sorted: "id/num/fingerprint".
func postingsList(t *testing.T, s *Store, keys []index.Key, fps []simhash.Fingerprint, k int) [][]string {
	t.Helper()
	var ps [][]index.Posting
	var err error
	if fps == nil {
		ps, err = s.Postings(t.Context(), keys)
	} else {
		ps, err = s.PostingsNear(t.Context(), keys, fps, k)
	}
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(ps))
	for i, l := range ps {
		for _, p := range l {
			out[i] = append(out[i], fmt.Sprintf("%s/%d/%x", p.ID, p.Num, uint64(p.Fingerprint)))
		}
		slices.Sort(out[i])
	}
	return out
}

// A store with its postings in memory answers Postings and PostingsNear
// as Badger does, through random adds, replaces and deletes (with
// merges every few postings), after each Apply and after it is opened
// again (the copy built from the store), whole and lean.
// TestMemPostingsAgree checks the memory copy against Badger after
// every batch of a random run of writes, replacements and deletes; with
// spread, each batch's changes to the copy's lists are made on several
// cores (memPostings.parallelMin 1), as a large batch's are.
func TestMemPostingsAgree(t *testing.T) {
	for _, lean := range []bool{false, true} {
		for _, spread := range []bool{false, true} {
			t.Run(fmt.Sprintf("lean=%v/spread=%v", lean, spread), func(t *testing.T) {
				if spread {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(4, runtime.GOMAXPROCS(0))))
				}
				testMemPostingsAgree(t, lean, spread)
			})
		}
	}
}

func testMemPostingsAgree(t *testing.T, lean, spread bool) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	opts := &Options{MemPostings: true, Lean: lean}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if s != nil {
			s.Close()
		}
	}()
	tune := func() {
		m := s.mem.Load()
		m.mergeMin = 3
		if spread {
			m.parallelMin = 1
		}
	}
	tune()
	if _, err := s.Claim(ctx, map[string][]byte{index.MetaFormat: {1}}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(27, 3))
	var all []index.Key
	for tb := range 4 {
		for v := range 4 {
			all = append(all, index.Key{Kind: index.KindTable, Table: uint8(tb), Bits: 16, Value: uint64(v)})
		}
	}
	for b := range 3 {
		for v := range 3 {
			all = append(all, index.Key{Kind: index.KindBand, Table: uint8(b), Value: uint64(v) << 48})
		}
	}
	for v := range 4 {
		all = append(all, index.Key{Kind: index.KindContent, Value: uint64(v)})
		all = append(all, index.Key{Kind: index.KindPassage, Value: uint64(v)})
	}
	fps := make([]simhash.Fingerprint, len(all))
	for i := range fps {
		fps[i] = simhash.Fingerprint(r.Uint64() & 0xff)
	}
	type doc struct {
		fp   simhash.Fingerprint
		keys []index.Key
	}
	docs := map[string]doc{}
	randKeys := func(fp simhash.Fingerprint) []index.Key {
		var ks []index.Key
		for tb := range 4 {
			ks = append(ks, index.Key{Kind: index.KindTable, Table: uint8(tb), Bits: 16, Value: uint64(fp>>(8*tb)) & 3})
		}
		if !lean { // a lean record's band digests cannot name its old band keys
			for b := range 3 {
				ks = append(ks, index.Key{Kind: index.KindBand, Table: uint8(b), Value: uint64(r.IntN(3)) << 48})
			}
		}
		return append(ks, index.Key{Kind: index.KindContent, Value: uint64(r.IntN(4))}, index.Key{Kind: index.KindPassage, Value: uint64(r.IntN(4))})
	}
	compare := func(step string) {
		t.Helper()
		mem := postingsList(t, s, all, nil, -1)
		near := postingsList(t, s, all, fps, 3)
		nums := make([]uint64, s.next+2) // every number handed out, 0 and one not yet
		for i := range nums {
			nums[i] = uint64(i)
		}
		memRecs, err := s.RecordsByNum(ctx, nums)
		if err != nil {
			t.Fatal(err)
		}
		m := s.mem.Swap(nil)
		if m == nil {
			t.Fatalf("%s: no postings in memory", step)
		}
		disk := postingsList(t, s, all, nil, -1)
		diskNear := postingsList(t, s, all, fps, 3)
		diskRecs, err := s.RecordsByNum(ctx, nums)
		if err != nil {
			t.Fatal(err)
		}
		s.mem.Store(m)
		live := 0
		for n := range nums {
			if string(memRecs[n]) != string(diskRecs[n]) || (memRecs[n] == nil) != (diskRecs[n] == nil) {
				t.Fatalf("%s: record of number %d: memory %q, Badger %q", step, n, memRecs[n], diskRecs[n])
			}
			if diskRecs[n] == nil {
				continue
			}
			live++
			// A lean store keeps its records in memory; a whole one
			// reads them from Badger.
			if held := m.recs.get(uint64(n)) != nil; held != lean {
				t.Fatalf("%s: record of number %d held in memory: %v", step, n, held)
			}
		}
		if live != len(docs) {
			t.Fatalf("%s: %d numbers have records, want %d", step, live, len(docs))
		}
		checkMemFilters(t, s, step)
		for i := range all {
			if !slices.Equal(mem[i], disk[i]) {
				t.Fatalf("%s: postings of %v: memory %q, Badger %q", step, all[i], mem[i], disk[i])
			}
			if !slices.Equal(near[i], diskNear[i]) {
				t.Fatalf("%s: near postings of %v: memory %q, Badger %q", step, all[i], near[i], diskNear[i])
			}
		}
	}
	for step := range 60 {
		var b index.Batch
		for range 1 + r.IntN(6) {
			id := fmt.Sprintf("d%d", r.IntN(25))
			old, had := docs[id]
			w := index.Write{ID: id, Replaces: had, OldFingerprint: old.fp, OldKeys: old.keys}
			if had && r.IntN(4) == 0 {
				delete(docs, id) // a delete
			} else {
				fp := simhash.Fingerprint(r.Uint64())
				w.Fingerprint, w.Keys = fp, randKeys(fp)
				w.Record = testRecord(t, id, fp)
				docs[id] = doc{fp, w.Keys}
			}
			b.Writes = append(b.Writes, w)
			if slices.ContainsFunc(b.Writes[:len(b.Writes)-1], func(o index.Write) bool { return o.ID == id }) {
				b.Writes = b.Writes[:len(b.Writes)-1] // one write of an ID a batch, so OldKeys are right
				docs[id] = old
				if !had {
					delete(docs, id)
				}
			}
		}
		if err := s.Apply(ctx, &b); err != nil {
			t.Fatal(err)
		}
		compare(fmt.Sprintf("step %d", step))
		if step%20 == 19 {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if s, err = Open(dir, opts); err != nil {
				t.Fatal(err)
			}
			tune()
			compare(fmt.Sprintf("reopened after step %d", step))
		}
	}
	if len(docs) == 0 {
		t.Fatal("no documents left to compare")
	}
}

// testRecord is a record of id with fingerprint fp, with a confirmation
// sketch (so that a lean store keeps band digests).
func testRecord(t *testing.T, id string, fp simhash.Fingerprint) []byte {
	t.Helper()
	d := index.Doc{ID: id, Fingerprint: fp, ContentHash: uint64(fp) >> 7, Shingles: 50}
	for i := range d.Sketch {
		d.Sketch[i] = uint16(uint64(fp) >> (i % 48))
	}
	for i := range d.Long {
		d.Long[i] = byte(i)
	}
	return wholeRecord(t, d)
}

// RecordsByNum reads the record of each number postings carry, nothing
// for a number retired (a lean document replaced) or never handed out;
// Nums gives the numbers back by ID. With and without the postings in
// memory.
func TestRecordsByNum(t *testing.T) {
	for _, mem := range []bool{false, true} {
		t.Run(fmt.Sprintf("mem=%v", mem), func(t *testing.T) {
			ctx := t.Context()
			s, err := Open(filepath.Join(t.TempDir(), "idx"), &Options{MemPostings: mem, Lean: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			key := index.Key{Kind: index.KindContent, Value: 9}
			add := func(id string, fp simhash.Fingerprint, replaces bool) []byte {
				rec := testRecord(t, id, fp)
				w := index.Write{ID: id, Record: rec, Fingerprint: fp, Keys: []index.Key{key}, Replaces: replaces}
				if replaces {
					w.OldKeys = []index.Key{key}
				}
				if err := s.Apply(ctx, &index.Batch{Writes: []index.Write{w}}); err != nil {
					t.Fatal(err)
				}
				return rec
			}
			add("a", 1, false)
			recB := add("b", 2, false)
			recA := add("a", 3, true) // lean: a gets number 3, 1 is retired
			ps, err := s.Postings(ctx, []index.Key{key})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range ps[0] {
				got = append(got, fmt.Sprintf("%s/%d", p.ID, p.Num))
			}
			slices.Sort(got)
			if want := []string{"a/3", "b/2"}; !slices.Equal(got, want) {
				t.Errorf("postings %q, want %q", got, want)
			}
			recs, err := s.RecordsByNum(ctx, []uint64{3, 1, 2, 4, 0})
			if err != nil {
				t.Fatal(err)
			}
			lean := func(rec []byte, id string) []byte {
				b, err := index.BatchRecord(nil, rec, id)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			want := [][]byte{lean(recA, "a"), nil, lean(recB, "b"), nil, nil}
			if !slices.EqualFunc(recs, want, func(a, b []byte) bool { return string(a) == string(b) && (a == nil) == (b == nil) }) {
				t.Errorf("RecordsByNum(3, 1, 2, 4, 0): %d, %d, %d, %d, %d bytes; want %d, nil, %d, nil, nil", len(recs[0]), len(recs[1]), len(recs[2]), len(recs[3]), len(recs[4]), len(want[0]), len(want[2]))
			}
			if m := s.mem.Load(); m != nil {
				// A record the copy does not hold (longer than
				// memMaxLen) is read from Badger; one it holds is not.
				m.recs.drop(2)
				m.recs.set(3, []byte("held"))
				recs, err := s.RecordsByNum(ctx, []uint64{2, 3})
				if err != nil {
					t.Fatal(err)
				}
				if string(recs[0]) != string(want[2]) || string(recs[1]) != "held" {
					t.Errorf("RecordsByNum(2, 3) with 2's record not held and 3's changed in memory: %d bytes and %q; want %d bytes and \"held\"", len(recs[0]), recs[1], len(want[2]))
				}
			}
			nums, err := s.Nums(ctx, []string{"b", "a", "c"})
			if err != nil {
				t.Fatal(err)
			}
			if want := []uint64{2, 3, 0}; !slices.Equal(nums, want) {
				t.Errorf("Nums(b, a, c) = %v, want %v", nums, want)
			}
		})
	}
}

// A store written before numbered postings keeps no postings in
// memory: it reads them from Badger, as before.
func TestMemPostingsOldArchive(t *testing.T) {
	x, s := openDir(t, oldStore(t), &Options{MemPostings: true}, &index.Options{Blocks: 5, MaxDistance: 3, AnalyzerID: "old/v1"})
	if s.mem.Load() != nil {
		t.Fatal("an archive of postings by ID keeps its postings in memory")
	}
	docs := oldArchiveDocs()
	for _, d := range docs {
		ms, err := x.Near(t.Context(), d.Fingerprint, 0)
		if err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == d.ID }) {
			t.Errorf("Near(%s) = %v, %v", d.ID, ms, err)
		}
	}
	nums, err := s.Nums(t.Context(), []string{docs[0].ID})
	if err != nil || nums[0] != 0 {
		t.Errorf("Nums of an archive by ID = %v, %v; want 0", nums, err)
	}
}

// checkMemFilters fails unless the filters rebuilt from the memory copy
// (rebuildFromMem) are those rebuilt from Badger, and the document count
// the same.
func checkMemFilters(t *testing.T, s *Store, step string) {
	t.Helper()
	m := s.mem.Load()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if !s.rebuildFromMem(m, 0) {
		t.Fatalf("%s: the filters were not rebuilt from memory", step)
	}
	bloom, ids, bands, docs := s.bloom, s.ids, s.bands, s.docs.Load()
	s.mem.Store(nil) // rebuildBloom reads Badger without a copy
	err := s.rebuildBloom(0)
	s.mem.Store(m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(bloom, s.bloom) {
		t.Errorf("%s: content filter from memory differs from Badger's (%d and %d counters)", step, bloom.m, s.bloom.m)
	}
	if !reflect.DeepEqual(ids, s.ids) {
		t.Errorf("%s: ID filter from memory differs from Badger's", step)
	}
	if !reflect.DeepEqual(bands, s.bands) {
		t.Errorf("%s: band filter from memory differs from Badger's", step)
	}
	if docs != s.docs.Load() {
		t.Errorf("%s: %d documents counted from memory, %d from Badger", step, docs, s.docs.Load())
	}
}

// An Apply that outgrows the filters while its first transactions are
// in flight, not yet in the memory copy, rebuilds them from the copy
// and those transactions' writes: every document written is in them
// afterwards (it fails when the writes in flight are left out), and
// they are the filters Badger's keys give.
func TestRebuildFromMemInFlight(t *testing.T) {
	ctx := t.Context()
	s, err := Open(filepath.Join(t.TempDir(), "idx"), &Options{MemPostings: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Claim(ctx, map[string][]byte{index.MetaFormat: {1}}); err != nil {
		t.Fatal(err)
	}
	const n = 2*txnDocs + 5000 // three transactions: the third outgrows the filters
	var b index.Batch
	for i := range n {
		fp := simhash.Fingerprint(uint64(i) * 0x9e3779b97f4a7c15)
		b.Writes = append(b.Writes, index.Write{
			ID: fmt.Sprintf("d%d", i), Fingerprint: fp, Record: []byte{1},
			Keys: []index.Key{
				{Kind: index.KindTable, Table: 0, Bits: 16, Value: uint64(fp >> 48)},
				{Kind: index.KindBand, Table: uint8(i % 16), Value: uint64(i) << 16},
				{Kind: index.KindContent, Value: uint64(fp)},
			},
		})
	}
	before := s.rebuilds.Load()
	if err := s.Apply(ctx, &b); err != nil {
		t.Fatal(err)
	}
	if got := s.rebuilds.Load() - before; got != 2 {
		t.Fatalf("%d rebuilds of the filters during the Apply, want 2 (at the first and the third transaction)", got)
	}
	if s.docs.Load() != n {
		t.Fatalf("%d documents counted, want %d", s.docs.Load(), n)
	}
	var prefix []byte
	for i, w := range b.Writes {
		prefix = appendPrefix(prefix[:0], w.Keys[1])
		if !s.mayContain(w.Keys[2].Value) || !s.ids.mayContain(xxhash.Sum64String(w.ID)) || !s.bandMayContain(prefix) {
			t.Fatalf("document %d (%s) is missing from the filters", i, w.ID)
		}
	}
	checkMemFilters(t, s, "after the Apply")
}

// An addTable answers as a model of its postings after random adds and
// removes, across its growth and with values that share home slots,
// and keeps each table posting's fingerprint with it through the moves
// its removals make.
func TestAddTable(t *testing.T) {
	for _, table := range []bool{true, false} {
		var at addTable
		type post struct {
			val uint64
			num uint32
		}
		model := map[post]uint64{} // posting → fingerprint
		r := rand.New(rand.NewPCG(1, 2))
		vals := []uint64{0, 1, 2, 1 << 48, 0xbeef << 48, ^uint64(0)}
		for i := 0; i < 200; i++ {
			vals = append(vals, r.Uint64())
		}
		for step := 0; step < 20000; step++ {
			val := vals[r.IntN(len(vals))]
			num := uint32(1 + r.IntN(50))
			p := post{val, num}
			if _, ok := model[p]; ok || r.IntN(3) == 0 {
				if got := at.remove(val, num); got != ok {
					t.Fatalf("table %v, step %d: remove(%x, %d) = %v, want %v", table, step, val, num, got, ok)
				}
				delete(model, p)
				continue
			}
			fp := r.Uint64()
			at.add(val, fp, num, table)
			model[p] = fp
		}
		if at.n != len(model) {
			t.Errorf("table %v: %d postings, model %d", table, at.n, len(model))
		}
		for _, val := range vals {
			got := map[uint32]uint64{}
			at.each(val, func(i int) {
				var fp uint64
				if table {
					fp = at.fps[i]
				}
				got[at.slots[i].num] = fp
			})
			want := map[uint32]uint64{}
			for p, fp := range model {
				if p.val == val {
					if !table {
						fp = 0
					}
					want[p.num] = fp
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("table %v: under %x: %v, want %v", table, val, got, want)
			}
		}
		ps := at.sorted()
		if len(ps) != len(model) || !slices.IsSortedFunc(ps, func(a, b memPost) int {
			if a.val != b.val {
				return cmp.Compare(a.val, b.val)
			}
			return cmp.Compare(a.num, b.num)
		}) {
			t.Errorf("table %v: sorted gave %d postings, in order: %v", table, len(ps), len(ps) == len(model))
		}
	}
}
