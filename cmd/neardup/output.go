package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	prog "github.com/neardup/neardup/internal/progress"
	"github.com/neardup/neardup/tfidf"
)

// keywordText formats keywords as "word 1.23  word 0.98" (at most n; all
// when n <= 0).
func keywordText(ks []tfidf.Keyword, n int) string {
	if n > 0 && len(ks) > n {
		ks = ks[:n]
	}
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString("  ")
		}
		fmt.Fprintf(&b, "%s %.2f", k.Word, k.Weight)
	}
	return b.String()
}

// hex16 formats a 64-bit hash as 16 hex digits.
func hex16(h uint64) string { return fmt.Sprintf("%016x", h) }

// keywordsJSON never encodes as null.
func keywordsJSON(ks []tfidf.Keyword) []tfidf.Keyword {
	if ks == nil {
		return []tfidf.Keyword{}
	}
	return ks
}

// writeJSON writes v as one line.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func formatCount(n int64) string { return prog.Count(n) }

// plural returns "1 article" or "2 articles".
func plural(n int64, one, many string) string { return prog.Plural(n, one, many) }
