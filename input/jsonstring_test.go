package input

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestJSONString: strings decoded as encoding/json decodes them, lone
// surrogates reported, and where a malformed string goes wrong.
func TestJSONString(t *testing.T) {
	for _, tt := range []struct {
		in   string
		i    int
		s    string
		next int
		lone bool
		err  string
	}{
		{`"abc"`, 0, "abc", 5, false, ""},
		{`x: "中文" tail`, 3, "中文", 11, false, ""},
		{`"a\"b\\c\/d\b\f\n\r\te"`, 0, "a\"b\\c/d\b\f\n\r\te", 23, false, ""},
		{`"\u003c\u00E9\u4e2d\u0000"`, 0, "<é中\x00", 26, false, ""},
		{`"\ud83d\ude00"`, 0, "😀", 14, false, ""},
		{`"\ud800"`, 0, "\uFFFD", 8, true, ""},
		{`"\udc00\ud800x"`, 0, "\uFFFD\uFFFDx", 15, true, ""},
		{`"\ud83d\u0041"`, 0, "\uFFFDA", 14, true, ""},
		{`"\\ud800"`, 0, `\ud800`, 9, false, ""},
		{"\"a\xffb\"", 0, "a\xffb", 5, false, ""}, // bytes kept: the caller checks the encoding
		{`""`, 0, "", 2, false, ""},
		{`abc`, 0, "", 0, false, `malformed JSON at byte 0: unexpected 'a' looking for a string`},
		{`"abc`, 0, "", 4, false, `malformed JSON at byte 4: unexpected end of line in string`},
		{"\"a\x01\"", 0, "", 2, false, `malformed JSON at byte 2: unexpected '\x01' in string`},
		{`"\x"`, 0, "", 2, false, `malformed JSON at byte 2: unexpected 'x' in string escape`},
		{`"\u12g4"`, 0, "", 5, false, `malformed JSON at byte 5: unexpected 'g' in \u escape`},
		{`"\u12"`, 0, "", 5, false, `malformed JSON at byte 5: unexpected '"' in \u escape`},
		{`"`, 1, "", 1, false, `malformed JSON at byte 1: unexpected end of line looking for a string`},
	} {
		s, next, lone, err := JSONString([]byte(tt.in), tt.i)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if s != tt.s || next != tt.next || lone != tt.lone || gotErr != tt.err {
			t.Errorf("JSONString(%q, %d) = %q, %d, %v, %q; want %q, %d, %v, %q", tt.in, tt.i, s, next, lone, gotErr, tt.s, tt.next, tt.lone, tt.err)
		}
	}
}

// FuzzJSONString checks JSONString against encoding/json: a string it
// decodes, encoding/json decodes alike (for valid UTF-8, which
// encoding/json would rewrite otherwise); one it refuses is not a JSON
// string (from its opening quote on); and lone is the U+FFFD encoding/json puts for a lone surrogate.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b\\c\/d\b\f\n\r\te\u00e9"`, `"\ud83d\ude00"`, `"\ud800"`, `"\\ud800"`,
		"\"a\xffb\"", `"\u12g4"`, `"abc`, "\"\x01\"", `"x" tail`, `5`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, next, lone, err := JSONString([]byte(in), 0)
		var std string
		if err != nil {
			if strings.HasPrefix(in, `"`) && json.Unmarshal([]byte(in), &std) == nil {
				t.Fatalf("JSONString(%q): %v; encoding/json decodes %q", in, err, std)
			}
			return
		}
		if next < 2 || next > len(in) || in[next-1] != '"' {
			t.Fatalf("JSONString(%q): next %d is not after a closing quote", in, next)
		}
		if jerr := json.Unmarshal([]byte(in[:next]), &std); jerr != nil {
			t.Fatalf("JSONString(%q) = %q; encoding/json: %v", in, s, jerr)
		}
		if lone && !strings.ContainsRune(s, utf8.RuneError) {
			t.Fatalf("JSONString(%q) = %q: lone without U+FFFD", in, s)
		}
		if !utf8.ValidString(in[:next]) {
			return
		}
		if s != std {
			t.Fatalf("JSONString(%q) = %q; encoding/json %q", in, s, std)
		}
		if !lone && strings.ContainsRune(s, utf8.RuneError) && !strings.Contains(in, "\uFFFD") && !strings.Contains(strings.ToLower(in), `\ufffd`) {
			t.Fatalf("JSONString(%q) = %q: U+FFFD from no lone surrogate", in, s)
		}
	})
}

// ExampleJSONString decodes a string in the middle of a line.
func ExampleJSONString() {
	line := []byte(`{"title": "\u4e2d\u6587 \ud83d\ude00", "n": 1}`)
	s, next, lone, err := JSONString(line, 10)
	fmt.Println(s, next, lone, err)
	// Output: 中文 😀 37 false <nil>
}
