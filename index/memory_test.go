package index

import (
	"slices"
	"testing"
)

func TestIDList(t *testing.T) {
	for _, tt := range []struct {
		add, remove []string
		want        []string // sorted
		empty       bool     // what the last remove reports
	}{
		{add: []string{"a"}, remove: []string{"a"}, want: nil, empty: true},
		{add: []string{"a"}, remove: []string{"b"}, want: []string{"a"}},
		{add: []string{"a", "b", "c"}, remove: []string{"a"}, want: []string{"b", "c"}},
		{add: []string{"a", "b", "c"}, remove: []string{"b"}, want: []string{"a", "c"}},
		{add: []string{"a", "b", "c"}, remove: []string{"c", "a", "b"}, want: nil, empty: true},
		{add: []string{"a", "b"}, remove: []string{"a", "x"}, want: []string{"b"}},
	} {
		var l idList
		for _, id := range tt.add {
			l.add(id)
		}
		var empty bool
		for _, id := range tt.remove {
			empty = l.remove(id)
		}
		got := l.appendTo(nil)
		slices.Sort(got)
		if !slices.Equal(got, tt.want) || empty != tt.empty {
			t.Errorf("add %v, remove %v: got %v (empty %v), want %v (empty %v)", tt.add, tt.remove, got, empty, tt.want, tt.empty)
		}
	}
}
