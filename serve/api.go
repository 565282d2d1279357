package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/reuse"
	"github.com/neardup/neardup/tfidf"
)

// article is the request body of check and of an added document, and a
// side of compare.
type article struct {
	ID    *string `json:"id"`
	Title string  `json:"title"`
	Text  *string `json:"text"`
}

// analyze checks a's fields and analyses its text. needID requires an
// ID; a too-short text is an error only when tooShortOK is not set (then
// the analysis is nil and the reason returned).
func (s *Server) analyze(a *article, prefix string, needID, tooShortOK bool) (*neardup.Analysis, string, *apiError) {
	if a.ID != nil {
		if err := index.CheckID(*a.ID); err != nil {
			return nil, "", badRequest(prefix+"id", "%v", err)
		}
		if err := checkStoredID(*a.ID); err != nil && needID {
			return nil, "", badRequest(prefix+"id", "%v", err)
		}
	} else if needID {
		return nil, "", badRequest(prefix+"id", "missing: an archived article needs an id")
	}
	if len(a.Title) > MaxTitleBytes {
		return nil, "", badRequest(prefix+"title", "%d bytes long: a title has at most %d", len(a.Title), MaxTitleBytes)
	}
	if a.Text == nil {
		return nil, "", badRequest(prefix+"text", "missing")
	}
	start := time.Now()
	an, err := s.o.Analyzer.Analyze(*a.Text)
	s.metrics.analysis.Observe(time.Since(start).Seconds())
	switch {
	case errors.Is(err, neardup.ErrEmpty):
		return nil, "", badRequest(prefix+"text", "no text (empty, or only white space)")
	case errors.Is(err, neardup.ErrTooShort) && tooShortOK:
		return nil, err.Error(), nil
	case errors.Is(err, neardup.ErrTooShort):
		return nil, "", &apiError{Status: http.StatusUnprocessableEntity, Field: prefix + "text", Msg: err.Error()}
	case err != nil:
		return nil, "", internal(err)
	}
	return an, "", nil
}

func (a *article) id() string {
	if a.ID == nil {
		return ""
	}
	return *a.ID
}

// doc is the archive document of a.
func (s *Server) doc(a *article, an *neardup.Analysis) index.Doc {
	d := dedup.DocOf(an, a.id(), a.Title, s.o.Keywords)
	d.Added = s.o.Now().UTC()
	if s.o.KeepText {
		d.Text = *a.Text
	}
	return d
}

// archiveError turns an error of the archive into an answer.
func archiveError(err error) *apiError {
	switch {
	case errors.Is(err, index.ErrClosed), errors.Is(err, context.Canceled):
		return &apiError{Status: http.StatusServiceUnavailable, Msg: err.Error()}
	case errors.Is(err, index.ErrReadOnly):
		return &apiError{Status: http.StatusForbidden, Msg: err.Error()}
	}
	return internal(err)
}

func (s *Server) check(w http.ResponseWriter, r *http.Request) *apiError {
	add := false
	if v := r.URL.Query().Get("add"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest("add", "query parameter add=%q: want true or false", v)
		}
		add = b
	}
	if add {
		if e := s.authorized(r); e != nil {
			return e
		}
	} else if e := checkContentType(r, false); e != nil {
		return e
	}
	withReuse := false
	if v := r.URL.Query().Get("reuse"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest("reuse", "query parameter reuse=%q: want true or false", v)
		}
		withReuse = b
	}
	if withReuse && s.o.Reuse == nil {
		return &apiError{Status: http.StatusConflict, Field: "reuse", Msg: "the archive has no reuse index (one is made when an archive is created with --reuse)"}
	}
	release, e := s.admit(w, r)
	if e != nil {
		return e
	}
	defer release()
	var a article
	if e := s.decodeBody(w, r, &a); e != nil {
		return e
	}
	an, short, e := s.analyze(&a, "", add, true)
	if e != nil {
		return e
	}
	if an == nil {
		writeJSON(w, http.StatusOK, report.Check{ID: a.id(), TooShort: short, Verdict: report.CheckTooShort, Matches: []report.Match{}})
		return nil
	}
	doc := s.doc(&a, an)
	var reused *reuse.Answer
	if s.o.Reuse != nil && (add || withReuse) {
		ans, err := s.o.Reuse.Find(r.Context(), *a.Text, a.id())
		if err != nil {
			return archiveError(err)
		}
		doc.Passages = ans.File
		if withReuse {
			reused = &ans
		}
	}
	res, err := dedup.Check(r.Context(), s.o.Index, &doc, s.k, add)
	if err != nil {
		return archiveError(err)
	}
	j := checkJSON{Check: res.Report(a.id(), an), Reuse: reused}
	s.metrics.matches.Add(float64(len(res.Matches)))
	if res.Added {
		s.metrics.writes.WithLabelValues("added").Inc()
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

// checkJSON is check's answer: the report, and with reuse=true the
// archived articles that share passages with the article.
type checkJSON struct {
	report.Check
	Reuse *reuse.Answer `json:"reuse,omitempty"`
}

// addedJSON is the answer to an added document.
type addedJSON struct {
	ID          string `json:"id"`
	Fingerprint string `json:"fingerprint"`
	Replaced    bool   `json:"replaced"`
}

func (s *Server) addDocuments(w http.ResponseWriter, r *http.Request) *apiError {
	if e := s.authorized(r); e != nil {
		return e
	}
	release, e := s.admit(w, r)
	if e != nil {
		return e
	}
	defer release()
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/x-ndjson" {
		return s.addBatch(w, r)
	}
	var a article
	if e := s.decodeBody(w, r, &a); e != nil {
		return e
	}
	an, _, e := s.analyze(&a, "", true, false)
	if e != nil {
		return e
	}
	doc := s.doc(&a, an)
	replaced, err := s.add(r.Context(), []index.Doc{doc})
	if err != nil {
		return archiveError(err)
	}
	status := http.StatusCreated
	if replaced[0] {
		status = http.StatusOK
	}
	writeJSON(w, status, addedJSON{ID: doc.ID, Fingerprint: an.Fingerprint.String(), Replaced: replaced[0]})
	return nil
}

// addGroup is one request's documents waiting to be written.
type addGroup struct {
	docs     []index.Doc
	replaced []bool
	err      error
	done     chan struct{}
}

// add adds docs (distinct IDs) and says which replaced a document. The
// adds of concurrent requests are written together (group commit): the
// first request to get the write lock writes every group queued by
// then in one dedup.File, so that a synced store syncs once for all of
// them; each request returns once its documents are written. Later
// groups win over earlier ones with the same ID, as they would one after
// the other. The write does not stop when the request that makes it is
// cancelled: the other requests' documents are in it.
func (s *Server) add(ctx context.Context, docs []index.Doc) ([]bool, error) {
	g := &addGroup{docs: docs, done: make(chan struct{})}
	s.qmu.Lock()
	s.queue = append(s.queue, g)
	s.qmu.Unlock()
	s.wmu.Lock()
	select {
	case <-g.done: // written by another request's write
	default:
		s.qmu.Lock()
		q := s.queue
		s.queue = nil
		s.qmu.Unlock()
		s.writeGroups(context.WithoutCancel(ctx), q)
	}
	s.wmu.Unlock()
	<-g.done
	return g.replaced, g.err
}

// writeGroups files the groups' documents with dedup.File (each decided
// an original or a duplicate, race-free with every other writer) and
// marks them done. s.wmu is held.
func (s *Server) writeGroups(ctx context.Context, q []*addGroup) {
	var all []index.Doc
	for _, g := range q {
		all = append(all, g.docs...)
	}
	var err error
	for i := 0; s.o.Reuse != nil && i < len(all); i++ {
		if err = s.o.Reuse.Prepare(ctx, &all[i], all[i].Text); err != nil {
			break
		}
	}
	var filed []dedup.Filed
	if err == nil {
		filed, err = dedup.File(ctx, s.o.Index, all, s.k)
	}
	k := 0
	for _, g := range q {
		g.err = err
		if err == nil {
			g.replaced = make([]bool, len(g.docs))
			for i := range g.docs {
				g.replaced[i] = filed[k].Replaced
				k++
				op := "added"
				if g.replaced[i] {
					op = "replaced"
				}
				s.metrics.writes.WithLabelValues(op).Inc()
			}
		}
		close(g.done)
	}
}

// batchLineJSON answers one line of a batch.
type batchLineJSON struct {
	Line        int    `json:"line"`
	Status      int    `json:"status"`
	ID          string `json:"id,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Replaced    bool   `json:"replaced,omitempty"`
	Error       string `json:"error,omitempty"`
	Field       string `json:"field,omitempty"`
}

// batchChunk is how many articles of a batch are added in one write.
const batchChunk = 100

// addBatch adds one article a line of an NDJSON body and answers with
// one line each (in order, HTTP status 200): status 201 or 200 and the
// fingerprint when the line's article was added, or 400 and the error
// that kept it out. The articles are written batchChunk at a time, and a
// line is answered when its chunk is written; when a write fails, the
// lines of its chunk get 500 and the batch stops there. Blank lines are
// skipped; an article whose ID an earlier line of the same chunk has
// replaces it.
func (s *Server) addBatch(w http.ResponseWriter, r *http.Request) *apiError {
	body, e := s.body(w, r)
	if e != nil {
		return e
	}
	br := bufio.NewReaderSize(body, 64<<10)
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	started := false
	var pending []batchLineJSON
	var docs []index.Doc
	var at []int // docs[i] answers pending[at[i]]
	flush := func() bool {
		ok := true
		if len(docs) > 0 {
			// The last line of the chunk with an ID is written; the
			// first is answered as the archive had it before (201, or
			// 200 when it replaced a document), each later one 200, as
			// it replaced the one before.
			last := map[string]int{}
			for i := range docs {
				last[docs[i].ID] = i
			}
			var uniq []index.Doc
			for i := range docs {
				if last[docs[i].ID] == i {
					uniq = append(uniq, docs[i])
				}
			}
			replaced, err := s.add(r.Context(), uniq)
			before := map[string]bool{}
			for i := range uniq {
				if err == nil {
					before[uniq[i].ID] = replaced[i]
				}
			}
			seen := map[string]bool{}
			for i, p := range at {
				id := docs[i].ID
				switch {
				case err != nil:
					pending[p] = batchLineJSON{Line: pending[p].Line, ID: id, Status: http.StatusInternalServerError, Error: err.Error()}
				case seen[id] || before[id]:
					pending[p].Status, pending[p].Replaced = http.StatusOK, true
				default:
					pending[p].Status = http.StatusCreated
				}
				seen[id] = true
			}
			if err != nil {
				if s.o.Logf != nil {
					s.o.Logf("POST /v1/documents batch: %v", err)
				}
				ok = false
			}
		}
		if !started {
			w.WriteHeader(http.StatusOK)
			started = true
		}
		for _, p := range pending {
			enc.Encode(p)
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		pending, docs, at = pending[:0], docs[:0], at[:0]
		return ok
	}
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			// A long line: read the rest of it (the body limit bounds it).
			var more []byte
			more, err = br.ReadSlice('\n')
			line = append(append([]byte(nil), line...), more...)
		}
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			if !started {
				return s.tooLarge()
			}
			pending = append(pending, batchLineJSON{Line: n, Status: http.StatusRequestEntityTooLarge, Error: s.tooLarge().Error()})
			flush()
			return nil
		}
		if err != nil && err != io.EOF {
			if !started && len(pending) == 0 {
				return badRequest("", "reading the request body: %v", err)
			}
			pending = append(pending, batchLineJSON{Line: n, Status: http.StatusBadRequest, Error: "reading the request body: " + err.Error()})
			flush()
			return nil
		}
		if len(strings.TrimSpace(string(line))) > 0 {
			var a article
			p := batchLineJSON{Line: n}
			e := decodeJSON(line, &a)
			var an *neardup.Analysis
			if e == nil {
				p.ID = a.id()
				an, _, e = s.analyze(&a, "", true, false)
			}
			if e != nil {
				p.Status, p.Error, p.Field = e.Status, e.Error(), e.Field
				pending = append(pending, p)
			} else {
				p.Fingerprint = an.Fingerprint.String()
				pending = append(pending, p)
				docs, at = append(docs, s.doc(&a, an)), append(at, len(pending)-1)
			}
			if len(docs) == batchChunk {
				if !flush() {
					return nil
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	flush()
	return nil
}

// documentJSON is an archived document.
type documentJSON struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Fingerprint string          `json:"fingerprint"`
	ContentHash string          `json:"content_hash"`
	Added       time.Time       `json:"added"`
	Keywords    []tfidf.Keyword `json:"keywords"`
	Job         string          `json:"job,omitempty"`
	Seq         int64           `json:"seq,omitempty"`
	TextKept    bool            `json:"text_kept"`
	Text        string          `json:"text,omitempty"`
}

// pathID returns the {id} of r, checked as an archive ID.
func pathID(r *http.Request) (string, *apiError) {
	id := r.PathValue("id")
	if err := index.CheckID(id); err != nil {
		return "", badRequest("id", "%v", err)
	}
	return id, nil
}

func notFound(id string) *apiError {
	return &apiError{Status: http.StatusNotFound, Msg: fmt.Sprintf("document %q: not in the archive", id)}
}

func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) *apiError {
	id, e := pathID(r)
	if e != nil {
		return e
	}
	d, err := s.o.Index.Get(r.Context(), id)
	switch {
	case errors.Is(err, index.ErrNotFound):
		return notFound(id)
	case err != nil:
		return archiveError(err)
	}
	j := documentJSON{ID: d.ID, Title: d.Title, Fingerprint: d.Fingerprint.String(), ContentHash: fmt.Sprintf("%016x", d.ContentHash),
		Added: d.Added, Keywords: d.Keywords, Job: d.Job, Seq: d.Seq, TextKept: d.Text != "", Text: d.Text}
	if j.Keywords == nil {
		j.Keywords = []tfidf.Keyword{}
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) *apiError {
	if e := s.authorized(r); e != nil {
		return e
	}
	id, e := pathID(r)
	if e != nil {
		return e
	}
	s.wmu.Lock()
	err := s.o.Index.Delete(r.Context(), id)
	s.wmu.Unlock()
	switch {
	case errors.Is(err, index.ErrNotFound):
		return notFound(id)
	case err != nil:
		return archiveError(err)
	}
	s.metrics.writes.WithLabelValues("deleted").Inc()
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// compareRequest is compare's body.
type compareRequest struct {
	A *article `json:"a"`
	B *article `json:"b"`
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) *apiError {
	if e := checkContentType(r, false); e != nil {
		return e
	}
	release, e := s.admit(w, r)
	if e != nil {
		return e
	}
	defer release()
	var req compareRequest
	if e := s.decodeBody(w, r, &req); e != nil {
		return e
	}
	var sides [2]report.Side
	var ans [2]*neardup.Analysis
	for i, a := range []*article{req.A, req.B} {
		name := "ab"[i : i+1]
		if a == nil {
			return badRequest(name, "missing: want an object with a text")
		}
		an, _, e := s.analyze(a, name+".", false, false)
		if e != nil {
			return e
		}
		id := a.id()
		if id == "" {
			id = name
		}
		ans[i], sides[i] = an, report.SideOf(id, a.Title, "request."+name, an)
	}
	c := dedup.Compare(ans[0], ans[1], s.k, s.minJ)
	writeJSON(w, http.StatusOK, c.Report(sides[0], sides[1], s.o.Analyzer.ID(), s.k, s.minJ))
	return nil
}

// passagesRequest is passages' body: an article and the ID of an
// archived one.
type passagesRequest struct {
	Text *string `json:"text"`
	ID   *string `json:"id"`
}

// segmentJSON is a run of a text: shared with the other text or not.
type segmentJSON struct {
	Text   string `json:"text"`
	Shared bool   `json:"shared,omitempty"`
}

// passagesJSON is passages' answer: the two texts cut into segments
// (the archived one empty when its text is not kept).
type passagesJSON struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	TextKept bool          `json:"text_kept"`
	Article  []segmentJSON `json:"article"`
	Archived []segmentJSON `json:"archived"`
	// Shared is the share of the article's bytes in shared passages.
	Shared float64 `json:"shared"`
}

// minPassage is the fewest characters a highlighted passage has: a
// single shared 5-gram is often a common phrase, not a copy.
const minPassage = 8

func (s *Server) passages(w http.ResponseWriter, r *http.Request) *apiError {
	if e := checkContentType(r, false); e != nil {
		return e
	}
	release, e := s.admit(w, r)
	if e != nil {
		return e
	}
	defer release()
	var req passagesRequest
	if e := s.decodeBody(w, r, &req); e != nil {
		return e
	}
	if req.Text == nil {
		return badRequest("text", "missing")
	}
	if len(*req.Text) > MaxPassageBytes {
		return &apiError{Status: http.StatusRequestEntityTooLarge, Field: "text",
			Msg: fmt.Sprintf("%d bytes: passages cuts texts of at most %d bytes", len(*req.Text), MaxPassageBytes)}
	}
	if req.ID == nil {
		return badRequest("id", "missing: the id of the archived article")
	}
	if err := index.CheckID(*req.ID); err != nil {
		return badRequest("id", "%v", err)
	}
	d, err := s.o.Index.Get(r.Context(), *req.ID)
	switch {
	case errors.Is(err, index.ErrNotFound):
		return notFound(*req.ID)
	case err != nil:
		return archiveError(err)
	}
	if len(d.Text) > MaxPassageBytes {
		return &apiError{Status: http.StatusRequestEntityTooLarge, Field: "id",
			Msg: fmt.Sprintf("the archived text of %q is %d bytes: passages cuts texts of at most %d bytes", d.ID, len(d.Text), MaxPassageBytes)}
	}
	j := passagesJSON{ID: d.ID, Title: d.Title, TextKept: d.Text != ""}
	sa, sb := dedup.SharedPassages(*req.Text, d.Text, minPassage)
	j.Article = segments(*req.Text, sa)
	j.Archived = segments(d.Text, sb)
	if n := len(*req.Text); n > 0 {
		shared := 0
		for _, sp := range sa {
			shared += sp.End - sp.Start
		}
		j.Shared = float64(shared) / float64(n)
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

// segments cuts text at the spans.
func segments(text string, spans []dedup.Span) []segmentJSON {
	out := []segmentJSON{}
	at := 0
	for _, sp := range spans {
		if sp.Start > at {
			out = append(out, segmentJSON{Text: text[at:sp.Start]})
		}
		out = append(out, segmentJSON{Text: text[sp.Start:sp.End], Shared: true})
		at = sp.End
	}
	if at < len(text) {
		out = append(out, segmentJSON{Text: text[at:]})
	}
	return out
}

// infoJSON describes the archive and the server.
type infoJSON struct {
	Analyzer      string  `json:"analyzer"`
	Documents     int64   `json:"documents"`
	MaxDistance   int     `json:"max_distance"`
	MinContent    float64 `json:"min_content"`
	KeepText      bool    `json:"keep_text"`
	Reuse         bool    `json:"reuse,omitempty"` // the archive has a reuse index: check takes reuse=true
	TokenRequired bool    `json:"token_required"`
	MaxBytes      int64   `json:"max_bytes"`
}

func (s *Server) info(w http.ResponseWriter, r *http.Request) *apiError {
	st, err := s.o.Index.Stats(r.Context())
	if err != nil {
		return archiveError(err)
	}
	writeJSON(w, http.StatusOK, infoJSON{Analyzer: s.o.Analyzer.ID(), Documents: st.Docs, MaxDistance: s.k, MinContent: s.minJ,
		KeepText: s.o.KeepText, Reuse: s.o.Reuse != nil, TokenRequired: s.o.Token != "", MaxBytes: s.o.MaxBytes})
	return nil
}

// healthTimeout is how long /healthz waits for the archive (a Redis
// store retries for its whole retry window, 30 s by default).
const healthTimeout = 2 * time.Second

// healthz answers "ok" while the archive answers within healthTimeout
// and a body of MaxBytes would be analysed now; 503 otherwise (busy: the
// analyses under way hold the memory budget).
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) *apiError {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if _, err := s.o.Index.Stats(ctx); err != nil {
		return &apiError{Status: http.StatusServiceUnavailable, Msg: "the archive does not answer: " + err.Error()}
	}
	if s.saturated() {
		used, _, total := s.mem.state()
		w.Header().Set("Retry-After", "1")
		return &apiError{Status: http.StatusServiceUnavailable,
			Msg: fmt.Sprintf("busy: the analyses under way hold %d of the %d bytes of memory they may use: a body of %d bytes would be refused now", used, total, s.o.MaxBytes)}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
	return nil
}
