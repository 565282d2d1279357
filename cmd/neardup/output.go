package main

import (
	"encoding/json"
	"io"

	prog "github.com/neardup/neardup/internal/progress"
)

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
