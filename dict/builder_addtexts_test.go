package dict

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestAddTexts: counting with several workers gives the table counting
// one text at a time gives, and a failing text is left out and its error
// returned.
func TestAddTexts(t *testing.T) {
	texts := []string{"a b c", "b c", "c", "bad", "c d d"}
	words := func(s string) ([]string, error) {
		if s == "bad" {
			return nil, errors.New("bad text")
		}
		return strings.Fields(s), nil
	}
	b := NewIDFBuilder()
	err := b.AddTexts(slices.Values(texts), words, 3)
	if err == nil || err.Error() != "bad text" {
		t.Errorf("AddTexts: %v, want the bad text's error", err)
	}
	want := NewIDFBuilder()
	for _, s := range texts {
		if ws, err := words(s); err == nil {
			want.Add(ws)
		}
	}
	if b.Docs() != 4 || b.Docs() != want.Docs() {
		t.Errorf("Docs = %d, want 4", b.Docs())
	}
	for _, w := range []string{"a", "b", "c", "d"} {
		if b.DF(w) != want.DF(w) {
			t.Errorf("DF(%q) = %d, want %d", w, b.DF(w), want.DF(w))
		}
	}
	if got := []int{b.DF("a"), b.DF("b"), b.DF("c"), b.DF("d")}; !slices.Equal(got, []int{1, 2, 4, 1}) {
		t.Errorf("DFs %v, want [1 2 4 1]", got)
	}
}
