package urldedup

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

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/progress"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/urlhash"
)

// DefaultMaxLine is the longest line Run reads when
// Options.MaxLine is 0.
const DefaultMaxLine = 16 << 20

// Options configure Run.
type Options struct {
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
	// lines are rejected. 0 means DefaultMaxLine.
	MaxLine int
	// Batch buffers this many kept URLs before adding them to the store
	// in one write; 0 or 1 adds each at once.
	Batch int
	// StoreName names the store in report.URLSummary.Search (its directory);
	// "" calls it "the index".
	StoreName string
	// Memory makes an empty in-memory store (memstore.New) to hold this
	// run's kept URLs, searched through a block index laid out for
	// MaxDistance. Without it, or for a distance no block layout covers
	// (above index.MaxLayoutDistance), each URL is compared with every
	// kept URL: the same outcomes, more slowly.
	Memory func() index.Store
	// Job names this run, for resuming (JobID): kept URLs the store
	// holds from the same Job are those of an interrupted run, so that
	// re-running it gives the outcomes of an uninterrupted one. ""
	// never resumes.
	Job string
}

// Outcome is one line and what Run decided about it.
type Outcome struct {
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
	Verdict     dedup.Verdict // dedup.Unique, dedup.Duplicate, dedup.Rejected or dedup.InputFailed
	Err         error         // dedup.Rejected: an *input.RecordError; dedup.InputFailed: an *input.Error
	// Matches (dedup.Duplicate) are the kept URLs within MaxDistance,
	// closest first (then those earlier runs kept, then this run's in
	// input order): ID is the normalised URL, Title the URL as given,
	// Exact reports equal normalised URLs, and Job and Seq name the run
	// that kept it and its position there (this run's: Seq).
	Matches []index.Match
	// Exact (dedup.Duplicate): the normalised URL equals that of an earlier
	// URL, kept or not.
	Exact bool
	// Resumed (dedup.Unique): the store held it already, from an interrupted
	// run of the same job.
	Resumed bool
}

// Run reads the lines of inputs in order (paths, gzip, zstd, xz and
// bzip2 data decompressed; "-" reads stdin), one URL a line (or a JSON
// object with it in Options.Field), and decides for each whether it duplicates an
// earlier one: a URL is kept (dedup.Unique) unless its fingerprint is within
// MaxDistance of a kept URL's, of this run or, when store is not nil,
// stored by an earlier run; then it is a dedup.Duplicate of every such URL.
// Duplicates are not kept. Kept URLs are added to store, with the
// normalised URL as ID. Blank lines are counted and skipped; emit is
// called for every other line and failed input, in input order; an
// error from emit stops the run. An unreadable input is an InputFailed
// outcome, not an error. The URLs stored are written before Run
// returns, also when it fails.
//
// Inputs are recognised by their first bytes, as package input
// recognises them: a Parquet file's URLs are its column Options.Field
// (DefaultParquetField when ""), a row a "line" (readParquet); a WARC or
// WET file's are the target URIs of its records that hold pages, a
// record a "line" (readWARC).
func Run(ctx context.Context, inputs []string, stdin io.Reader, store *index.Index, opts *Options, emit func(*Outcome) error) (sum report.URLSummary, err error) {
	start := time.Now()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxLine == 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.MaxDistance < 0 || o.MaxDistance > 64 {
		return sum, fmt.Errorf("dedup: URL distance %d: want 0 to 64", o.MaxDistance)
	}
	d := &deduper{ctx: ctx, o: o, emit: emit, seen: make(map[uint64]struct{})}
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
	d.search, err = newURLSearch(o.MaxDistance, o.Memory)
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

// deduper is the state of a Run run.
type deduper struct {
	ctx    context.Context
	o      Options
	emit   func(*Outcome) error
	search urlSearch
	store  *urlStore           // nil without a store
	seen   map[uint64]struct{} // hashes of the normalised URLs read, to tell exact duplicates
	seq    int64               // lines read
	sum    report.URLSummary
}

// read decides the lines of one input. Only errors that stop the run
// are returned.
func (d *deduper) read(name string, stdin io.Reader) error {
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
	head, _ := br.Peek(8)
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		if name == "-" {
			return d.readParquet("-", br)
		}
		return d.readParquet(name, nil)
	case input.IsWARC(head):
		return d.readWARC(source, br)
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
		o := &Outcome{Seq: d.seq, Source: source, Line: line}
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

// DefaultParquetField is the column of the URLs of a Parquet input when
// Options.Field is "".
const DefaultParquetField = "url"

// readParquet decides the URLs of the Parquet file name ("-": stdin, the
// data of br), in the column Options.Field names (DefaultParquetField
// when ""), read as input reads a text column: a null, empty or too long
// one is a bad row; the Outcomes' Line is the row, from 1, and Raw the
// URL.
func (d *deduper) readParquet(name string, stdin io.Reader) error {
	field := d.o.Field
	if field == "" {
		field = DefaultParquetField
	}
	r := input.NewReader([]string{name}, stdin, &input.Options{IDField: field, TextField: field, TitleField: field, MaxBytes: d.o.MaxLine})
	defer r.Close()
	for n := 1; ; n++ {
		if n%256 == 0 {
			if err := d.ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		var re *input.RecordError
		var ie *input.Error
		switch {
		case errors.As(err, &re):
			d.sum.Lines++
			o := &Outcome{Seq: d.seq, Source: re.Source, Line: re.Line}
			d.seq++
			if err := d.reject(o, re.Field, rejectReason(re)); err != nil {
				return err
			}
		case errors.As(err, &ie):
			d.sum.InputErrors++
			if err := d.emit(&Outcome{Seq: d.seq, Source: ie.Source, Line: ie.Line, Verdict: dedup.InputFailed, Err: ie}); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			d.sum.Lines++
			o := &Outcome{Seq: d.seq, Source: rec.Source, Line: rec.Line, Raw: []byte(rec.Text)}
			d.seq++
			if err := d.decideURL(o, rec.Text, field); err != nil {
				return err
			}
		}
	}
}

// rejectReason is the reason of re, with its position in the file when
// it names one ("row 7 (row group 2 of 3, row 2): null").
func rejectReason(re *input.RecordError) string {
	if re.Pos != "" {
		return re.Pos + ": " + re.Reason
	}
	return re.Reason
}

// readWARC decides the target URIs of the records of the WARC data br
// that hold pages (input.ReadWARCTargets); the Outcomes' Line is the
// record, from 1, and Raw the URI. A record without a target URI is a
// bad one. The records skipped (requests, metadata, responses that are
// not HTML pages of status 2xx, …) are counted in the summary's Skipped,
// by kind, and are neither lines nor outcomes.
func (d *deduper) readWARC(source string, br *bufio.Reader) error {
	skipped, err := input.ReadWARCTargets(br, source, func(t input.WARCTarget) error {
		if t.Record%256 == 0 {
			if err := d.ctx.Err(); err != nil {
				return err
			}
		}
		d.sum.Lines++
		o := &Outcome{Seq: d.seq, Source: source, Line: t.Record, Raw: []byte(t.URI)}
		d.seq++
		if t.URI == "" {
			return d.reject(o, "WARC-Target-URI", t.Pos+": no target URI")
		}
		return d.decideURL(o, t.URI, "")
	})
	for kind, n := range skipped {
		if d.sum.Skipped == nil {
			d.sum.Skipped = map[string]int64{}
		}
		d.sum.Skipped[kind] += n
	}
	var ie *input.Error
	if errors.As(err, &ie) {
		d.sum.InputErrors++
		return d.emit(&Outcome{Seq: d.seq, Source: source, Line: ie.Line, Verdict: dedup.InputFailed, Err: ie})
	}
	return err
}

// inputFailed reports an input that could not be read (to its end)
// after offset bytes.
func (d *deduper) inputFailed(source string, line int, offset int64, err error) error {
	d.sum.InputErrors++
	return d.emit(&Outcome{Seq: d.seq, Source: source, Line: line, Verdict: dedup.InputFailed,
		Err: &input.Error{Source: source, Line: line, Offset: offset, Err: err}})
}

// reject reports a bad line.
func (d *deduper) reject(o *Outcome, field, reason string) error {
	d.sum.Rejected++
	o.Verdict = dedup.Rejected
	o.Err = &input.RecordError{Source: o.Source, Line: o.Line, Field: field, Reason: reason, Raw: bytes.Clone(o.Raw)}
	return d.emit(o)
}

// decide decides one line.
func (d *deduper) decide(o *Outcome) error {
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
	return d.decideURL(o, u, d.o.Field)
}

// decideURL decides the URL u of o, read from its field ("": the
// line, or a WARC record's target).
func (d *deduper) decideURL(o *Outcome, u, field string) error {
	if reason := d.normalize(o, u, field); reason != "" {
		return d.reject(o, field, reason)
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
		if err := d.keep(o); err != nil {
			return err
		}
	} else {
		d.duplicate(o, hits)
	}
	return d.emit(o)
}

// normalize sets o's URL, normalised URL and fingerprint from u, read
// from field ("": the line, or a WARC record's target), and returns why
// it is rejected ("" when it is not).
func (d *deduper) normalize(o *Outcome, u, field string) (reason string) {
	o.URL = strings.TrimSpace(u)
	p, err := urlhash.Normalize(u, d.o.Normalize)
	if err != nil {
		reason := strings.TrimPrefix(err.Error(), "urlhash: ")
		if field == "" && strings.HasPrefix(o.URL, "{") {
			reason += " (for lines of JSON give --url-field NAME)"
		}
		return reason
	}
	o.Normalized, o.Fingerprint = p.String(), p.Fingerprint()
	if d.store != nil && len(o.Normalized) > index.MaxIDLen {
		return fmt.Sprintf("normalised URL of %d bytes: an index takes at most %d", len(o.Normalized), index.MaxIDLen)
	}
	return ""
}

// keep makes o, near no kept URL, a kept one: in this run's search,
// and in the store unless an interrupted run of the job stored it.
func (d *deduper) keep(o *Outcome) error {
	o.Verdict, o.Exact = dedup.Unique, false
	d.sum.Unique++
	k := &keptURL{url: o.URL, norm: o.Normalized, seq: o.Seq}
	if err := d.search.add(d.ctx, o.Fingerprint, k); err != nil {
		return err
	}
	if o.Resumed {
		d.sum.Resumed++
	} else if d.store != nil {
		return d.store.add(d.ctx, o.Fingerprint, k)
	}
	return nil
}

// duplicate makes o a duplicate of the kept URLs hits: its matches,
// closest first, then those earlier runs kept, then this run's in input
// order.
func (d *deduper) duplicate(o *Outcome, hits []urlHit) {
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
	o.Verdict = dedup.Duplicate
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

// newURLSearch returns a block index for distance k on a store memory
// makes, laid out with the blocks of index.LayoutFor, or a scan when
// memory is nil or no layout covers k.
func newURLSearch(k int, memory func() index.Store) (urlSearch, error) {
	if k > index.MaxLayoutDistance || memory == nil {
		return &scanSearch{k: k}, nil
	}
	blocks, _ := index.LayoutFor(k)
	m, err := index.New(context.Background(), memory(), &index.Options{Blocks: blocks, MaxDistance: k})
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

// urlStore is the store of Run: the URLs earlier runs kept, and this
// run's kept URLs, written in batches. A document's ID is the
// normalised URL, its Title the URL as given, and its Seq the 1-based
// line number across the run's inputs (Outcome.Seq + 1), as url
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
func (s *urlStore) near(ctx context.Context, o *Outcome) (hits []urlHit, resumed bool, err error) {
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
