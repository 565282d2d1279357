//go:build cgo

package neardup

import "testing"

// TestCompatGosimhash checks the compatibility mode against gosimhash's
// published vector.
func TestCompatGosimhash(t *testing.T) {
	a, err := NewAnalyzer(&Options{Compat: true, TopN: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	r, err := a.Analyze("我来到北京清华大学")
	if err != nil {
		t.Fatal(err)
	}
	if r.Fingerprint != 0xfeb6372a8750eb1d {
		t.Errorf("compat fingerprint %s, want feb6372a8750eb1d", r.Fingerprint)
	}
	want := []string{"清华大学", "来到", "北京"}
	if len(r.Keywords) != len(want) {
		t.Fatalf("keywords %v, want %v", r.Keywords, want)
	}
	for i, w := range want {
		if r.Keywords[i].Word != w {
			t.Errorf("keyword %d = %q, want %q", i, r.Keywords[i].Word, w)
		}
	}
}
