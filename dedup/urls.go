package dedup

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/progress"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/urlhash"
)

// DefaultMaxURLLine is the longest line RunURLs reads when
// URLOptions.MaxLine is 0.
const DefaultMaxURLLine = 16 << 20

// URLOptions configure RunURLs.
type URLOptions struct {
	// MaxDistance is the largest Hamming distance, 0 to 64, between the
	// fingerprints of a URL and a kept URL it duplicates (0: equal
	// fingerprints). A store must answer it (index.Index.MaxDistance).
	MaxDistance int
	// Normalize are the normalisation options; nil means the defaults.
	// A store must have been made with the same (index.Options.AnalyzerID
	// Normalize.ID()).
	Normalize *urlhash.Options
	// Field, if not "", reads the lines as JSON objects with the URL in
	// this field.
	Field string
	// MaxLine is the longest line read, not counting its end; longer
	// lines are rejected. 0 means DefaultMaxURLLine.
	MaxLine int
	// Batch buffers this many kept URLs before adding them to the store
	// in one write; 0 or 1 adds each at once.
	Batch int
	// StoreName names the store in URLSummary.Search (its directory);
	// "" calls it "the index".
	StoreName string
	// Job names this run, for resuming (URLJobID): kept URLs the store
	// holds from the same Job are those of an interrupted run, so that
	// re-running it gives the outcomes of an uninterrupted one. ""
	// never resumes.
	Job string
}

// URLOutcome is one line and what RunURLs decided about it.
type URLOutcome struct {
	Seq    int64  // 0-based position of the line among all lines read, blank ones included
	Source string // the input: its path, or "stdin"
	Line   int    // 1-based line in Source; 0 when an input failed before its first line
	// Raw is the line, without its line end (nor the byte-order mark
	// of an input's first line; of a line over MaxLine, its first 200
	// bytes); valid until emit returns.
	Raw         []byte
	URL         string // the URL as given, trimmed of spaces; "" when the line had none (a bad line)
	Normalized  string // the normalised URL; "" when it could not be normalised
	Fingerprint simhash.Fingerprint
	Verdict     Verdict // Unique, Duplicate, Rejected or InputFailed
	Err         error   // Rejected: an *input.RecordError; InputFailed: an *input.Error
	// Matches (Duplicate) are the kept URLs within MaxDistance,
	// closest first (then those earlier runs kept, then this run's in
	// input order): ID is the normalised URL, Title the URL as given,
	// Exact reports equal normalised URLs, and Job and Seq name the run
	// that kept it and its position there (this run's: Seq).
	Matches []index.Match
	// Exact (Duplicate): the normalised URL equals that of an earlier
	// URL, kept or not.
	Exact bool
	// Resumed (Unique): the store held it already, from an interrupted
	// run of the same job.
	Resumed bool
}

// URLSummary counts what a RunURLs run did. Its JSON is the object
// neardup url dedup --json prints: the fields below, with "duplicates"
// (Exact + Near) after "unique" and "seconds" (Elapsed) last.
type URLSummary struct {
	Lines       int64 `json:"lines"` // lines read, blank and bad ones included
	URLs        int64 `json:"urls"`  // URLs normalised
	Unique      int64 `json:"unique"`
	Exact       int64 `json:"exact"` // duplicates with URLOutcome.Exact
	Near        int64 `json:"near"`  // other duplicates
	Blank       int64 `json:"blank"`
	Rejected    int64 `json:"rejected"`
	InputErrors int64 `json:"input_errors"`
	Resumed     int64 `json:"resumed"`
	// Pairs and Clusters are the lines written to the pairs and the
	// clusters files (Outputs.NPairs, Outputs.Commit), and MinSimilarity
	// the similarity in percent that MaxDistance was chosen for
	// (urlhash.MaxDistance): RunURLs leaves them 0 for its caller to set.
	Pairs         int64   `json:"pairs"`
	Clusters      int64   `json:"clusters"`
	MinSimilarity float64 `json:"min_similarity"`
	MaxDistance   int     `json:"max_distance"` // URLOptions.MaxDistance
	// Search says how the kept URLs were searched: the in-memory block
	// index of this run's (Blocks and Tables its layout), or every one
	// when no layout covers MaxDistance (Blocks and Tables 0), and the
	// store, named by URLOptions.StoreName, with its layout and the URLs
	// it held when the run began.
	Search         string        `json:"search"`
	Normalizer     string        `json:"normalizer"` // URLOptions.Normalize.ID()
	Blocks, Tables int           `json:"-"`
	Elapsed        time.Duration `json:"-"`
}

// MarshalJSON encodes s with the duplicates and Elapsed in seconds.
func (s URLSummary) MarshalJSON() ([]byte, error) {
	type plain URLSummary
	// The fields of this struct hide plain's of the same name, which
	// keeps its other fields' order.
	return json.Marshal(struct {
		Lines      int64 `json:"lines"`
		URLs       int64 `json:"urls"`
		Unique     int64 `json:"unique"`
		Duplicates int64 `json:"duplicates"`
		plain
		Seconds float64 `json:"seconds"`
	}{s.Lines, s.URLs, s.Unique, s.Exact + s.Near, plain(s), s.Elapsed.Seconds()})
}

// WriteText writes s for people, each line starting with prefix
// ("neardup url dedup: "): the counts, the search and the time, and what
// was resumed (all the kept URLs: a run that had finished before).
func (s *URLSummary) WriteText(w io.Writer, prefix string) error {
	n, pl := progress.Count, progress.Plural
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s: %s, %s kept, %s (%s exact: the same normalised URL as an earlier one), %s, %s, %s\n", prefix,
		pl(s.Lines, "line", "lines"), pl(s.URLs, "URL", "URLs"), n(s.Unique), pl(s.Exact+s.Near, "duplicate", "duplicates"),
		n(s.Exact), pl(s.Blank, "blank", "blank"), pl(s.Rejected, "rejected", "rejected"), pl(s.InputErrors, "input error", "input errors"))
	rate := ""
	if secs := s.Elapsed.Seconds(); secs > 0 {
		rate = fmt.Sprintf(", %s URLs/s", n(int64(float64(s.URLs)/secs)))
	}
	fmt.Fprintf(&b, "%smin similarity %g%% (distance ≤ %d of 64 bits), searched %s; %s%s\n", prefix,
		s.MinSimilarity, s.MaxDistance, s.Search, s.Elapsed.Round(time.Millisecond), rate)
	switch {
	case s.Resumed > 0 && s.Resumed == s.Unique:
		fmt.Fprintf(&b, "%sthis run had finished before: all %s already in the index\n", prefix, pl(s.Resumed, "kept URL was", "kept URLs were"))
	case s.Resumed > 0:
		fmt.Fprintf(&b, "%sresumed an interrupted run: %s already in the index\n", prefix, pl(s.Resumed, "kept URL was", "kept URLs were"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RunURLs reads the lines of inputs in order (paths, gzip data
// decompressed; "-" reads stdin), one URL a line (or a JSON object with
// it in URLOptions.Field), and decides for each whether it duplicates an
// earlier one: a URL is kept (Unique) unless its fingerprint is within
// MaxDistance of a kept URL's, of this run or, when store is not nil,
// stored by an earlier run; then it is a Duplicate of every such URL.
// Duplicates are not kept. Kept URLs are added to store, with the
// normalised URL as ID. Blank lines are counted and skipped; emit is
// called for every other line and failed input, in input order; an
// error from emit stops the run. An unreadable input is an InputFailed
// outcome, not an error. The URLs stored are written before RunURLs
// returns, also when it fails.
func RunURLs(ctx context.Context, inputs []string, stdin io.Reader, store *index.Index, opts *URLOptions, emit func(*URLOutcome) error) (sum URLSummary, err error) {
	start := time.Now()
	var o URLOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxLine == 0 {
		o.MaxLine = DefaultMaxURLLine
	}
	if o.MaxDistance < 0 || o.MaxDistance > 64 {
		return sum, fmt.Errorf("dedup: URL distance %d: want 0 to 64", o.MaxDistance)
	}
	d := &urlDeduper{ctx: ctx, o: o, emit: emit, seen: make(map[uint64]struct{})}
	d.sum.MaxDistance, d.sum.Normalizer = o.MaxDistance, o.Normalize.ID()
	defer func() {
		d.sum.Elapsed = time.Since(start)
		sum = d.sum
	}()
	if store != nil {
		if id := o.Normalize.ID(); store.AnalyzerID() != id {
			return sum, fmt.Errorf("dedup: the index holds fingerprints made by %q, not %q: %w", store.AnalyzerID(), id, index.ErrMismatch)
		}
		if store.MaxDistance() < o.MaxDistance {
			return sum, fmt.Errorf("dedup: %w: the index answers distances up to %d, not %d", index.ErrDistance, store.MaxDistance(), o.MaxDistance)
		}
		d.store = &urlStore{x: store, k: o.MaxDistance, job: o.Job, batch: o.Batch}
		defer func() {
			// Even when the run stops: what was decided is resumed.
			if ferr := d.store.flush(context.WithoutCancel(ctx)); err == nil {
				err = ferr
			}
		}()
	}
	d.search, err = newURLSearch(o.MaxDistance)
	if err != nil {
		return sum, err
	}
	defer d.search.close()
	d.sum.Blocks, d.sum.Tables = d.search.layout()
	d.sum.Search = "every kept URL (no block layout covers the distance)"
	if d.sum.Blocks > 0 {
		d.sum.Search = fmt.Sprintf("in-memory block index (%d blocks, %d tables)", d.sum.Blocks, d.sum.Tables)
	}
	if store != nil {
		st, err := store.Stats(ctx)
		if err != nil {
			return sum, err
		}
		name := "the index"
		if o.StoreName != "" {
			name = "index " + o.StoreName
		}
		d.sum.Search += fmt.Sprintf(" and %s (%d blocks, %d tables, %s)", name, st.Blocks, st.Tables, progress.Plural(st.Docs, "URL", "URLs"))
	}
	for _, in := range inputs {
		if err := d.read(in, stdin); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// urlDeduper is the state of a RunURLs run.
type urlDeduper struct {
	ctx    context.Context
	o      URLOptions
	emit   func(*URLOutcome) error
	search urlSearch
	store  *urlStore           // nil without a store
	seen   map[uint64]struct{} // hashes of the normalised URLs read, to tell exact duplicates
	seq    int64               // lines read
	sum    URLSummary
}

// read decides the lines of one input. Only errors that stop the run
// are returned.
func (d *urlDeduper) read(name string, stdin io.Reader) error {
	source := name
	var r io.Reader
	if name == "-" {
		source, r = "stdin", stdin
		if stdin == nil {
			return d.inputFailed(source, 0, 0, errors.New("no standard input"))
		}
	} else {
		f, err := os.Open(name)
		if err != nil {
			return d.inputFailed(source, 0, 0, err)
		}
		defer f.Close()
		r = f
	}
	br, _, err := input.Decompress(bufio.NewReaderSize(r, 64<<10), 64<<10)
	if err != nil {
		return d.inputFailed(source, 0, 0, err)
	}
	lines := input.NewLineReader(br, d.o.MaxLine)
	for line := 1; ; line++ {
		if line%256 == 0 {
			if err := d.ctx.Err(); err != nil {
				return err
			}
		}
		buf, tooLong, err := lines.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return d.inputFailed(source, line, lines.Offset(), err)
		}
		d.sum.Lines++
		o := &URLOutcome{Seq: d.seq, Source: source, Line: line}
		d.seq++
		if line == 1 {
			buf = bytes.TrimPrefix(buf, []byte("\xef\xbb\xbf"))
		}
		if tooLong {
			o.Raw = buf[:min(len(buf), 200)]
			if err := d.reject(o, "", fmt.Sprintf("line longer than %d bytes", d.o.MaxLine)); err != nil {
				return err
			}
			continue
		}
		// Lines end in "\n" or "\r\n": drop the "\r".
		o.Raw = bytes.TrimSuffix(buf, []byte("\r"))
		if err := d.decide(o); err != nil {
			return err
		}
	}
}

// inputFailed reports an input that could not be read (to its end)
// after offset bytes.
func (d *urlDeduper) inputFailed(source string, line int, offset int64, err error) error {
	d.sum.InputErrors++
	return d.emit(&URLOutcome{Seq: d.seq, Source: source, Line: line, Verdict: InputFailed,
		Err: &input.Error{Source: source, Line: line, Offset: offset, Err: err}})
}

// reject reports a bad line.
func (d *urlDeduper) reject(o *URLOutcome, field, reason string) error {
	d.sum.Rejected++
	o.Verdict = Rejected
	o.Err = &input.RecordError{Source: o.Source, Line: o.Line, Field: field, Reason: reason, Raw: bytes.Clone(o.Raw)}
	return d.emit(o)
}

// decide decides one line.
func (d *urlDeduper) decide(o *URLOutcome) error {
	text := strings.TrimSpace(string(o.Raw))
	if text == "" {
		d.sum.Blank++
		return nil
	}
	u := text
	if d.o.Field != "" {
		var err error
		if u, err = urlField(o.Raw, d.o.Field); err != nil {
			return d.reject(o, d.o.Field, err.Error())
		}
	}
	o.URL = strings.TrimSpace(u)
	p, err := urlhash.Normalize(u, d.o.Normalize)
	if err != nil {
		reason := strings.TrimPrefix(err.Error(), "urlhash: ")
		if d.o.Field == "" && strings.HasPrefix(o.URL, "{") {
			reason += " (for lines of JSON give --url-field NAME)"
		}
		return d.reject(o, d.o.Field, reason)
	}
	o.Normalized, o.Fingerprint = p.String(), p.Fingerprint()
	if d.store != nil && len(o.Normalized) > index.MaxIDLen {
		return d.reject(o, d.o.Field, fmt.Sprintf("normalised URL of %d bytes: an index takes at most %d", len(o.Normalized), index.MaxIDLen))
	}
	d.sum.URLs++
	// A URL normalised like an earlier one is a duplicate: it has that
	// URL's fingerprint, so it is within the distance of the same kept
	// URLs.
	h := simhash.HashWord(o.Normalized)
	_, o.Exact = d.seen[h]
	d.seen[h] = struct{}{}
	hits, err := d.search.near(d.ctx, o.Fingerprint)
	if err != nil {
		return err
	}
	if d.store != nil {
		more, resumed, err := d.store.near(d.ctx, o)
		if err != nil {
			return err
		}
		o.Resumed = resumed && len(hits) == 0 && len(more) == 0
		hits = append(hits, more...)
	}
	if len(hits) == 0 {
		o.Verdict, o.Exact = Unique, false
		d.sum.Unique++
		k := &keptURL{url: o.URL, norm: o.Normalized, seq: o.Seq}
		if err := d.search.add(d.ctx, o.Fingerprint, k); err != nil {
			return err
		}
		if o.Resumed {
			d.sum.Resumed++
		} else if d.store != nil {
			if err := d.store.add(d.ctx, o.Fingerprint, k); err != nil {
				return err
			}
		}
		return d.emit(o)
	}
	slices.SortFunc(hits, func(a, b urlHit) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		if a.kept.earlier != b.kept.earlier {
			if a.kept.earlier {
				return -1
			}
			return 1
		}
		if a.kept.seq != b.kept.seq && !a.kept.earlier {
			return int(a.kept.seq - b.kept.seq)
		}
		return strings.Compare(a.kept.norm, b.kept.norm)
	})
	o.Verdict = Duplicate
	o.Matches = make([]index.Match, len(hits))
	for i, h := range hits {
		exact := h.kept.norm == o.Normalized
		o.Exact = o.Exact || exact
		job := d.o.Job
		if h.kept.earlier {
			job = h.kept.job
		}
		o.Matches[i] = index.Match{ID: h.kept.norm, Title: h.kept.url, Distance: h.dist, Similarity: 1 - float64(h.dist)/64,
			Exact: exact, Job: job, Seq: h.kept.seq}
	}
	if o.Exact {
		d.sum.Exact++
	} else {
		d.sum.Near++
	}
	return d.emit(o)
}

// urlField returns the string in field name of the JSON object line,
// found as input finds the fields of JSONL records; a syntax error is
// worded as encoding/json words it.
func urlField(line []byte, name string) (string, error) {
	if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
		return "", errors.New("not a JSON object")
	}
	raw, s, err := input.JSONField(line, name)
	switch {
	case err != nil:
		var se *json.SyntaxError
		if jerr := json.Unmarshal(line, new(json.RawMessage)); errors.As(jerr, &se) {
			return "", fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, jerr)
		}
		return "", err
	case raw == nil:
		return "", fmt.Errorf("no field %q", name)
	case raw[0] != '"':
		return "", fmt.Errorf("field %q is not a string: %s", name, shorten(string(raw), 60))
	}
	return s, nil
}

// shorten cuts s to at most n bytes, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// keptURL is a kept URL: one of this run, or (earlier) one a store
// holds from an earlier run.
type keptURL struct {
	url     string // as given; for an earlier run's, as that run gave it
	norm    string // normalised
	seq     int64  // position in its run's input
	earlier bool
	job     string // earlier: the run that kept it
}

// urlHit is a kept URL within the distance of a URL.
type urlHit struct {
	kept *keptURL
	dist int
}

// urlSearch finds this run's kept URLs near a fingerprint.
type urlSearch interface {
	near(ctx context.Context, fp simhash.Fingerprint) ([]urlHit, error)
	add(ctx context.Context, fp simhash.Fingerprint, u *keptURL) error
	layout() (blocks, tables int) // 0, 0 for a scan
	close() error
}

// newURLSearch returns an in-memory block index for distance k, laid
// out with the blocks of index.LayoutFor, or a scan when no layout
// covers k.
func newURLSearch(k int) (urlSearch, error) {
	if k > index.MaxLayoutDistance {
		return &scanSearch{k: k}, nil
	}
	blocks, _ := index.LayoutFor(k)
	m, err := memstore.Open(context.Background(), &index.Options{Blocks: blocks, MaxDistance: k})
	if err != nil {
		return nil, err
	}
	st, err := m.Stats(context.Background())
	if err != nil {
		m.Close()
		return nil, err
	}
	return &memSearch{m: m, k: k, blocks: st.Blocks, tables: st.Tables}, nil
}

// memSearch looks kept URLs up in an in-memory block index; document
// IDs are positions in kept.
type memSearch struct {
	m              *index.Index
	k              int
	kept           []*keptURL
	blocks, tables int
}

func (s *memSearch) near(ctx context.Context, fp simhash.Fingerprint) ([]urlHit, error) {
	ms, err := s.m.Near(ctx, fp, s.k)
	if err != nil {
		return nil, err
	}
	hits := make([]urlHit, len(ms))
	for i, m := range ms {
		j, err := strconv.Atoi(m.ID)
		if err != nil || j < 0 || j >= len(s.kept) {
			return nil, fmt.Errorf("dedup: in-memory index returned unknown id %q", m.ID)
		}
		hits[i] = urlHit{kept: s.kept[j], dist: m.Distance}
	}
	return hits, nil
}

func (s *memSearch) add(ctx context.Context, fp simhash.Fingerprint, u *keptURL) error {
	if err := s.m.Add(ctx, index.Doc{ID: strconv.Itoa(len(s.kept)), Fingerprint: fp}); err != nil {
		return err
	}
	s.kept = append(s.kept, u)
	return nil
}

func (s *memSearch) layout() (int, int) { return s.blocks, s.tables }
func (s *memSearch) close() error       { return s.m.Close() }

// scanSearch compares with every kept URL, for distances no block
// layout covers.
type scanSearch struct {
	k    int
	fps  []simhash.Fingerprint
	kept []*keptURL
}

func (s *scanSearch) near(_ context.Context, fp simhash.Fingerprint) ([]urlHit, error) {
	var hits []urlHit
	for i, c := range s.fps {
		if d := fp.Distance(c); d <= s.k {
			hits = append(hits, urlHit{kept: s.kept[i], dist: d})
		}
	}
	return hits, nil
}

func (s *scanSearch) add(_ context.Context, fp simhash.Fingerprint, u *keptURL) error {
	s.fps = append(s.fps, fp)
	s.kept = append(s.kept, u)
	return nil
}

func (s *scanSearch) layout() (int, int) { return 0, 0 }
func (s *scanSearch) close() error       { return nil }

// urlStore is the store of RunURLs: the URLs earlier runs kept, and this
// run's kept URLs, written in batches. A document's ID is the
// normalised URL, its Title the URL as given, and its Seq the 1-based
// line number across the run's inputs (URLOutcome.Seq + 1), as url
// dedup has always stored it.
type urlStore struct {
	x       *index.Index
	k       int
	job     string
	batch   int
	pending []index.Doc
}

// near returns the stored URLs near o's fingerprint, except this job's
// (this run's kept URLs are in memory); resumed reports that an
// interrupted run of this job stored o itself.
func (s *urlStore) near(ctx context.Context, o *URLOutcome) (hits []urlHit, resumed bool, err error) {
	ms, err := s.x.Near(ctx, o.Fingerprint, s.k)
	if err != nil {
		return nil, false, err
	}
	for _, m := range ms {
		d, err := s.x.Get(ctx, m.ID)
		if err != nil {
			return nil, false, err
		}
		if s.job != "" && d.Job == s.job {
			resumed = resumed || (d.Seq == o.Seq+1 && d.Title == o.URL)
			continue
		}
		u := d.Title
		if u == "" {
			u = d.ID
		}
		hits = append(hits, urlHit{kept: &keptURL{url: u, norm: d.ID, seq: d.Seq - 1, earlier: true, job: d.Job}, dist: m.Distance})
	}
	return hits, resumed, nil
}

// add queues a kept URL, writing a batch when enough are queued.
func (s *urlStore) add(ctx context.Context, fp simhash.Fingerprint, u *keptURL) error {
	s.pending = append(s.pending, index.Doc{
		ID: u.norm, Fingerprint: fp, ContentHash: simhash.HashWord(u.norm), Title: u.url,
		Added: time.Now(), Job: s.job, Seq: u.seq + 1,
	})
	if len(s.pending) >= s.batch {
		return s.flush(ctx)
	}
	return nil
}

// flush writes the queued kept URLs.
func (s *urlStore) flush(ctx context.Context) error {
	if len(s.pending) == 0 {
		return nil
	}
	err := s.x.Add(ctx, s.pending...)
	s.pending = s.pending[:0]
	return err
}
