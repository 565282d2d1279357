package dedup

import (
	"fmt"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
)

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
			// Made in its place in the batch, not copied there.
			d.docs = append(d.docs, DocOf(out.Analysis, rec.ID, rec.Title, d.o.Keywords))
			doc := &d.docs[len(d.docs)-1]
			doc.Added, doc.Job, doc.Seq = d.o.Now().UTC(), d.o.Job, out.Seq
			if d.o.Prepare != nil {
				if err := d.o.Prepare(doc, rec.Text); err != nil {
					d.docs = d.docs[:len(d.docs)-1]
					return fmt.Errorf("%s: %w", rec.Location(), err)
				}
			}
			d.batchAt = append(d.batchAt, len(d.batch))
		}
	}
	d.batch = append(d.batch, out)
	if len(d.docs) >= d.o.Batch {
		return d.ingest()
	}
	return nil
}

// ingest decides the queued documents with index.Ingest, race-free with
// the other writers of the store, and emits the batch in order: an
// original is Unique, a duplicate has the clusters it joins as Matches
// (an original, or a member within DriftMinContent of its original), a
// record the store held already keeps the verdict it had (see taken),
// and one whose ID the store holds for another document is Rejected,
// duplicate or not (an archive cannot hold both).
func (d *deduper) ingest() error {
	if len(d.batch) == 0 {
		return nil
	}
	var res []index.Ingested
	if len(d.docs) > 0 {
		var err error
		res, err = d.store.Ingest(d.ctx, d.docs, index.IngestOptions{Distance: d.o.MaxDistance, JoinMinContent: DriftMinContent, Member: d.member, Drop: d.drop, Deferred: true})
		if err != nil {
			first := &d.batch[d.batchAt[0]].Record
			return fmt.Errorf("%s: %w", first.Location(), err)
		}
	}
	for j, i := range d.batchAt {
		out, r := d.batch[i], &res[j]
		var err error
		switch {
		case r.Taken != nil:
			err = d.taken(out, &d.docs[j], r.Taken)
		case r.Resumed:
			err = d.resumed(out, &d.docs[j], r)
		case r.Original:
			out.Verdict = Unique
		default:
			out.Verdict, out.Matches = Duplicate, r.Matches
		}
		if err != nil {
			return fmt.Errorf("%s: %w", out.Record.Location(), err)
		}
	}
	var err error
	for _, out := range d.batch {
		if err = d.ctx.Err(); err != nil {
			break
		}
		if err = d.tally(out); err != nil {
			break
		}
	}
	clear(d.batch)
	d.batch, d.batchAt, d.docs = d.batch[:0], d.batchAt[:0], d.docs[:0]
	return err
}

// taken decides a record whose ID the archive holds for prev (from an
// earlier run, or an earlier record of this one):
//
//   - an earlier record of this run (or of an interrupted run of this
//     job) has the ID: the record is rejected as a duplicate id;
//   - the archived text differs (another content hash): rejected, the
//     archive keeping its document (delete it first to replace it);
//   - the same text from an earlier run: Archived, with the verdict it
//     had then.
func (d *deduper) taken(out *Outcome, doc, prev *index.Doc) error {
	rec := &out.Record
	switch {
	case d.thisRun(prev):
		out.Verdict = Rejected
		out.Err = &input.RecordError{Source: rec.Source, Line: rec.Line, Field: "id",
			Reason: fmt.Sprintf("duplicate id %q: an earlier article has it (%s)", input.ShortID(rec.ID), d.describe(prev)), Raw: rec.Raw}
		return nil
	case prev.ContentHash != doc.ContentHash:
		out.Verdict = Rejected
		out.Err = &input.RecordError{Source: rec.Source, Line: rec.Line, Field: "id",
			Reason: fmt.Sprintf("id %q is archived with another text (%s); the archive keeps that one: delete it first to replace it",
				input.ShortID(rec.ID), d.describe(prev)), Raw: rec.Raw}
		d.sum.Changed++
		return nil
	}
	return d.archived(out, doc, prev)
}

// resumed decides a record that an interrupted run of this job stored
// at this position (index.Ingested.Resumed): Archived and Resumed, with
// the verdict the store holds for it.
func (d *deduper) resumed(out *Outcome, doc *index.Doc, r *index.Ingested) error {
	out.Resumed = true
	if r.Original {
		out.Archived, out.Verdict = true, Unique
		return nil
	}
	prev, err := d.store.Get(d.ctx, doc.ID)
	if err != nil {
		return err
	}
	return d.archived(out, doc, &prev)
}

// archived sets out to the verdict of the archived document prev, the
// same text as doc: Unique, or Duplicate with the documents its record
// says it matched (Via, then More), as they match doc now.
func (d *deduper) archived(out *Outcome, doc, prev *index.Doc) error {
	out.Archived = true
	if prev.Original == "" {
		out.Verdict = Unique
		return nil
	}
	out.Verdict = Duplicate
	for i, id := range append([]string{prev.Via}, prev.More...) {
		m, err := d.replay(doc, id)
		if err != nil {
			return err
		}
		if i == 0 && m.Original == "" && m.ID != prev.Original && m.Unverified {
			m.Original = prev.Original // Via was deleted since
		}
		out.Matches = append(out.Matches, m)
	}
	return nil
}

// drop says whether a duplicate the run does not file as a candidate
// (see member) is left out of the archive: when there is no Job, nothing
// will look it up again.
func (d *deduper) drop(*index.Doc) bool { return d.o.Job == "" }

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
