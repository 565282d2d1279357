package docid_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/neardup/neardup/docid"
)

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		id   string
		want string // "" valid
	}{
		{"a", ""},
		{"lo-help-en-US/text/sbasic/guide/access2base#reprint", ""},
		{strings.Repeat("x", 64000), ""},
		{"", "empty id"},
		{strings.Repeat("x", 64001), "id is 64001 bytes long; an index holds ids of at most 64000"},
	} {
		err := docid.Check(tt.id)
		if tt.want == "" {
			if err != nil {
				t.Errorf("Check(%.20q): %v, want nil", tt.id, err)
			}
			continue
		}
		if err == nil || err.Error() != tt.want || !errors.Is(err, docid.ErrInvalid) {
			t.Errorf("Check(%.20q) = %v, want %q wrapping ErrInvalid", tt.id, err, tt.want)
		}
	}
}
