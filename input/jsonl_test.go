package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadJSONL reads arbitrary bytes as a JSONL stream and checks that
// it never panics, that every line yields exactly one Record or one
// *RecordError (none if blank) with the right line number, Raw and Offset,
// and that lines in UTF-8 are accepted or rejected as encoding/json does,
// with the same field values.
func FuzzReadJSONL(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","title":"T","text":"hello"}` + "\n",
		`{"id":1,"text":"x"}` + "\r\n\n  \n" + `{"text":"y"}`,
		"\xEF\xBB\xBF" + `{"text":"bom"}`,
		`{"text":"\ud83d\ude00\ud800\u00e9\"\\"}`,
		`{"text":"a","text":2}` + "\n" + `[{"text":"a"}]` + "\n" + `{"t\u0065xt":"esc key"}`,
		`{"text":"<p>a<script>b</script></p>"}`,
		"{\"text\":\"\xd6\xd0\xce\xc4\"}\n{\"text\":\"caf\xe9\"}",
		`{"text":"` + strings.Repeat("long ", 50) + `"}` + "\n" + `{"text":"after"}`,
		`{"id":-0.5e+10,"text":"n","x":[true,false,null,{}]}`,
		`{"text":"x"} {"text":"y"}`,
		"\xFF\xFE{\x00",
	} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte(`{"title":"&amp;","text":"<b>bold</b>"}`), true)
	f.Fuzz(func(t *testing.T, data []byte, html bool) {
		const maxLine = 200
		opts := &Options{Format: "jsonl", MaxLine: maxLine, MaxBytes: 100, HTML: html}
		r := NewReader([]string{"-"}, bytes.NewReader(data), opts)
		body, off := data, 0
		if bytes.HasPrefix(body, gzipMagic) {
			// Compressed: only check that reading ends with the expected
			// kinds of error.
			for range len(data) + 2 {
				_, err := r.Next()
				var re *RecordError
				var ie *Error
				switch {
				case err == io.EOF:
					return
				case err != nil && !errors.As(err, &re) && !errors.As(err, &ie):
					t.Fatalf("gzip: unexpected error %v", err)
				}
			}
			t.Fatalf("gzip: more results than input bytes")
		}
		if bytes.HasPrefix(body, utf8BOM) {
			body, off = body[len(utf8BOM):], len(utf8BOM)
		} else if len(body) >= 2 && (body[0] == 0xFF && body[1] == 0xFE || body[0] == 0xFE && body[1] == 0xFF) {
			var ie *Error
			if _, err := r.Next(); !errors.As(err, &ie) {
				t.Fatalf("UTF-16: %v, want an *Error", err)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("after UTF-16: %v, want io.EOF", err)
			}
			return
		}
		lines := bytes.Split(body, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		for i, line := range lines {
			lineNo, start := i+1, int64(off)
			off += len(line) + 1
			if len(line) > maxLine {
				_, err := r.Next()
				want := fmt.Sprintf("stdin:%d: line too long: more than %d bytes", lineNo, maxLine)
				if re := (*RecordError)(nil); !errors.As(err, &re) || err.Error() != want || re.Raw != nil {
					t.Fatalf("line %d (%d bytes): %v, want %s", lineNo, len(line), err, want)
				}
				continue
			}
			if len(bytes.Trim(line, " \t\r")) == 0 {
				continue
			}
			rec, err := r.Next()
			var re *RecordError
			switch {
			case err == nil:
				if rec.Line != lineNo || !bytes.Equal(rec.Raw, line) || rec.Offset != start || rec.Source != "stdin" {
					t.Fatalf("line %d %q at %d: got record line %d %q at %d from %q", lineNo, line, start, rec.Line, rec.Raw, rec.Offset, rec.Source)
				}
				if isBlankText(rec.Text) || !utf8.ValidString(rec.Text) || !utf8.ValidString(rec.ID) || !utf8.ValidString(rec.Title) || rec.ID == "" {
					t.Fatalf("line %d %q: bad record %+v", lineNo, line, rec)
				}
			case errors.As(err, &re):
				if re.Line != lineNo || !bytes.Equal(re.Raw, line) || re.Source != "stdin" || re.Reason == "" {
					t.Fatalf("line %d %q: got error for line %d %q: %v", lineNo, line, re.Line, re.Raw, err)
				}
			default:
				t.Fatalf("line %d %q: unexpected error %v", lineNo, line, err)
			}
			if utf8.Valid(line) {
				compareWithEncodingJSON(t, line, html, rec, re)
			}
		}
		if rec, err := r.Next(); err != io.EOF {
			t.Fatalf("after %d lines: %+v, %v; want io.EOF", len(lines), rec, err)
		}
	})
}

// compareWithEncodingJSON checks the outcome for a UTF-8 line (a record, or
// re) against encoding/json.
func compareWithEncodingJSON(t *testing.T, line []byte, html bool, rec Record, re *RecordError) {
	t.Helper()
	valid := json.Valid(line)
	var m map[string]json.RawMessage
	object := json.Unmarshal(line, &m) == nil && m != nil // "null" unmarshals to a nil map
	if re != nil && re.Field == "" {
		switch malformed := strings.HasPrefix(re.Reason, "malformed JSON"); {
		case malformed == valid:
			t.Fatalf("%q: json.Valid = %v, but %v", line, valid, re)
		case strings.HasPrefix(re.Reason, "not a JSON object") && (!valid || object):
			t.Fatalf("%q: json.Valid = %v, object %v, but %v", line, valid, object, re)
		}
		return
	}
	if !valid || !object {
		t.Fatalf("%q: json.Valid = %v, object %v, but read as %+v %v", line, valid, object, rec, re)
	}
	if re != nil {
		return
	}
	var text string
	if err := json.Unmarshal(m["text"], &text); err != nil {
		t.Fatalf("%q: text: %v", line, err)
	}
	if html {
		text = StripHTML(text)
	}
	if rec.Text != text {
		t.Fatalf("%q: text %q, encoding/json says %q", line, rec.Text, text)
	}
	wantID := fmt.Sprintf("stdin:%d", rec.Line)
	if raw, ok := m["id"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &wantID); err != nil {
			wantID = string(raw) // a number
		}
	}
	if rec.ID != wantID {
		t.Fatalf("%q: id %q, encoding/json says %q", line, rec.ID, wantID)
	}
}

func ExampleReader() {
	input := `{"id": 1, "title": "First", "text": "Some news."}
{"id": 2, "text": 42}

{"title": "No id", "text": "More news."}
`
	r := NewReader([]string{"-"}, strings.NewReader(input), nil)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		var re *RecordError
		if errors.As(err, &re) {
			fmt.Println("skipped:", err)
			continue
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%s (line %d): %q %q\n", rec.ID, rec.Line, rec.Title, rec.Text)
	}
	// Output:
	// 1 (line 1): "First" "Some news."
	// skipped: stdin:2: field "text": not a string (number)
	// stdin:4 (line 4): "No id" "More news."
}

// TestParseJSONObjectLikeEncodingJSON checks corner cases of the JSON
// syntax against encoding/json.
func TestParseJSONObjectLikeEncodingJSON(t *testing.T) {
	lines := []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":}`, `{"a":1 "b":2}`,
		`{"n":-0}`, `{"n":-}`, `{"n":00}`, `{"n":1.}`, `{"n":.5}`, `{"n":1e}`, `{"n":1E+2}`, `{"n":1e-02}`,
		`{"n":-1.25e+300}`, `{"n":+1}`, `{"n":0x10}`, `{"n":Infinity}`, `{"n":NaN}`,
		`{"l":true}`, `{"l":True}`, `{"l":nul}`, `{"l":falsey}`, `{"l":[true,false,null]}`,
		`{"s":"\u00e9\uD83D\uDE00"}`, `{"s":"\u00g0"}`, `{"s":"\x"}`, `{"s":"\'"}`, `{"s":"a` + "\x7f" + `"}`,
		`{"s":"` + "\x1f" + `"}`, `{"s":"\/"}`, `{"s":"unterminated}`, `{"s":"a\"}`, `{"a":[1,[2,[3]],{"b":{}}]}`,
		`{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`, `{"a":{"b"}}`, `{"a":{1:2}}`, `{'a':1}`, `{a:1}`,
		"{\"a\":1}\t\r ", "\t{\"a\":\r1}", "{\"a\":1}\x00", `[]`, `1`, `"s"`, `null`, `{"a":1}}`, `{{}}`,
		`{"a":` + strings.Repeat("[", maxJSONDepth-1) + strings.Repeat("]", maxJSONDepth-1) + `}`,
		`{"a":` + strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth) + `}`,
		`{"a":` + strings.Repeat(`{"b":`, maxJSONDepth-1) + "1" + strings.Repeat("}", maxJSONDepth-1) + `}`,
		`{"a":` + strings.Repeat(`{"b":`, maxJSONDepth) + "1" + strings.Repeat("}", maxJSONDepth) + `}`,
		strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1),
	}
	keys := [3]string{"a", "s", "n"}
	for _, line := range lines {
		_, err := parseJSONObject([]byte(line), &keys)
		var m map[string]json.RawMessage
		object := json.Unmarshal([]byte(line), &m) == nil && m != nil
		valid := json.Valid([]byte(line))
		var se *jsonSyntaxError
		switch {
		case err == nil && !object,
			errors.As(err, &se) && valid,
			err != nil && !errors.As(err, &se) && (!valid || object):
			short := line
			if len(short) > 60 {
				short = short[:60] + "…"
			}
			t.Errorf("%q: parseJSONObject error %v; encoding/json: valid %v, object %v", short, err, valid, object)
		}
	}
}
