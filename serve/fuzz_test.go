package serve

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/neardup/neardup/report"
)

// checkAnswer fails unless w is a JSON answer with one of the statuses,
// holding an error message exactly when the status is 400 or more.
func checkAnswer(t *testing.T, what string, code int, body string, statuses ...int) {
	t.Helper()
	ok := false
	for _, s := range statuses {
		ok = ok || code == s
	}
	if !ok {
		t.Fatalf("%s: status %d, want one of %v: %s", what, code, statuses, body)
	}
	if code == http.StatusNoContent {
		return
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%s: answer is not a JSON object: %v: %q", what, err, body)
	}
	if msg, _ := m["error"].(string); (code >= 400) != (msg != "") {
		t.Fatalf("%s: status %d with error %q", what, code, msg)
	}
}

func fuzzSeeds(f *testing.F) {
	a := fixture(f, "a.txt")
	f.Add(js(f, map[string]any{"text": a, "id": "a", "title": "t"}))
	f.Add(`{"text": "我来到北京"}`)
	f.Add(`{"text": 5}`)
	f.Add(`{"text": "x", "id": ""}`)
	f.Add(`{"text": "\u0000\ufeff", "id": "\n"}`)
	f.Add(`{"a": {"text": "x"}, "b": null}`)
	f.Add(`[]`)
	f.Add(`{`)
	f.Add("")
}

func FuzzCheck(f *testing.F) {
	fuzzSeeds(f)
	s := newTestServer(f, Options{KeepText: true, MaxBytes: 1 << 16})
	f.Fuzz(func(t *testing.T, body string) {
		for _, target := range []string{"/v1/check", "/v1/check?add=true"} {
			w := do(s, "POST", target, body)
			checkAnswer(t, target, w.Code, w.Body.String(), 200, 400, 413)
			if w.Code == 200 {
				var c report.Check
				if err := json.Unmarshal(w.Body.Bytes(), &c); err != nil || c.Matches == nil || (c.TooShort == "") == (c.Fingerprint == "") {
					t.Fatalf("%s: answer %s", target, w.Body)
				}
			}
		}
	})
}

func FuzzDocuments(f *testing.F) {
	fuzzSeeds(f)
	f.Add("{\"id\": \"x\", \"text\": \"a\"}\n\n{\"id\": 1}\n")
	s := newTestServer(f, Options{KeepText: true, MaxBytes: 1 << 16})
	f.Fuzz(func(t *testing.T, body string) {
		w := do(s, "POST", "/v1/documents", body)
		checkAnswer(t, "POST /v1/documents", w.Code, w.Body.String(), 200, 201, 400, 413, 422)
		if w.Code == 200 || w.Code == 201 {
			var a addedJSON
			json.Unmarshal(w.Body.Bytes(), &a)
			if g := do(s, "GET", "/v1/documents/"+url.PathEscape(a.ID), ""); g.Code != 200 {
				t.Fatalf("added %q, then GET: %d %s", a.ID, g.Code, g.Body)
			}
		}
		w = do(s, "POST", "/v1/documents", body, "Content-Type", "application/x-ndjson")
		if w.Code != 200 && w.Code != 413 {
			t.Fatalf("batch: status %d: %s", w.Code, w.Body)
		}
		if w.Code == 200 {
			for _, l := range strings.Split(strings.TrimSuffix(w.Body.String(), "\n"), "\n") {
				if l == "" {
					continue
				}
				var p batchLineJSON
				if err := json.Unmarshal([]byte(l), &p); err != nil || p.Line < 1 || p.Status < 200 || (p.Status >= 400) != (p.Error != "") {
					t.Fatalf("batch answer line %q (%v)", l, err)
				}
			}
		}
	})
}

func FuzzDocumentID(f *testing.F) {
	f.Add("a")
	f.Add("a%2Fb")
	f.Add("%ff")
	f.Add("..")
	f.Add(strings.Repeat("x", 70000))
	s := newTestServer(f, Options{})
	do(s, "POST", "/v1/documents", js(f, map[string]any{"id": "a", "text": fixture(f, "a.txt")}))
	f.Fuzz(func(t *testing.T, id string) {
		target := "/v1/documents/" + id
		if _, err := url.ParseRequestURI(target); err != nil || strings.ContainsAny(id, "?# \t\r\n") {
			return // not a request line a client can send
		}
		w := do(s, "GET", target, "")
		if w.Code != 301 && w.Code != 307 {
			checkAnswer(t, "GET "+target, w.Code, w.Body.String(), 200, 400, 404, 405)
		}
		if id == "a" {
			return
		}
		w = do(s, "DELETE", target, "")
		if w.Code != 301 && w.Code != 307 {
			checkAnswer(t, "DELETE "+target, w.Code, w.Body.String(), 204, 400, 404, 405)
		}
	})
}

func FuzzCompare(f *testing.F) {
	fuzzSeeds(f)
	a := fixture(f, "a.txt")
	f.Add(js(f, map[string]any{"a": map[string]any{"text": a}, "b": map[string]any{"text": a[:300], "id": 3}}))
	s := newTestServer(f, Options{MaxBytes: 1 << 16})
	f.Fuzz(func(t *testing.T, body string) {
		w := do(s, "POST", "/v1/compare", body)
		checkAnswer(t, "POST /v1/compare", w.Code, w.Body.String(), 200, 400, 413, 422)
	})
}

func FuzzPassages(f *testing.F) {
	fuzzSeeds(f)
	a := fixture(f, "a.txt")
	f.Add(js(f, map[string]any{"text": a[:200], "id": "a"}))
	s := newTestServer(f, Options{KeepText: true, MaxBytes: 1 << 16})
	do(s, "POST", "/v1/documents", js(f, map[string]any{"id": "a", "text": a}))
	f.Fuzz(func(t *testing.T, body string) {
		w := do(s, "POST", "/v1/passages", body)
		checkAnswer(t, "POST /v1/passages", w.Code, w.Body.String(), 200, 400, 404, 413)
		if w.Code == 200 {
			var p passagesJSON
			var req passagesRequest
			json.Unmarshal(w.Body.Bytes(), &p)
			json.Unmarshal([]byte(body), &req)
			var b strings.Builder
			for _, s := range p.Article {
				b.WriteString(s.Text)
			}
			if req.Text != nil && strings.ToValidUTF8(*req.Text, "\ufffd") == *req.Text && b.String() != *req.Text {
				t.Fatalf("the article's segments %q do not make up its text %q", b.String(), *req.Text)
			}
		}
	})
}
