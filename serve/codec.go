package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/neardup/neardup/input"
)

// apiError is an error answer: {"error": Msg with the field named, "field": Field}.
type apiError struct {
	Status int
	Field  string // the request field at fault, if one is
	Msg    string
}

func (e *apiError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("field %q: %s", e.Field, e.Msg)
	}
	return e.Msg
}

func badRequest(field, format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// internal is a server-side failure: 500, or 503 when the archive is
// closed or the request was cancelled.
func internal(err error) *apiError {
	return &apiError{Status: http.StatusInternalServerError, Msg: err.Error()}
}

// errorJSON is the body of an error answer.
type errorJSON struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

// handler is a route's handler: it writes its answer, or returns the
// error to answer with when it has written nothing.
type handler func(w http.ResponseWriter, r *http.Request) *apiError

// route registers h under pattern, counting and timing its requests.
func (s *Server) route(pattern string, h handler) {
	name := pattern
	if pattern == "/" {
		name = "other"
	}
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		if e := h(sw, r); e != nil {
			if e.Status >= 500 && s.o.Logf != nil {
				s.o.Logf("%s %s: %d %v", r.Method, r.URL.Path, e.Status, e)
			}
			writeError(sw, e)
		}
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		s.metrics.requests.WithLabelValues(name, strconv.Itoa(sw.status)).Inc()
		s.metrics.latency.WithLabelValues(name).Observe(time.Since(start).Seconds())
	})
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush lets the batch route send each answer line as it is ready.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func writeError(w http.ResponseWriter, e *apiError) {
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="neardup"`)
	}
	writeJSON(w, e.Status, errorJSON{Error: e.Error(), Field: e.Field})
}

// writeJSON answers with v as one line of JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// body returns r's body, limited to the server's MaxBytes: a body that
// says it is larger is refused before it is read, and one that turns
// out larger stops being read there.
func (s *Server) body(w http.ResponseWriter, r *http.Request) (io.Reader, *apiError) {
	if r.ContentLength > s.o.MaxBytes {
		return nil, s.tooLarge()
	}
	return http.MaxBytesReader(w, r.Body, s.o.MaxBytes), nil
}

func (s *Server) tooLarge() *apiError {
	return &apiError{Status: http.StatusRequestEntityTooLarge,
		Msg: fmt.Sprintf("request body too large: more than %d bytes (neardup serve --max-bytes)", s.o.MaxBytes)}
}

// decodeBody decodes r's body, one JSON object, into v.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) *apiError {
	body, e := s.body(w, r)
	if e != nil {
		return e
	}
	b, err := readAll(body, r.ContentLength)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return s.tooLarge()
		}
		return badRequest("", "reading the request body: %v", err)
	}
	return decodeJSON(b, v)
}

// decodeJSON decodes b, one JSON object and nothing after it, into v,
// naming the field at fault in its errors.
//
// A byte-order mark before the object is skipped; invalid UTF-8 and
// escaped lone surrogates are refused (checkEncoding), never replaced.
func decodeJSON(b []byte, v any) *apiError {
	bom := len(b)
	b = trimBOM(b)
	bom -= len(b)
	if a, ok := v.(*article); ok && *a == (article{}) {
		var fast article
		if decodeArticle(b, &fast) {
			*a = fast
			return nil
		}
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return badRequest("", "empty request body: want a JSON object")
	}
	if e := checkEncoding(b, bom); e != nil {
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
	case errors.As(err, &syn):
		return badRequest("", "malformed JSON at byte %d: %v", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ) && typ.Field != "":
		return badRequest(typ.Field, "want %s, got %s", jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.As(err, &typ):
		return badRequest("", "want a JSON object, got %s", typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("", "malformed JSON: unexpected end of the object")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		return badRequest(f, "unknown field")
	default:
		return badRequest("", "malformed JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("", "malformed JSON: data after the object at byte %d", dec.InputOffset())
	}
	return nil
}

// jsonKind names a Go kind as JSON does.
func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "bool":
		return "true or false"
	}
	return "a number"
}

// readAll reads r to its end into a buffer sized for n bytes (a
// request's ContentLength; -1 when unknown), so that a body of the size
// it announced is read without growing the buffer.
func readAll(r io.Reader, n int64) ([]byte, error) {
	if n < 0 || n > 1<<20 {
		return io.ReadAll(r)
	}
	var buf bytes.Buffer
	buf.Grow(int(n) + bytes.MinRead)
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// decodeArticle is decodeJSON's fast path for an article, the body of
// check and of an added document: b is valid UTF-8, one object with no
// other field than "id", "title" and "text", each a string at most
// once, spelt in lower case, with no escaped lone surrogate. It reports
// whether it decoded b; when it did, a holds what encoding/json would
// decode, and when it did not, decodeJSON decodes b (or says what is
// wrong with it, naming the field). Its strings are decoded by
// input.JSONString, the JSONL reader's decoder. encoding/json scans a
// body twice, a byte at a time, then decodes its strings rune by rune;
// BenchmarkDecodeArticle times the two on a 5 KB Chinese article.
func decodeArticle(b []byte, a *article) bool {
	if !utf8.Valid(b) {
		return false
	}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	var seen [3]bool
	for {
		var key, val string
		var ok bool
		if key, i, ok = articleString(b, i); !ok {
			return false
		}
		if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
			return false
		}
		if val, i, ok = articleString(b, skipSpace(b, i+1)); !ok {
			return false
		}
		f := -1
		switch key {
		case "id":
			f, a.ID = 0, &val
		case "title":
			f, a.Title = 1, val
		case "text":
			f, a.Text = 2, &val
		}
		if f < 0 || seen[f] {
			return false
		}
		seen[f] = true
		if i = skipSpace(b, i); i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// skipSpace returns the index of the first byte of b from i on that is
// not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// articleString decodes the JSON string at b[i] and returns it and the
// index after it; ok is false for what decodeArticle leaves to
// encoding/json and checkEncoding: anything but a string, a malformed
// one, an escaped lone surrogate.
func articleString(b []byte, i int) (s string, next int, ok bool) {
	s, next, lone, err := input.JSONString(b, i)
	return s, next, err == nil && !lone
}
