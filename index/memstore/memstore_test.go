package memstore_test

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/neardup/neardup/tfidf"
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

// A Memory keeps copies of the strings it is given, not the larger
// strings they may be slices of.
func TestMemoryOwnsStrings(t *testing.T) {
	m, err := NewMemory(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	text := strings.Repeat("news article text ", 1000)
	d := Doc{ID: text[:4], Title: text[5:12], Fingerprint: 0x0123456789abcdef,
		Keywords: []tfidf.Keyword{{Word: text[13:17], Weight: 2}}}
	if err := m.Add(d); err != nil {
		t.Fatal(err)
	}
	got, err := m.Get("news")
	if err != nil {
		t.Fatal(err)
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	within := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return start <= p && p < start+uintptr(len(text))
	}
	for _, s := range []struct{ field, v string }{{"ID", got.ID}, {"Title", got.Title}, {"Keywords[0].Word", got.Keywords[0].Word}} {
		if within(s.v) {
			t.Errorf("the stored %s %q is a slice of the text it was cut from", s.field, s.v)
		}
	}
	if got.ID != "news" || got.Title != "article" || got.Keywords[0].Word != "text" {
		t.Errorf("Get = %q, %q, %q; want news, article, text", got.ID, got.Title, got.Keywords[0].Word)
	}
}
