package reuse

import (
	"reflect"
	"strings"
	"testing"
)

const (
	para1 = "The committee approved the budget on Tuesday after a long debate about school funding and road repairs in the northern districts."
	para2 = "Heavy rain is expected across the region this weekend, and officials urged residents near the river to prepare sandbags early."
	para3 = "A new library will open downtown next spring with a children's wing, a maker space and extended evening hours for students."
)

// Compare: the passages two texts share, where they are in both, and
// each text's share; a light edit inside a passage does not split it.
func TestCompare(t *testing.T) {
	a := para1 + " " + para2
	b := "Local news. " + strings.Replace(para2, "this weekend", "this Sunday", 1) + " " + para3
	o := Compare(mustText(t, a), mustText(t, b), DefaultParams, 50, nil)
	// The passage starts two characters early: "s." ends both the
	// sentence before it in a and "Local news." in b.
	want := []Passage{{Here: Span{127, 256}, There: Span{9, 137}, Chars: 109}}
	if !reflect.DeepEqual(o.Passages, want) {
		t.Fatalf("passages %+v, want %+v", o.Passages, want)
	}
	if got := a[o.Passages[0].Here.Start:o.Passages[0].Here.End]; got != "s. "+para2 {
		t.Errorf("passage here %q, want \"s. \" and para2", got)
	}
	if got := b[o.Passages[0].There.Start:o.Passages[0].There.End]; !strings.HasPrefix(got, "s. Heavy rain") || !strings.HasSuffix(got, "sandbags early.") {
		t.Errorf("passage there %q, want para2 as edited", got)
	}
	na, nb := mustText(t, a).Len(), mustText(t, b).Len()
	if o.Here != 109/float64(na) || o.There != 108/float64(nb) {
		t.Errorf("shares %v, %v; want 109/%d, 108/%d", o.Here, o.There, na, nb)
	}
	// Passages shorter than minChars do not count.
	if o := Compare(mustText(t, a), mustText(t, b), DefaultParams, 200, nil); len(o.Passages) != 0 || o.Here != 0 || o.There != 0 {
		t.Errorf("minChars 200: %+v, want nothing", o)
	}
	// A stop list holding every shared fingerprint leaves nothing.
	stop := map[uint64]bool{}
	for _, p := range DefaultParams.Prints(mustText(t, a)) {
		stop[DefaultParams.Key(p.Hash)] = true
	}
	if o := Compare(mustText(t, a), mustText(t, b), DefaultParams, 50, stop); len(o.Passages) != 0 || o.There != 0 {
		t.Errorf("all boilerplate: %+v, want nothing", o)
	}
	// Unrelated texts on the same topic share nothing.
	if o := Compare(mustText(t, para1), mustText(t, para3), DefaultParams, 50, nil); len(o.Passages) != 0 {
		t.Errorf("unrelated: %+v", o)
	}
}
