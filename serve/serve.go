// Package serve is the HTTP service: routes, JSON codecs, metrics and the
// editors' page over an index.Index (neardup serve). A Server owns no
// archive: its caller opens the index and the analyzer, and closes them
// after Serve returns.
//
// Routes (errors are {"error": "...", "field": "..."} with the status
// that fits; write routes need "Authorization: Bearer TOKEN" when
// Options.Token is set, and a JSON or NDJSON Content-Type always):
//
//	POST   /v1/check            {"text", "title"?, "id"?} → the matches; ?add=true adds a new article (write)
//	POST   /v1/documents        {"id", "title"?, "text"} → 201 added, 200 replaced (write);
//	                            Content-Type application/x-ndjson: one article a line, one answer a line
//	GET    /v1/documents/{id}   the archived document (with its text when kept)
//	DELETE /v1/documents/{id}   204, or 404 (write)
//	POST   /v1/compare          {"a": {...}, "b": {...}} → what neardup compare --json prints
//	POST   /v1/passages         {"text", "id"} → the article and the archived one cut into shared and other passages
//	GET    /v1/info             the archive and the server's settings (the page reads them)
//	GET    /healthz             "ok" while the archive answers (within 2 s) and a body of
//	                            MaxBytes would be analysed now; 503 otherwise
//	GET    /metrics             Prometheus text format
//	GET    /                    the editors' page (assets embedded)
//
// An add acknowledged with 200 or 201 is as durable as the store makes a
// write: badgerstore syncs it before Add returns; redisstore returns
// once the masters executed it, in memory, and with wait_replicas=N in
// the archive's URL once N replicas of each master acknowledged it too
// (WAIT), answering 500 when they did not in time: an answer the write
// does not undo (the masters have it), so a client sends the add again.
package serve

import (
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/reuse"
)

// Defaults for zero Options fields.
const (
	DefaultMaxBytes = 16 << 20
	DefaultKeywords = 32
	DefaultGrace    = 10 * time.Second
)

// Options configure a Server. Index and Analyzer are required; zero
// values of the others mean the defaults.
type Options struct {
	Index    *index.Index
	Analyzer *neardup.Analyzer
	// MaxDistance is the SimHash distance of queries (0 means the
	// index's), MinContent the content similarity compare asks for (0
	// means index.DefaultMinContent; the index has its own for check).
	MaxDistance int
	MinContent  float64
	// Token, if not empty, is the bearer token write routes require.
	Token string
	// KeepText stores each added article's text with it (compressed),
	// so that the page can show what a later article shares with it.
	KeepText bool
	// MaxBytes is the largest request body accepted (DefaultMaxBytes);
	// a larger one gets 413 without being read.
	MaxBytes int64
	// Keywords is how many keywords an added article keeps to explain
	// later matches (DefaultKeywords).
	Keywords int
	// CORSOrigin, if not empty, is sent as Access-Control-Allow-Origin
	// (and preflight requests are answered); no CORS headers otherwise.
	// A write whose Origin header is neither this server's nor
	// CORSOrigin ("*": any) is refused.
	CORSOrigin string
	// AllowHosts are the names, besides localhost and the address it
	// listens on, that requests may give in their Host header (a name
	// the server is reached by); any other is refused with 421, so that
	// a page that rebinds its own name to this address gets nothing.
	// Checked by Serve's server only: a caller that serves the Server
	// as a handler of its own checks the Host itself.
	AllowHosts []string
	// MemoryBudget bounds the memory of the analyses under way
	// (DefaultMemoryBudget, and at least what one body of MaxBytes
	// costs): a request that would pass it is answered 503 with
	// Retry-After. Each costs CostPerByte times its body's size.
	MemoryBudget int64
	// Now is the clock (time.Now); tests fix it.
	Now func() time.Time
	// Logf, if not nil, receives a line for each request that failed
	// on the server's side (5xx).
	Logf func(format string, args ...any)
	// Reuse is the archive's reuse index (package reuse), or nil: with
	// it, added articles are filed under their passage fingerprints and
	// POST /v1/check?reuse=true lists the archived articles that share
	// passages with the article. It needs KeepText.
	Reuse *reuse.Index
}

// Server serves the API and the page over one archive. It is an
// http.Handler, safe for concurrent use.
type Server struct {
	o       Options
	k       int
	minJ    float64
	mux     *http.ServeMux
	reg     *prometheus.Registry
	metrics *metrics
	// wmu makes each write route's read-then-write (is the ID taken? is
	// the article new?) one step for the requests of this server.
	wmu sync.Mutex
	// queue holds the adds waiting for wmu (see add), guarded by qmu.
	qmu   sync.Mutex
	queue []*addGroup
	// mem accounts for the memory of the analyses under way.
	mem budget
	// listenIP is the address Serve listens on (nil before), for the
	// Host check; guarded by lmu.
	lmu      sync.Mutex
	listenIP net.IP
	// admitted, if not nil, is called by each request admitted to the
	// budget, before it reads its body (tests hold requests there).
	admitted func()
}

//go:embed web
var webFS embed.FS

// New returns a Server for o.
func New(o Options) (*Server, error) {
	if o.Index == nil || o.Analyzer == nil {
		return nil, errors.New("serve: Options.Index and Options.Analyzer are required")
	}
	if o.Reuse != nil && !o.KeepText {
		return nil, errors.New("serve: Options.Reuse needs KeepText: passages are measured on the archived texts")
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Keywords <= 0 {
		o.Keywords = DefaultKeywords
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MemoryBudget <= 0 {
		o.MemoryBudget = DefaultMemoryBudget
	}
	o.MemoryBudget = max(o.MemoryBudget, analysisCost(o.MaxBytes))
	s := &Server{o: o, k: o.MaxDistance, minJ: o.MinContent, mux: http.NewServeMux(), reg: prometheus.NewRegistry()}
	if s.k == 0 {
		s.k = o.Index.MaxDistance()
	}
	if s.k < 0 || s.k > o.Index.MaxDistance() {
		return nil, fmt.Errorf("serve: MaxDistance %d: the index answers distances 0 to %d", s.k, o.Index.MaxDistance())
	}
	if s.minJ == 0 {
		s.minJ = index.DefaultMinContent
	}
	if !(s.minJ > 0 && s.minJ <= 1) {
		return nil, fmt.Errorf("serve: MinContent %v: want a value in (0, 1]", s.minJ)
	}
	m, err := newMetrics(s.reg, o.Index)
	if err != nil {
		return nil, err
	}
	s.metrics = m
	s.mem.total = o.MemoryBudget
	web, err := fs.Sub(webFS, "web")
	if err != nil {
		return nil, err
	}
	s.route("POST /v1/check", s.check)
	s.route("POST /v1/documents", s.addDocuments)
	s.route("GET /v1/documents/{id}", s.getDocument)
	s.route("DELETE /v1/documents/{id}", s.deleteDocument)
	s.route("POST /v1/compare", s.compare)
	s.route("POST /v1/passages", s.passages)
	s.route("GET /v1/info", s.info)
	s.route("GET /healthz", s.healthz)
	s.route("GET /metrics", s.metricsHandler())
	static := http.FileServerFS(web)
	page := func(w http.ResponseWriter, r *http.Request) *apiError {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		static.ServeHTTP(w, r)
		return nil
	}
	s.route("GET /{$}", page)
	s.route("GET /assets/", page)
	s.route("/", s.noRoute)
	return s, nil
}

// noRoute answers what no route takes: 405 with the methods the path
// takes, or 404.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) *apiError {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		r2 := r.Clone(r.Context())
		r2.Method = m
		if _, p := s.mux.Handler(r2); p != "/" && p != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		return &apiError{Status: http.StatusMethodNotAllowed, Msg: fmt.Sprintf("%s %s: this route takes %s", r.Method, r.URL.Path, strings.Join(allow, ", "))}
	}
	return &apiError{Status: http.StatusNotFound, Msg: fmt.Sprintf("no route %s %s", r.Method, r.URL.Path)}
}

// Registry returns the server's own metrics registry (nothing is
// registered in Prometheus's global one).
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	if !s.hostAllowed(r) {
		writeError(w, &apiError{Status: http.StatusMisdirectedRequest,
			Msg: fmt.Sprintf("Host %q is not a name of this server: use its address, localhost, or a name given to neardup serve --allow-host", r.Host)})
		return
	}
	if s.o.CORSOrigin != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", s.o.CORSOrigin)
		h.Set("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// authorized reports whether r may write: it comes from no other site
// (its Origin, if any, is this server's or Options.CORSOrigin), its body
// (unless it is a DELETE) is declared JSON or NDJSON, and no token is
// set or r bears it (the scheme "Bearer" in any case).
func (s *Server) authorized(r *http.Request) *apiError {
	if !s.originAllowed(r) {
		return &apiError{Status: http.StatusForbidden,
			Msg: fmt.Sprintf("a write from the page of another site (Origin %s): refused (neardup serve --cors-origin names a site that may write)", r.Header.Get("Origin"))}
	}
	if r.Method != http.MethodDelete {
		if e := checkContentType(r, true); e != nil {
			return e
		}
	}
	if s.o.Token == "" {
		return nil
	}
	scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.o.Token)) == 1 {
		return nil
	}
	return &apiError{Status: http.StatusUnauthorized, Msg: "this route writes to the archive: it needs the header Authorization: Bearer TOKEN"}
}

// Timeouts of Serve's http.Server.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 2 * time.Minute
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
)

// Serve answers requests on ln until ctx is done, then stops accepting
// connections and waits up to grace (DefaultGrace when 0) for the
// requests in flight to finish; it returns nil after a clean stop. The
// caller closes the archive afterwards: every request has finished with
// it by then, unless the grace period ran out (then Serve returns an
// error saying so, and has closed the remaining connections).
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	if grace <= 0 {
		grace = DefaultGrace
	}
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		s.lmu.Lock()
		s.listenIP = a.IP
		s.lmu.Unlock()
	}
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-done
	if err != nil {
		hs.Close()
		return fmt.Errorf("serve: requests still running after %v: %w", grace, err)
	}
	return nil
}
