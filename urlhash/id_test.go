package urlhash

import (
	"strings"
	"testing"
)

func TestOptionsID(t *testing.T) {
	const def = "urlhash/1-420d1628b36be843" // the default ID; a change here changes every stored URL index
	tests := []struct {
		name string
		opts *Options
		same bool // the same ID as the defaults
	}{
		{"nil", nil, true},
		{"zero", &Options{}, true},
		{"DefaultOptions", DefaultOptions(), true},
		{"empty DropParams", &Options{DropParams: []string{}}, true},
		{"KeepTracking", &Options{KeepTracking: true}, false},
		{"KeepWWW", &Options{KeepWWW: true}, false},
		{"KeepIndex", &Options{KeepIndex: true}, false},
		{"DropParams", &Options{DropParams: []string{"ref"}}, false},
	}
	seen := make(map[string]string)
	for _, tt := range tests {
		id := tt.opts.ID()
		if !strings.HasPrefix(id, IDPrefix+"-") || len(id) != len(IDPrefix)+17 {
			t.Errorf("%s: ID() = %q, want %q, '-' and 16 hex digits", tt.name, id, IDPrefix)
		}
		if got := id == def; got != tt.same {
			t.Errorf("%s: ID() = %q; same as the default %q: %t, want %t", tt.name, id, def, got, tt.same)
		}
		if !tt.same {
			if other, ok := seen[id]; ok {
				t.Errorf("%s and %s have the same ID %q", tt.name, other, id)
			}
			seen[id] = tt.name
		}
	}
}

func TestOptionsIDDropParams(t *testing.T) {
	a := &Options{DropParams: []string{"Ref", "x*", "ref"}}
	b := &Options{DropParams: []string{"x*", "REF"}}
	if a.ID() != b.ID() {
		t.Errorf("DropParams differing in order, case and repeats: IDs %q and %q, want equal", a.ID(), b.ID())
	}
	c := &Options{DropParams: []string{"x", "ref"}} // "x" is not the prefix "x*"
	if c.ID() == a.ID() {
		t.Errorf("DropParams %q and %q: same ID %q", a.DropParams, c.DropParams, a.ID())
	}
	if want := []string{"Ref", "x*", "ref"}; strings.Join(a.DropParams, ",") != strings.Join(want, ",") {
		t.Errorf("ID changed DropParams to %q", a.DropParams)
	}
}
