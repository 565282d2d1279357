package dedup

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/pipeline"
	"github.com/neardup/neardup/report"
)

// Verdict is what Run decided about one record.
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

// Outcome is one record and what Run decided about it.
type Outcome struct {
	Seq      int64 // 0-based position of the record among all read
	Record   input.Record
	Verdict  Verdict
	Err      error             // the reason for TooShort, Rejected and InputFailed
	Analysis *neardup.Analysis // nil unless fingerprinted
	// Matches (Duplicate): the archived records it matches, one for each
	// cluster it matches, best first: a match's cluster is its Original
	// when it is an archived duplicate (see ClusterOf), else its ID. The
	// record joins the cluster of the first.
	Matches []index.Match
	// Archived: the record's ID was in the archive already, with the same
	// text, from an earlier run; Verdict and Matches are its verdict then
	// (Unique, or Duplicate with the record it matched).
	Archived bool
	// Resumed: Archived by a run of the same job (Options.Job) at the
	// same position: the run is being repeated, or resumed after an
	// interruption.
	Resumed bool
}

// ClusterOf returns the original of the cluster of the archived record m
// names: its Original when it is a duplicate, else itself.
func ClusterOf(m *index.Match) string {
	if m.Original != "" {
		return m.Original
	}
	return m.ID
}

// Exact reports whether a duplicate's best match has identical content.
func (o *Outcome) Exact() bool { return len(o.Matches) > 0 && o.Matches[0].Exact }

// Options configure Run.
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
	// Batch is how many records the engine (index.Ingest) decides at a
	// time: their candidates are looked up and confirmed together, on
	// every core, and their decisions stored in one write. 0 means
	// DefaultBatch, or SharedBatch on a store other processes share
	// (where they wait for this run's decisions). The result does not
	// depend on it.
	Batch int
	// Job names this run, for resuming: documents the store holds from
	// the same Job are recognised by their position, so that re-running
	// an interrupted job gives the output of an uninterrupted one. Use a
	// digest of the inputs and settings; "" never resumes.
	Job string
	// Now stamps added documents; nil means time.Now.
	Now func() time.Time
	// Prepare, when not nil, is called in input order with each
	// document to be decided, and its text, before the engine sees it:
	// package reuse sets its passage fingerprints
	// (reuse.Index.Prepare), so that an archive with a reuse index
	// files the passages of what dedup adds. An error stops Run.
	Prepare func(d *index.Doc, text string) error
	// MaxMembers is how many duplicates of one cluster a run files as
	// candidates for later records (in the SimHash tables and sketch
	// bands), the first ones under NewMemberContent of the record they
	// matched; 0 means DefaultMaxMembers. The others (exact duplicates
	// among them) are archived record-only (known by ID to later
	// runs) when Job is set, and not at all when it is "" (a run that is
	// never resumed, such as one in memory), so that memory stays bounded
	// by the originals.
	MaxMembers int
}

// DefaultBatch is Options.Batch's default: enough records to keep
// every core busy confirming candidates, few enough that writers
// sharing an archive wait little for each other's decisions.
const DefaultBatch = 256

// SharedBatch is Options.Batch's default on a store several processes
// share (index.Index.SharedStore): a writer waiting for another's
// decisions waits for at most this many records to be decided.
const SharedBatch = 64

// NewMemberContent: a duplicate whose estimated content similarity with
// the record it matched reaches it (an exact copy has 1) is not filed as
// a candidate: it is almost that record, which is one already. Copies
// that are made by editing it go on matching that record.
const NewMemberContent = 0.9

// DefaultMaxMembers is Options.MaxMembers' default: enough for copies
// of copies and chains of edits (TestNewsEdits), few enough that a
// story copied thousands of times does not make every later copy read
// thousands of candidates.
const DefaultMaxMembers = 16

// Run reads every record of r in order, fingerprints them with a in
// parallel, and decides in input order:
//
//   - a record whose ID the archive holds with the same text, from an
//     earlier run, keeps the verdict it had then (Outcome.Archived); with
//     another text it is rejected, the archive keeping its document;
//   - a record that matches archived records (an exact content match, or
//     a near duplicate confirmed by index.Similar), originals or
//     duplicates, is a Duplicate: it joins the cluster of its best match
//     (the cluster of a duplicate is its original's), provided it is
//     within DriftMinContent of that cluster's original;
//   - otherwise it is Unique: an original.
//
// Duplicates are archived with their cluster (index.Doc.Original, Via,
// Hops), the first Options.MaxMembers near ones of each cluster as
// candidates, so that copies of copies are found, and, with a Job, the
// others record-only, so that later runs know every ID. emit is
// called once per record, in input order; an error from emit stops the
// run. Memory is bounded by the store and a window of records in flight,
// not by the input.
//
// The decisions are index.Ingest's, in batches of Options.Batch, on any
// store: several Runs, and any other writers deciding through Ingest
// (dedup.Check, the service), in any processes where the store is
// shared (Redis), may write into one archive at once, race-free. No
// two originals match, every duplicate joins clusters as above
// (through their originals or members), and with one Run the outcomes
// do not depend on the store, Workers or Batch. Duplicates are stored
// too (their records naming their clusters), and a record whose ID the
// store holds for another document is Rejected even when it is a
// duplicate, since the archive cannot hold both.
func Run(ctx context.Context, r *input.Reader, a *neardup.Analyzer, store *index.Index, opts *Options, emit func(*Outcome) error) (report.Summary, error) {
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
	if o.MaxMembers <= 0 {
		o.MaxMembers = DefaultMaxMembers
	}
	start := time.Now()
	switch {
	case o.Batch > 0:
	case store.SharedStore():
		o.Batch = SharedBatch
	default:
		o.Batch = DefaultBatch
	}
	d := &deduper{ctx: ctx, o: o, store: store, emit: emit, start: o.Now().UTC().Truncate(time.Second)}
	d.sum.Workers = o.Workers
	// The ordered part of the run, in profiles (see index.ProfileLabel).
	serial := pprof.WithLabels(ctx, pprof.Labels(index.ProfileLabel, "serial"))
	d.ctx = serial // Ingest restores its caller's labels from its context
	// The outcomes are made outcomeSlab at a time: one allocation for
	// many, in the part of the run that is serial.
	var outcomes []Outcome
	err := pipeline.Run(ctx, r, a, &pipeline.Options{Workers: o.Workers}, func(it *pipeline.Item) error {
		pprof.SetGoroutineLabels(serial)
		defer pprof.SetGoroutineLabels(ctx)
		if len(outcomes) == 0 {
			outcomes = make([]Outcome, outcomeSlab)
		}
		out := &outcomes[0]
		outcomes = outcomes[1:]
		*out = Outcome{Seq: it.Seq, Record: it.Record, Err: it.Err, Analysis: it.Analysis}
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
		return d.queue(out)
	})
	if err == nil {
		err = d.ingest()
	}
	// The last decisions stored (the engine stores each batch's while
	// the next is read), whatever stopped the run.
	if ferr := store.Flush(ctx); err == nil {
		err = ferr
	}
	if err == nil {
		var st index.Stats
		if st, err = store.Stats(ctx); err == nil {
			d.sum.Filter = st.Bloom
		}
	}
	d.sum.Elapsed = time.Since(start)
	return d.sum, err
}

// outcomeSlab is how many Outcomes Run allocates at once.
const outcomeSlab = 32

type deduper struct {
	ctx     context.Context
	o       Options
	store   *index.Index
	emit    func(*Outcome) error
	sum     report.Summary
	start   time.Time      // when the run started, by o.Now
	members map[string]int // duplicates filed as candidates, by cluster, in this run

	// The outcomes waiting for the engine (see shared.go): batch in
	// input order, batchAt those of them that are documents, docs
	// their documents.
	batch   []*Outcome
	batchAt []int
	docs    []index.Doc
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
	}
	if out.Archived {
		d.sum.Archived++
	}
	if out.Resumed {
		d.sum.Resumed++
	}
	switch out.Verdict {
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

// replay measures the match of doc with the archived document id, as
// Similar would have: a match that names id alone (Unverified) when it
// was deleted since.
func (d *deduper) replay(doc *index.Doc, id string) (index.Match, error) {
	r, err := d.store.Get(d.ctx, id)
	switch {
	case errors.Is(err, index.ErrNotFound):
		return index.Match{ID: id, Unverified: true}, nil
	case err != nil:
		return index.Match{}, err
	}
	m := index.Match{ID: r.ID, Title: r.Title, Original: r.Original, Hops: r.Hops,
		Distance: doc.Fingerprint.Distance(r.Fingerprint), Similarity: doc.Fingerprint.Similarity(r.Fingerprint),
		Exact: doc.ContentHash == r.ContentHash, Keywords: r.Keywords, Job: r.Job, Seq: r.Seq}
	switch {
	case m.Exact:
		m.Content, m.Containment = 1, 1
	case doc.Sketch.IsZero() || r.Sketch.IsZero():
		m.Unverified = true
	default:
		m.Content, m.Containment = index.Content(doc, &r), index.Containment(doc, &r)
	}
	return m, nil
}

// DriftMinContent bounds how far a cluster drifts from its original
// through chains of edits: a record that matches a member of a cluster
// (not its original) joins it only if index.Confirmed confirms it
// against the original at this content similarity. Every member is then
// within an estimated Jaccard similarity of 0.5 of its original (or
// mostly contained in it, or it in the member), the bound under which
// the shared corpora call two articles distinct; a chain of small edits
// that walks further starts a new cluster.
const DriftMinContent = 0.5

// thisRun reports whether doc was added by this run (or an interrupted
// run of this job).
func (d *deduper) thisRun(doc *index.Doc) bool {
	return doc.Job == d.o.Job && (d.o.Job != "" || !doc.Added.Before(d.start))
}

// describe says where an earlier document came from, without volatile
// details when it is from this run (or an interrupted run of this job),
// so that reruns give the same output.
func (d *deduper) describe(doc *index.Doc) string {
	switch {
	case d.thisRun(doc):
		return fmt.Sprintf("record %d of this input", doc.Seq+1)
	case doc.Job != "":
		return fmt.Sprintf("added %s by job %s, record %d", doc.Added.Format(time.RFC3339), doc.Job, doc.Seq+1)
	}
	return "added " + doc.Added.Format(time.RFC3339)
}
