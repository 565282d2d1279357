package reuse

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
)

func openReuse(t *testing.T, o *Options) (*Index, *index.Index) {
	t.Helper()
	x, err := memstore.Open(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	r, err := Open(t.Context(), x, nil, Params{}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r, x
}

func add(t *testing.T, r *Index, x *index.Index, id, text string, keep bool) {
	t.Helper()
	d := index.Doc{ID: id, Title: "title " + id}
	if keep {
		d.Text = text
	}
	if err := r.Prepare(t.Context(), &d, text); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(t.Context(), d); err != nil {
		t.Fatal(err)
	}
}

// Find: the archived articles an article shares passages with, with
// both shares, and the passages where texts are kept; estimates where
// they are not.
func TestFind(t *testing.T) {
	r, x := openReuse(t, nil)
	add(t, r, x, "long", para1+" "+para2+" "+para3, true)
	add(t, r, x, "other", para3, true)
	add(t, r, x, "bare", para1, false)
	ctx := t.Context()

	// A short piece made of one paragraph of "long" and another of
	// nobody's.
	q := para2 + " The mayor did not comment on the plans for the festival this year, which remain uncertain."
	a, err := r.Find(ctx, q, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Matches) != 1 || a.Matches[0].ID != "long" || a.Dropped != 0 || a.Candidates != 1 {
		t.Fatalf("Find = %+v, want one match, long", a)
	}
	m := a.Matches[0]
	nq, nl := mustText(t, q).Len(), mustText(t, para1+" "+para2+" "+para3).Len()
	if m.Here != 107/float64(nq) || m.There != 107/float64(nl) || m.Estimated || m.Title != "title long" {
		t.Errorf("match %+v: want shares 107/%d, 107/%d", m, nq, nl)
	}
	if want := []Passage{{Here: Span{0, len(para2)}, There: Span{len(para1) + 1, len(para1) + 1 + len(para2)}, Chars: 107}}; !reflect.DeepEqual(m.Passages, want) {
		t.Errorf("passages %+v, want %+v", m.Passages, want)
	}

	// para1 is all of "bare", whose text is not kept: estimated from
	// the fingerprints, no passages. It is also a third of "long".
	a, err = r.Find(ctx, para1, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Matches) != 2 {
		t.Fatalf("Find(para1) = %+v, want bare and long", a)
	}
	if b := a.Matches[0]; b.ID != "bare" || !b.Estimated || b.Here != 1 || b.There != 1 || b.Passages != nil || b.Prints != a.Prints {
		t.Errorf("match %+v: want bare, estimated, shares 1, no passages", b)
	}
	if l := a.Matches[1]; l.ID != "long" || l.Here != 1 || l.Estimated {
		t.Errorf("match %+v: want long, all of the article", l)
	}
	// Its own ID is left out; an unrelated article finds nothing.
	if a, _ := r.Find(ctx, para3, "other"); len(a.Matches) != 1 || a.Matches[0].ID != "long" {
		t.Errorf("Find(para3, self other) = %+v, want long alone", a)
	}
	if a, _ := r.Find(ctx, "Nothing in this sentence was ever published in the archive before today, we hope.", ""); len(a.Matches) != 0 || a.Candidates != 0 {
		t.Errorf("unrelated: %+v", a)
	}
	// Below MinShare nothing is reported: para2 is a third of "long",
	// less than half of this article.
	if a, _ := r.Find(ctx, para2+" "+strings.Repeat("Unrelated words follow here, many of them. ", 6), ""); len(a.Matches) != 0 || a.Candidates != 1 {
		t.Errorf("a third: %+v, want a candidate and no match", a)
	}
}

// The stop rule: a passage in MaxDocs documents finds no candidate and
// is filed under no more; it is counted.
func TestStopRule(t *testing.T) {
	r, x := openReuse(t, &Options{MaxDocs: 3})
	credit := "Reporting by Jane Doe; Editing by John Smith and the whole news desk team."
	for i := range 5 {
		add(t, r, x, fmt.Sprint("d", i), fmt.Sprintf("Story %d is about something else entirely, number %d. ", i, i*7919)+credit, true)
	}
	ps, err := x.Store().Postings(t.Context(), []index.Key{{Kind: index.KindPassage, Value: r.p.Key(r.p.Prints(mustText(t, credit))[0].Hash)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps[0]) != 3 {
		t.Errorf("the credit's first fingerprint is filed for %d documents, want 3 (MaxDocs)", len(ps[0]))
	}
	a, err := r.Find(t.Context(), "Another story about a quite different thing. "+credit, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Matches) != 0 || a.Dropped == 0 {
		t.Errorf("Find = %+v, want no match and dropped fingerprints", a)
	}
	// Under a higher bound the three filed documents are found.
	r.o.MaxDocs = 4
	if a, _ := r.Find(t.Context(), "Another story about a quite different thing. "+credit, ""); a.Dropped != 0 || len(a.Matches) != 3 {
		t.Errorf("MaxDocs 4: %+v, want d0, d1, d2", a)
	}
}

// Open makes a reuse index in an empty archive only; an archive with
// documents and none says so, and remembers it.
func TestOpen(t *testing.T) {
	ctx := t.Context()
	x, err := memstore.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Add(ctx, index.Doc{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, x, nil, Params{}, nil); !errors.Is(err, ErrNoIndex) {
		t.Errorf("Open on an archive with a document: %v, want ErrNoIndex", err)
	}
	if err := x.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, x, nil, Params{}, nil); !errors.Is(err, ErrNoIndex) {
		t.Errorf("Open after the archive emptied: %v, want ErrNoIndex still", err)
	}

	y, err := memstore.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	if _, err := Open(ctx, y, nil, Params{Gram: 8, Window: 43, Bits: 64}, nil); err != nil {
		t.Fatal(err)
	}
	if err := y.Add(ctx, index.Doc{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, y, nil, Params{}, nil)
	if err != nil || r.Params() != (Params{Gram: 8, Window: 43, Bits: 64}) {
		t.Errorf("reopened: %v, %v; want the recorded params 8, 43, 64", r, err)
	}
	if _, err := Open(ctx, y, nil, Params{Gram: 0, Window: 300}, nil); err == nil {
		t.Errorf("Open with window 300: no error")
	}
}

func TestAnswerWriteText(t *testing.T) {
	a := Answer{Matches: []Match{
		{ID: "long", Title: "Title", Here: 0.624, There: 0.306, Passages: []Passage{{Chars: 107}}},
		{ID: "bare", Here: 1, There: 0.5, Estimated: true},
	}}
	var b strings.Builder
	if err := a.WriteText(&b, "article.txt"); err != nil {
		t.Fatal(err)
	}
	want := `article.txt: partial reuse: 2 archived articles share passages with it
    long  "Title"
        62% of this article is in it, 31% of it is in this article (1 passage, 107 characters)
    bare
        100% of this article is in it, 50% of it is in this article (estimated from fingerprints: its text is not kept)
`
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := (&Answer{}).WriteText(&b, "x"); err != nil || b.Len() != 0 {
		t.Errorf("no match: %q, %v; want nothing", b.String(), err)
	}
}

// OpenExisting: nil for an archive without a reuse index (and records
// that it has none); the index of one that has one.
func TestOpenExisting(t *testing.T) {
	ctx := t.Context()
	x, err := memstore.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if r, err := OpenExisting(ctx, x, nil, nil); r != nil || err != nil {
		t.Fatalf("OpenExisting on an empty archive: %v, %v; want nil, nil", r, err)
	}
	if _, err := Open(ctx, x, nil, Params{}, nil); !errors.Is(err, ErrNoIndex) {
		t.Errorf("Open after OpenExisting recorded none: %v, want ErrNoIndex", err)
	}
	y, err := memstore.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	if _, err := Open(ctx, y, nil, Params{Gram: 9, Window: 20}, nil); err != nil {
		t.Fatal(err)
	}
	if r, err := OpenExisting(ctx, y, nil, nil); err != nil || r == nil || r.Params() != (Params{Gram: 9, Window: 20, Bits: 32}) {
		t.Errorf("OpenExisting on a reuse archive: %v, %v", r, err)
	}
}

// Batch: each article's pairs with those before it, a before b, each
// share that of the article in the other; its own ID left out when an
// ID comes again.
func TestBatch(t *testing.T) {
	b, err := NewBatch(t.Context(), nil, Params{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	long := para1 + " " + para2 + " " + para3
	steps := []struct {
		id, text string
		want     []string
	}{
		{"long", long, nil},
		{"other", "Nothing here was ever written before, not a single sentence of it, as far as anyone knows.", nil},
		{"piece", para2 + " It rained.", []string{"long piece"}},
		{"piece", para2 + " It rained.", []string{"long piece"}},
	}
	for _, s := range steps {
		ps, err := b.Add(t.Context(), s.id, s.text)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range ps {
			got = append(got, p.A+" "+p.B)
			if p.BShare < 0.9 || p.AShare > 0.4 || p.AShare < 0.3 {
				t.Errorf("%s: pair %+v: want most of piece, a third of long", s.id, p)
			}
		}
		if !slices.Equal(got, s.want) {
			t.Errorf("Add(%s) pairs %v, want %v", s.id, got, s.want)
		}
	}
	if st := b.Stats(); st != (BatchStats{Docs: 4, Pairs: 2}) {
		t.Errorf("stats %+v", st)
	}
	var w strings.Builder
	if err := WritePairs(&w, []Pair{{A: "a", B: "b", AShare: 0.25, BShare: 1}}); err != nil || w.String() != `{"a":"a","b":"b","a_share":0.25,"b_share":1}`+"\n" {
		t.Errorf("WritePairs: %q, %v", w.String(), err)
	}
}

// Two k-grams whose hashes differ but whose 32-bit keys are equal (found
// by a birthday search over "passage%05d"): with 32-bit keys the one
// archived is a candidate for the other, and the measure on the two
// texts drops it; with 64-bit keys it is not a candidate at all. Where
// the archived text is not kept, the estimate from the fingerprints
// cannot tell: it is the one case 32-bit keys answer differently.
func TestKeyCollision(t *testing.T) {
	const a, b = "passage23001", "passage82424"
	ha, hb := GramHash([]rune(a)), GramHash([]rune(b))
	if ha != 0x495be410a92b0211 || hb != 0x819ab658a92b0211 {
		t.Fatalf("hashes %x, %x; want 495be410a92b0211, 819ab658a92b0211", ha, hb)
	}
	p32, p64 := Params{Bits: 32}.resolve(), Params{Bits: 64}.resolve()
	if p32.Key(ha) != 0xa92b0211 || p32.Key(hb) != 0xa92b0211 || p64.Key(ha) != ha {
		t.Fatalf("keys %x, %x, %x; want a92b0211 twice, then the hash", p32.Key(ha), p32.Key(hb), p64.Key(ha))
	}
	for _, tt := range []struct {
		bits       int
		keep       bool
		candidates int
		matches    int
	}{
		{32, true, 1, 0},
		{32, false, 1, 1},
		{64, true, 0, 0},
		{64, false, 0, 0},
	} {
		x, err := memstore.Open(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		r, err := Open(t.Context(), x, nil, Params{Bits: tt.bits}, nil)
		if err != nil {
			t.Fatal(err)
		}
		add(t, r, x, "a", a, tt.keep)
		ans, err := r.Find(t.Context(), b, "")
		if err != nil {
			t.Fatal(err)
		}
		if ans.Candidates != tt.candidates || len(ans.Matches) != tt.matches {
			t.Errorf("%d bits, text kept %v: %d candidates, matches %+v; want %d and %d", tt.bits, tt.keep, ans.Candidates, ans.Matches, tt.candidates, tt.matches)
		}
	}
}

func TestKeys(t *testing.T) {
	hs := []uint64{0x0000000112345678, 0x9, 0x0000000212345678, 0xffffffff00000009, 0xffffffff}
	if got, want := (Params{Bits: 32}).Keys(hs), []uint64{0x12345678, 0x9, 0xffffffff}; !slices.Equal(got, want) {
		t.Errorf("32-bit keys %x, want %x", got, want)
	}
	if got := (Params{Bits: 64}).Keys(append(hs, 0x9)); !slices.Equal(got, hs) {
		t.Errorf("64-bit keys %x, want %x", got, hs)
	}
}
