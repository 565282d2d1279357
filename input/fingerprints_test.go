package input

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/simhash"
)

func TestParseFingerprintLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		id   string
		fp   simhash.Fingerprint
		err  string
	}{
		{"a\t0123456789abcdef", "a", 0x0123456789abcdef, ""},
		{"a\t0123456789ABCDEF\r", "a", 0x0123456789abcdef, ""},
		{"a b\t ff ", "a b", 0xff, ""},
		{"x\ty\t1", "x\ty", 1, ""},
		{"no tab", "", 0, "found no tab"},
		{"\t12", "", 0, "empty id"},
		{"a\t", "", 0, "invalid fingerprint"},
		{"a\t0123456789abcdef0", "", 0, "invalid fingerprint"},
		{"a\t-1", "", 0, "invalid fingerprint"},
	}
	for _, tt := range tests {
		id, fp, err := ParseFingerprintLine([]byte(tt.line))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseFingerprintLine(%q) error %v, want %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil || id != tt.id || fp != tt.fp {
			t.Errorf("ParseFingerprintLine(%q) = %q, %v, %v; want %q, %v", tt.line, id, fp, err, tt.id, tt.fp)
		}
	}
}

func FuzzParseFingerprintLine(f *testing.F) {
	f.Add([]byte("a\t0123456789abcdef"))
	f.Add([]byte("x\ty\tff\r"))
	f.Add([]byte("\t"))
	f.Fuzz(func(t *testing.T, line []byte) {
		id, fp, err := ParseFingerprintLine(line)
		if err != nil {
			return
		}
		// A parsed line round-trips through the format add reads.
		id2, fp2, err := ParseFingerprintLine([]byte(id + "\t" + fp.String()))
		if err != nil || id2 != id || fp2 != fp {
			t.Fatalf("%q: parsed %q %v, reparsed %q %v %v", line, id, fp, id2, fp2, err)
		}
	})
}

// TestReadFingerprints: blank lines are skipped, each line is numbered,
// and a bad line is passed on with its error.
func TestReadFingerprints(t *testing.T) {
	t.Parallel()
	var got []string
	err := ReadFingerprints(t.Context(), strings.NewReader("a\t1\n\n  \nno tab\nb\tff\r\n"), "f.tsv", func(line int, id string, fp simhash.Fingerprint, err error) error {
		if err != nil {
			got = append(got, fmt.Sprintf("%d: %v", line, err))
			return nil
		}
		got = append(got, fmt.Sprintf("%d: %s %s", line, id, fp))
		return nil
	})
	want := []string{"1: a 0000000000000001", `4: want "id<TAB>fingerprint", found no tab`, "5: b 00000000000000ff"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ReadFingerprints: %q, %v; want %q", got, err, want)
	}
}
