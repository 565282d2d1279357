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
	// Batch buffers this many new originals before adding them to the
	// store in one write (queries see them at once all the same); 1
	// adds each at once. With a shared store it is how many records
	// index.Ingest decides at a time. 0 lets the store decide: 1 in
	// memory (memstore), 64 on a shared store, DefaultBatch on any other
	// (a persistent archive, where one write of many documents costs
	// about what one of a single document does).
	Batch int
	// Job names this run, for resuming: documents the store holds from
	// the same Job are recognised by their position, so that re-running
	// an interrupted job gives the output of an uninterrupted one. Use a
	// digest of the inputs and settings; "" never resumes.
	Job string
	// Now stamps added documents; nil means time.Now.
	Now func() time.Time
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

// DefaultBatch is Options.Batch on a persistent store that is not
// shared (Badger).
const DefaultBatch = 1000

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
// When the store is an index.Shared (a Redis archive), several Runs, in
// any processes, may write into it at once: the records are decided in
// batches of Options.Batch (64 when it is 0 or 1) by index.Ingest,
// race-free. No two originals match, every duplicate joins clusters
// as above (through their originals or members), and with one Run the
// outcomes are those of any other store. Duplicates are stored too
// (decided as such, their records naming their clusters; those not
// filed as candidates RecordOnly), and a record whose ID the store
// holds for another document is Rejected even when it is a duplicate,
// since the archive cannot hold both.
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
	if o.MaxMembers <= 0 {
		o.MaxMembers = DefaultMaxMembers
	}
	start := time.Now()
	d := &deduper{ctx: ctx, o: o, store: store, emit: emit, start: o.Now().UTC().Truncate(time.Second)}
	d.sum.Workers = o.Workers
	_, d.shared = store.Store().(index.Shared)
	if _, inMemory := store.Store().(*memstore.Store); o.Batch == 0 && !inMemory && !d.shared {
		d.o.Batch = DefaultBatch
	}
	if d.o.Batch > 1 && !d.shared {
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
	if err == nil {
		var st index.Stats
		if st, err = store.Stats(ctx); err == nil {
			d.sum.Filter = st.Bloom
		}
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
	start   time.Time      // when the run started, by o.Now
	members map[string]int // duplicates filed as candidates, by cluster, in this run

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

// match decides what out is and archives it: a record whose ID the
// archive holds already (known), else a duplicate of the clusters it
// matches (clusters), else a new original.
func (d *deduper) match(out *Outcome) error {
	rec, an := &out.Record, out.Analysis
	if err := index.CheckID(rec.ID); err != nil {
		out.Verdict = Rejected
		out.Err = &input.RecordError{Source: rec.Source, Line: rec.Line, Field: "id", Reason: err.Error(), Raw: rec.Raw}
		return nil
	}
	doc := DocOf(an, rec.ID, rec.Title, d.o.Keywords)
	doc.Added, doc.Job, doc.Seq = d.o.Now().UTC(), d.o.Job, out.Seq
	if done, err := d.known(out, &doc); done || err != nil {
		return err
	}
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
	kept, err = d.clusters(&doc, kept)
	if err != nil {
		return fmt.Errorf("%s: %w", rec.Location(), err)
	}
	if len(kept) > 0 {
		out.Verdict, out.Matches = Duplicate, kept
		best := &kept[0]
		doc.Original, doc.Via, doc.Hops = ClusterOf(best), best.ID, best.Hops+1
		for _, m := range kept[1:] {
			doc.More = append(doc.More, m.ID)
		}
		if d.members == nil {
			d.members = make(map[string]int)
		}
		switch {
		case best.Content < NewMemberContent && d.members[doc.Original] < d.o.MaxMembers:
			d.members[doc.Original]++
		case d.o.Job == "":
			return nil // nothing to remember it for
		default:
			doc.RecordOnly = true
		}
	}
	return d.add(doc)
}

// known handles a record whose ID the archive holds already, and
// reports whether it did:
//
//   - an earlier record of this run (or of an interrupted run of this job)
//     has the ID: the record is rejected as a duplicate id;
//   - the same job stored it at a later position: not known (an
//     uninterrupted run has not seen it yet; the record replaces it);
//   - the archived text differs (another content hash): rejected, the
//     archive keeping its document (delete it first to replace it);
//   - the same text from an earlier run, or from this job at this
//     position: Archived (and Resumed), with the verdict it had then.
func (d *deduper) known(out *Outcome, doc *index.Doc) (bool, error) {
	rec := &out.Record
	prev, err := d.getAny(rec.ID)
	sameJob := d.o.Job != "" && prev.Job == d.o.Job
	switch {
	case errors.Is(err, index.ErrNotFound):
		return false, nil
	case err != nil:
		return true, fmt.Errorf("%s: %w", rec.Location(), err)
	case sameJob && prev.Seq > out.Seq:
		return false, nil
	case !(sameJob && prev.Seq == out.Seq) && d.thisRun(&prev):
		out.Verdict = Rejected
		out.Err = &input.RecordError{Source: rec.Source, Line: rec.Line, Field: "id",
			Reason: fmt.Sprintf("duplicate id %q: an earlier article has it (%s)", input.ShortID(rec.ID), d.describe(&prev)), Raw: rec.Raw}
		return true, nil
	case prev.ContentHash != doc.ContentHash:
		out.Verdict = Rejected
		out.Err = &input.RecordError{Source: rec.Source, Line: rec.Line, Field: "id",
			Reason: fmt.Sprintf("id %q is archived with another text (%s); the archive keeps that one: delete it first to replace it",
				input.ShortID(rec.ID), d.describe(&prev)), Raw: rec.Raw}
		d.sum.Changed++
		return true, nil
	}
	out.Archived, out.Resumed = true, sameJob && prev.Seq == out.Seq
	if prev.Original == "" {
		out.Verdict = Unique
		return true, nil
	}
	out.Verdict = Duplicate
	for i, id := range append([]string{prev.Via}, prev.More...) {
		m, err := d.replay(doc, id)
		if err != nil {
			return true, fmt.Errorf("%s: %w", rec.Location(), err)
		}
		if i == 0 && m.Original == "" && m.ID != prev.Original && m.Unverified {
			m.Original = prev.Original // Via was deleted since
		}
		out.Matches = append(out.Matches, m)
	}
	return true, nil
}

// replay measures the match of doc with the archived document id, as
// Similar would have: a match that names id alone (Unverified) when it
// was deleted since.
func (d *deduper) replay(doc *index.Doc, id string) (index.Match, error) {
	r, err := d.getAny(id)
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

// clusters keeps, of the matches ms of doc (sorted best first), one per
// cluster: the cluster's original when it matched, else its best
// member, if doc is close enough to the cluster's original
// (DriftMinContent). The result keeps the order of ms.
func (d *deduper) clusters(doc *index.Doc, ms []index.Match) ([]index.Match, error) {
	if len(ms) == 0 {
		return ms, nil
	}
	direct := make(map[string]bool)
	for _, m := range ms {
		if m.Original == "" {
			direct[m.ID] = true
		}
	}
	seen := make(map[string]bool)
	var out []index.Match
	for _, m := range ms {
		c := ClusterOf(&m)
		if seen[c] || (m.Original != "" && direct[c]) {
			continue // the cluster's original matched too, or a better member
		}
		if m.Original != "" {
			orig, err := d.getAny(c)
			switch {
			case errors.Is(err, index.ErrNotFound):
				// The original was deleted: the member stands for it.
			case err != nil:
				return nil, err
			case !index.Confirmed(doc, &orig, DriftMinContent):
				continue
			}
		}
		seen[c] = true
		out = append(out, m)
	}
	return out, nil
}

// thisRun reports whether doc was added by this run (or an interrupted
// run of this job).
func (d *deduper) thisRun(doc *index.Doc) bool {
	return doc.Job == d.o.Job && (d.o.Job != "" || !doc.Added.Before(d.start))
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
	switch {
	case d.thisRun(doc):
		return fmt.Sprintf("record %d of this input", doc.Seq+1)
	case doc.Job != "":
		return fmt.Sprintf("added %s by job %s, record %d", doc.Added.Format(time.RFC3339), doc.Job, doc.Seq+1)
	}
	return "added " + doc.Added.Format(time.RFC3339)
}
