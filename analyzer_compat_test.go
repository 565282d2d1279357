package neardup

import (
	"slices"
	"testing"

	"github.com/neardup/neardup/segment"
)

// TestCompatGosimhash checks the compatibility mode against gosimhash's
// published vector, with the jieba backend (cppjieba's keyword extractor
// reproduced in Go) and, in the gojieba build, with gojieba's own.
func TestCompatGosimhash(t *testing.T) {
	for _, be := range []string{segment.BackendJieba, segment.BackendGojieba} {
		if !slices.Contains(segment.Backends(), be) {
			continue
		}
		a, err := NewAnalyzer(&Options{Compat: true, TopN: 5, Segmenter: be})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		r, err := a.Analyze("我来到北京清华大学")
		if err != nil {
			t.Fatal(err)
		}
		if r.Fingerprint != 0xfeb6372a8750eb1d {
			t.Errorf("%s: compat fingerprint %s, want feb6372a8750eb1d", be, r.Fingerprint)
		}
		want := []string{"清华大学", "来到", "北京"}
		if len(r.Keywords) != len(want) {
			t.Fatalf("%s: keywords %v, want %v", be, r.Keywords, want)
		}
		for i, w := range want {
			if r.Keywords[i].Word != w {
				t.Errorf("%s: keyword %d = %q, want %q", be, i, r.Keywords[i].Word, w)
			}
		}
	}
}
