package input

import (
	"encoding/base64"
	"errors"
	"strings"
	"unicode/utf8"
)

// Reject describes a record that was not used, or an input that could
// not be read to its end: a line of the --rejects files of neardup
// dedup and url dedup.
type Reject struct {
	Source string `json:"source"`
	Line   int    `json:"line"`
	Field  string `json:"field"`
	Reason string `json:"reason"`
	// Raw is the record's line, with U+FFFD in place of bytes that are
	// not UTF-8; RawBase64 is then the line itself.
	Raw       string `json:"raw"`
	RawBase64 string `json:"raw_base64,omitempty"`
}

// NewReject describes why rec failed: err is a *RecordError, an *Error
// or any other error about rec (which may then be empty).
func NewReject(rec *Record, err error) Reject {
	var re *RecordError
	var ie *Error
	var j Reject
	switch {
	case errors.As(err, &re):
		j = Reject{Source: re.Source, Line: re.Line, Field: re.Field, Reason: withPos(re.Pos, re.Reason)}
		j.setRaw(re.Raw)
	case errors.As(err, &ie):
		j = Reject{Source: ie.Source, Line: ie.Line, Reason: withPos(ie.Pos, ie.Err.Error())}
	default:
		j = Reject{Source: rec.Source, Line: rec.Line, Reason: err.Error()}
		j.setRaw(rec.Raw)
	}
	return j
}

func (j *Reject) setRaw(raw []byte) {
	j.Raw = strings.ToValidUTF8(string(raw), "\uFFFD")
	if !utf8.Valid(raw) {
		j.RawBase64 = base64.StdEncoding.EncodeToString(raw)
	}
}

// withPos prefixes reason with pos, where a Parquet or WARC error says
// it, so that a reject names the row group or record: "row 12 (row
// group 2 of 3, row 2): null".
func withPos(pos, reason string) string {
	if pos == "" {
		return reason
	}
	return pos + ": " + reason
}
