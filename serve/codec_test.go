package serve

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// str returns a pointer to s.
func str(s string) *string { return &s }

// TestDecodeArticle: the fast path decodes the bodies it takes as
// encoding/json does, and leaves the others to it (ok false).
func TestDecodeArticle(t *testing.T) {
	for _, c := range []struct {
		body string
		ok   bool
		want article
	}{
		{`{"text": "我来到北京"}`, true, article{Text: str("我来到北京")}},
		{" {\"id\":\"a/1\",\"title\":\"T\",\n\"text\":\"x\"}\r\n", true, article{ID: str("a/1"), Title: "T", Text: str("x")}},
		{`{"text": "a\"b\\c\/d\b\f\n\r\te"}`, true, article{Text: str("a\"b\\c/d\b\f\n\r\te")}},
		{`{"text": "\u003c\u00e9\u4e2d\u0000"}`, true, article{Text: str("<é中\x00")}},
		{`{"te\u0078t": "x"}`, true, article{Text: str("x")}},
		{`{}`, true, article{}},
		{`{"id": ""}`, true, article{ID: str("")}},
		{`{"text": "\ud83d\ude00"}`, true, article{Text: str("😀")}}, // a surrogate pair
		{`{"text": "\\ud800"}`, true, article{Text: str(`\ud800`)}}, // an escaped backslash
		// Left to encoding/json:
		{`{"Text": "x"}`, false, article{}},              // case-insensitive match
		{`{"text": "x", "text": "y"}`, false, article{}}, // the last wins
		{`{"text": null}`, false, article{}},             // null
		{`{"text": 5}`, false, article{}},                // not a string
		{`{"text": "\ud800"}`, false, article{}},         // a lone surrogate, which checkEncoding refuses
		{`{"text": "\ud83d\u0041"}`, false, article{}},   // a lone surrogate before another escape
		{`{"text": "\uzzzz"}`, false, article{}},         // a bad escape
		{`{"text": "\x"}`, false, article{}},             // a bad escape
		{"{\"text\": \"a\xffb\"}", false, article{}},     // invalid UTF-8 (U+FFFD)
		{"{\"text\": \"a\x01\"}", false, article{}},      // a control character
		{`{"text": "x"} {}`, false, article{}},           // data after the object
		{`{"text": "x",}`, false, article{}},             // trailing comma
		{`{"text": "x"`, false, article{}},               // unterminated
		{`{"text": "x`, false, article{}},                // unterminated string
		{`{"other": "x"}`, false, article{}},             // unknown field
		{`[]`, false, article{}},                         // not an object
		{``, false, article{}},                           // empty
	} {
		var got article
		ok := decodeArticle([]byte(c.body), &got)
		if ok != c.ok {
			t.Errorf("%q: ok %v, want %v", c.body, ok, c.ok)
			continue
		}
		if ok && js(t, got) != js(t, c.want) {
			t.Errorf("%q: %s, want %s", c.body, js(t, got), js(t, c.want))
		}
	}
}

// FuzzDecodeArticle: whatever the fast path decodes, encoding/json
// decodes alike (with the unknown fields decodeJSON refuses).
func FuzzDecodeArticle(f *testing.F) {
	for _, s := range []string{`{"text": "我来到北京", "id": "a", "title": "t"}`, `{"text": "a\"b\\c\/d\b\f\n\r\te\u00e9"}`,
		`{"text": "\ud83d\ude00"}`, "{\"text\": \"a\xffb\"}", `{"Text": "x"}`, `{}`, `{"id": null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var fast article
		if !decodeArticle([]byte(body), &fast) {
			return
		}
		var std article
		if e := decodeJSONStd([]byte(body), &std); e != nil {
			t.Fatalf("%q: the fast path decoded %s, encoding/json failed: %v", body, js(t, fast), e)
		}
		if js(t, fast) != js(t, std) {
			t.Fatalf("%q: the fast path decoded %s, encoding/json %s", body, js(t, fast), js(t, std))
		}
	})
}

// decodeJSONStd is decodeJSON without the fast path: it decodes into a
// value that is not a *article.
func decodeJSONStd(b []byte, a *article) *apiError {
	var v struct {
		ID    *string `json:"id"`
		Title string  `json:"title"`
		Text  *string `json:"text"`
	}
	e := decodeJSON(b, &v)
	*a = article(v)
	return e
}

// BenchmarkDecodeArticle decodes the body of a check of a 5 KB Chinese
// article (zh_news) with decodeJSON's fast path and with encoding/json
// (what decodeJSON does with other bodies), alternating the two in the
// same run; it reports the time of each and their ratio.
func BenchmarkDecodeArticle(b *testing.B) {
	text, _ := zhArticle(b)
	body := []byte(js(b, map[string]string{"text": text}))
	var fast, std time.Duration
	for b.Loop() {
		t0 := time.Now()
		var a article
		if e := decodeJSON(body, &a); e != nil || a.Text == nil || *a.Text != text {
			b.Fatal("the fast path decoded something else", e)
		}
		t1 := time.Now()
		var c article
		if e := decodeJSONStd(body, &c); e != nil || c.Text == nil || *c.Text != text {
			b.Fatal("encoding/json decoded something else", e)
		}
		fast, std = fast+t1.Sub(t0), std+time.Since(t1)
	}
	b.ReportMetric(float64(fast.Nanoseconds())/float64(b.N)/1000, "fast-us")
	b.ReportMetric(float64(std.Nanoseconds())/float64(b.N)/1000, "encoding-json-us")
	b.ReportMetric(float64(std)/float64(fast), "speedup-x")
}

// FuzzDecodeEncoding: decodeJSON never rewrites a byte: a body with
// invalid UTF-8 is refused naming the first invalid byte, and a decoded
// string holds U+FFFD only when the body sent one (as UTF-8 or \ufffd),
// never in place of an invalid byte or a lone surrogate.
func FuzzDecodeEncoding(f *testing.F) {
	for _, s := range []string{`{"text": "我来到北京", "id": "a"}`, "{\"id\": \"coll\xff\", \"text\": \"x\"}",
		`{"id": "s\ud800", "text": "x"}`, `{"text": "\udc00\ud800"}`, `{"text": "\ud83d\ude00 \\ud800"}`, "\xef\xbb\xbf{\"text\": \"x\"}",
		`{"text": "\ufffd"}`, "{\"title\": \"\xe4\xb8\", \"text\": \"x\"}", `{"a": {"text": "x\u00e9"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var a article
		e := decodeJSON([]byte(body), &a)
		b := strings.TrimPrefix(body, "\xef\xbb\xbf")
		bom := len(body) - len(b)
		if !utf8.ValidString(b) {
			off := 0
			for off < len(b) {
				r, n := utf8.DecodeRuneInString(b[off:])
				if r == utf8.RuneError && n <= 1 {
					break
				}
				off += n
			}
			if e == nil {
				t.Fatalf("%q: invalid UTF-8 at byte %d decoded", body, off)
			}
			if !strings.Contains(e.Msg, fmt.Sprintf("invalid UTF-8 at byte %d ", bom+off)) && !strings.Contains(e.Msg, "malformed") {
				// A malformed body may be refused for that first.
				t.Fatalf("%q: %v, want the invalid byte %d named", body, e, off)
			}
			return
		}
		if e != nil {
			return
		}
		sent := strings.Contains(b, "\ufffd") || strings.Contains(strings.ToLower(b), `\ufffd`)
		for _, s := range []string{a.id(), a.Title, deref(a.Text)} {
			if strings.ContainsRune(s, utf8.RuneError) && !sent {
				t.Fatalf("%q decoded to %q: a U+FFFD the body did not send", body, s)
			}
		}
	})
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
