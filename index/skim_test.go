package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/minhash"
)

// longAgreeing returns a confirmation sketch that agrees with base
// (values 0 to 255) on its first k values: Jaccard (k−1)/255.
func longAgreeing(k int) minhash.Long {
	var l minhash.Long
	for i := range l {
		l[i] = uint8(i)
		if i >= k {
			l[i] ^= 0xa5
		}
	}
	return l
}

func TestSkimRecord(t *testing.T) {
	long := longAgreeing(256)
	var sk minhash.Sketch
	for i := range sk {
		sk[i] = uint16(i + 1)
	}
	full := Doc{ID: "full", Fingerprint: 0x0123456789abcdef, ContentHash: 0xfedcba9876543210, Title: "标题",
		Keywords: nil, Sketch: sk, Long: long, Shingles: 412, Added: time.Unix(1700000000, 5).UTC(),
		Job: "job", Seq: 7, Text: "正文 the text", Original: "o", Via: "o", Hops: 1, Passages: []uint64{1, 2}}
	batch, err := BatchRecord(nil, encodeDoc(nil, &full), "full")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		rec      []byte
		ok       bool
		fp, ch   uint64
		sketch   bool
		shingles int
		long     bool
	}{
		{"full record", encodeDoc(nil, &full), true, 0x0123456789abcdef, 0xfedcba9876543210, true, 412, true},
		{"batch record (band digests)", batch, true, 0x0123456789abcdef, 0xfedcba9876543210, true, 412, true},
		{"no sketch, no long", encodeDoc(nil, &Doc{Fingerprint: 0x10, ContentHash: 0x20}), true, 0x10, 0x20, false, 0, false},
		{"sketch without long", encodeDoc(nil, &Doc{Fingerprint: 0x11, Sketch: sk, Shingles: 3}), true, 0x11, 0, true, 3, false},
		{"empty", nil, false, 0, 0, false, 0, false},
		{"version 2", append([]byte{2}, encodeDoc(nil, &full)[1:]...), false, 0, 0, false, 0, false},
		{"cut in the head", encodeDoc(nil, &full)[:20], false, 0, 0, false, 0, false},
		{"long field short", append(encodeDoc(nil, &Doc{Fingerprint: 1}), fieldLong, 2, 1, 2), false, 0, 0, false, 0, false},
		{"fields out of order", append(encodeDoc(nil, &Doc{Fingerprint: 1}), fieldLong, 0, fieldShingles, 1, 5), false, 0, 0, false, 0, false},
		{"shingles 0", append(encodeDoc(nil, &Doc{Fingerprint: 1}), fieldShingles, 1, 0), false, 0, 0, false, 0, false},
	} {
		s, ok := skimRecord(tt.rec)
		if ok != tt.ok || uint64(s.fingerprint) != tt.fp || s.contentHash != tt.ch || s.sketch != tt.sketch ||
			s.shingles != tt.shingles || (s.long != nil) != tt.long {
			t.Errorf("%s: skimRecord = %#x %#x sketch %v shingles %d long %v, %v; want %#x %#x %v %d %v, %v", tt.name,
				uint64(s.fingerprint), s.contentHash, s.sketch, s.shingles, s.long != nil, ok, tt.fp, tt.ch, tt.sketch, tt.shingles, tt.long, tt.ok)
		}
		if s.long != nil && *s.long != long {
			t.Errorf("%s: skimmed confirmation sketch differs from the record's", tt.name)
		}
	}
}

// FuzzSkimRecord checks skimRecord against decodeRecord: a record that
// decodes is skimmed, to the same fields.
func FuzzSkimRecord(f *testing.F) {
	s, l, n := minhash.NewAll("a text with both sketches, for the fuzzer")
	d := Doc{Fingerprint: 3, ContentHash: 4, Title: "t", Sketch: s, Long: l, Shingles: n, Job: "j", Seq: 2, Original: "o", Via: "o", Hops: 1}
	f.Add(encodeDoc(nil, &d))
	if b, err := BatchRecord(nil, encodeDoc(nil, &d), "id"); err == nil {
		f.Add(b)
	}
	f.Add(encodeDoc(nil, &Doc{}))
	f.Fuzz(func(t *testing.T, rec []byte) {
		sk, ok := skimRecord(rec)
		doc, err := decodeRecord(rec, "id", false)
		if err != nil {
			return // skimRecord may read what decodeRecord refuses; fetch decodes it and fails
		}
		if !ok {
			t.Fatalf("skimRecord refused a record that decodes: %x", rec)
		}
		if sk.fingerprint != doc.Fingerprint || sk.contentHash != doc.ContentHash || sk.sketch != !doc.Sketch.IsZero() || sk.shingles != doc.Shingles {
			t.Fatalf("skim %+v; decoded %v %v %v %v", sk, doc.Fingerprint, doc.ContentHash, !doc.Sketch.IsZero(), doc.Shingles)
		}
		if (sk.long != nil && *sk.long != doc.Long) || (sk.long == nil && !doc.Long.IsZero()) {
			t.Fatalf("skimmed confirmation sketch %v; decoded %v", sk.long, doc.Long)
		}
	})
}

// filterQuery returns an index with the default MinContent, a 64-value
// sketch, and a query document with both sketches, 1,000 5-grams, a zero
// fingerprint and content hash 1, for the in-place filter's tests.
func filterQuery() (*Index, minhash.Sketch, *Doc) {
	var sk minhash.Sketch
	sk[0] = 1
	return &Index{minContent: 0.7}, sk, &Doc{ID: "d", Fingerprint: 0, ContentHash: 1, Sketch: sk, Long: longAgreeing(256), Shingles: 1000}
}

// TestUnconfirmable checks the rule against Confirmed's: a document is
// turned down only when it is no exact copy, farther than the distance,
// and not Confirmed by the confirmation sketches.
func TestUnconfirmable(t *testing.T) {
	x, sk, d := filterQuery()
	for _, tt := range []struct {
		name string
		r    Doc
		want bool
	}{
		{"J 0.40, far", Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Long: longAgreeing(103), Shingles: 1000}, true},
		{"J 0.70, far", Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Long: longAgreeing(180), Shingles: 1000}, false},
		{"J 0.686 (under min-content)", Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Long: longAgreeing(176), Shingles: 1000}, true},
		{"J 0.573, contained (600 in 1000)", Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Long: longAgreeing(147), Shingles: 600}, false},
		{"J 0.569: under the floor", Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Long: longAgreeing(146), Shingles: 550}, true},
		{"J 0.40, 3 bits away", Doc{Fingerprint: 0x7, ContentHash: 2, Sketch: sk, Long: longAgreeing(103), Shingles: 1000}, false},
		{"J 0.40, same content hash", Doc{Fingerprint: 0xffff, ContentHash: 1, Sketch: sk, Long: longAgreeing(103), Shingles: 1000}, false},
		{"no confirmation sketch", Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Shingles: 1000}, false},
		{"no sketch", Doc{Fingerprint: 0xffff, ContentHash: 2, Long: longAgreeing(103), Shingles: 1000}, false},
	} {
		s, ok := skimRecord(encodeDoc(nil, &tt.r))
		if !ok {
			t.Fatalf("%s: skimRecord failed", tt.name)
		}
		if got := x.unconfirmable(d, &s, 3); got != tt.want {
			t.Errorf("%s: unconfirmable = %v, want %v", tt.name, got, tt.want)
		}
		// Never a document confirm would match.
		if tt.want && (tt.r.ContentHash == d.ContentHash || d.Fingerprint.Distance(tt.r.Fingerprint) <= 3 || Confirmed(d, &tt.r, 0.7)) {
			t.Errorf("%s: turned down, but confirm would match it", tt.name)
		}
	}
}

// unconfirmableBy reads only the first m values: it turns down what even
// the rest agreeing could not confirm, and nothing else.
func TestUnconfirmableBy(t *testing.T) {
	x, sk, d := filterQuery()
	for _, tt := range []struct {
		name  string
		agree int // the first values of the candidate's sketch that agree with d's
		m     int
		want  bool
	}{
		{"J 0.40 by all, 0.90 at most by the first 128: cannot tell", 103, 128, false},
		{"J 0.40 by all", 103, 256, true},
		{"18 of the first 128: at most J 0.569, under the floor", 18, 128, true},
		{"19 of the first 128: at most J 0.573, contained", 19, 128, false},
		{"19 of the first 64: at most J 0.82", 19, 64, false},
		{"nothing read", 0, 0, false},
	} {
		r := Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Long: longAgreeing(tt.agree), Shingles: 600}
		s, ok := skimRecord(encodeDoc(nil, &r))
		if !ok {
			t.Fatalf("%s: skimRecord failed", tt.name)
		}
		if got := x.unconfirmableBy(d, &s, 3, tt.m); got != tt.want {
			t.Errorf("%s: unconfirmableBy(m=%d) = %v, want %v", tt.name, tt.m, got, tt.want)
		}
		// What it turns down, unconfirmable turns down.
		if tt.want && !x.unconfirmable(d, &s, 3) {
			t.Errorf("%s: turned down by the first %d values, but not by all", tt.name, tt.m)
		}
	}
}

// numbered is a NumberedRecords of fixed records.
type numbered struct {
	recs map[uint64][]byte
	err  error
	read []uint64
}

func (n *numbered) RecordsByNum(_ context.Context, nums []uint64) ([][]byte, error) {
	n.read = append(n.read, nums...)
	out := make([][]byte, len(nums))
	for i, m := range nums {
		out[i] = n.recs[m]
	}
	return out, n.err
}

func (n *numbered) Nums(context.Context, []string) ([]uint64, error) { return nil, nil }

func TestDropUnconfirmable(t *testing.T) {
	x, sk, d := filterQuery()
	far := func(k int) []byte {
		return encodeDoc(nil, &Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Long: longAgreeing(k), Shingles: 1000})
	}
	nr := &numbered{recs: map[uint64][]byte{
		2: far(103),                                                                                       // J 0.40: down
		3: far(200),                                                                                       // J 0.78: kept
		4: encodeDoc(nil, &Doc{Fingerprint: 0xffff, ContentHash: 1, Sketch: sk, Long: longAgreeing(103)}), // an exact copy
		5: {9, 9},                                                                                         // not a record: kept for fetch to report
		7: far(50),                                                                                        // J 0.19: down
	}}
	seen := []Earlier{
		{Num: 1, ID: "table", Fingerprint: 0x3}, // within 3 bits: kept
		{Num: 7, ID: "low 2"},
		{Num: 2, ID: "low"},
		{Num: 3, ID: "high"},
		{Num: 2, ID: "low"}, // seen under another band too
		{Num: 4, ID: "exact"},
		{Num: 5, ID: "corrupt"},
		{Num: 6, ID: "gone"},                   // no record (deleted since): kept
		{Num: firstFresh + 1, ID: "this call"}, // written by this call: kept unread
		{Num: 7, ID: "low 2"},                  // again
	}
	got := x.dropUnconfirmable(t.Context(), nr, d, slices.Clone(seen), 3)
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	if want := []string{"table", "high", "exact", "corrupt", "gone", "this call"}; !slices.Equal(ids, want) {
		t.Errorf("kept %q, want %q", ids, want)
	}
	if want := []uint64{1, 7, 2, 3, 4, 5, 6}; !slices.Equal(nr.read, want) {
		t.Errorf("read the records of %v, want %v (each once, in the order first seen)", nr.read, want)
	}
	nr.err = errors.New("store down")
	if got := x.dropUnconfirmable(t.Context(), nr, d, slices.Clone(seen), 3); len(got) != len(seen) {
		t.Errorf("with the store failing, kept %d of %d; want all (fetch reports the error)", len(got), len(seen))
	}
	bare := *d
	bare.Long = minhash.Long{}
	nr.read = nil
	if got := x.dropUnconfirmable(t.Context(), nr, &bare, slices.Clone(seen), 3); len(got) != len(seen) || nr.read != nil {
		t.Errorf("a query without a confirmation sketch: kept %d of %d, read %v; want all, none read", len(got), len(seen), nr.read)
	}
}

// A lean record of the default analysis, as memstore keeps it, read as
// the in-place filter reads each candidate's.
func BenchmarkSkimRecord(b *testing.B) {
	s, l, n := minhash.NewAll(strings.Repeat("a text with both sketches, long enough for a benchmark; ", 20))
	d := Doc{Fingerprint: 3, ContentHash: 4, Added: time.Unix(1795000000, 123456789), Sketch: s, Long: l, Shingles: n, Seq: 1234567}
	rec, err := BatchRecord(nil, encodeDoc(nil, &d), "id")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(rec)))
	for b.Loop() {
		if _, ok := skimRecord(rec); !ok {
			b.Fatal("skimRecord failed")
		}
	}
}

// Many candidates, each seen under several bands, in no order: each
// record read once, and every sighting of a document turned down left
// out.
func TestDropUnconfirmableMany(t *testing.T) {
	x, sk, d := filterQuery()
	down := encodeDoc(nil, &Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Long: longAgreeing(103), Shingles: 1000})
	kept := encodeDoc(nil, &Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Long: longAgreeing(200), Shingles: 1000})
	nr := &numbered{recs: map[uint64][]byte{}}
	var seen []Earlier
	for n := uint64(1); n <= 300; n++ {
		nr.recs[n] = down
		if n%3 == 0 {
			nr.recs[n] = kept
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3 {
		for _, n := range rng.Perm(300) {
			seen = append(seen, Earlier{Num: uint64(n + 1), ID: fmt.Sprint(n + 1)})
		}
	}
	got := x.dropUnconfirmable(t.Context(), nr, d, slices.Clone(seen), 3)
	if len(got) != 300 {
		t.Errorf("kept %d sightings, want 300 (100 documents, 3 times each)", len(got))
	}
	for _, e := range got {
		if e.Num%3 != 0 {
			t.Errorf("kept %d, turned down", e.Num)
		}
	}
	slices.Sort(nr.read)
	if len(nr.read) != 300 || nr.read[0] != 1 || nr.read[299] != 300 || len(slices.Compact(slices.Clone(nr.read))) != 300 {
		t.Errorf("read %d records, want each of 1…300 once", len(nr.read))
	}
}

// dropUnconfirmableRead turns down, in the postings a read of the store
// returns for a chunk of writes, what dropUnconfirmable turns down of a
// write's candidates, judging each write by its record.
func TestDropUnconfirmableRead(t *testing.T) {
	x, sk, d := filterQuery()
	far := func(k int) []byte {
		return encodeDoc(nil, &Doc{Fingerprint: 0xffff, ContentHash: 2, Sketch: sk, Long: longAgreeing(k), Shingles: 1000})
	}
	nr := &numbered{recs: map[uint64][]byte{
		1: far(50),                                                                                        // J 0.19, but within 3 bits of the query: kept
		2: far(103),                                                                                       // J 0.40: down
		3: far(200),                                                                                       // J 0.78: kept
		4: encodeDoc(nil, &Doc{Fingerprint: 0xffff, ContentHash: 1, Sketch: sk, Long: longAgreeing(103)}), // an exact copy
		5: {9, 9},                                                                                         // not a record: kept for fetch to report
		7: far(50),                                                                                        // J 0.19: down
		8: far(50),
	}}
	// J 0.19, but within 3 bits of the query: kept.
	nr.recs[1] = encodeDoc(nil, &Doc{Fingerprint: 0x3, ContentHash: 2, Sketch: sk, Long: longAgreeing(50), Shingles: 1000})
	noLong := *d
	noLong.Long = minhash.Long{}
	ws := []Write{
		{ID: "d", Record: encodeDoc(nil, d)},
		{ID: "no confirmation sketch", Record: encodeDoc(nil, &noLong)},
		{ID: "d again", Record: encodeDoc(nil, d)},
		{ID: "not a record", Record: []byte{9, 9}},
	}
	ps := func() [][][]Posting {
		return [][][]Posting{
			{
				{{ID: "table", Fingerprint: 0x3, Num: 1}, {ID: "low 2", Num: 7}, {ID: "low", Num: 2}},
				{{ID: "high", Num: 3}, {ID: "low", Num: 2}, {ID: "exact", Num: 4}, {ID: "corrupt", Num: 5}, {ID: "gone", Num: 6}, {ID: "unnumbered", Num: 0}},
			},
			{{{ID: "low", Num: 2}, {ID: "low 3", Num: 8}}},
			{{{ID: "low", Num: 2}}, {{ID: "high", Num: 3}}},
			{{{ID: "low 3", Num: 8}}},
		}
	}
	ids := func(ps [][][]Posting) [][]string {
		var out [][]string
		for _, w := range ps {
			for _, l := range w {
				var s []string
				for _, p := range l {
					s = append(s, p.ID)
				}
				out = append(out, s)
			}
		}
		return out
	}
	got := ps()
	x.dropUnconfirmableRead(t.Context(), nr, ws, got, 3)
	want := [][]string{
		{"table"},
		{"high", "exact", "corrupt", "gone", "unnumbered"},
		{"low", "low 3"},
		nil,
		{"high"},
		{"low 3"},
	}
	if g := ids(got); !reflect.DeepEqual(g, want) {
		t.Errorf("kept %q,\nwant %q", g, want)
	}
	if want := []uint64{1, 7, 2, 3, 4, 5, 6}; !slices.Equal(nr.read, want) {
		t.Errorf("read the records of %v, want %v (each once, in the order first met; none for writes that do not filter)", nr.read, want)
	}
	nr.err = errors.New("store down")
	got = ps()
	x.dropUnconfirmableRead(t.Context(), nr, ws, got, 3)
	if g, w := ids(got), ids(ps()); !reflect.DeepEqual(g, w) {
		t.Errorf("with the store failing, kept %q; want all (fetch reports the error)", g)
	}
}
