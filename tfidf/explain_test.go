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
