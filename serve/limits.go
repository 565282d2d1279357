package serve

import (
	"bytes"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// CostPerByte is what analysing a request body costs in memory, per byte
// of the body, at worst: the peak resident memory of one POST /v1/check
// over the server's, measured with bodies of 16 MiB (Go's default GC):
// random CJK characters (every one a word of its own to the segmenter)
// 132 bytes a byte (2.22 GB), half CJK and half Latin 45, random Latin
// words 19, real Chinese news 31 (345 MB for 11 MB), English news 10.
// It is rounded up to leave room for the garbage collector's lag.
const CostPerByte = 160

// DefaultMemoryBudget bounds the memory of the analyses under way
// (Options.MemoryBudget): one request of DefaultMaxBytes (2.5 GiB) and
// a few hundred ordinary articles beside it.
const DefaultMemoryBudget = 4 << 30

// analysisCost is what a request whose body has n bytes may cost.
func analysisCost(n int64) int64 { return n*CostPerByte + 1<<20 }

// budget accounts for the memory of the analyses under way: each
// request that analyses its body reserves analysisCost of its size (of
// MaxBytes when it does not say) before reading it, and is refused (503,
// Retry-After) when that would pass the total.
type budget struct {
	mu    sync.Mutex
	total int64
	used  int64
	peak  int64 // the most used at once, for tests and metrics
}

// acquire reserves n bytes if they fit.
func (b *budget) acquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.total {
		return false
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	return true
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// state returns what is in use, the most ever in use, and the total.
func (b *budget) state() (used, peak, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used, b.peak, b.total
}

// admit reserves the memory to analyse r's body, or answers why not:
// 413 for a body over MaxBytes, 503 with Retry-After when the analyses
// under way hold the budget. The caller calls release when done.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) (release func(), e *apiError) {
	n := r.ContentLength
	if n > s.o.MaxBytes {
		return nil, s.tooLarge()
	}
	if n < 0 {
		n = s.o.MaxBytes
	}
	cost := analysisCost(n)
	if !s.mem.acquire(cost) {
		s.metrics.refused.Inc()
		w.Header().Set("Retry-After", "1")
		used, _, total := s.mem.state()
		return nil, &apiError{Status: http.StatusServiceUnavailable,
			Msg: fmt.Sprintf("busy: the analyses under way hold %d of the %d bytes of memory they may use (neardup serve --memory-budget), and this body of %d bytes needs %d; try again", used, total, n, cost)}
	}
	if s.admitted != nil {
		s.admitted()
	}
	return func() { s.mem.release(cost) }, nil
}

// saturated reports whether a body of MaxBytes would be refused now.
func (s *Server) saturated() bool {
	used, _, total := s.mem.state()
	return used+analysisCost(s.o.MaxBytes) > total
}

// Bounds of what an added article may be.
const (
	// MaxTitleBytes is the longest title accepted: a title is repeated
	// in every answer that matches its article.
	MaxTitleBytes = 1024
	// MaxPathIDBytes is the longest an ID may be once escaped for a
	// URL path, so that GET and DELETE /v1/documents/{id} can reach it
	// (a request's head is at most 64 KiB).
	MaxPathIDBytes = 48 << 10
	// MaxPassageBytes bounds each text POST /v1/passages cuts: its
	// answer holds both, escaped (at most 6 bytes a byte, \u0001).
	MaxPassageBytes = 1 << 20
)

// checkStoredID refuses an ID that could be added but not reached by
// GET or DELETE /v1/documents/{id}: "." and ".." (a URL path cleans them
// away) and one whose escaped form passes MaxPathIDBytes.
func checkStoredID(id string) error {
	if id == "." || id == ".." {
		return fmt.Errorf("id %q cannot be a URL path segment (GET and DELETE /v1/documents/{id} could not reach it)", id)
	}
	if n := len(url.PathEscape(id)); n > MaxPathIDBytes {
		return fmt.Errorf("id is %d bytes long once escaped for a URL path; GET and DELETE /v1/documents/{id} reach ids of at most %d", n, MaxPathIDBytes)
	}
	return nil
}

// checkContentType refuses a write whose body is not declared JSON (or
// NDJSON): a web page on another site can send a text/plain or form
// body without asking the browser first (a CORS "simple request"), but
// not an application/json one. It also refuses a charset other than
// UTF-8 (the API takes UTF-8 only).
func checkContentType(r *http.Request, write bool) *apiError {
	ct := r.Header.Get("Content-Type")
	if ct == "" && !write {
		return nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	if cs, ok := params["charset"]; err == nil && ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		return &apiError{Status: http.StatusUnsupportedMediaType,
			Msg: fmt.Sprintf("Content-Type %q: the API takes UTF-8 only (convert the text, e.g. iconv -f %s -t UTF-8)", ct, cs)}
	}
	if !write {
		return nil
	}
	if err != nil || (mt != "application/json" && mt != "application/x-ndjson") {
		return &apiError{Status: http.StatusUnsupportedMediaType,
			Msg: fmt.Sprintf("Content-Type %q: a write needs Content-Type: application/json (or application/x-ndjson for a batch)", ct)}
	}
	return nil
}

// hostAllowed reports whether r's Host header names this server: a
// loopback address or localhost, the address it listens on (any IP when
// it listens on all), or a name of Options.AllowHosts. A page on
// another site that rebinds its own name to this address (DNS
// rebinding) sends its own name: refused. A Server that does not
// listen itself (its ServeHTTP called by another http.Server) leaves
// the Host to its caller.
func (s *Server) hostAllowed(r *http.Request) bool {
	s.lmu.Lock()
	listen := s.listenIP
	s.lmu.Unlock()
	if listen == nil {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	for _, h := range s.o.AllowHosts {
		if strings.EqualFold(strings.TrimSuffix(h, "."), host) {
			return true
		}
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	return ip.IsLoopback() || listen.IsUnspecified() || listen.Equal(ip)
}

// originAllowed reports whether a write's Origin header, if any, is
// this server's own (the page) or Options.CORSOrigin.
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not sent by a browser's cross-site request
	}
	if s.o.CORSOrigin == "*" || (s.o.CORSOrigin != "" && origin == s.o.CORSOrigin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
}

// utf8BOM is the byte-order mark some editors put before a UTF-8 text.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// checkEncoding refuses a JSON body whose strings would not be decoded
// as sent: invalid UTF-8 (encoding/json would replace it with U+FFFD,
// so that two IDs became one) and an escaped lone surrogate ("\ud800",
// also U+FFFD). The error names the field and the byte, counting skip
// bytes before b (a byte-order mark).
func checkEncoding(b []byte, skip int) *apiError {
	if utf8.Valid(b) {
		off, ok := loneSurrogate(b)
		if !ok {
			return nil
		}
		f := fieldAt(b, off)
		return badRequest(f, "an escaped lone surrogate (%s) at byte %d: a string's \\u escapes must make valid UTF-16", b[off:off+6], skip+off)
	}
	off := 0
	for off < len(b) {
		r, n := utf8.DecodeRune(b[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	return badRequest(fieldAt(b, off), "invalid UTF-8 at byte %d (0x%02x): the API takes UTF-8 only, and never rewrites a byte", skip+off, b[off])
}

// loneSurrogate finds the first \u escape of a surrogate not in a pair.
func loneSurrogate(b []byte) (int, bool) {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] != 'u' {
			i++ // an escaped character: \\ does not start an escape
			continue
		}
		r, ok := hex4(i)
		if !ok {
			continue
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if lo, ok := hex4(i + 6); ok && lo >= 0xDC00 && lo < 0xE000 {
				i += 11
				continue
			}
			return i, true
		case r >= 0xDC00 && r < 0xE000:
			return i, true
		}
		i += 5
	}
	return 0, false
}

// fieldAt names the field of the JSON object b whose value holds byte
// off ("a.text" in compare's body), or "" when it cannot tell.
func fieldAt(b []byte, off int) string {
	var path []string
	expectKey := []bool{}
	i := 0
	for i < len(b) && i <= off {
		switch c := b[i]; c {
		case '{':
			expectKey = append(expectKey, true)
			path = append(path, "")
			i++
		case '}':
			if len(path) > 0 {
				path, expectKey = path[:len(path)-1], expectKey[:len(expectKey)-1]
			}
			i++
		case ',':
			if len(expectKey) > 0 {
				expectKey[len(expectKey)-1] = true
			}
			i++
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if len(expectKey) > 0 && expectKey[len(expectKey)-1] {
				if i <= off && off <= j {
					return strings.Join(append(nonEmpty(path[:len(path)-1]), string(b[i+1:min(j, len(b))])), ".")
				}
				path[len(path)-1] = string(b[i+1 : min(j, len(b))])
				expectKey[len(expectKey)-1] = false
			} else if i <= off && off <= j {
				return strings.Join(nonEmpty(path), ".")
			}
			i = j + 1
		default:
			i++
		}
	}
	return ""
}

func nonEmpty(p []string) []string {
	var out []string
	for _, s := range p {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// trimBOM removes a byte-order mark before a JSON body (the command
// does so before a file or a JSONL line).
func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, utf8BOM) }
