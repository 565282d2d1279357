package neardup

import (
	"fmt"
	"strconv"
	"strings"
)

// IDSettings are the settings an analyzer ID (see Analyzer.ID) spells
// out: "nd2-jieba-t2s-df27c5e746309a91" is format 2, the jieba segmenter,
// traditional Chinese folded to simplified, and the hash of the rest
// (dictionaries, stop words, user dictionary, keyword count).
type IDSettings struct {
	Format    int    `json:"format"`           // FormatVersion
	Segmenter string `json:"segmenter"`        // "jieba", "gse"; "jieba" in compat mode
	Fold      bool   `json:"fold"`             // traditional Chinese folded to simplified
	Compat    int    `json:"compat,omitempty"` // compat mode's keyword count; 0 when not in compat mode
	Hash      string `json:"hash"`             // the dictionaries, stop words, user dictionary and keyword count, hashed
}

// ParseID reads the settings of an analyzer ID. ok is false for an ID
// this version does not spell that way.
func ParseID(id string) (s IDSettings, ok bool) {
	rest, found := strings.CutPrefix(id, "nd")
	if !found {
		return s, false
	}
	parts := strings.Split(rest, "-")
	if len(parts) < 3 {
		return s, false
	}
	v, err := strconv.Atoi(parts[0])
	if err != nil {
		return s, false
	}
	s.Format, s.Hash = v, parts[len(parts)-1]
	mid := parts[1 : len(parts)-1]
	if n, isCompat := strings.CutPrefix(mid[0], "compat"); isCompat {
		if s.Compat, err = strconv.Atoi(n); err != nil || len(mid) != 1 {
			return IDSettings{}, false
		}
		s.Segmenter = "jieba"
		return s, true
	}
	s.Segmenter = mid[0]
	switch {
	case len(mid) == 2 && "-"+mid[1] == FoldSuffix:
		s.Fold = true
	case len(mid) != 1:
		return IDSettings{}, false
	}
	return s, true
}

// String describes the settings: "format 2, segmenter jieba, traditional
// Chinese folded to simplified, dictionaries and keyword rule df27c5e7…".
func (s IDSettings) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "format %d, segmenter %s", s.Format, s.Segmenter)
	if s.Compat > 0 {
		fmt.Fprintf(&b, ", compat mode with %d keywords", s.Compat)
	} else if s.Fold {
		b.WriteString(", traditional Chinese folded to simplified")
	} else {
		b.WriteString(", traditional Chinese kept")
	}
	fmt.Fprintf(&b, ", dictionaries, stop words and keyword rule %s", s.Hash)
	return b.String()
}

// IDDiff names the settings in which the analyzer IDs have and want
// differ, each as "what (have; want)", in the order of IDSettings; nil
// when either cannot be read or they are equal.
func IDDiff(have, want string) []string {
	h, ok1 := ParseID(have)
	w, ok2 := ParseID(want)
	if !ok1 || !ok2 {
		return nil
	}
	var d []string
	if h.Format != w.Format {
		d = append(d, fmt.Sprintf("analyzer format (index %d; this program %d: rebuild the index)", h.Format, w.Format))
	}
	if h.Segmenter != w.Segmenter {
		d = append(d, fmt.Sprintf("--segmenter (index %s; options %s)", h.Segmenter, w.Segmenter))
	}
	if h.Compat != w.Compat {
		d = append(d, fmt.Sprintf("--compat --top-n (index %d; options %d, 0 meaning no compat mode)", h.Compat, w.Compat))
	}
	if h.Fold != w.Fold && h.Compat == 0 && w.Compat == 0 {
		d = append(d, fmt.Sprintf("--keep-traditional (index %s; options %s)", keepTrad(h.Fold), keepTrad(w.Fold)))
	}
	if h.Hash != w.Hash && len(d) == 0 {
		d = append(d, fmt.Sprintf("--idf, --stopwords, --user-dict or --top-n, or the neardup version that built the index (the hash of the dictionaries, stop words, keyword rule and traditional-Chinese fold: index %s; options %s)", h.Hash, w.Hash))
	}
	return d
}

func keepTrad(fold bool) string {
	if fold {
		return "folds traditional Chinese"
	}
	return "keeps it"
}
