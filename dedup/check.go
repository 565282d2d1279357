package dedup

import (
	"context"
	"errors"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/simhash"
)

// Checked is what Check found out about one article.
type Checked struct {
	// Matches are the archived documents the article duplicates, best
	// first (index.Similar).
	Matches []index.Match
	// Self is the archived document with the article's own ID, if there
	// is one: the article itself when Same is set (equal content
	// hashes), another text under its ID otherwise. Similar never
	// returns it among the Matches.
	Self *index.Doc
	Same bool
	// Added reports that Check added the article. Asked to add a new
	// article, it does not when its ID is invalid (index.CheckID) or
	// taken (Self); NotAdded then says why.
	Added bool
	// NotAdded is why an article Check was asked to add, and that
	// duplicates nothing, was not added: the error of index.CheckID,
	// ErrArchived (it is archived already: nothing to do) or an
	// ErrIDTaken (another text is archived under its ID). nil otherwise.
	NotAdded error
}

// Reasons of Checked.NotAdded.
var (
	ErrArchived = errors.New("the index holds it already")
	ErrIDTaken  = errors.New("the index holds a different document with this id (delete it first to replace it)")
)

// Check looks doc up in x at SimHash distance k, and with add, files it
// as an original when it duplicates nothing archived: the decision Run
// makes for a record, by the same engine (index.Ingest, race-free with
// every other writer of the archive: two articles that match, checked
// and added at the same moment by any processes, are never both
// added), for one article at a time (neardup check --add, the HTTP
// service). A duplicate is not added. An article whose ID the archive
// holds is not added: Same tells whether it is the same text (nothing
// to do) or another (delete the archived one first to replace it).
func Check(ctx context.Context, x *index.Index, doc *index.Doc, k int, add bool) (*Checked, error) {
	ms, err := x.Similar(ctx, doc, k)
	if err != nil {
		return nil, err
	}
	c := &Checked{Matches: ms}
	if err := index.CheckID(doc.ID); err != nil {
		if add && len(ms) == 0 {
			c.NotAdded = err
		}
		return c, nil
	}
	if !add {
		self, err := x.Get(ctx, doc.ID)
		switch {
		case errors.Is(err, index.ErrNotFound):
		case err != nil:
			return nil, err
		default:
			c.Self, c.Same = &self, self.ContentHash == doc.ContentHash
		}
		return c, nil
	}
	res, err := x.Ingest(ctx, []index.Doc{*doc}, index.IngestOptions{Distance: k, JoinMinContent: DriftMinContent,
		Member: func(*index.Doc, *index.Match) bool { return false }, Drop: func(*index.Doc) bool { return true }})
	if err != nil {
		return nil, err
	}
	r := &res[0]
	switch {
	case r.Taken != nil:
		c.Self, c.Same = r.Taken, r.Taken.ContentHash == doc.ContentHash
		switch {
		case len(ms) > 0:
		case c.Same:
			c.NotAdded = ErrArchived
		default:
			c.NotAdded = ErrIDTaken
		}
	case r.Original:
		c.Added = true
	case len(c.Matches) == 0:
		// Its matches came while it was looked up.
		c.Matches = r.Matches
	}
	return c, nil
}

// Filed is what File did with one document.
type Filed struct {
	// Replaced: a document with its ID was archived (or came earlier
	// in the same call) and was replaced.
	Replaced bool
	// Original: filed as an original; otherwise as a duplicate of
	// Matches (its cluster named in its record, as Run archives them).
	Original bool
	Matches  []index.Match
}

// File archives docs (the service's POST /v1/documents), each one,
// deciding with the engine Run and Check use (index.Ingest at distance
// k, race-free with every other writer): an original, or a duplicate
// archived with its cluster, a candidate for later articles unless it
// is almost its match (NewMemberContent). A document whose ID the
// archive holds replaces it (the last of several with one ID wins):
// the archived one is deleted, then the new one decided.
func File(ctx context.Context, x *index.Index, docs []index.Doc, k int) ([]Filed, error) {
	o := index.IngestOptions{Distance: k, JoinMinContent: DriftMinContent,
		Member: func(_ *index.Doc, best *index.Match) bool { return best.Content < NewMemberContent }}
	out := make([]Filed, len(docs))
	todo := make([]int, len(docs))
	for i := range todo {
		todo[i] = i
	}
	// Each round files the documents whose IDs are free and deletes
	// what holds the others' (an earlier document of the call, or an
	// archived one), for the next round.
	for round := 0; len(todo) > 0; round++ {
		if round > len(docs) {
			return nil, fmt.Errorf("file %q: its id was taken again while it replaced a document", docs[todo[0]].ID)
		}
		batch := make([]index.Doc, len(todo))
		for j, i := range todo {
			batch[j] = docs[i]
		}
		res, err := x.Ingest(ctx, batch, o)
		if err != nil {
			return nil, err
		}
		var taken []int
		var ids []string
		for j, i := range todo {
			r := &res[j]
			if r.Taken != nil {
				taken = append(taken, i)
				ids = append(ids, docs[i].ID)
				out[i].Replaced = true
				continue
			}
			out[i].Original, out[i].Matches = r.Original, r.Matches
		}
		if len(ids) > 0 {
			if _, err := x.DeleteFound(ctx, ids...); err != nil {
				return nil, err
			}
		}
		todo = taken
	}
	return out, nil
}

// CheckFingerprint looks up a bare fingerprint in x at distance k: the
// SimHash screen alone, without a content check (neardup check
// --fingerprint). The matches carry their titles (a match whose record
// is missing has none).
func CheckFingerprint(ctx context.Context, x *index.Index, fp simhash.Fingerprint, k int) ([]index.Match, error) {
	ms, err := x.Near(ctx, fp, k)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		d, err := x.Get(ctx, ms[i].ID)
		switch {
		case err == nil:
			ms[i].Title = d.Title
		case !errors.Is(err, index.ErrNotFound):
			return nil, err
		}
	}
	return ms, nil
}

// Report returns c as the report of the article id that an is the
// analysis of.
func (c *Checked) Report(id string, an *neardup.Analysis) report.Check {
	r := report.Check{ID: id, Fingerprint: an.Fingerprint.String(), Verdict: report.CheckNew, Matches: make([]report.Match, 0, len(c.Matches)), Added: c.Added}
	for i := range c.Matches {
		r.Matches = append(r.Matches, report.NewMatch(&c.Matches[i], an.Keywords))
	}
	switch {
	case len(c.Matches) > 0:
		r.Verdict = report.CheckDuplicate
	case c.Same:
		r.Verdict = report.CheckArchived
	}
	switch {
	case c.Self == nil:
	case c.Same:
		r.Archived = "same"
	default:
		r.Archived = "different"
	}
	return r
}

// Tally counts c, one article checked, in s.
func (c *Checked) Tally(s *report.CheckSummary) {
	s.Checked++
	if len(c.Matches) > 0 || c.Same {
		s.Found++
	}
	if len(c.Matches) == 0 && c.Same {
		s.Archived++
	}
	if c.Added {
		s.Added++
	}
	if c.NotAdded != nil && !errors.Is(c.NotAdded, ErrArchived) {
		s.NotAdded++
	}
}
