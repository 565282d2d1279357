package main

import (
	"github.com/urfave/cli/v2"

	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/tfidf"
)

// recordName names a record in messages: "file.jsonl:17 (id x)".
func recordName(r *input.Record) string {
	where := r.Source
	if r.Line > 0 {
		where += ":" + strconv.Itoa(r.Line)
	}
	if r.Line > 0 && r.ID != "" {
		where += " (id " + quoteID(r.ID) + ")"
	}
	return where
}

// quoteID quotes an id for text output when it has spaces or control
// characters, and shortens very long ones.
func quoteID(id string) string {
	if len(id) > 120 {
		id = id[:117] + "..."
	}
	if id == "" || strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r == '"' || r == 0x7f || r == utf8.RuneError }) {
		return strconv.Quote(id)
	}
	return id
}

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

// wordList formats words as "a, b, c" (at most n, then "… (N more)").
func wordList(words []string, n int) string {
	more := 0
	if n > 0 && len(words) > n {
		more = len(words) - n
		words = words[:n]
	}
	s := strings.Join(words, ", ")
	if more > 0 {
		s += fmt.Sprintf(", … (%d more)", more)
	}
	return s
}

// sharedWords returns the keywords of a and b that both have, heaviest
// first.
func sharedWords(a, b []tfidf.Keyword) []string {
	e := tfidf.Explain(a, b)
	words := make([]string, len(e.Shared))
	for i, s := range e.Shared {
		words[i] = s.Word
	}
	return words
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

// rejectJSON is a line of dedup's --rejects file, and what add and check
// report for a bad record in --json mode.
type rejectJSON struct {
	Source    string `json:"source"`
	Line      int    `json:"line"`
	Field     string `json:"field"`
	Reason    string `json:"reason"`
	Raw       string `json:"raw"`
	RawBase64 string `json:"raw_base64,omitempty"` // the raw line when it is not valid UTF-8 (raw then has U+FFFD in place of the bad bytes)
}

// newReject describes why a record failed: a *input.RecordError, a
// *input.Error or any other error about rec.
func newReject(rec *input.Record, err error) rejectJSON {
	var re *input.RecordError
	var ie *input.Error
	var j rejectJSON
	switch {
	case errors.As(err, &re):
		j = rejectJSON{Source: re.Source, Line: re.Line, Field: re.Field, Reason: re.Reason}
		j.setRaw(re.Raw)
	case errors.As(err, &ie):
		j = rejectJSON{Source: ie.Source, Line: ie.Line, Reason: ie.Err.Error()}
	default:
		j = rejectJSON{Source: rec.Source, Line: rec.Line, Reason: err.Error()}
		j.setRaw(rec.Raw)
	}
	return j
}

func (j *rejectJSON) setRaw(raw []byte) {
	j.Raw = strings.ToValidUTF8(string(raw), "\uFFFD")
	if !utf8.Valid(raw) {
		j.RawBase64 = base64.StdEncoding.EncodeToString(raw)
	}
}

// outFile is an output file written under a temporary name in the same
// directory and renamed into place by commit, so that an interrupted run
// never leaves a partial file under the final name. The path "-" writes
// to stdout instead.
type outFile struct {
	path string
	f    *os.File // nil for stdout
	w    *bufio.Writer
}

func createOut(path string, stdout io.Writer) (*outFile, error) {
	if path == "-" {
		return &outFile{path: path, w: bufio.NewWriterSize(stdout, 64<<10)}, nil
	}
	// Found now, not at the rename after the whole run.
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("create %s: is a directory", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	removeStaleTemps(dir, base)
	f, err := os.CreateTemp(dir, fmt.Sprintf(".%s.tmp-%d-*", base, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &outFile{path: path, f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// removeStaleTemps removes the temporary files of output base in dir
// that a run killed before it could rename or remove them left behind:
// those whose process (the number in the name) is gone, and those named
// as before the number was put in (".BASE.tmp-DIGITS").
func removeStaleTemps(dir, base string) {
	prefix := "." + base + ".tmp-"
	es, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range es {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pid, _, twoParts := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if err != nil || n <= 0 {
			continue
		}
		if twoParts && processAlive(n) {
			continue // another run writing the same output now
		}
		os.Remove(filepath.Join(dir, name))
	}
}

func (o *outFile) Write(p []byte) (int, error) { return o.w.Write(p) }

// commit flushes, syncs and renames the file into place.
func (o *outFile) commit() error {
	if err := o.w.Flush(); err != nil {
		o.abort()
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if o.f == nil {
		return nil
	}
	tmp := o.f.Name()
	err := o.f.Chmod(0o644)
	if err == nil {
		err = o.f.Sync()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	o.f = nil
	if err == nil {
		err = os.Rename(tmp, o.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	return nil
}

// abort removes the temporary file. It is a no-op after commit.
func (o *outFile) abort() {
	if o.f != nil {
		o.f.Close()
		os.Remove(o.f.Name())
		o.f = nil
	}
}

// formatCount formats n with thousands separators: 1,234,567.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// formatBytes formats a size as "12.3 MB" (decimal units).
func formatBytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// plural returns "1 article" or "2 articles".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return formatCount(n) + " " + many
}

// outputs are the result files of one run: open creates each named by a
// flag, commit renames them all into place at the end, and abort (deferred)
// removes whatever was not committed.
type outputs struct {
	c     *cli.Context
	files []*outFile
}

// open creates the output named by flag, or returns nil when the flag is
// empty.
func (o *outputs) open(flag string) (*outFile, error) {
	path := o.c.String(flag)
	if path == "" {
		return nil, nil
	}
	return o.create(path)
}

func (o *outputs) create(path string) (*outFile, error) {
	f, err := createOut(path, o.c.App.Writer)
	if err != nil {
		return nil, err
	}
	o.files = append(o.files, f)
	return f, nil
}

func (o *outputs) commit() error {
	for _, f := range o.files {
		if err := f.commit(); err != nil {
			return err
		}
	}
	return nil
}

func (o *outputs) abort() {
	for _, f := range o.files {
		f.abort() // a no-op after commit
	}
}
