package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestJSONField(t *testing.T) {
	tests := []struct {
		line    string
		raw, s  string // raw "" means missing
		wantErr string
	}{
		{`{"url": "http://a.com/"}`, `"http://a.com/"`, "http://a.com/", ""},
		{`{"url": "http://a.com/\u0026x"}`, `"http://a.com/\u0026x"`, "http://a.com/&x", ""},
		{` {"u\u0072l":"a"} `, `"a"`, "a", ""},
		{`{"url":"a","url":"b"}`, `"b"`, "b", ""},
		{`{"url":"a","url":7}`, `7`, "", ""},
		{`{"url": 42}`, `42`, "", ""},
		{`{"url": null}`, `null`, "", ""},
		{`{"url": {"url": "x"}}`, `{"url": "x"}`, "", ""},
		{`{"link": "http://a.com/"}`, "", "", ""},
		{`{"URL": "http://a.com/"}`, "", "", ""},
		{"{\"url\": \"a\xffb\xe2\x82\"}", "\"a\xffb\xe2\x82\"", "a\uFFFDb\uFFFD\uFFFD", ""},
		{`{"url": "\ud800"}`, `"\ud800"`, "\uFFFD", ""},
		{`{"url": "x"`, "", "", `malformed JSON at byte 11: unexpected end of line after object value`},
		{`{"url": "a", }`, "", "", `malformed JSON at byte 13: unexpected '}' looking for an object key`},
		{`["http://a.com/"]`, "", "", "not a JSON object (array)"},
		{`http://a.com/`, "", "", `malformed JSON at byte 0: unexpected 'h' looking for a value`},
	}
	for _, tt := range tests {
		raw, s, err := JSONField([]byte(tt.line), "url")
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if string(raw) != tt.raw || (raw == nil) != (tt.raw == "") || s != tt.s || gotErr != tt.wantErr {
			t.Errorf("JSONField(%q) = %q, %q, %q; want %q, %q, %q", tt.line, raw, s, gotErr, tt.raw, tt.s, tt.wantErr)
		}
	}
}

// FuzzJSONField checks JSONField against encoding/json.
func FuzzJSONField(f *testing.F) {
	for _, s := range []string{`{"url": "http://a.com/"}`, `{"url": 1}`, `{"url": "x"`, `[]`, `null`, `{"url":"\ud800"}`,
		"{\"url\":\"\xff\"}", `{"url":"a","url":"b"}`, `{"u\u0072l":"\n"}`, "{\"\xff\":1}"} {
		f.Add(s, "url")
	}
	f.Fuzz(func(t *testing.T, line, name string) {
		raw, s, err := JSONField([]byte(line), name)
		var m map[string]json.RawMessage
		jerr := json.Unmarshal([]byte(line), &m)
		switch {
		case (err == nil) != (jerr == nil && m != nil):
			t.Fatalf("JSONField(%q, %q) error %v; encoding/json: %v, %v", line, name, err, m, jerr)
		case err != nil:
			return
		}
		if !utf8.ValidString(name) || strings.ContainsRune(name, utf8.RuneError) {
			return // encoding/json decodes keys that are not UTF-8 with U+FFFD; JSONField compares their bytes
		}
		want, ok := m[name]
		switch {
		case !ok && raw != nil:
			t.Fatalf("JSONField(%q, %q) = %q; encoding/json finds no such key", line, name, raw)
		case !ok:
			return
		case raw == nil:
			t.Fatalf("JSONField(%q, %q): missing; encoding/json finds %q", line, name, want)
		case !bytes.Equal(raw, want):
			t.Fatalf("JSONField(%q, %q) = %q; encoding/json %q", line, name, raw, want)
		}
		var ws string
		if json.Unmarshal(want, &ws) == nil && s != ws {
			t.Fatalf("JSONField(%q, %q) = string %q; encoding/json %q", line, name, s, ws)
		}
	})
}

func TestDecompress(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("line 1\nline 2\n"))
	zw.Close()
	gz := b.String()
	tests := []struct {
		in, data, err string
		gz            bool
	}{
		{"plain\n", "plain\n", "", false},
		{"", "", "", false},
		{"\x1f", "\x1f", "", false},
		{gz, "line 1\nline 2\n", "", true},
		{gz[:len(gz)-4], "line 1\nline 2\n", "truncated gzip data: unexpected EOF", true},
		{gz[:10], "", "truncated gzip data: unexpected EOF", true},
		{gz[:5], "", "truncated gzip data: unexpected EOF", false},
		{"\x1f\x8bnot really gzip", "", "gzip: invalid header", false},
	}
	for _, tt := range tests {
		r, isGz, err := Decompress(bufio.NewReader(strings.NewReader(tt.in)), 4096)
		var data []byte
		if err == nil {
			data, err = io.ReadAll(r)
		}
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if string(data) != tt.data || isGz != tt.gz || gotErr != tt.err {
			t.Errorf("Decompress(%q) = %q, gz %t, error %q; want %q, %t, %q", tt.in, data, isGz, gotErr, tt.data, tt.gz, tt.err)
		}
	}
}
