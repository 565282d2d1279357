package input

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestNewReject: each kind of failure as a --rejects line.
func TestNewReject(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		err  error
		want string
	}{
		{"record error", Record{}, &RecordError{Source: "a.jsonl", Line: 3, Field: "text", Reason: "not a string (number)", Raw: []byte(`{"text":1}`)},
			`{"source":"a.jsonl","line":3,"field":"text","reason":"not a string (number)","raw":"{\"text\":1}"}`},
		{"not UTF-8", Record{}, fmt.Errorf("wrapped: %w", &RecordError{Source: "b.jsonl", Line: 1, Reason: "invalid JSON", Raw: []byte("{\xff}")}),
			"{\"source\":\"b.jsonl\",\"line\":1,\"field\":\"\",\"reason\":\"invalid JSON\",\"raw\":\"{\uFFFD}\",\"raw_base64\":\"e/99\"}"},
		{"input error", Record{Source: "ignored"}, &Error{Source: "c.jsonl.gz", Line: 7, Offset: 99, Err: errors.New("unexpected EOF")},
			`{"source":"c.jsonl.gz","line":7,"field":"","reason":"unexpected EOF","raw":""}`},
		{"other error", Record{Source: "d.jsonl", Line: 2, Raw: []byte(`{"id":""}`)}, errors.New("invalid document id"),
			`{"source":"d.jsonl","line":2,"field":"","reason":"invalid document id","raw":"{\"id\":\"\"}"}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(NewReject(&tt.rec, tt.err))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("%s: %s\nwant %s", tt.name, b, tt.want)
		}
	}
}
