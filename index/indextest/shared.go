package indextest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// sharedTests are the subtests of Ingest's protocol: on a store that is
// an index.Shared its own, on any other index.InProcess.
var sharedTests = []struct {
	name string
	f    func(*testing.T, Opener)
}{
	{"SharedAppendRead", testSharedAppendRead},
	{"SharedStates", testSharedStates},
	{"SharedIngest", testSharedIngest},
	{"IngestOrders", testIngestOrders},
	{"IngestRace", testIngestRace},
}

func newShared(t *testing.T, open Opener) index.Shared {
	t.Helper()
	return index.InProcess(newStore(t, open))
}

// AppendRead: of two writes sharing a key, the second sees the first
// there, with its number, ID and fingerprint; numbers increase; a taken
// ID is not written; Reappend returns the same numbers and postings and
// appends nothing twice.
func testSharedAppendRead(t *testing.T, open Opener) {
	s := newShared(t, open)
	ctx := t.Context()
	k1, k2 := tableKey(1, 0x0000_1234_0000_0000), contentKey(7)
	w := func(id string, fp simhash.Fingerprint, keys ...index.Key) index.Write {
		return index.Write{ID: id, Record: []byte("rec " + id), Fingerprint: fp, Keys: keys}
	}
	a, err := s.AppendRead(ctx, []index.Write{w("a", 0x0000_1234_0000_0001, k1)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.AppendRead(ctx, []index.Write{w("b", 0x0000_1234_0000_0002, k1, k2), w("a", 5, k2)})
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Num == 0 || b[0].Num <= a[0].Num || b[1].Num != 0 || b[1].Before != nil {
		t.Fatalf("numbers: a %d, b %d, a again %d %v; want 0 < a < b, and 0 with nothing for the taken ID", a[0].Num, b[0].Num, b[1].Num, b[1].Before)
	}
	want := [][]index.Earlier{{{Num: a[0].Num, ID: "a", Fingerprint: 0x0000_1234_0000_0001}}, nil}
	if fmt.Sprint(b[0].Before) != fmt.Sprint(want) || len(a[0].Before[0]) != 0 {
		t.Errorf("before b: %v, before a: %v; want %v and nothing", b[0].Before, a[0].Before, want)
	}
	if recs, err := s.Records(ctx, []string{"a"}); err != nil || string(recs[0]) != "rec a" {
		t.Errorf("the taken ID's record: %q, %v; want the first", recs, err)
	}
	again, err := s.Reappend(ctx, []index.Write{w("b", 0x0000_1234_0000_0002, k1, k2)})
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Num != b[0].Num || fmt.Sprint(again[0].Before) != fmt.Sprint(want) {
		t.Errorf("Reappend(b) = %d %v; want %d %v", again[0].Num, again[0].Before, b[0].Num, want)
	}
	ps := postings(t, s, k1, k2)
	if fmt.Sprint(ps) != "[[a/123400000001 b/123400000002] [b]]" {
		t.Errorf("postings after Reappend: %v; want [[a/123400000001 b/123400000002] [b]]", ps)
	}
	if _, ok := newStore(t, open).(index.Shared); !ok {
		// In one process (index.InProcess) an AppendRead is never cut
		// short: a record without a state is decided (testSharedIngest
		// repeats a run).
		return
	}
	// A document whose record is there but not its postings (an
	// AppendRead cut short) gets them from Reappend, after the others,
	// once however often it is called, and pending.
	if err := s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "c", Record: []byte("rec c")}}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		c, err := s.Reappend(ctx, []index.Write{w("c", 0x0000_1234_0000_0003, k1)})
		if err != nil {
			t.Fatal(err)
		}
		if len(c[0].Before[0]) != 2 || c[0].Before[0][0].ID != "a" || c[0].Before[0][1].ID != "b" {
			t.Errorf("Reappend(c) saw %v under its table key; want a and b", c[0].Before[0])
		}
		if st, err := s.States(ctx, []uint64{c[0].Num}); err != nil || st[0].Status != index.StatusPending || st[0].ID != "c" {
			t.Errorf("state of c after Reappend: %+v, %v; want c pending", st, err)
		}
	}
	if ps := postings(t, s, k1); fmt.Sprint(ps) != "[[a/123400000001 b/123400000002 c/123400000003]]" {
		t.Errorf("postings after Reappend(c) twice: %v; want a, b, c", ps)
	}
	if _, err := s.Reappend(ctx, []index.Write{w("nothing", 1, k1)}); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("Reappend of a document without a record: %v; want ErrNotFound", err)
	}
}

// States, Mark and Decide: a document written by AppendRead is pending;
// one written by Apply has no state; a marker keeps a document pending
// until it is known dead; a decision is final.
func testSharedStates(t *testing.T, open Opener) {
	s := newShared(t, open)
	ctx := t.Context()
	var ws []index.Write
	for _, id := range []string{"x", "y", "z"} {
		ws = append(ws, index.Write{ID: id, Record: []byte(id), Keys: []index.Key{contentKey(1)}})
	}
	app, err := s.AppendRead(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	x, y, z := app[0].Num, app[1].Num, app[2].Num
	if err := s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "plain", Record: []byte("p")}}}); err != nil {
		t.Fatal(err)
	}
	show := func(sts []index.State) string {
		var out []string
		for _, st := range sts {
			s := fmt.Sprintf("%s:%c", st.ID, max(st.Status, '-'))
			for _, m := range st.Markers {
				switch m {
				case x:
					s += "+x"
				case y:
					s += "+y"
				default:
					s += fmt.Sprint("+", m)
				}
			}
			out = append(out, s)
		}
		return fmt.Sprint(out)
	}
	step := func(what string, sts []index.State, err error, want string) {
		t.Helper()
		if err != nil || show(sts) != want {
			t.Fatalf("%s = %s, %v; want %s", what, show(sts), err, want)
		}
	}
	sts, err := s.States(ctx, []uint64{x, y, z, z + 1000})
	step("States", sts, err, "[x:p y:p z:p :-]")
	sts, err = s.Mark(ctx, []index.Mark{{Target: z, By: x}, {Target: z, By: y}, {Target: z, By: x}})
	step("Mark(z by x, y, x)", sts, err, "[:p+x :p+x+y :p+x+y]")
	sts, err = s.Decide(ctx, []index.Decision{{Num: z, Original: true, Dead: []uint64{x}}})
	step("Decide(z original, x dead)", sts, err, "[:p+x+y]")
	sts, err = s.Decide(ctx, []index.Decision{{Num: x}, {Num: y, Original: true}})
	step("Decide(x duplicate, y original)", sts, err, "[:d :o]")
	sts, err = s.Mark(ctx, []index.Mark{{Target: y, By: x}, {Target: z + 1000, By: x}})
	step("Mark(decided y, stateless)", sts, err, "[:o :-]")
	sts, err = s.Decide(ctx, []index.Decision{{Num: z, Original: true, Dead: []uint64{x, y}}, {Num: y}})
	step("Decide(z original, x y dead; decided y duplicate)", sts, err, "[:o+x+y :o]")
	sts, err = s.States(ctx, []uint64{x, y, z})
	step("States", sts, err, "[x:d y:o z:o+x+y]")

	// A duplicate's record is replaced before it is decided; the record
	// of an ID that has none any more is not written.
	app, err = s.AppendRead(ctx, []index.Write{{ID: "w", Record: []byte("w"), Keys: []index.Key{contentKey(2)}}})
	if err != nil {
		t.Fatal(err)
	}
	w := app[0].Num
	sts, err = s.Decide(ctx, []index.Decision{{Num: w, ID: "w", Record: []byte("w with its cluster")}, {Num: w + 1000, ID: "gone", Record: []byte("gone")}})
	step("Decide(w duplicate with a record, a number without a document)", sts, err, "[:d :d]")
	recs, err := s.Records(ctx, []string{"w", "gone"})
	if err != nil || len(recs) != 2 || string(recs[0]) != "w with its cluster" || recs[1] != nil {
		t.Errorf("Records(w, gone) after Decide = %q, %v; want [\"w with its cluster\" nil]", recs, err)
	}
}

// Ingest in one call decides as adding one at a time would: of a chain
// A ~ B ~ C (A and C do not match), A and C are originals and B a
// duplicate of A; of exact copies, the first is the original; calling
// it again (same Job and Seq) keeps the decisions; a taken ID is not
// written.
func testSharedIngest(t *testing.T, open Opener) {
	x := newIndex(t, open, nil)
	ctx := t.Context()
	var s minhash.Sketch
	for i := range s {
		s[i] = uint16(1000 + 7*i)
	}
	b, c := s, s
	for i := 0; i < 16; i++ {
		b[i]++
		c[i]++
		c[16+i]++
	}
	docs := []index.Doc{
		{ID: "A", Fingerprint: 0x1111_2222_3333_4444, ContentHash: 1, Sketch: s},
		{ID: "B", Fingerprint: 0x1111_2223_3333_4444, ContentHash: 2, Sketch: b},
		{ID: "C", Fingerprint: 0x1112_2223_3333_4444, ContentHash: 3, Sketch: c},
		{ID: "D", Fingerprint: 0x9999_8888_7777_6666, ContentHash: 4},
		{ID: "E", Fingerprint: 0x9999_8888_7777_6666, ContentHash: 4},
	}
	for i := range docs {
		docs[i].Job, docs[i].Seq = "j", int64(i)
	}
	show := func(res []index.Ingested) string {
		var out []string
		for i, r := range res {
			s := docs[i].ID
			switch {
			case r.Taken != nil:
				s += " taken"
			case r.Original:
				s += " original"
			default:
				for _, m := range r.Matches {
					s += fmt.Sprintf(" %s@%d/%.2f/%v", m.ID, m.Distance, m.Content, m.Exact)
				}
			}
			if r.Resumed {
				s += " resumed"
			}
			out = append(out, s)
		}
		return fmt.Sprint(out)
	}
	want := "[A original B A@1/0.75/false C original D original E D@0/1.00/true]"
	res, err := x.Ingest(ctx, docs, index.IngestOptions{Distance: 3})
	if err != nil || show(res) != want {
		t.Fatalf("Ingest = %s, %v; want %s", show(res), err, want)
	}
	// B's match is Similar's, less C (not yet there for B).
	sim, err := x.Similar(ctx, &docs[1], 3)
	if err != nil {
		t.Fatal(err)
	}
	sim = slices.DeleteFunc(sim, func(m index.Match) bool { return m.ID == "C" })
	if fmt.Sprint(sim) != fmt.Sprint(res[1].Matches) {
		t.Errorf("B's matches %v; Similar's %v", res[1].Matches, sim)
	}
	want = "[A original resumed B A@1/0.75/false resumed C original resumed D original resumed E D@0/1.00/true resumed]"
	if res, err := x.Ingest(ctx, docs, index.IngestOptions{Distance: 3}); err != nil || show(res) != want {
		t.Errorf("Ingest again = %s, %v; want %s", show(res), err, want)
	}
	other := docs[0]
	other.Job = "k"
	res, err = x.Ingest(ctx, []index.Doc{other, other}, index.IngestOptions{Distance: 3})
	if err != nil || len(res) != 2 || res[0].Taken == nil || res[1].Taken == nil || res[0].Num != 0 || res[1].Num != 0 ||
		res[0].Taken.Job != "j" || res[1].Taken.Job != "j" {
		t.Errorf("Ingest of a taken ID, twice = %+v, %v; want both taken by job j's A (the first is not written)", res, err)
	}
	if _, err := x.Ingest(ctx, docs[:1], index.IngestOptions{Distance: 4}); err == nil {
		t.Error("Ingest at distance 4 of a max-distance-3 index: no error")
	}

	// With JoinMinContent, C joins A's cluster through B (their
	// sketches agree on half their values: the drift guard at 0.5
	// passes, at 0.6 it does not), and the records name the clusters;
	// a B that Member archives RecordOnly is no way in.
	members := 0
	member := func(d *index.Doc, best *index.Match) bool {
		members++
		return d.ID != "rec-B"
	}
	for _, c := range []struct {
		name  string
		flip  simhash.Fingerprint // keeps the cases apart
		join  float64
		want  string
		again string   // Ingest again (resumed)
		recs  []string // Original/Via/Hops/RecordOnly of each record
	}{
		{"join-", 0xF000_0000_0000_0000, 0.5, "[A original B join-A@1/0.75/false C join-B@2/0.75/false]",
			"[A original resumed B join-A@1/0.75/false resumed C join-B@2/0.75/false resumed]",
			[]string{"//0/false", "join-A/join-A/1/false", "join-A/join-B/2/false"}},
		{"guard-", 0x0F00_0000_0000_0000, 0.6, "[A original B guard-A@1/0.75/false C original]", "",
			[]string{"//0/false", "guard-A/guard-A/1/false", "//0/false"}},
		{"rec-", 0x00F0_0000_0000_0000, 0.5, "[A original B rec-A@1/0.75/false C original]", "",
			[]string{"//0/false", "rec-A/rec-A/1/true", "//0/false"}},
	} {
		ds := slices.Clone(docs[:3])
		for i := range ds {
			ds[i].ID, ds[i].Job = c.name+ds[i].ID, c.name
			ds[i].Fingerprint ^= c.flip
			ds[i].ContentHash += uint64(c.flip >> 52)
			for k := range ds[i].Sketch {
				ds[i].Sketch[k] += uint16(c.flip >> 48)
			}
		}
		o := index.IngestOptions{Distance: 3, JoinMinContent: c.join, Member: member}
		res, err := x.Ingest(ctx, ds, o)
		if err != nil || show(res) != c.want {
			t.Errorf("%s: Ingest = %s, %v; want %s", c.name, show(res), err, c.want)
		}
		for i := range ds {
			r, err := x.Get(ctx, ds[i].ID)
			if err != nil {
				t.Fatal(err)
			}
			if g := fmt.Sprintf("%s/%s/%d/%v", r.Original, r.Via, r.Hops, r.RecordOnly); g != c.recs[i] {
				t.Errorf("%s: record of %s: %s; want %s", c.name, ds[i].ID, g, c.recs[i])
			}
		}
		if c.again == "" {
			continue
		}
		if m := res[2].Matches; len(m) != 1 || m[0].Original != "join-A" || m[0].Hops != 1 {
			t.Errorf("join-C's match %+v; want join-B in join-A's cluster, 1 hop from it", m)
		}
		if res, err := x.Ingest(ctx, ds, o); err != nil || show(res) != c.again {
			t.Errorf("%s: Ingest again = %s, %v; want %s", c.name, show(res), err, c.again)
		}
	}
	if members != 4 {
		t.Errorf("Member was asked %d times; want 4 (once per new duplicate)", members)
	}
}
