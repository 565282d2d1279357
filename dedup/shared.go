package dedup

import (
	"fmt"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
)

// sharedBatch is how many documents go to index.Ingest at once when
// Options.Batch does not say.
const sharedBatch = 64

// queue adds an outcome to the batch decided by ingest, keeping input
// order. With Options.Strict, a bad record first decides the batch
// before it, so that nothing after it is written.
func (d *deduper) queue(out *Outcome) error {
	d.sum.Records++
	bad := out.Verdict == Rejected || out.Verdict == InputFailed
	if d.o.Strict && bad {
		if err := d.ingest(); err != nil {
			return err
		}
		return d.tally(out)
	}
	if out.Analysis != nil {
		d.sum.Bytes += int64(len(out.Record.Text))
		rec := &out.Record
		if err := index.CheckID(rec.ID); err != nil {
			out.Verdict = Rejected
			out.Err = &input.RecordError{Source: rec.Source, Line: rec.Line, Field: "id", Reason: err.Error(), Raw: rec.Raw}
		} else {
			doc := DocOf(out.Analysis, rec.ID, rec.Title, d.o.Keywords)
			doc.Added, doc.Job, doc.Seq = d.o.Now().UTC(), d.o.Job, out.Seq
			d.batchAt = append(d.batchAt, len(d.batch))
			d.docs = append(d.docs, doc)
		}
	}
	d.batch = append(d.batch, out)
	n := d.o.Batch
	if n <= 1 {
		n = sharedBatch
	}
	if len(d.docs) >= n {
		return d.ingest()
	}
	return nil
}

// ingest decides the queued documents with index.Ingest, race-free with
// the other writers of the store, and emits the batch in order: an
// original is Unique (Resumed when an interrupted run of the job had
// stored it), a duplicate has the clusters it joins as Matches (an
// original, or a member within DriftMinContent of its original, as
// match decides), and a record whose ID the store holds for another
// document is Rejected, duplicate or not (a shared archive cannot hold
// both).
func (d *deduper) ingest() error {
	if len(d.batch) == 0 {
		return nil
	}
	var res []index.Ingested
	if len(d.docs) > 0 {
		var err error
		res, err = d.store.Ingest(d.ctx, d.docs, index.IngestOptions{Distance: d.o.MaxDistance, JoinMinContent: DriftMinContent, Member: d.member})
		if err != nil {
			first := &d.batch[d.batchAt[0]].Record
			return fmt.Errorf("%s: %w", first.Location(), err)
		}
	}
	for j, i := range d.batchAt {
		out, r := d.batch[i], &res[j]
		rec := &out.Record
		switch {
		case r.Taken != nil:
			out.Verdict = Rejected
			out.Err = &input.RecordError{Source: rec.Source, Line: rec.Line, Field: "id",
				Reason: fmt.Sprintf("duplicate id %q: an earlier article has it (%s)", input.ShortID(rec.ID), d.describe(r.Taken)), Raw: rec.Raw}
		case r.Original:
			out.Verdict, out.Resumed = Unique, r.Resumed
		default:
			out.Verdict, out.Matches = Duplicate, r.Matches
		}
	}
	var err error
	for _, out := range d.batch {
		if err = d.tally(out); err != nil {
			break
		}
	}
	clear(d.batch)
	d.batch, d.batchAt, d.docs = d.batch[:0], d.batchAt[:0], d.docs[:0]
	return err
}

// member says whether a duplicate Ingest decided, doc (its cluster set),
// whose best match is best, is filed as a candidate for later records,
// as match files them: the first Options.MaxMembers of its cluster in
// this run that are not almost their match (NewMemberContent); the
// others are archived RecordOnly.
func (d *deduper) member(doc *index.Doc, best *index.Match) bool {
	if best.Content >= NewMemberContent || d.members[doc.Original] >= d.o.MaxMembers {
		return false
	}
	if d.members == nil {
		d.members = make(map[string]int)
	}
	d.members[doc.Original]++
	return true
}
