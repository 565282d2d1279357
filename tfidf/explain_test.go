package tfidf

import (
	"reflect"
	"testing"
)

func TestExplain(t *testing.T) {
	a := []Keyword{{Word: "b", Weight: 1}, {Word: "a", Weight: 1}, {Word: "x", Weight: 0.5}, {Word: "x", Weight: 0.25}, {Word: "p", Weight: 2}}
	b := []Keyword{{Word: "a", Weight: 1}, {Word: "b", Weight: 1}, {Word: "x", Weight: 3}, {Word: "q", Weight: 2}, {Word: "r", Weight: 2}}
	got := Explain(a, b)
	want := Explanation{
		Shared: []SharedKeyword{
			{Word: "x", WeightA: 0.75, WeightB: 3},
			{Word: "a", WeightA: 1, WeightB: 1}, // ties broken by word
			{Word: "b", WeightA: 1, WeightB: 1},
		},
		OnlyA: []Keyword{{Word: "p", Weight: 2}},
		OnlyB: []Keyword{{Word: "q", Weight: 2}, {Word: "r", Weight: 2}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Explain =\n%+v\nwant\n%+v", got, want)
	}
	if e := Explain(nil, nil); e.Shared != nil || e.OnlyA != nil || e.OnlyB != nil {
		t.Errorf("Explain(nil, nil) = %+v", e)
	}
}

// TestShared: Shared lists what Explain's Shared does, for the inputs of
// TestExplain, inputs without a shared word and a word listed twice.
func TestShared(t *testing.T) {
	a := []Keyword{{Word: "b", Weight: 1}, {Word: "a", Weight: 1}, {Word: "x", Weight: 0.5}, {Word: "x", Weight: 0.25}, {Word: "p", Weight: 2}}
	b := []Keyword{{Word: "a", Weight: 1}, {Word: "b", Weight: 1}, {Word: "x", Weight: 3}, {Word: "q", Weight: 2}, {Word: "r", Weight: 2}, {Word: "a", Weight: 0.5}}
	for _, c := range []struct {
		a, b []Keyword
		want []SharedKeyword
	}{
		{a, b, []SharedKeyword{{Word: "x", WeightA: 0.75, WeightB: 3}, {Word: "a", WeightA: 1, WeightB: 1.5}, {Word: "b", WeightA: 1, WeightB: 1}}},
		{b, a, []SharedKeyword{{Word: "x", WeightA: 3, WeightB: 0.75}, {Word: "a", WeightA: 1.5, WeightB: 1}, {Word: "b", WeightA: 1, WeightB: 1}}},
		{a, []Keyword{{Word: "q", Weight: 1}}, nil},
		{nil, b, nil},
		{a, nil, nil},
	} {
		got := Shared(c.a, c.b)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Shared(%v, %v) =\n%+v\nwant\n%+v", c.a, c.b, got, c.want)
		}
		if e := Explain(c.a, c.b).Shared; !reflect.DeepEqual(got, e) {
			t.Errorf("Shared(%v, %v) = %+v, Explain's Shared %+v", c.a, c.b, got, e)
		}
	}
}

// FuzzShared: Shared is Explain's Shared, for keywords made of the
// input's bytes (a word of one or two of them, a weight from the next).
func FuzzShared(f *testing.F) {
	f.Add([]byte("abcabd"), []byte("bcaxyz"))
	f.Add([]byte(""), []byte("aa"))
	kw := func(b []byte) []Keyword {
		var out []Keyword
		for i := 0; i+1 < len(b); i += 2 {
			out = append(out, Keyword{Word: string(b[i : i+1+int(b[i+1]%2)]), Weight: float64(b[i+1]%7) / 4})
		}
		return out
	}
	f.Fuzz(func(t *testing.T, x, y []byte) {
		a, b := kw(x), kw(y)
		if got, want := Shared(a, b), Explain(a, b).Shared; !reflect.DeepEqual(got, want) {
			t.Fatalf("Shared(%v, %v) = %+v, Explain's Shared %+v", a, b, got, want)
		}
	})
}
