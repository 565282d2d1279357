package neardup

import (
	"slices"
	"testing"
)

func TestParseID(t *testing.T) {
	for _, tt := range []struct {
		id   string
		want IDSettings
		ok   bool
	}{
		{"nd2-jieba-t2s-df27c5e746309a91", IDSettings{Format: 2, Segmenter: "jieba", Fold: true, Hash: "df27c5e746309a91"}, true},
		{"nd2-gse-0123456789abcdef", IDSettings{Format: 2, Segmenter: "gse", Hash: "0123456789abcdef"}, true},
		{"nd2-compat5-0123456789abcdef", IDSettings{Format: 2, Segmenter: "jieba", Compat: 5, Hash: "0123456789abcdef"}, true},
		{"nd2-gse-x-y-z", IDSettings{}, false},
		{"url1-abc", IDSettings{}, false},
		{"ndx-gse-abc", IDSettings{}, false},
		{"nd2-abc", IDSettings{}, false},
	} {
		got, ok := ParseID(tt.id)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseID(%q) = %+v, %v; want %+v, %v", tt.id, got, ok, tt.want, tt.ok)
		}
	}
	s, _ := ParseID("nd2-jieba-t2s-df27c5e746309a91")
	if want := "format 2, segmenter jieba, traditional Chinese folded to simplified, dictionaries, stop words and keyword rule df27c5e746309a91"; s.String() != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
}

// TestIDDiff: issue 19 item 9, the mismatch says which settings differ.
func TestIDDiff(t *testing.T) {
	for _, tt := range []struct {
		have, want string
		diff       []string
	}{
		{"nd2-jieba-t2s-aaaa", "nd2-gse-t2s-bbbb", []string{"--segmenter (index jieba; options gse)"}},
		{"nd2-jieba-aaaa", "nd2-jieba-t2s-bbbb", []string{"--keep-traditional (index keeps it; options folds traditional Chinese)"}},
		{"nd2-jieba-t2s-aaaa", "nd2-jieba-t2s-bbbb", []string{"--idf, --stopwords, --user-dict or --top-n, or the neardup version that built the index (the hash of the dictionaries, stop words, keyword rule and traditional-Chinese fold: index aaaa; options bbbb)"}},
		{"nd1-jieba-aaaa", "nd2-jieba-aaaa", []string{"analyzer format (index 1; this program 2: rebuild the index)"}},
		{"nd2-compat5-aaaa", "nd2-jieba-t2s-bbbb", []string{"--compat --top-n (index 5; options 0, 0 meaning no compat mode)"}},
		{"nd2-jieba-t2s-aaaa", "nd2-jieba-t2s-aaaa", nil},
		{"url1-x", "nd2-jieba-t2s-aaaa", nil},
	} {
		if got := IDDiff(tt.have, tt.want); !slices.Equal(got, tt.diff) {
			t.Errorf("IDDiff(%q, %q) = %q, want %q", tt.have, tt.want, got, tt.diff)
		}
	}
}
