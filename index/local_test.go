package index_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/simhash"
)

// failing is a store whose Records and RecordsByNum fail, once fail
// is set, after ok more calls of either.
type failing struct {
	*memstore.Store
	fail bool
	ok   int
}

var errInjected = errors.New("injected failure")

func (f *failing) Records(ctx context.Context, ids []string) ([][]byte, error) {
	if err := f.call(); err != nil {
		return nil, err
	}
	return f.Store.Records(ctx, ids)
}

func (f *failing) RecordsByNum(ctx context.Context, nums []uint64) ([][]byte, error) {
	if err := f.call(); err != nil {
		return nil, err
	}
	return f.Store.RecordsByNum(ctx, nums)
}

// call counts a call, and fails it once fail is set and ok is spent.
func (f *failing) call() error {
	if f.fail {
		if f.ok == 0 {
			return errInjected
		}
		f.ok--
	}
	return nil
}

// TestInProcessDeferred: a deferred Ingest's decisions reach the store
// by Flush (the store itself holds them then), and a duplicate Drop
// leaves out never does; a failed Ingest stores nothing and leaves
// nothing pending for the next.
func TestInProcessDeferred(t *testing.T) {
	ctx := t.Context()
	st := &failing{Store: memstore.New()}
	x, err := index.New(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	a := index.Doc{ID: "a", Fingerprint: 0x1111_2222_3333_4444, ContentHash: 1}
	b := index.Doc{ID: "b", Fingerprint: 0x1111_2222_3333_4444, ContentHash: 1}
	c := index.Doc{ID: "c", Fingerprint: 0x1111_2222_3333_4445, ContentHash: 2}
	drop := func(*index.Doc) bool { return true }
	member := func(*index.Doc, *index.Match) bool { return false }
	res, err := x.Ingest(ctx, []index.Doc{a, b}, index.IngestOptions{Distance: 3, Deferred: true, Member: member, Drop: drop})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].Original || res[1].Original || !res[1].Dropped {
		t.Fatalf("Ingest(a, b) = %+v; want a original, b a dropped duplicate", res)
	}
	if err := x.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	recs, err := st.Store.Records(ctx, []string{"a", "b"})
	if err != nil || recs[0] == nil || recs[1] != nil {
		t.Errorf("the store after Flush: a %v, b %v, %v; want a and not b", recs[0] != nil, recs[1] != nil, err)
	}
	// c's Ingest fails once c is written (reading its candidates'
	// records, after its own and the store's view of its keys): c is
	// not stored, and Ingesting it again decides it.
	st.fail, st.ok = true, 2
	if _, err := x.Ingest(ctx, []index.Doc{c}, index.IngestOptions{Distance: 3}); !errors.Is(err, errInjected) {
		t.Fatalf("Ingest(c) with failing reads: %v; want the injected error", err)
	}
	st.fail = false
	if recs, err := st.Store.Records(ctx, []string{"c"}); err != nil || recs[0] != nil {
		t.Errorf("c after its failed Ingest: stored %v, %v; want not stored", recs[0] != nil, err)
	}
	res, err = x.Ingest(ctx, []index.Doc{c}, index.IngestOptions{Distance: 3})
	if err != nil || res[0].Original || len(res[0].Matches) != 1 || res[0].Matches[0].ID != "a" {
		t.Errorf("Ingest(c) again = %+v, %v; want a duplicate of a", res, err)
	}
	if d, err := x.Get(ctx, "c"); err != nil || d.Original != "a" {
		t.Errorf("c after its Ingest: %+v, %v; want it archived in a's cluster", d, err)
	}
}

// TestInProcessShards: the in-process protocol files its overlay's
// posting lists in one shard per core, and Ingest its candidates (see
// cands); the decisions do not depend on how many there are. Two batches: copies and near copies within a
// batch, and of documents stored by the batch before.
func TestInProcessShards(t *testing.T) {
	const f = 0x1111_2222_3333_4444
	batches := [][]index.Doc{{
		{ID: "a", Fingerprint: f, ContentHash: 1},
		{ID: "b", Fingerprint: f, ContentHash: 1},                     // a's exact copy
		{ID: "c", Fingerprint: f ^ 1, ContentHash: 2},                 // a, 1 bit away
		{ID: "d", Fingerprint: 0x0f0f_0f0f_0f0f_0f0f, ContentHash: 3}, // unrelated
	}, {
		{ID: "e", Fingerprint: f ^ 0x0100_0000_0000_0002, ContentHash: 4}, // a, 2 bits away, stored
		{ID: "f", Fingerprint: 0x0f0f_0f0f_0f0f_0f0f, ContentHash: 3},     // d's exact copy, stored
		{ID: "g", Fingerprint: 0x7777_0000_7777_0000, ContentHash: 5},     // unrelated
		{ID: "h", Fingerprint: 0x7777_0000_7777_0001, ContentHash: 6},     // g, 1 bit away, same batch
	}}
	want := []string{"a: original", "b: a", "c: a", "d: original", "e: a", "f: d", "g: original", "h: g"}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3, 16} {
		runtime.GOMAXPROCS(procs) // the shards of an Index made now
		x, err := index.New(t.Context(), memstore.New(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range batches {
			res, err := x.Ingest(t.Context(), b, index.IngestOptions{Distance: 3, Deferred: true})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				switch {
				case r.Original:
					got = append(got, b[i].ID+": original")
				case len(r.Matches) == 1:
					got = append(got, b[i].ID+": "+r.Matches[0].ID)
				default:
					got = append(got, fmt.Sprintf("%s: %+v", b[i].ID, r))
				}
			}
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("GOMAXPROCS %d: decisions %q; want %q", procs, got, want)
		}
	}
}

// A document written outside an Ingest (through the protocol itself)
// stays in the overlay, pending, across Ingests that forget the
// overlay's decided documents, until it is decided; then the next
// Ingest forgets it too.
func TestInProcessKeepsPending(t *testing.T) {
	ctx := t.Context()
	x, err := index.New(ctx, memstore.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	sh := index.OverlayOf(x)
	p := index.Write{ID: "p", Record: index.EncodeDoc(nil, &index.Doc{ID: "p", Fingerprint: 0x1111_2222_3333_4444, ContentHash: 1}),
		Fingerprint: 0x1111_2222_3333_4444, Keys: []index.Key{{Kind: index.KindContent, Value: 1}}}
	app, err := sh.AppendRead(ctx, []index.Write{p})
	if err != nil || len(app) != 1 || app[0].Num == 0 {
		t.Fatalf("AppendRead(p) = %+v, %v", app, err)
	}
	pn := app[0].Num
	unrelated := func(id string, h uint64) []index.Doc {
		return []index.Doc{{ID: id, Fingerprint: simhash.Fingerprint(h * 0x9e37_79b9_7f4a_7c15), ContentHash: h}}
	}
	for i, id := range []string{"q", "r"} {
		if res, err := x.Ingest(ctx, unrelated(id, uint64(10+i)), index.IngestOptions{Distance: 3}); err != nil || !res[0].Original {
			t.Fatalf("Ingest(%s) = %+v, %v; want an original", id, res, err)
		}
		sts, err := sh.States(ctx, []uint64{pn})
		if err != nil || sts[0].Status != index.StatusPending || sts[0].ID != "p" {
			t.Fatalf("after Ingest(%s): p's state %+v, %v; want pending", id, sts, err)
		}
	}
	if sts, err := sh.Decide(ctx, []index.Decision{{Num: pn, Original: true}}); err != nil || sts[0].Status != index.StatusOriginal {
		t.Fatalf("Decide(p original) = %+v, %v", sts, err)
	}
	if _, err := x.Ingest(ctx, unrelated("s", 12), index.IngestOptions{Distance: 3}); err != nil {
		t.Fatal(err)
	}
	if sts, err := sh.States(ctx, []uint64{pn}); err != nil || sts[0].ID != "" || sts[0].Status != index.StatusNone {
		t.Errorf("after p is decided and another Ingest: p's state in the overlay %+v, %v; want none (forgotten)", sts, err)
	}
}
