package dedup

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/pipeline"
)

// Verdict is what Dedup decided about one record.
type Verdict int

const (
	// Unique: no earlier record matches; it was added to the store.
	Unique Verdict = iota
	// Duplicate: it matches an earlier record (see Outcome.Matches).
	Duplicate
	// TooShort: too few keywords to fingerprint (neardup.ErrTooShort); passed
	// through as not a duplicate and not added to the store.
	TooShort
	// Rejected: a bad record (*input.RecordError, or an id the store already
	// holds for another record); not processed further.
	Rejected
	// InputFailed: an input could not be read to its end (*input.Error);
	// the records before it were processed.
	InputFailed
)

func (v Verdict) String() string {
	switch v {
	case Unique:
		return "unique"
	case Duplicate:
		return "duplicate"
	case TooShort:
		return "too-short"
	case Rejected:
		return "rejected"
	case InputFailed:
		return "input-failed"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Outcome is one record and what Dedup decided about it.
type Outcome struct {
	Seq      int64 // 0-based position of the record among all read
	Record   input.Record
	Verdict  Verdict
	Err      error             // the reason for TooShort, Rejected and InputFailed
	Analysis *neardup.Analysis // nil unless fingerprinted
	Matches  []index.Match     // Duplicate: the earlier records it matches, best first
	Resumed  bool              // Unique: it was already in the store from an interrupted run of the same job
}

// Exact reports whether a duplicate's best match has identical content.
func (o *Outcome) Exact() bool { return len(o.Matches) > 0 && o.Matches[0].Exact }

// Summary counts what a Dedup run did.
type Summary struct {
	Records     int64 // records read, good and bad
	Unique      int64
	Exact       int64 // duplicates whose best match has identical content
	Near        int64 // other duplicates
	TooShort    int64
	Rejected    int64
	InputErrors int64
	Bytes       int64 // bytes of article text analysed
	Elapsed     time.Duration
}

// Options configure Dedup.
type Options struct {
	// MaxDistance is the SimHash screen's radius (see index.Similar);
	// 0 means index.DefaultMaxDistance, and a negative value means 0
	// (candidates with equal fingerprints, besides the sketch bands).
	MaxDistance int
	// Workers analyse records in parallel; 0 means GOMAXPROCS. The
	// result does not depend on it.
	Workers int
	// Strict stops at the first bad record or input error.
	Strict bool
	// Keywords is how many of a record's keywords are stored with it
	// (to explain later matches); 0 means 32.
	Keywords int
	// Batch buffers this many new originals before adding them to the
	// store in one write (queries see them at once all the same); 0 or 1
	// adds each at once. Use it with a persistent index. With a shared
	// store it is how many records index.Ingest decides at a time.
	Batch int
	// Job names this run, for resuming: documents the store holds from
	// the same Job are recognised by their position, so that re-running
	// an interrupted job gives the output of an uninterrupted one. Use a
	// digest of the inputs and settings; "" never resumes.
	Job string
	// Now stamps added documents; nil means time.Now.
	Now func() time.Time
}

// Dedup reads every record of r in order, fingerprints them with a in
// parallel, and decides in input order: a record that matches an earlier
// original (an exact content match, or a near duplicate confirmed by
// index.Similar) is a Duplicate of it; otherwise it is Unique and becomes
// an original itself. emit is called once per record, in input order;
// an error from emit stops the run. Memory is bounded by the store and a
// window of records in flight, not by the input.
//
// When the store is an index.Shared (a Redis archive), several Runs, in
// any processes, may write into it at once: the records are decided in
// batches of Options.Batch (64 when it is 0 or 1) by index.Ingest,
// race-free. No two originals match, every duplicate's Matches are
// originals, and with one Run the outcomes are those of any other
// store. Duplicates are stored too (decided as such), and a record whose
// ID the store holds for another document is Rejected even when it is
// a duplicate, since the archive cannot hold both.
func Run(ctx context.Context, r *input.Reader, a *neardup.Analyzer, store *index.Index, opts *Options, emit func(*Outcome) error) (Summary, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case o.MaxDistance == 0:
		o.MaxDistance = index.DefaultMaxDistance
	case o.MaxDistance < 0:
		o.MaxDistance = 0
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Keywords <= 0 {
		o.Keywords = 32
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	start := time.Now()
	d := &deduper{ctx: ctx, o: o, store: store, emit: emit, start: o.Now().UTC().Truncate(time.Second)}
	_, d.shared = store.Store().(index.Shared)
	if o.Batch > 1 && !d.shared {
		mem, err := memstore.Open(ctx, &index.Options{MaxDistance: max(o.MaxDistance, index.DefaultMaxDistance)})
		if err != nil {
			return d.sum, err
		}
		d.pending = mem
	}

	err := pipeline.Run(ctx, r, a, &pipeline.Options{Workers: o.Workers}, func(it *pipeline.Item) error {
		out := &Outcome{Seq: it.Seq, Record: it.Record, Err: it.Err, Analysis: it.Analysis}
		var re *input.RecordError
		var ie *input.Error
		switch {
		case it.Err == nil:
		case errors.As(it.Err, &re):
			out.Verdict = Rejected
		case errors.As(it.Err, &ie):
			out.Verdict = InputFailed
		case errors.Is(it.Err, neardup.ErrTooShort):
			out.Verdict = TooShort
		default:
			out.Verdict = Rejected
		}
		if d.shared {
			return d.queue(out)
		}
		return d.decide(out)
	})
	if err == nil && d.shared {
		err = d.ingest()
	}
	if err == nil {
		err = d.flush()
	}
	d.sum.Elapsed = time.Since(start)
	return d.sum, err
}

type deduper struct {
	ctx     context.Context
	o       Options
	store   *index.Index
	pending *index.Index // in memory: originals not yet written to store
	queued  []index.Doc
	emit    func(*Outcome) error
	sum     Summary
	start   time.Time // when the run started, by o.Now

	// shared: the store is an index.Shared, which many writers use at
	// once; the outcomes are decided in batches by index.Ingest (see
	// shared.go) instead of match.
	shared  bool
	batch   []*Outcome
	batchAt []int // the outcomes of batch that are documents
	docs    []index.Doc
}

func (d *deduper) decide(out *Outcome) error {
	d.sum.Records++
	if out.Analysis != nil {
		d.sum.Bytes += int64(len(out.Record.Text))
		if err := d.match(out); err != nil {
			return err
		}
	}
	return d.tally(out)
}

// tally counts a decided outcome and emits it.
func (d *deduper) tally(out *Outcome) error {
	switch out.Verdict {
	case Unique:
		d.sum.Unique++
	case Duplicate:
		if out.Exact() {
			d.sum.Exact++
		} else {
			d.sum.Near++
		}
	case TooShort:
		d.sum.TooShort++
	case Rejected:
		d.sum.Rejected++
	case InputFailed:
		d.sum.InputErrors++
	}
	if err := d.emit(out); err != nil {
		return err
	}
	if d.o.Strict && (out.Verdict == Rejected || out.Verdict == InputFailed) {
		return out.Err
	}
	return nil
}

// match finds the earlier originals out matches and adds it to the store
// when it has none.
func (d *deduper) match(out *Outcome) error {
	rec, an := &out.Record, out.Analysis
	if err := index.CheckID(rec.ID); err != nil {
		out.Verdict = Rejected
		out.Err = &input.RecordError{Source: rec.Source, Line: rec.Line, Field: "id", Reason: err.Error(), Raw: rec.Raw}
		return nil
	}
	doc := an.Doc(rec.ID, rec.Title, d.o.Keywords)
	doc.Added, doc.Job, doc.Seq = d.o.Now().UTC(), d.o.Job, out.Seq
	ms, err := d.store.Similar(d.ctx, &doc, d.o.MaxDistance)
	if err != nil {
		return fmt.Errorf("%s: %w", rec.Location(), err)
	}
	if d.pending != nil {
		pm, err := d.pending.Similar(d.ctx, &doc, d.o.MaxDistance)
		if err != nil {
			return err
		}
		if len(pm) > 0 {
			ms = append(ms, pm...)
			index.SortMatches(ms)
		}
	}
	// Documents this job added in an interrupted run with a later
	// position: an uninterrupted run has not seen them yet. (Similar never
	// returns the document with the query's own id.)
	kept := ms[:0]
	for _, m := range ms {
		if d.o.Job != "" && m.Job == d.o.Job && m.Seq > out.Seq {
			continue
		}
		kept = append(kept, m)
	}
	if len(kept) > 0 {
		out.Verdict, out.Matches = Duplicate, kept
		return nil
	}
	// A new original. Its id must not replace another document, unless
	// that is this very record, or a later one, from an interrupted run
	// of this job.
	prev, err := d.getAny(rec.ID)
	switch {
	case errors.Is(err, index.ErrNotFound):
	case err != nil:
		return fmt.Errorf("%s: %w", rec.Location(), err)
	case d.o.Job != "" && prev.Job == d.o.Job && prev.Seq == out.Seq:
		out.Resumed = true
		return nil
	case d.o.Job != "" && prev.Job == d.o.Job && prev.Seq > out.Seq:
		// Replaced below, as an uninterrupted run would have it.
	default:
		out.Verdict = Rejected
		out.Err = &input.RecordError{Source: rec.Source, Line: rec.Line, Field: "id",
			Reason: fmt.Sprintf("duplicate id %q: an earlier article has it (%s)", input.ShortID(rec.ID), d.describe(&prev)), Raw: rec.Raw}
		return nil
	}
	return d.add(doc)
}

func (d *deduper) getAny(id string) (index.Doc, error) {
	if d.pending != nil {
		if doc, err := d.pending.Get(d.ctx, id); err == nil || !errors.Is(err, index.ErrNotFound) {
			return doc, err
		}
	}
	return d.store.Get(d.ctx, id)
}

func (d *deduper) add(doc index.Doc) error {
	if d.pending == nil {
		return d.store.Add(d.ctx, doc)
	}
	if err := d.pending.Add(d.ctx, doc); err != nil {
		return err
	}
	d.queued = append(d.queued, doc)
	if len(d.queued) >= d.o.Batch {
		return d.flush()
	}
	return nil
}

// flush writes the queued originals to the store.
func (d *deduper) flush() error {
	if len(d.queued) == 0 {
		return nil
	}
	if err := d.store.Add(d.ctx, d.queued...); err != nil {
		return err
	}
	ids := make([]string, len(d.queued))
	for i := range d.queued {
		ids[i] = d.queued[i].ID
	}
	d.queued = d.queued[:0]
	return d.pending.Delete(d.ctx, ids...)
}

// describe says where an earlier document came from, without volatile
// details when it is from this run (or an interrupted run of this job),
// so that reruns give the same output.
func (d *deduper) describe(doc *index.Doc) string {
	thisRun := doc.Job == d.o.Job && (d.o.Job != "" || !doc.Added.Before(d.start))
	switch {
	case thisRun:
		return fmt.Sprintf("record %d of this input", doc.Seq+1)
	case doc.Job != "":
		return fmt.Sprintf("added %s by job %s, record %d", doc.Added.Format(time.RFC3339), doc.Job, doc.Seq+1)
	}
	return "added " + doc.Added.Format(time.RFC3339)
}
