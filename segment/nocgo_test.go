//go:build !cgo

package segment

import (
	"errors"
	"slices"
	"testing"
)

func TestJiebaUnavailable(t *testing.T) {
	if _, err := NewJieba(nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf("NewJieba: error %v, want ErrUnavailable", err)
	}
	if _, err := New("jieba", nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf(`New("jieba"): error %v, want ErrUnavailable`, err)
	}
	if got := Backends(); !slices.Equal(got, []string{"gse"}) {
		t.Errorf("Backends() = %q, want [gse]", got)
	}
	if DefaultBackend != "gse" {
		t.Errorf("DefaultBackend = %q", DefaultBackend)
	}
}
