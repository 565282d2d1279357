package index

import "testing"

// count, size and plural format as internal/progress's Count, Bytes and
// Plural (the same literal cases as its TestFormat).
func TestFormat(t *testing.T) {
	counts := map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234", -999: "-999", -1000000: "-1,000,000"}
	for n, want := range counts {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
	sizes := map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1_500_000: "1.5 MB", 2_340_000_000: "2.34 GB"}
	for n, want := range sizes {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
	plurals := map[int64]string{0: "0 articles", 1: "1 article", 2000: "2,000 articles"}
	for n, want := range plurals {
		if got := plural(n, "article", "articles"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}
