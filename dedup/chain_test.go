package dedup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/testfixtures"
)

// chainText is an article of 50 sentences of made-up words, sentence i
// taken from generation gen[i] (0 for the original's): sentences of
// different generations share (almost) no 5-gram.
func chainText(gen []int) string {
	var b strings.Builder
	for i, g := range gen {
		r := rand.New(rand.NewPCG(uint64(i), uint64(g)))
		for w := range 8 {
			if w > 0 {
				b.WriteByte(' ')
			}
			for range 5 + r.IntN(4) {
				b.WriteByte(byte('a' + r.IntN(26)))
			}
		}
		b.WriteString(". ")
	}
	return b.String()
}

// TestDedupCopiesOfCopies runs a chain of edits, each copy replacing a
// tenth of the sentences of the one before: a copy of a copy joins its
// parent's cluster even when it is too far from the original to match
// it; the drift guard (DriftMinContent) starts a new cluster when the
// chain has walked under 0.5 of the original. The premises, the
// estimated Jaccard similarities with the original (index.Content, from
// the confirmation sketches; exact 45/55, 40/60, 35/65 and 30/70 of the
// sentences: 0.82, 0.67, 0.54, 0.43), are checked first: copy1 matches
// orig itself (>= 0.70), copy2 and copy3 only their parents (but are
// within 0.5 of orig), copy4 only copy3 (and is not). On main before
// issue #18 copy3 was a new original (a copy was compared with originals
// only); before the confirmation sketches the 64-value estimate put
// copy2 at 0.77, over 0.70, and it matched orig directly.
func TestDedupCopiesOfCopies(t *testing.T) {
	a := testfixtures.Analyzer(t, "")
	gen := make([]int, 50)
	var lines []string
	for step := range 7 {
		for i := 5 * (step - 1); step > 0 && i < 5*step; i++ {
			gen[i] = step
		}
		id := "orig"
		if step > 0 {
			id = fmt.Sprintf("copy%d", step)
		}
		lines = append(lines, fmt.Sprintf(`{"id":%q,"text":%q}`, id, chainText(gen)))
	}
	store, err := memstore.Open(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	r := input.NewReader([]string{"-"}, strings.NewReader(strings.Join(lines, "\n")), nil)
	var got []string
	clusters := NewClusters("")
	_, err = Run(context.Background(), r, a, store, nil, func(o *Outcome) error {
		s := o.Record.ID + " " + o.Verdict.String()
		if o.Verdict == Duplicate {
			m := &o.Matches[0]
			s += fmt.Sprintf(" of %s via %s", ClusterOf(m), m.ID)
		}
		got = append(got, s)
		clusters.Add(o)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := store.Get(context.Background(), "orig")
	if err != nil {
		t.Fatal(err)
	}
	for id, r := range map[string][2]float64{"copy1": {0.7, 1}, "copy2": {0.5, 0.7}, "copy3": {0.5, 0.7}, "copy4": {0, 0.5}} {
		d, err := store.Get(context.Background(), id)
		if j := index.Content(&d, &orig); err != nil || j < r[0] || j >= r[1] {
			t.Fatalf("premise: %s's estimated Jaccard with orig is %.3f (%v), want it in [%.1f, %.1f)", id, j, err, r[0], r[1])
		}
	}
	want := []string{
		"orig unique",
		"copy1 duplicate of orig via orig",
		"copy2 duplicate of orig via copy1",
		"copy3 duplicate of orig via copy2",
		"copy4 unique", // matches copy3, but is too far from orig
		"copy5 duplicate of copy4 via copy4",
		"copy6 duplicate of copy4 via copy5",
	}
	if !reflect.DeepEqual(got, want) {
		var est []string
		for _, id := range []string{"copy1", "copy2", "copy3", "copy4"} {
			d, _ := store.Get(context.Background(), id)
			o, _ := store.Get(context.Background(), "orig")
			est = append(est, fmt.Sprintf("%s %.3f", id, index.Content(&d, &o)))
		}
		t.Errorf("got\n%s\nwant\n%s\n(estimated Jaccard with orig: %s)", strings.Join(got, "\n"), strings.Join(want, "\n"), strings.Join(est, ", "))
	}
	var cls []string
	for _, c := range clusters.Sorted() {
		cls = append(cls, fmt.Sprintf("%s %+v", c.ID, c.Members))
	}
	if len(cls) != 2 || !strings.HasPrefix(cls[0], "orig [{ID:copy1 Via: ") || !strings.Contains(cls[0], "{ID:copy2 Via:copy1 ") ||
		!strings.Contains(cls[0], "{ID:copy3 Via:copy2 ") || !strings.HasPrefix(cls[1], "copy4 [{ID:copy5 Via: ") || !strings.Contains(cls[1], "{ID:copy6 Via:copy5 ") {
		t.Errorf("clusters:\n%s", strings.Join(cls, "\n"))
	}
	// Every member is archived, in its cluster.
	for id, want := range map[string]string{"copy2": "orig copy1 2", "copy3": "orig copy2 3", "copy6": "copy4 copy5 2", "copy4": "  0"} {
		d, err := store.Get(context.Background(), id)
		if got := fmt.Sprintf("%s %s %d", d.Original, d.Via, d.Hops); err != nil || got != want {
			t.Errorf("archived %s: original, via, hops %q (%v), want %q", id, got, err, want)
		}
	}
}
