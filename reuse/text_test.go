package reuse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup/segment"
)

// NewText normalises character by character as segment.Normalize does,
// drops white space and format characters, folds traditional Chinese,
// and keeps each character's bytes in the original.
func TestNewText(t *testing.T) {
	fold, err := segment.NewTradFold()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in    string
		want  string
		spans string
	}{
		{"ＡＢＣ　Hello,\tWorld。", "abchello,world.", "0-3 3-6 6-9 12-13 13-14 14-15 15-16 16-17 17-18 19-20 20-21 21-22 22-23 23-24 24-27"},
		{"這個軟體很好。", "这个软件很好.", "0-3 3-6 6-9 9-12 12-15 15-18 18-21"},
		{"ﬁne café\u200b!", "finecafé!", "0-3 0-3 3-4 4-5 6-7 7-8 8-9 9-11 14-15"},
		{"a\xffb", "a\ufffdb", "0-1 1-2 2-3"},
		{" \n\t", "", ""},
	}
	for _, tt := range tests {
		x, err := NewText(tt.in, fold)
		if err != nil {
			t.Fatal(err)
		}
		var spans []string
		for i := range x.Len() {
			s, e := x.Span(i, i+1)
			spans = append(spans, fmt.Sprintf("%d-%d", s, e))
		}
		if x.String() != tt.want || strings.Join(spans, " ") != tt.spans {
			t.Errorf("NewText(%q) = %q %s, want %q %s", tt.in, x.String(), spans, tt.want, tt.spans)
		}
	}
	// Without a fold, traditional characters stay.
	if x := mustText(t, "軟體"); x.String() != "軟體" {
		t.Errorf("NewText(軟體, nil) = %q", x.String())
	}
}
