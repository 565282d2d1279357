package neardup

import (
	"testing"

	"github.com/neardup/neardup/dict"
)

// The stop set answers exactly as the list it was built from.
func TestStopSet(t *testing.T) {
	list, err := dict.DefaultStopWords()
	if err != nil {
		t.Fatal(err)
	}
	s := newStopSet(list)
	if len(s.hashes) != 4096 {
		t.Errorf("%d slots for %d words, want 4096", len(s.hashes), len(list))
	}
	for w := range list {
		if !s.Has(w) {
			t.Errorf("Has(%q) = false", w)
		}
		if s.Has(w+"x") != list.Has(w+"x") || s.Has("x"+w) != list.Has("x"+w) {
			t.Errorf("Has(%q or %q) differs from the list", w+"x", "x"+w)
		}
	}
	for _, tt := range []struct {
		word string
		want bool
	}{{"的", true}, {"我们", true}, {"the", true}, {"北京", false}, {"", false}, {"iphone", false}} {
		if got := s.Has(tt.word); got != tt.want {
			t.Errorf("Has(%q) = %v, want %v", tt.word, got, tt.want)
		}
	}
	empty := newStopSet(dict.StopWords{})
	if empty.Has("的") || empty.Has("") {
		t.Errorf("the empty set has a word")
	}
}
