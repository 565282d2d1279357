package eval

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/neardup/neardup/input"
)

// Thresholds of the reference format.
const (
	// DuplicateJaccard is the least reference Jaccard similarity of a
	// duplicate pair.
	DuplicateJaccard = 0.8
	// DistinctJaccard is the reference Jaccard similarity below which a
	// pair is distinct; pairs in between are ignored.
	DistinctJaccard = 0.5
)

// maxPairLine limits a line of a labelled-pairs file.
const maxPairLine = 1 << 20

// PairLabel is what a labelled pair is.
type PairLabel uint8

const (
	// LabelDistinct: the two articles are not duplicates.
	LabelDistinct PairLabel = iota
	// LabelDuplicate: the two articles are duplicates.
	LabelDuplicate
	// LabelIgnored: neither; a detector is not judged on the pair.
	LabelIgnored
)

func (l PairLabel) String() string {
	switch l {
	case LabelDistinct:
		return "distinct"
	case LabelDuplicate:
		return "duplicate"
	case LabelIgnored:
		return "ignored"
	}
	return fmt.Sprintf("PairLabel(%d)", int(l))
}

// MarshalText returns the label's name.
func (l PairLabel) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// LabeledPair is one line of a labelled-pairs file.
type LabeledPair struct {
	A, B  string
	Label PairLabel
	// Jaccard is the reference similarity of a jaccard_char5 line, -1 for
	// a label line.
	Jaccard float64
	// Line is the 1-based line it was read from.
	Line int
	// Kind is the line's optional "kind" (an edit kind of generated
	// copies, such as "truncate-70"): the current detector's recall is
	// reported per kind (DetectorResult.ByKind).
	Kind string
}

// Labels are the labelled pairs of a corpus.
type Labels struct {
	// Pairs in file order; a pair listed twice (in either order, with the
	// same label) is kept once, at its first line.
	Pairs []LabeledPair
	// Reference: the pairs came from jaccard_char5 lines, so every pair
	// of the corpus not listed is distinct. Otherwise unlisted pairs are
	// unlabelled.
	Reference bool
}

// ReadPairs reads a labelled-pairs file, gzip-compressed or not (told by
// its magic bytes).
func ReadPairs(path string) (*Labels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var r io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1F, 0x8B}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &input.Error{Source: path, Err: pairsReadErr(err)}
		}
		defer zr.Close()
		r = zr
	}
	return ParsePairs(r, path)
}

// pairKey is an unordered pair of IDs, the smaller first.
type pairKey struct{ lo, hi string }

func keyOf(a, b string) pairKey {
	if b < a {
		a, b = b, a
	}
	return pairKey{a, b}
}

// pairLine is a line of a labelled-pairs file, before its values are
// checked.
type pairLine struct {
	A       json.RawMessage `json:"a"`
	B       json.RawMessage `json:"b"`
	Label   json.RawMessage `json:"label"`
	Jaccard json.RawMessage `json:"jaccard_char5"`
	Kind    json.RawMessage `json:"kind"`
}

// ParsePairs reads labelled pairs (see the formats above) from r; source
// names r in errors. Blank lines are skipped; other fields are allowed
// and ignored. Errors are *input.RecordError (naming the line and field)
// or *input.Error (r could not be read).
func ParsePairs(r io.Reader, source string) (*Labels, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxPairLine)
	ls := &Labels{}
	seen := make(map[pairKey]int) // → index in ls.Pairs
	kind := ""                    // "label" or "jaccard_char5", from the first line
	line := 0
	for sc.Scan() {
		line++
		raw := sc.Bytes()
		if line == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		fail := func(field, format string, args ...any) error {
			return &input.RecordError{Source: source, Line: line, Field: field, Reason: fmt.Sprintf(format, args...),
				Raw: slices.Clone(raw)}
		}
		p, k, field, err := parsePair(raw, line)
		if err != nil {
			return nil, fail(field, "%v", err)
		}
		switch {
		case kind == "":
			kind = k
		case kind != k:
			return nil, fail(k, "%q in a file of %q lines (line %d): a file is one format or the other",
				k, kind, ls.Pairs[0].Line)
		}
		key := keyOf(p.A, p.B)
		if i, ok := seen[key]; ok {
			if q := ls.Pairs[i]; q.Label != p.Label {
				return nil, fail("", "pair (%q, %q) is %s here but %s at line %d", p.A, p.B, p.Label, q.Label, q.Line)
			}
			continue
		}
		seen[key] = len(ls.Pairs)
		ls.Pairs = append(ls.Pairs, p)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &input.RecordError{Source: source, Line: line + 1,
				Reason: fmt.Sprintf("line longer than %d bytes", maxPairLine)}
		}
		return nil, &input.Error{Source: source, Line: line + 1, Err: pairsReadErr(err)}
	}
	ls.Reference = kind == "jaccard_char5"
	return ls, nil
}

// parsePair parses raw, line number line of a pairs file, and returns
// its pair and format ("label" or "jaccard_char5"), or what is wrong
// with it and the field at fault ("" for the line).
func parsePair(raw []byte, line int) (p LabeledPair, format, field string, err error) {
	var pl pairLine
	if err := json.Unmarshal(raw, &pl); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return p, "", "", errors.New("not a JSON object")
		}
		return p, "", "", fmt.Errorf("malformed JSON: %v", err)
	}
	a, err := pairID(pl.A)
	if err != nil {
		return p, "", "a", err
	}
	b, err := pairID(pl.B)
	if err != nil {
		return p, "", "b", err
	}
	if a == b {
		return p, "", "b", fmt.Errorf("the pair names %q twice", a)
	}
	p = LabeledPair{A: a, B: b, Jaccard: -1, Line: line}
	if !isNull(pl.Kind) {
		if err := json.Unmarshal(pl.Kind, &p.Kind); err != nil {
			return p, "", "kind", fmt.Errorf("not a string (%s)", jsonKindOf(pl.Kind))
		}
	}
	hasLabel, hasJaccard := !isNull(pl.Label), !isNull(pl.Jaccard)
	switch {
	case hasLabel && hasJaccard:
		return p, "", "", errors.New(`both "label" and "jaccard_char5": give one`)
	case hasLabel:
		if p.Label, err = parseLabel(pl.Label); err != nil {
			return p, "", "label", err
		}
		return p, "label", "", nil
	case hasJaccard:
		if p.Jaccard, err = parseJaccard(pl.Jaccard); err != nil {
			return p, "", "jaccard_char5", err
		}
		switch {
		case p.Jaccard >= DuplicateJaccard:
			p.Label = LabelDuplicate
		case p.Jaccard >= DistinctJaccard:
			p.Label = LabelIgnored
		default:
			p.Label = LabelDistinct
		}
		return p, "jaccard_char5", "", nil
	}
	return p, "", "", errors.New(`no "label" or "jaccard_char5"`)
}

// pairsReadErr describes an error reading a pairs file as package input
// describes those of its inputs: data that ends too soon is truncated gzip
// data.
func pairsReadErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		return fmt.Errorf("truncated gzip data: %w", io.ErrUnexpectedEOF)
	}
	return err
}

func isNull(v json.RawMessage) bool { return len(v) == 0 || string(v) == "null" }

// pairID reads an ID: a nonempty string, or a number kept as its literal
// text (as input.Reader does with JSONL ids).
func pairID(v json.RawMessage) (string, error) {
	if isNull(v) {
		return "", errors.New("missing")
	}
	switch c := v[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", err
		}
		if s == "" {
			return "", errors.New("empty id")
		}
		return s, nil
	case c == '-' || '0' <= c && c <= '9':
		return string(v), nil
	}
	return "", fmt.Errorf("not a string or number (%s)", jsonKindOf(v))
}

func jsonKindOf(v json.RawMessage) string {
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// parseLabel reads a label: true/false, 1/0, or one of the strings
// "dup", "duplicate", "distinct", "true", "false", "1", "0" (any case).
func parseLabel(v json.RawMessage) (PairLabel, error) {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return 0, err
	}
	switch x := x.(type) {
	case bool:
		if x {
			return LabelDuplicate, nil
		}
		return LabelDistinct, nil
	case float64:
		switch x {
		case 1:
			return LabelDuplicate, nil
		case 0:
			return LabelDistinct, nil
		}
		return 0, fmt.Errorf("number %s: want 1 (duplicate) or 0 (distinct)", v)
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "dup", "duplicate", "true", "1":
			return LabelDuplicate, nil
		case "distinct", "false", "0":
			return LabelDistinct, nil
		}
		return 0, fmt.Errorf("%q: want \"dup\" or \"distinct\"", x)
	}
	return 0, fmt.Errorf("not a boolean, number or string (%s)", jsonKindOf(v))
}

// parseJaccard reads a similarity in [0, 1].
func parseJaccard(v json.RawMessage) (float64, error) {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return 0, err
	}
	j, ok := x.(float64)
	if !ok {
		if _, isStr := x.(string); isStr {
			return 0, fmt.Errorf("not a number (string %s)", v)
		}
		return 0, fmt.Errorf("not a number (%s)", jsonKindOf(v))
	}
	if !(j >= 0 && j <= 1) {
		return 0, fmt.Errorf("%s: want a value in [0, 1]", v)
	}
	return j, nil
}
