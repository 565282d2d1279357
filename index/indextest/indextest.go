// Package indextest is the conformance suite of index.Store: Run checks a
// store through an index.Index over it (adds, replaces, deletes, queries
// against brute force and literal answers, loads, concurrency, the
// archive's claimed options, passage postings) and through the Store methods directly
// (missing keys and records, postings without records, claims raced by
// several goroutines, closing); and, for a store that is an
// index.Shared, its methods and Index.Ingest (shared.go). Every store of this module passes it from
// its TestConformance; a new store should too.
//
// The suite keeps nothing between tests: each one opens the stores it
// needs, so it needs no reopen hook. What a store keeps across a close
// (persistence, crash recovery) is the store's own tests' business.
package indextest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// Opener returns a new, empty store for one test. Run closes it (through
// the Index over it, or directly), possibly more than once: a Close after
// the first may return an error, which Run ignores. Run's subtests call
// it concurrently.
type Opener func(t *testing.T) index.Store

// Run runs the suite on the stores open returns, one subtest a
// behaviour. The subtests run in parallel (each with stores of its own):
// a store on disk spends most of a test waiting for its syncs.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		f    func(*testing.T, Opener)
	}{
		{"NearAgainstBruteForce", testNearAgainstBruteForce},
		{"ReAddAndDelete", testReAddAndDelete},
		{"DeleteFound", testDeleteFound},
		{"GetRoundTrip", testGetRoundTrip},
		{"AddInvalidIDs", testAddInvalidIDs},
		{"DuplicateIDsInOneAdd", testDuplicateIDsInOneAdd},
		{"AddManyBatches", testAddManyBatches},
		{"Similar", testSimilar},
		{"SimilarSkipsMissingRecords", testSimilarSkipsMissingRecords},
		{"Bands", testBands},
		{"ExactProperty", testExactProperty},
		{"StatsDocs", testStatsDocs},
		{"Clusters", testClusters},
		{"Load", testLoad},
		{"LoadErrors", testLoadErrors},
		{"Concurrent", testConcurrent},
		{"Mismatch", testMismatch},
		{"Distance", testDistance},
		{"BadOptions", testBadOptions},
		{"Closed", testClosed},
		{"StoreMissing", testStoreMissing},
		{"StoreApply", testStoreApply},
		{"StoreClaim", testStoreClaim},
		{"StoreClaimRace", testStoreClaimRace},
		{"Passages", testPassages},
		{"PostingsNear", testPostingsNear},
	}
	// Every store decides with Ingest's protocol: a Shared store its
	// own way, any other through index.InProcess.
	tests = append(tests, sharedTests...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.f(t, open)
		})
	}
}

// newStore opens a store that the test's cleanup closes.
func newStore(t *testing.T, open Opener) index.Store {
	t.Helper()
	s := open(t)
	t.Cleanup(func() { s.Close() })
	return s
}

// newIndex opens an index with opts over a new store; the test's cleanup
// closes it.
func newIndex(t *testing.T, open Opener, opts *index.Options) *index.Index {
	t.Helper()
	x, err := index.New(t.Context(), open(t), opts)
	if err != nil {
		t.Fatalf("index.New(%+v): %v", opts, err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// Flip returns fp with n distinct random bits flipped.
func Flip(r *rand.Rand, fp simhash.Fingerprint, n int) simhash.Fingerprint {
	for _, b := range r.Perm(64)[:n] {
		fp ^= 1 << uint(b)
	}
	return fp
}

// IDs formats matches as "id@distance", in their order.
func IDs(ms []index.Match) []string {
	var ids []string
	for _, m := range ms {
		ids = append(ids, fmt.Sprintf("%s@%d", m.ID, m.Distance))
	}
	return ids
}

// SeqFingerprint is the fingerprint of document i of generation gen of
// SeqDocs: i times the 64-bit golden ratio, xor gen.
func SeqFingerprint(i int, gen uint64) simhash.Fingerprint {
	return simhash.Fingerprint(uint64(i)*0x9e3779b97f4a7c15 ^ gen)
}

// SeqDocs returns the documents from to to-1 of generation gen: IDs
// doc000000, doc000001 …, fingerprints SeqFingerprint(i, gen), content
// hashes i+gen. Later generations of the same IDs replace earlier ones
// with other fingerprints and hashes.
func SeqDocs(from, to int, gen uint64) []index.Doc {
	var docs []index.Doc
	for i := from; i < to; i++ {
		docs = append(docs, index.Doc{ID: fmt.Sprintf("doc%06d", i), Fingerprint: SeqFingerprint(i, gen), ContentHash: uint64(i) + gen})
	}
	return docs
}

// tableKey is the Key of table t of the default layout (4 blocks of 16
// bits, max distance 3: table t is block t) for fp.
func tableKey(t int, fp simhash.Fingerprint) index.Key {
	return index.Key{Kind: index.KindTable, Table: uint8(t), Bits: 16, Value: uint64(fp) >> (48 - 16*t) & 0xffff}
}

func contentKey(h uint64) index.Key { return index.Key{Kind: index.KindContent, Value: h} }

func bandKey(b int, v uint64) index.Key {
	return index.Key{Kind: index.KindBand, Table: uint8(b), Value: v}
}

// bruteNear is Near by comparing fp with every document.
func bruteNear(docs map[string]simhash.Fingerprint, fp simhash.Fingerprint, k int) []index.Match {
	var ms []index.Match
	for id, g := range docs {
		if d := fp.Distance(g); d <= k {
			ms = append(ms, index.Match{ID: id, Distance: d, Similarity: 1 - float64(d)/64})
		}
	}
	slices.SortFunc(ms, func(a, b index.Match) int {
		if a.Distance != b.Distance {
			return a.Distance - b.Distance
		}
		return strings.Compare(a.ID, b.ID)
	})
	return ms
}

// Near must agree exactly with brute force for every layout and query
// distance, on random fingerprints with neighbours planted at every
// distance from 0 to k+1, before and after deleting half of them.
func testNearAgainstBruteForce(t *testing.T, open Opener) {
	for _, lk := range [][2]int{{4, 3}, {5, 3}, {6, 3}, {4, 2}, {8, 6}, {2, 1}} {
		x := newIndex(t, open, &index.Options{Blocks: lk[0], MaxDistance: lk[1]})
		ctx := t.Context()
		r := rand.New(rand.NewPCG(uint64(lk[0]), uint64(lk[1])))
		docs := map[string]simhash.Fingerprint{}
		var batch []index.Doc
		add := func(fp simhash.Fingerprint) {
			id := fmt.Sprintf("d%05d", len(docs))
			docs[id] = fp
			batch = append(batch, index.Doc{ID: id, Fingerprint: fp, ContentHash: uint64(len(docs))})
		}
		for range 1000 {
			add(simhash.Fingerprint(r.Uint64()))
		}
		var queries []simhash.Fingerprint
		for range 20 {
			fp := simhash.Fingerprint(r.Uint64())
			queries = append(queries, fp)
			for d := 0; d <= lk[1]+1; d++ {
				add(Flip(r, fp, d))
				add(Flip(r, fp, d))
			}
		}
		r.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
		for len(batch) > 0 { // in several calls, so that stores grow in between
			n := min(len(batch), 300)
			if err := x.Add(ctx, batch[:n]...); err != nil {
				t.Fatal(err)
			}
			batch = batch[n:]
		}
		check := func(planted int) {
			t.Helper()
			for qi, fp := range queries {
				for k := 0; k <= lk[1]; k++ {
					got, err := x.Near(ctx, fp, k)
					if err != nil {
						t.Fatal(err)
					}
					want := bruteNear(docs, fp, k)
					if len(want) < planted*(k+1) {
						t.Fatalf("%v: query %d has %d neighbours within %d, planted %d", lk, qi, len(want), k, planted*(k+1))
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%v: Near(%v, %d) = %v, want %v", lk, fp, k, got, want)
					}
				}
			}
		}
		check(2)
		var del []string
		for id := range docs {
			if id[len(id)-1]%2 == 0 {
				del = append(del, id)
			}
		}
		if err := x.Delete(ctx, del...); err != nil {
			t.Fatal(err)
		}
		for _, id := range del {
			delete(docs, id)
		}
		check(0)
		for _, k := range []int{lk[1] + 1, -1} {
			if _, err := x.Near(ctx, 0, k); !errors.Is(err, index.ErrDistance) {
				t.Errorf("%v: Near(0, %d): error %v, want ErrDistance", lk, k, err)
			}
		}
	}
}

// postings reads the postings of keys from the store under x, each list
// sorted by ID and formatted as "id" (or "id/fingerprint" when the
// fingerprint is set).
func postings(t *testing.T, s index.Store, keys ...index.Key) [][]string {
	t.Helper()
	ps, err := s.Postings(t.Context(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(keys) {
		t.Fatalf("Postings of %d keys returned %d lists", len(keys), len(ps))
	}
	out := make([][]string, len(ps))
	for i, l := range ps {
		out[i] = []string{}
		for _, p := range l {
			if p.Fingerprint != 0 {
				out[i] = append(out[i], fmt.Sprintf("%s/%x", p.ID, uint64(p.Fingerprint)))
			} else {
				out[i] = append(out[i], p.ID)
			}
		}
		slices.Sort(out[i])
	}
	return out
}

// Re-adding an ID removes the old document's postings; deleting removes
// the rest; Delete of an unknown ID deletes nothing.
func testReAddAndDelete(t *testing.T, open Opener) {
	const fp1, fp2 = simhash.Fingerprint(0x1111222233334444), simhash.Fingerprint(0xeeeeddddccccbbbb)
	x := newIndex(t, open, nil)
	ctx := t.Context()
	if err := x.Add(ctx, index.Doc{ID: "a", Fingerprint: fp1, ContentHash: 1}, index.Doc{ID: "b", Fingerprint: fp1 ^ 1, ContentHash: 2}); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ctx, index.Doc{ID: "a", Fingerprint: fp2, ContentHash: 3, Title: "new"}); err != nil {
		t.Fatal(err)
	}
	checkNear := func(fp simhash.Fingerprint, want ...string) {
		t.Helper()
		ms, err := x.Near(ctx, fp, 3)
		if err != nil {
			t.Fatal(err)
		}
		if got := IDs(ms); !slices.Equal(got, want) {
			t.Errorf("Near(%v) = %v, want %v", fp, got, want)
		}
	}
	checkExact := func(h uint64, want ...string) {
		t.Helper()
		got, err := x.Exact(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Exact(%d) = %q, want %q", h, got, want)
		}
	}
	checkPostings := func(when string, want [][]string) {
		t.Helper()
		got := postings(t, x.Store(),
			tableKey(0, fp1), tableKey(3, fp1), tableKey(3, fp1^1), tableKey(0, fp2), tableKey(3, fp2),
			contentKey(1), contentKey(2), contentKey(3))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: postings %q, want %q", when, got, want)
		}
	}
	checkNear(fp1, "b@1")
	checkNear(fp2, "a@0")
	checkExact(1)
	checkExact(3, "a")
	checkPostings("after re-adding a", [][]string{
		{"b/1111222233334445"}, {}, {"b/1111222233334445"}, {"a/eeeeddddccccbbbb"}, {"a/eeeeddddccccbbbb"},
		{}, {"b"}, {"a"}})
	if d, err := x.Get(ctx, "a"); err != nil || d.Title != "new" || d.Fingerprint != fp2 {
		t.Errorf("Get(a) = %+v, %v", d, err)
	}
	if s, _ := x.Stats(ctx); s.Docs != 2 {
		t.Errorf("%d docs, want 2", s.Docs)
	}

	if err := x.Delete(ctx, "a", "a"); err != nil {
		t.Fatal(err)
	}
	checkNear(fp2)
	checkExact(3)
	if _, err := x.Get(ctx, "a"); !errors.Is(err, index.ErrNotFound) || !strings.HasSuffix(err.Error(), `: document "a": not found`) {
		t.Errorf("Get of deleted: %v", err)
	}
	err := x.Delete(ctx, "b", "nope", "nope2")
	if !errors.Is(err, index.ErrNotFound) || !strings.HasSuffix(err.Error(), `: delete "nope" and 1 more: not found`) {
		t.Errorf("Delete of unknown: %v", err)
	}
	err = x.Delete(ctx, "nope")
	if !errors.Is(err, index.ErrNotFound) || !strings.HasSuffix(err.Error(), `: delete "nope": not found`) {
		t.Errorf("Delete of one unknown: %v", err)
	}
	checkNear(fp1, "b@1") // nothing deleted
	if err := x.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if s, _ := x.Stats(ctx); s.Docs != 0 {
		t.Errorf("%d docs, want 0", s.Docs)
	}
	checkPostings("after deleting everything", [][]string{{}, {}, {}, {}, {}, {}, {}, {}})
	if recs, err := x.Store().Records(ctx, []string{"a", "b"}); err != nil || recs[0] != nil || recs[1] != nil {
		t.Errorf("records after deleting everything: %q, %v", recs, err)
	}
}

// testDeleteFound: DeleteFound deletes the IDs the index holds and
// names the others, each once and in the order given, with the count
// left; the deleted ones are gone from Get and Similar, and the count
// drops by them alone.
func testDeleteFound(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	docs := SeqDocs(0, 3, 0)
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		ids              []string
		deleted, missing []string
		docs             int64
	}{
		{[]string{"nope", "doc000002", "nope", "doc000000", "doc000002", "nope2"}, []string{"doc000002", "doc000000"}, []string{"nope", "nope2"}, 1},
		{[]string{"doc000000"}, []string{}, []string{"doc000000"}, 1},
		{nil, []string{}, []string{}, 1},
		{[]string{"doc000001"}, []string{"doc000001"}, []string{}, 0},
	} {
		got, err := x.DeleteFound(ctx, tt.ids...)
		if want := (index.Deletion{Deleted: tt.deleted, Missing: tt.missing, Docs: tt.docs}); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("DeleteFound(%q) = %+v, %v; want %+v", tt.ids, got, err, want)
		}
		if s, err := x.Stats(ctx); err != nil || s.Docs != tt.docs {
			t.Errorf("after DeleteFound(%q): %d docs, %v; want %d", tt.ids, s.Docs, err, tt.docs)
		}
	}
	for _, d := range docs {
		if _, err := x.Get(ctx, d.ID); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("Get(%s) after deleting it: %v; want ErrNotFound", d.ID, err)
		}
		if ms, err := x.Similar(ctx, &d, 3); err != nil || len(ms) != 0 {
			t.Errorf("Similar(%s) after deleting it: %v, %v; want nothing", d.ID, IDs(ms), err)
		}
	}
}

// Get returns every field as added, Added in UTC; a zero document comes
// back zero.
func testGetRoundTrip(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	var sketch minhash.Sketch
	for i := range sketch {
		sketch[i] = uint16(3*i + 1)
	}
	var long minhash.Long
	for i := range long {
		long[i] = uint8(5*i + 2)
	}
	full := index.Doc{ID: "标识/full", Fingerprint: 0xabc, ContentHash: 7, Title: "标题 T",
		Keywords: []tfidf.Keyword{{Word: "k", Weight: 2}, {Word: "新闻", Weight: 0.25}}, Sketch: sketch, Long: long, Shingles: 300,
		Added: time.Date(2025, 1, 2, 12, 4, 5, 6, time.FixedZone("UTC+9", 9*3600)), Job: "job-1", Seq: 1<<40 + 3,
		Text: "正文：新华社北京电，the kept text of the article."}
	if err := x.Add(ctx, full, index.Doc{ID: "zero"}); err != nil {
		t.Fatal(err)
	}
	want := full
	want.Added = time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	if got, err := x.Get(ctx, full.ID); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Get = %+v, %v\nwant %+v", got, err, want)
	}
	if got, err := x.Get(ctx, "zero"); err != nil || !reflect.DeepEqual(got, index.Doc{ID: "zero"}) {
		t.Errorf("Get(zero) = %+v, %v", got, err)
	}
}

func testAddInvalidIDs(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	long := strings.Repeat("x", index.MaxIDLen+1)
	for _, bad := range []string{"", long} {
		err := x.Add(ctx, index.Doc{ID: "fine"}, index.Doc{ID: bad})
		if !errors.Is(err, index.ErrID) || !strings.Contains(err.Error(), "document 1") {
			t.Errorf("Add(%.10q…): %v", bad, err)
		}
	}
	if err := x.Add(ctx, index.Doc{ID: strings.Repeat("y", index.MaxIDLen), Fingerprint: 9}); err != nil {
		t.Errorf("Add of a %d-byte ID: %v", index.MaxIDLen, err)
	}
	if s, _ := x.Stats(ctx); s.Docs != 1 {
		t.Errorf("%d docs, want 1", s.Docs)
	}
	if ms, err := x.Near(ctx, 9, 0); err != nil || len(ms) != 1 || len(ms[0].ID) != index.MaxIDLen {
		t.Errorf("Near of the longest ID: %d matches, %v", len(ms), err)
	}
}

func testDuplicateIDsInOneAdd(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	err := x.Add(ctx, index.Doc{ID: "a", Fingerprint: 1, ContentHash: 10}, index.Doc{ID: "b", Fingerprint: 2},
		index.Doc{ID: "a", Fingerprint: 0xff00, ContentHash: 20})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := x.Get(ctx, "a"); err != nil || d.Fingerprint != 0xff00 {
		t.Errorf("Get(a) = %v, %v", d.Fingerprint, err)
	}
	if ids, _ := x.Exact(ctx, 10); len(ids) != 0 {
		t.Errorf("Exact(10) = %q, want none", ids)
	}
	if ids, _ := x.Exact(ctx, 20); !slices.Equal(ids, []string{"a"}) {
		t.Errorf("Exact(20) = %q, want [a]", ids)
	}
	if ms, _ := x.Near(ctx, 1, 0); len(ms) != 0 {
		t.Errorf("Near(1) = %v, want none", ms)
	}
	if s, _ := x.Stats(ctx); s.Docs != 2 {
		t.Errorf("%d docs, want 2", s.Docs)
	}
}

// An Add of more documents than one Batch holds (10,000), re-adding IDs
// of an earlier Add and repeating one, leaves one set of postings per
// document.
func testAddManyBatches(t *testing.T, open Opener) {
	if testing.Short() {
		t.Skip("adds 22,000 documents")
	}
	x := newIndex(t, open, nil)
	ctx := t.Context()
	fp, mk := SeqFingerprint, SeqDocs
	if err := x.Add(ctx, mk(0, 6000, 0)...); err != nil {
		t.Fatal(err)
	}
	// 4000 re-added with new fingerprints, 8000 new (12000 in all, two
	// batches), one ID three times.
	batch := append(mk(2000, 14000, 1<<40), mk(13999, 14000, 2<<40)...)
	batch = append(mk(13999, 14000, 3<<40), batch...)
	if err := x.Add(ctx, batch...); err != nil {
		t.Fatal(err)
	}
	if s, _ := x.Stats(ctx); s.Docs != 14000 {
		t.Errorf("Stats: %d docs, want 14000", s.Docs)
	}
	for i, gen := range map[int]uint64{0: 0, 1999: 0, 2000: 1 << 40, 5999: 1 << 40, 6000: 1 << 40, 13998: 1 << 40, 13999: 2 << 40} {
		id := fmt.Sprintf("doc%06d", i)
		d, err := x.Get(ctx, id)
		if err != nil || d.Fingerprint != fp(i, gen) {
			t.Errorf("Get(%s) = %v, %v; want %v", id, d.Fingerprint, err, fp(i, gen))
		}
		ms, err := x.Near(ctx, fp(i, gen), 0)
		if err != nil || len(ms) != 1 || ms[0].ID != id {
			t.Errorf("Near(%v, 0) = %v, %v; want %s only", fp(i, gen), ms, err, id)
		}
		if gen != 0 {
			if ms, err := x.Near(ctx, fp(i, 0), 0); err != nil || len(ms) != 0 {
				t.Errorf("Near of the replaced fingerprint of %s = %v, %v; want none", id, ms, err)
			}
		}
	}
}

// Documents similar in content to "a": an exact copy, a light edit, an
// unrelated text whose fingerprint happens to be close, a document
// without a sketch, and a copy whose fingerprint is far (found through the
// MinHash bands, not the SimHash tables).
func testSimilar(t *testing.T, open Opener) {
	base := "the committee approved the budget for the new library on tuesday after a long debate about costs"
	edit := "the committee approved the budget for the new library on wednesday after a long debate about costs"
	other := "heavy rain flooded the valley roads and the river rose above the old stone bridge overnight"
	const fp = simhash.Fingerprint(0xf0f0f0f0f0f0f0f0)
	docs := []index.Doc{
		{ID: "a", Fingerprint: fp, ContentHash: 100, Title: "A", Sketch: minhash.New(base)},
		{ID: "copy", Fingerprint: fp, ContentHash: 100, Title: "Copy", Sketch: minhash.New(base), Job: "j", Seq: 4},
		{ID: "edit", Fingerprint: fp ^ 0x3, ContentHash: 101, Title: "Edit", Sketch: minhash.New(edit),
			Keywords: []tfidf.Keyword{{Word: "budget", Weight: 1}}},
		{ID: "other", Fingerprint: fp ^ 0x1, ContentHash: 102, Title: "Other", Sketch: minhash.New(other)},
		{ID: "nosketch", Fingerprint: fp ^ 0x1, ContentHash: 103, Title: "No sketch"},
		{ID: "far", Fingerprint: ^fp, ContentHash: 104, Sketch: minhash.New(base)},
	}
	// The sketches of base and edit agree on 57 of 64 values; base and
	// other on 2.
	const editJ = 57.0 / 64
	copyM := index.Match{ID: "copy", Title: "Copy", Distance: 0, Similarity: 1, Content: 1, Containment: 1, Exact: true, Job: "j", Seq: 4}
	aM := index.Match{ID: "a", Title: "A", Distance: 0, Similarity: 1, Content: 1, Containment: 1, Exact: true}
	nosketchM := index.Match{ID: "nosketch", Title: "No sketch", Distance: 1, Similarity: 63.0 / 64, Unverified: true}
	editM := index.Match{ID: "edit", Title: "Edit", Distance: 2, Similarity: 62.0 / 64, Content: editJ, Keywords: []tfidf.Keyword{{Word: "budget", Weight: 1}}}
	farM := index.Match{ID: "far", Distance: 64, Similarity: 0, Content: 1}
	unindexed := docs[0]
	unindexed.ID = ""
	bare := index.Doc{ID: "q", Fingerprint: fp, ContentHash: 100} // no sketch: nothing is confirmed
	tests := []struct {
		minContent float64
		q          *index.Doc
		k          int
		want       []index.Match
	}{
		{0.5, &docs[0], 3, []index.Match{copyM, nosketchM, editM, farM}},
		{0.9, &docs[0], 3, []index.Match{copyM, nosketchM, farM}}, // the edit falls short
		{1, &docs[0], 3, []index.Match{copyM, nosketchM, farM}},
		{0.5, &docs[0], 0, []index.Match{copyM, editM, farM}}, // the edit through its bands
		{0.5, &unindexed, 0, []index.Match{aM, copyM, editM, farM}},
		{0.5, &bare, 3, []index.Match{aM, copyM,
			{ID: "nosketch", Title: "No sketch", Distance: 1, Similarity: 63.0 / 64, Unverified: true},
			{ID: "other", Title: "Other", Distance: 1, Similarity: 63.0 / 64, Unverified: true},
			{ID: "edit", Title: "Edit", Distance: 2, Similarity: 62.0 / 64, Unverified: true, Keywords: []tfidf.Keyword{{Word: "budget", Weight: 1}}}}},
		{0.5, &index.Doc{ID: "none", Fingerprint: 0x0f0f, ContentHash: 1}, 3, nil},
	}
	xs := map[float64]*index.Index{}
	for _, tt := range tests {
		x := xs[tt.minContent]
		if x == nil {
			x = newIndex(t, open, &index.Options{MinContent: tt.minContent})
			if err := x.Add(t.Context(), docs...); err != nil {
				t.Fatal(err)
			}
			xs[tt.minContent] = x
		}
		got, err := x.Similar(t.Context(), tt.q, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("MinContent %v: Similar(%q, %d) =\n%+v\nwant\n%+v", tt.minContent, tt.q.ID, tt.k, got, tt.want)
		}
	}
	for _, k := range []int{4, -1} {
		if _, err := xs[0.5].Similar(t.Context(), &docs[0], k); !errors.Is(err, index.ErrDistance) {
			t.Errorf("Similar at distance %d: %v, want ErrDistance", k, err)
		}
	}
}

// A posting whose record is missing (a write of keys without a record,
// as a store shared by several writers may show for a moment) is
// skipped by Similar, which reads the records. A store may keep such
// postings (then Near and Exact, which read postings only, return them)
// or drop them (a store whose postings point to records, as redisstore's
// do, cannot keep one), but it does the same for all of a write's keys.
func testSimilarSkipsMissingRecords(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	const fp = simhash.Fingerprint(0x1111222233334444)
	var sketch minhash.Sketch
	for i := range sketch {
		sketch[i] = uint16(i)
	}
	// Band b of sketch holds the values 4b … 4b+3.
	keys := []index.Key{tableKey(0, fp), tableKey(1, fp), tableKey(2, fp), tableKey(3, fp), contentKey(77)}
	for b := range index.Bands {
		v := uint64(4*b)<<48 | uint64(4*b+1)<<32 | uint64(4*b+2)<<16 | uint64(4*b+3)
		keys = append(keys, bandKey(b, v))
	}
	if err := x.Store().Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "ghost", Fingerprint: fp, Keys: keys}}}); err != nil {
		t.Fatal(err)
	}
	got := postings(t, x.Store(), keys...)
	kept := len(got[0]) > 0
	for i, k := range keys {
		want := []string{}
		if kept {
			want = []string{"ghost"}
			if k.Kind == index.KindTable {
				want = []string{"ghost/1111222233334444"}
			}
		}
		if !slices.Equal(got[i], want) {
			t.Errorf("postings of %v: %q, want %q (the store kept the first key's: %t)", k, got[i], want, kept)
		}
	}
	if err := x.Add(ctx, index.Doc{ID: "real", Fingerprint: fp ^ 1, ContentHash: 77}); err != nil {
		t.Fatal(err)
	}
	q := index.Doc{ID: "q", Fingerprint: fp, ContentHash: 77, Sketch: sketch}
	ms, err := x.Similar(ctx, &q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := IDs(ms); !slices.Equal(got, []string{"real@1"}) || !ms[0].Exact {
		t.Errorf("Similar = %+v, want real@1 (exact) only", ms)
	}
	wantNear, wantExact := []string{"real@1"}, []string{"real"}
	if kept {
		wantNear, wantExact = []string{"ghost@0", "real@1"}, []string{"ghost", "real"}
	}
	if ms, err := x.Near(ctx, fp, 3); err != nil || !slices.Equal(IDs(ms), wantNear) {
		t.Errorf("Near = %v, %v; want %v", IDs(ms), err, wantNear)
	}
	if ids, err := x.Exact(ctx, 77); err != nil || !slices.Equal(ids, wantExact) {
		t.Errorf("Exact = %q, %v; want %q", ids, err, wantExact)
	}
	if _, err := x.Get(ctx, "ghost"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("Get(ghost): %v, want ErrNotFound", err)
	}
	if s, err := x.Stats(ctx); err != nil || s.Docs != 1 {
		t.Errorf("Stats: %d docs, %v; want 1 (a posting is no document)", s.Docs, err)
	}
}

// The MinHash band path: a document whose fingerprint is far from the
// query's but whose content is close is found, one sharing no band is
// not, and re-adding and deleting remove the old band postings.
func testBands(t *testing.T, open Opener) {
	base := "the committee approved the budget for the new library on tuesday after a long debate about costs and staffing"
	edit := "the committee approved the budget for the new library on friday after a long debate about costs and staffing"
	other := "heavy rain flooded the valley roads and the river rose above the old stone bridge overnight, officials said"
	q := index.Doc{ID: "q", Fingerprint: 0, ContentHash: 1, Sketch: minhash.New(base)}
	x := newIndex(t, open, nil)
	ctx := t.Context()
	similar := func(when string, want ...string) {
		t.Helper()
		got, err := x.Similar(ctx, &q, 3)
		if err != nil {
			t.Fatal(err)
		}
		if ids := IDs(got); !slices.Equal(ids, want) {
			t.Errorf("%s: Similar = %v, want %v", when, ids, want)
		}
	}
	if err := x.Add(ctx, index.Doc{ID: "edit", Fingerprint: ^simhash.Fingerprint(0), ContentHash: 2, Sketch: minhash.New(edit)},
		index.Doc{ID: "other", Fingerprint: ^simhash.Fingerprint(0), ContentHash: 3, Sketch: minhash.New(other)}); err != nil {
		t.Fatal(err)
	}
	similar("after adding", "edit@64")
	// Re-adding "edit" with unrelated content drops its old bands.
	if err := x.Add(ctx, index.Doc{ID: "edit", Fingerprint: ^simhash.Fingerprint(0), ContentHash: 2, Sketch: minhash.New(other + " again")}); err != nil {
		t.Fatal(err)
	}
	similar("after re-adding")
	if err := x.Add(ctx, index.Doc{ID: "edit2", Fingerprint: ^simhash.Fingerprint(0), ContentHash: 4, Sketch: minhash.New(edit)}); err != nil {
		t.Fatal(err)
	}
	similar("after adding edit2", "edit2@64")
	if err := x.Delete(ctx, "edit2"); err != nil {
		t.Fatal(err)
	}
	similar("after deleting edit2")
}

// Random adds, re-adds and deletes, with many shared content hashes and
// a few very common ones: Exact always agrees with a model.
func testExactProperty(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	r := rand.New(rand.NewPCG(5, 6))
	model := map[string]uint64{} // id → content hash
	for round := range 30 {
		var batch []index.Doc
		for range 100 {
			id := fmt.Sprintf("d%04d", r.IntN(3000))
			h := uint64(r.IntN(400))
			if r.IntN(4) == 0 {
				h = uint64(r.IntN(3)) // boilerplate: hundreds of documents share these
			}
			batch = append(batch, index.Doc{ID: id, ContentHash: h, Fingerprint: simhash.Fingerprint(r.Uint64())})
			model[id] = h
		}
		if err := x.Add(ctx, batch...); err != nil {
			t.Fatal(err)
		}
		var del []string
		for id := range model {
			if r.IntN(4) == 0 {
				del = append(del, id)
			}
		}
		if err := x.Delete(ctx, del...); err != nil {
			t.Fatal(err)
		}
		for _, id := range del {
			delete(model, id)
		}
		want := map[uint64][]string{}
		for id, h := range model {
			want[h] = append(want[h], id)
		}
		for h := range uint64(401) {
			w := want[h]
			slices.Sort(w)
			got, err := x.Exact(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, w) {
				t.Fatalf("round %d: Exact(%d) = %q, want %q", round, h, got, w)
			}
		}
	}
	if s, _ := x.Stats(ctx); s.Docs != int64(len(model)) {
		t.Errorf("Stats: %d docs, %d in the model", s.Docs, len(model))
	}
}

// Stats.Docs counts documents: new IDs, not replaced ones, minus deletes.
func testStatsDocs(t *testing.T, open Opener) {
	x := newIndex(t, open, &index.Options{Blocks: 5, MaxDistance: 2, AnalyzerID: "an/1"})
	ctx := t.Context()
	d := func(id string) index.Doc { return index.Doc{ID: id, Fingerprint: simhash.Fingerprint(len(id))} }
	steps := []struct {
		add  []index.Doc
		del  []string
		docs int64
	}{
		{add: []index.Doc{d("a"), d("b"), d("c")}, docs: 3},
		{add: []index.Doc{d("a")}, docs: 3},
		{add: []index.Doc{d("b"), d("d"), d("d")}, docs: 4},
		{del: []string{"a", "d", "a"}, docs: 2},
		{add: []index.Doc{d("a")}, docs: 3},
		{del: []string{"a", "b", "c"}, docs: 0},
	}
	for i, st := range steps {
		if st.add != nil {
			if err := x.Add(ctx, st.add...); err != nil {
				t.Fatal(err)
			}
		}
		if st.del != nil {
			if err := x.Delete(ctx, st.del...); err != nil {
				t.Fatal(err)
			}
		}
		s, err := x.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Docs != st.docs {
			t.Errorf("step %d: %d docs, want %d", i, s.Docs, st.docs)
		}
		if s.Blocks != 5 || s.MaxDistance != 2 || s.Tables != 10 || s.AnalyzerID != "an/1" || s.FormatVersion != 1 {
			t.Errorf("step %d: Stats %+v", i, s)
		}
	}
}

// RandomDocs returns n documents with random fingerprints, content
// hashes below 50, a third with titles, keywords and sketches, and every
// tenth ID a repeat of an earlier one (the later document wins).
func RandomDocs(r *rand.Rand, n int) []index.Doc {
	var docs []index.Doc
	for i := range n {
		id := fmt.Sprintf("doc%05d", i)
		if i%10 == 9 {
			id = fmt.Sprintf("doc%05d", r.IntN(i))
		}
		d := index.Doc{ID: id, Fingerprint: simhash.Fingerprint(r.Uint64()), ContentHash: r.Uint64() % 50,
			Added: time.Unix(1.7e9+int64(i), 0).UTC(), Seq: int64(i)}
		if i%3 == 0 {
			d.Title = "title " + id
			d.Keywords = []tfidf.Keyword{{Word: "w" + id, Weight: 1.5}}
			for k := range d.Sketch {
				d.Sketch[k] = uint16(r.Uint32()) | 1
			}
		}
		docs = append(docs, d)
	}
	return docs
}

// Load fills an empty index (the last of repeated IDs winning), after
// which the index answers as a model says, refuses a second Load, and
// takes Adds.
func testLoad(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	docs := RandomDocs(rand.New(rand.NewPCG(5, 6)), 3000)
	model := map[string]index.Doc{}
	for _, d := range docs {
		model[d.ID] = d
	}
	n, err := x.Load(ctx, slices.Values(docs))
	if err != nil || n != len(model) {
		t.Fatalf("Load = %d, %v; want %d distinct documents", n, err, len(model))
	}
	if s, _ := x.Stats(ctx); s.Docs != int64(len(model)) {
		t.Errorf("Stats: %d docs, want %d", s.Docs, len(model))
	}
	byHash := map[uint64][]string{}
	for id, d := range model {
		got, err := x.Get(ctx, id)
		if err != nil || !reflect.DeepEqual(got, d) {
			t.Fatalf("Get(%s) = %+v, %v; want %+v", id, got, err, d)
		}
		ms, err := x.Near(ctx, d.Fingerprint, 0)
		if err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == id }) {
			t.Fatalf("Near(%v, 0) = %v, %v; want %s among them", d.Fingerprint, IDs(ms), err, id)
		}
		byHash[d.ContentHash] = append(byHash[d.ContentHash], id)
	}
	for h := range uint64(50) {
		want := byHash[h]
		slices.Sort(want)
		if got, err := x.Exact(ctx, h); err != nil || !slices.Equal(got, want) {
			t.Errorf("Exact(%d) = %d ids, %v; want %d", h, len(got), err, len(want))
		}
	}
	// A document with a sketch finds itself through the bands only when
	// its ID differs: the first doc (doc00000) has a sketch.
	q := model["doc00000"]
	q.ID, q.Fingerprint = "query", ^q.Fingerprint
	if ms, err := x.Similar(ctx, &q, 3); err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == "doc00000" && m.Content == 1 }) {
		t.Errorf("Similar by the sketch of doc00000 = %v, %v", IDs(ms), err)
	}
	if n, err := x.Load(ctx, slices.Values(docs[:1])); !errors.Is(err, index.ErrNotEmpty) || n != 0 {
		t.Errorf("second Load = %d, %v; want ErrNotEmpty", n, err)
	}
	if err := x.Add(ctx, docs[:100]...); err != nil {
		t.Fatal(err)
	}
	if s, _ := x.Stats(ctx); s.Docs != int64(len(model)) {
		t.Errorf("Stats after re-adding: %d docs, want %d", s.Docs, len(model))
	}
}

func testLoadErrors(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	if n, err := x.Load(ctx, slices.Values([]index.Doc(nil))); n != 0 || err != nil {
		t.Errorf("Load of nothing = %d, %v", n, err)
	}
	n, err := x.Load(ctx, slices.Values([]index.Doc{{ID: "a"}, {ID: ""}, {ID: "b"}}))
	if !errors.Is(err, index.ErrID) || !strings.Contains(err.Error(), "document 1") || n != 0 {
		t.Errorf("Load with an empty ID = %d, %v", n, err)
	}
	if s, _ := x.Stats(ctx); s.Docs != 0 {
		t.Errorf("%d docs after a failed Load, want 0", s.Docs)
	}
	if n, err := x.Load(ctx, slices.Values([]index.Doc{{ID: "a", Fingerprint: 3}})); n != 1 || err != nil {
		t.Errorf("Load after the failed ones = %d, %v", n, err)
	}
	if ms, err := x.Near(ctx, 3, 0); err != nil || !slices.Equal(IDs(ms), []string{"a@0"}) {
		t.Errorf("Near after Load = %v, %v", IDs(ms), err)
	}
	x.Close()
	if _, err := x.Load(ctx, slices.Values([]index.Doc{{ID: "a"}})); !errors.Is(err, index.ErrClosed) {
		t.Errorf("Load after Close: %v", err)
	}
}

// Concurrent Add, Delete, Near, Similar, Exact and Stats, for the race
// detector; each writer owns its IDs, so the final state is known.
func testConcurrent(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 3 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 9))
			for i := range 60 {
				id := fmt.Sprintf("w%d-%03d", w, i)
				if err := x.Add(ctx, index.Doc{ID: id, Fingerprint: simhash.Fingerprint(i), ContentHash: uint64(i % 7)}); err != nil {
					errs <- err
					return
				}
				if i%3 == 0 {
					if err := x.Delete(ctx, id); err != nil {
						errs <- err
						return
					}
				}
				if _, err := x.Near(ctx, simhash.Fingerprint(r.Uint64()), 3); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for i := range 60 {
				d := index.Doc{Fingerprint: simhash.Fingerprint(i), ContentHash: uint64(i % 7)}
				if _, err := x.Similar(ctx, &d, 3); err != nil {
					errs <- err
					return
				}
				if _, err := x.Exact(ctx, uint64(i)); err != nil {
					errs <- err
					return
				}
				if _, err := x.Get(ctx, fmt.Sprintf("w0-%03d", i)); err != nil && !errors.Is(err, index.ErrNotFound) {
					errs <- err
					return
				}
				if _, err := x.Stats(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if s, _ := x.Stats(ctx); s.Docs != 3*40 {
		t.Errorf("%d docs, want 120", s.Docs)
	}
	ms, _ := x.Near(ctx, 5, 0)
	if ids := IDs(ms); !slices.Equal(ids, []string{"w0-005@0", "w1-005@0", "w2-005@0"}) {
		t.Errorf("Near(5, 0) = %v", ids)
	}
	// i%7 == 3 and i%3 != 0 for i < 60: 10 17 31 38 52 59, for each writer.
	if ids, _ := x.Exact(ctx, 3); len(ids) != 3*6 {
		t.Errorf("Exact(3) = %q", ids)
	}
}

// A second index.New on the same store finds the options the first one
// claimed: options that agree (or are left zero) share the archive;
// others get ErrMismatch, and the failed New closes the store.
func testMismatch(t *testing.T, open Opener) {
	ctx := t.Context()
	created := func(t *testing.T, opts *index.Options) (index.Store, *index.Index) {
		t.Helper()
		s := open(t)
		x, err := index.New(ctx, s, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		if err := x.Add(ctx, index.Doc{ID: "d", Fingerprint: 0xf00f}); err != nil {
			t.Fatal(err)
		}
		return s, x
	}
	a1 := &index.Options{Blocks: 4, MaxDistance: 3, AnalyzerID: "a1"}
	refused := []struct {
		created, opts *index.Options
		want          string
	}{
		{a1, &index.Options{Blocks: 5}, "the index has 4 blocks, max distance 3; the options ask for 5 blocks, max distance 3"},
		{a1, &index.Options{MaxDistance: 2}, "the index has 4 blocks, max distance 3; the options ask for 4 blocks, max distance 2"},
		{a1, &index.Options{Blocks: 6, MaxDistance: 2, AnalyzerID: "a1"}, "the index has 4 blocks, max distance 3; the options ask for 6 blocks, max distance 2"},
		{a1, &index.Options{AnalyzerID: "a2"}, `the index was built with analyzer "a1"; the options ask for "a2"`},
		{nil, &index.Options{AnalyzerID: "a2"}, `the index was built with analyzer ""; the options ask for "a2"`},
		{&index.Options{Blocks: 5, MaxDistance: 3}, &index.Options{MaxDistance: 2}, "the index has 5 blocks, max distance 3; the options ask for 5 blocks, max distance 2"},
	}
	for _, tt := range refused {
		s, x := created(t, tt.created)
		_, err := index.New(ctx, s, tt.opts)
		if !errors.Is(err, index.ErrMismatch) || !strings.HasSuffix(err.Error(), ": "+tt.want) {
			t.Errorf("created with %+v, New(%+v): %v, want ErrMismatch ending %q", tt.created, tt.opts, err, tt.want)
		}
		if _, err := x.Get(ctx, "d"); !errors.Is(err, index.ErrClosed) {
			t.Errorf("created with %+v, after a refused New(%+v): Get: %v, want ErrClosed (the store closed)", tt.created, tt.opts, err)
		}
	}
	accepted := []struct {
		created, opts           *index.Options
		blocks, maxDist, tables int
		analyzer                string
	}{
		{a1, nil, 4, 3, 4, "a1"},
		{a1, &index.Options{Blocks: 4, MaxDistance: 3, AnalyzerID: "a1"}, 4, 3, 4, "a1"},
		{a1, &index.Options{Blocks: 4}, 4, 3, 4, "a1"},
		{a1, &index.Options{MaxDistance: 3, MinContent: 0.9}, 4, 3, 4, "a1"},
		{&index.Options{Blocks: 5, MaxDistance: 3}, nil, 5, 3, 10, ""},
		{&index.Options{Blocks: 5, MaxDistance: 3}, &index.Options{Blocks: 5, AnalyzerID: ""}, 5, 3, 10, ""},
		{&index.Options{Blocks: 6, MaxDistance: 2}, &index.Options{Blocks: 6}, 6, 2, 15, ""},
	}
	for _, tt := range accepted {
		s, _ := created(t, tt.created)
		y, err := index.New(ctx, s, tt.opts)
		if err != nil {
			t.Errorf("created with %+v, New(%+v): %v", tt.created, tt.opts, err)
			continue
		}
		st, err := y.Stats(ctx)
		if err != nil || st.Blocks != tt.blocks || st.MaxDistance != tt.maxDist || st.Tables != tt.tables || st.AnalyzerID != tt.analyzer || st.Docs != 1 {
			t.Errorf("created with %+v, New(%+v): Stats %+v, %v", tt.created, tt.opts, st, err)
		}
		if y.AnalyzerID() != tt.analyzer || y.MaxDistance() != tt.maxDist {
			t.Errorf("created with %+v, New(%+v): AnalyzerID %q, MaxDistance %d", tt.created, tt.opts, y.AnalyzerID(), y.MaxDistance())
		}
		if ms, err := y.Near(ctx, 0xf00f, 0); err != nil || !slices.Equal(IDs(ms), []string{"d@0"}) {
			t.Errorf("created with %+v, New(%+v): Near = %v, %v", tt.created, tt.opts, IDs(ms), err)
		}
	}
}

// Options.Distance lays a new index out for the distance its users will
// query and refuses an index that answers less.
func testDistance(t *testing.T, open Opener) {
	ctx := t.Context()
	tests := []struct {
		created                 *index.Options // nil: New on an empty store
		opts                    index.Options
		blocks, maxDist, tables int
		max, want               int // of the DistanceError, when refused
		err                     string
	}{
		{opts: index.Options{Distance: 2}, blocks: 4, maxDist: 3, tables: 4},
		{opts: index.Options{Distance: 3}, blocks: 4, maxDist: 3, tables: 4},
		{opts: index.Options{Distance: 5}, blocks: 7, maxDist: 5, tables: 21},
		{opts: index.Options{Distance: 9}, blocks: 11, maxDist: 9, tables: 55},
		{opts: index.Options{Blocks: 6, MaxDistance: 4, Distance: 4}, blocks: 6, maxDist: 4, tables: 15},
		{opts: index.Options{Distance: 10}, err: "distance 10: an index answers distances 0 to 9"},
		{opts: index.Options{Distance: -1}, err: "distance -1: an index answers distances 0 to 9"},
		{opts: index.Options{Blocks: 5, MaxDistance: 3, Distance: 4}, max: 3, want: 4,
			err: "distance out of range: it answers distances up to 3, not 4 (its layout is fixed when it is created)"},
		{created: &index.Options{}, opts: index.Options{Distance: 3}, blocks: 4, maxDist: 3, tables: 4},
		{created: &index.Options{}, opts: index.Options{Distance: 5}, max: 3, want: 5,
			err: "distance out of range: it answers distances up to 3, not 5 (its layout is fixed when it is created)"},
		{created: &index.Options{Distance: 5}, opts: index.Options{}, blocks: 7, maxDist: 5, tables: 21},
		// MaxDistance alone: the blocks LayoutFor gives it.
		{opts: index.Options{MaxDistance: 4}, blocks: 6, maxDist: 4, tables: 15},
		{created: &index.Options{MaxDistance: 4}, opts: index.Options{MaxDistance: 4}, blocks: 6, maxDist: 4, tables: 15},
		{created: &index.Options{Distance: 5}, opts: index.Options{Distance: 4}, blocks: 7, maxDist: 5, tables: 21},
	}
	for _, tt := range tests {
		s := open(t)
		if tt.created != nil {
			x, err := index.New(ctx, s, tt.created)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { x.Close() })
		}
		x, err := index.New(ctx, s, &tt.opts)
		if tt.err != "" {
			var de *index.DistanceError
			if !errors.Is(err, index.ErrDistance) || !strings.HasSuffix(fmt.Sprint(err), tt.err) ||
				(tt.max != 0) != errors.As(err, &de) || de != nil && (de.Max != tt.max || de.Want != tt.want) {
				t.Errorf("created with %+v, New(%+v): %v, want ErrDistance ending %q", tt.created, tt.opts, err, tt.err)
			}
			if err == nil {
				x.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("created with %+v, New(%+v): %v", tt.created, tt.opts, err)
			continue
		}
		t.Cleanup(func() { x.Close() })
		if st, err := x.Stats(ctx); err != nil || st.Blocks != tt.blocks || st.MaxDistance != tt.maxDist || st.Tables != tt.tables {
			t.Errorf("created with %+v, New(%+v): Stats %+v, %v; want %d blocks, max distance %d, %d tables",
				tt.created, tt.opts, st, err, tt.blocks, tt.maxDist, tt.tables)
		}
	}
}

// New refuses bad options, and closes the store it was given.
func testBadOptions(t *testing.T, open Opener) {
	tests := []struct {
		opts index.Options
		want error
		msg  string
	}{
		{index.Options{Blocks: 4, MaxDistance: 4}, index.ErrLayout, "max distance < blocks"},
		{index.Options{Blocks: 10, MaxDistance: 5}, index.ErrLayout, "C(10,5) = 252 tables: at most 64 allowed"},
		{index.Options{Blocks: 9, MaxDistance: 8}, index.ErrLayout, "table keys of 7 bits"},
		{index.Options{Blocks: 65, MaxDistance: 1}, index.ErrLayout, "65 blocks: want 1 to 64"},
		{index.Options{Blocks: -1}, index.ErrLayout, "Blocks -1: want at least 1"},
		{index.Options{MaxDistance: -1}, index.ErrLayout, "MaxDistance -1"},
		{index.Options{MinContent: 1.5}, nil, "MinContent 1.5: want a value in (0, 1]"},
		{index.Options{MinContent: -0.5}, nil, "MinContent -0.5"},
	}
	for _, tt := range tests {
		s := open(t)
		x, err := index.New(t.Context(), s, &tt.opts)
		if err == nil {
			x.Close()
			t.Errorf("New(%+v) succeeded", tt.opts)
			continue
		}
		if (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("New(%+v): %v, want %v mentioning %q", tt.opts, err, tt.want, tt.msg)
		}
		if _, err := s.Stats(t.Context()); !errors.Is(err, index.ErrClosed) {
			t.Errorf("New(%+v) failed but left the store open: Stats: %v", tt.opts, err)
		}
	}
}

// A closed index, and its store, fail with ErrClosed; Close again is a
// no-op.
func testClosed(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	if err := x.Add(ctx, index.Doc{ID: "a", Fingerprint: 1}); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	s := x.Store()
	errs := map[string]error{}
	errs["Add"] = x.Add(ctx, index.Doc{ID: "b"})
	_, errs["Get"] = x.Get(ctx, "a")
	errs["Delete"] = x.Delete(ctx, "a")
	_, errs["Near"] = x.Near(ctx, 1, 0)
	_, errs["Exact"] = x.Exact(ctx, 0)
	_, errs["Similar"] = x.Similar(ctx, &index.Doc{ID: "q"}, 3)
	_, errs["Stats"] = x.Stats(ctx)
	_, errs["Load"] = x.Load(ctx, slices.Values([]index.Doc{{ID: "b"}}))
	_, errs["Store.Postings"] = s.Postings(ctx, []index.Key{tableKey(0, 1)})
	_, errs["Store.Records"] = s.Records(ctx, []string{"a"})
	errs["Store.Apply"] = s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "b", Record: []byte{1}}}})
	_, errs["Store.Claim"] = s.Claim(ctx, map[string][]byte{"name": []byte("v")})
	_, errs["Store.Stats"] = s.Stats(ctx)
	for name, err := range errs {
		if !errors.Is(err, index.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

// A store holds nothing under keys and IDs never written.
func testStoreMissing(t *testing.T, open Opener) {
	s := newStore(t, open)
	ctx := t.Context()
	keys := []index.Key{tableKey(0, 0), tableKey(3, ^simhash.Fingerprint(0)), contentKey(0), contentKey(42), bandKey(0, 0), bandKey(15, 1)}
	ps, err := s.Postings(ctx, keys)
	if err != nil || len(ps) != len(keys) {
		t.Fatalf("Postings of %d missing keys = %d lists, %v", len(keys), len(ps), err)
	}
	for i, l := range ps {
		if len(l) != 0 {
			t.Errorf("Postings of missing %v = %v", keys[i], l)
		}
	}
	recs, err := s.Records(ctx, []string{"a", "b", "a"})
	if err != nil || len(recs) != 3 || recs[0] != nil || recs[1] != nil || recs[2] != nil {
		t.Errorf("Records of missing IDs = %q, %v; want three nils", recs, err)
	}
	if ps, err := s.Postings(ctx, nil); err != nil || len(ps) != 0 {
		t.Errorf("Postings(nil) = %v, %v", ps, err)
	}
	if recs, err := s.Records(ctx, nil); err != nil || len(recs) != 0 {
		t.Errorf("Records(nil) = %q, %v", recs, err)
	}
	if st, err := s.Stats(ctx); err != nil || st.Docs != 0 {
		t.Errorf("Stats of an empty store = %+v, %v", st, err)
	}
}

// Apply sets records and postings, replaces and deletes them, and keeps
// its own copies; table postings carry the fingerprint, others none.
func testStoreApply(t *testing.T, open Opener) {
	s := newStore(t, open)
	ctx := t.Context()
	t0 := func(v uint64) index.Key { return index.Key{Kind: index.KindTable, Table: 0, Bits: 16, Value: v} }
	t5 := index.Key{Kind: index.KindTable, Table: 5, Bits: 26, Value: 0x3ffffff}
	all := []index.Key{t0(1), t0(2), t5, contentKey(5), contentKey(6), bandKey(0, 7), bandKey(1, 7), bandKey(1, 8)}
	steps := []struct {
		name     string
		writes   []index.Write
		postings [][]string // of all
		records  []string   // of x, y, g; "-" for none
		docs     int64
	}{
		{"add x and y", []index.Write{
			{ID: "x", Record: []byte("rx1"), Fingerprint: 0xaaaa, Keys: []index.Key{t0(1), t5, contentKey(5), bandKey(0, 7)}},
			{ID: "y", Record: []byte("ry"), Fingerprint: 0xbbbb, Keys: []index.Key{t0(1), contentKey(5)}},
		}, [][]string{{"x/aaaa", "y/bbbb"}, {}, {"x/aaaa"}, {"x", "y"}, {}, {"x"}, {}, {}}, []string{"rx1", "ry", "-"}, 2},
		{"replace x", []index.Write{
			{ID: "x", Record: []byte("rx2"), Fingerprint: 0xcccc, Keys: []index.Key{t0(2), contentKey(6), bandKey(1, 7)},
				Replaces: true, OldFingerprint: 0xaaaa, OldKeys: []index.Key{t0(1), t5, contentKey(5), bandKey(0, 7)}},
		}, [][]string{{"y/bbbb"}, {"x/cccc"}, {}, {"y"}, {"x"}, {}, {"x"}, {}}, []string{"rx2", "ry", "-"}, 2},
		{"delete y", []index.Write{
			{ID: "y", Replaces: true, OldFingerprint: 0xbbbb, OldKeys: []index.Key{t0(1), contentKey(5)}},
		}, [][]string{{}, {"x/cccc"}, {}, {}, {"x"}, {}, {"x"}, {}}, []string{"rx2", "-", "-"}, 1},
		{"add y again", []index.Write{
			{ID: "y", Record: []byte("ry3"), Fingerprint: 0xffff, Keys: []index.Key{bandKey(0, 7)}},
		}, [][]string{{}, {"x/cccc"}, {}, {}, {"x"}, {"y"}, {"x"}, {}}, []string{"rx2", "ry3", "-"}, 2},
	}
	for _, st := range steps {
		// The store must copy what it keeps: the caller's buffers are
		// overwritten after Apply.
		var bufs [][]byte
		for i := range st.writes {
			if r := st.writes[i].Record; r != nil {
				st.writes[i].Record = []byte(string(r))
				bufs = append(bufs, st.writes[i].Record)
			}
		}
		keys := make([][]index.Key, len(st.writes))
		for i := range st.writes {
			keys[i] = slices.Clone(st.writes[i].Keys)
			st.writes[i].Keys = keys[i]
		}
		if err := s.Apply(ctx, &index.Batch{Writes: st.writes}); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		for _, b := range bufs {
			for i := range b {
				b[i] = '!'
			}
		}
		for _, ks := range keys {
			for i := range ks {
				ks[i] = contentKey(999)
			}
		}
		if got := postings(t, s, all...); !reflect.DeepEqual(got, st.postings) {
			t.Errorf("%s: postings %q, want %q", st.name, got, st.postings)
		}
		recs, err := s.Records(ctx, []string{"x", "y", "g"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range recs {
			if r == nil {
				got = append(got, "-")
			} else {
				got = append(got, string(r))
			}
		}
		if !slices.Equal(got, st.records) {
			t.Errorf("%s: records %q, want %q", st.name, got, st.records)
		}
		if ss, err := s.Stats(ctx); err != nil || ss.Docs != st.docs {
			t.Errorf("%s: Stats %+v, %v; want %d docs", st.name, ss, err, st.docs)
		}
	}
	if got := postings(t, s, contentKey(999)); !reflect.DeepEqual(got, [][]string{{}}) {
		t.Errorf("postings under a key the caller wrote into its slice after Apply: %q", got)
	}
}

// formatClaim formats the values of a claim as name=value pairs in name
// order.
func formatClaim(m map[string][]byte) string {
	var out []string
	for name, v := range m {
		out = append(out, fmt.Sprintf("%s=%q", name, v))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// Claim records each value whose name holds none yet and returns what
// every name asked for holds, all in one step; neither the caller's
// slices nor the returned ones are shared with the store.
func testStoreClaim(t *testing.T, open Opener) {
	s := newStore(t, open)
	ctx := t.Context()
	v1 := []byte("v1")
	claim := func(values map[string][]byte, want string) map[string][]byte {
		t.Helper()
		asked := formatClaim(values)
		got, err := s.Claim(ctx, values)
		if err != nil || formatClaim(got) != want {
			t.Fatalf("Claim(%s) = %s, %v; want %s", asked, formatClaim(got), err, want)
		}
		return got
	}
	got := claim(map[string][]byte{"k": v1}, `k="v1"`)
	v1[0], got["k"][0] = 'X', 'Y'
	got = claim(map[string][]byte{"k": []byte("v2"), "new": []byte("n")}, `k="v1" new="n"`)
	got["k"][0], got["new"][0] = 'Z', 'Z'
	claim(map[string][]byte{"other": {}}, `other=""`)
	claim(map[string][]byte{"other": []byte("v3"), "bin": {0, 1, 0xff}}, `bin="\x00\x01\xff" other=""`)
	claim(map[string][]byte{"k": nil}, `k="v1"`)
	claim(map[string][]byte{"new": nil, "k": nil, "bin": nil}, `bin="\x00\x01\xff" k="v1" new="n"`)
	claim(map[string][]byte{}, ``)
}

// Of several goroutines claiming the same names at once, exactly one
// wins, all of its values, and all get them.
func testStoreClaimRace(t *testing.T, open Opener) {
	s := newStore(t, open)
	ctx := t.Context()
	for round := range 5 {
		a, b := fmt.Sprint("a", round), fmt.Sprint("b", round)
		const n = 8
		got := make([]map[string][]byte, n)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				w := []byte(fmt.Sprint("writer", i))
				got[i], errs[i] = s.Claim(ctx, map[string][]byte{a: w, b: w})
			})
		}
		close(start)
		wg.Wait()
		winners := 0
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("round %d: claimer %d: %v", round, i, errs[i])
			}
			if formatClaim(got[i]) != formatClaim(got[0]) || string(got[i][a]) != string(got[i][b]) {
				t.Errorf("round %d: claimer %d got %s, claimer 0 %s", round, i, formatClaim(got[i]), formatClaim(got[0]))
			}
			if string(got[i][a]) == fmt.Sprint("writer", i) {
				winners++
			}
		}
		if winners != 1 {
			t.Errorf("round %d: %d claimers got their own values back, want exactly 1: %s", round, winners, formatClaim(got[0]))
		}
	}
}

// TextStats checks Index.TextStats on a store that is a
// index.RecordScanner: documents with and without a kept text, a
// replaced text and a deleted one.
func TextStats(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	if _, ok := x.Store().(index.RecordScanner); !ok {
		t.Fatalf("%T is no index.RecordScanner", x.Store())
	}
	text := strings.Repeat("新华社北京电 the kept text. ", 50)
	docs := SeqDocs(0, 4, 0)
	docs[0].Text, docs[1].Text, docs[2].Text = text, "短文", text
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	docs[2].Text = ""
	if err := x.Add(ctx, docs[2]); err != nil {
		t.Fatal(err)
	}
	if err := x.Delete(ctx, docs[3].ID); err != nil {
		t.Fatal(err)
	}
	ts, err := x.TextStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (index.TextStats{Docs: 3, Texts: 2, Bytes: int64(len(text) + len("短文"))}); ts.Docs != want.Docs || ts.Texts != want.Texts || ts.Bytes != want.Bytes {
		t.Errorf("TextStats = %+v, want %+v and some stored bytes", ts, want)
	}
	if ts.Stored <= 0 || ts.Stored >= int64(len(text))/4 {
		t.Errorf("TextStats.Stored = %d for a %d-byte repetitive text and a short one", ts.Stored, len(text))
	}
}

// testClusters: archived duplicates (dedup's) round-trip with their
// cluster, count as documents, and a record-only one is found by Get and
// by its content hash alone.
func testClusters(t *testing.T, open Opener) {
	ctx := t.Context()
	x := newIndex(t, open, nil)
	sk := minhash.New("the archive keeps every duplicate with the cluster it joined")
	orig := index.Doc{ID: "orig", Fingerprint: 0xabcdef, ContentHash: 1, Sketch: sk, Shingles: 58, Added: time.Unix(1, 0).UTC()}
	exact := orig
	exact.ID, exact.Original, exact.Via, exact.Hops, exact.RecordOnly = "exact", "orig", "orig", 1, true
	member := index.Doc{ID: "member", Fingerprint: 0xabcdee, ContentHash: 2, Sketch: sk, Shingles: 58, Added: time.Unix(2, 0).UTC(),
		Original: "orig", Via: "exact", Hops: 2, More: []string{"elsewhere"}}
	if err := x.Add(ctx, orig, exact, member); err != nil {
		t.Fatal(err)
	}
	for _, want := range []index.Doc{exact, member} {
		got, err := x.Get(ctx, want.ID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Get(%s) = %+v, %v; want %+v", want.ID, got, err, want)
		}
	}
	if st, err := x.Stats(ctx); err != nil || st.Docs != 3 {
		t.Errorf("Stats: %d docs, %v; want 3", st.Docs, err)
	}
	q := orig
	q.ID, q.ContentHash = "q", 3
	ms, err := x.Similar(ctx, &q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := IDs(ms), []string{"orig@0", "member@1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Similar = %q, want %q (the record-only copy through its content hash only)", got, want)
	}
	if ids, err := x.Exact(ctx, 1); err != nil || !reflect.DeepEqual(ids, []string{"exact", "orig"}) {
		t.Errorf("Exact = %q, %v; want [exact orig]", ids, err)
	}
}
