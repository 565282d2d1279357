package dedup

import (
	"context"
	"errors"

	"github.com/neardup/neardup/index"
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
	// taken (Self).
	Added bool
}

// Check looks doc up in x at SimHash distance k, and with add, adds it
// when it duplicates nothing archived: the decision Run makes for a
// record, for one article at a time (neardup check, the HTTP service).
// An article whose ID the archive holds is not added: Same tells
// whether it is the same text (nothing to do) or another (delete the
// archived one first to replace it).
func Check(ctx context.Context, x *index.Index, doc *index.Doc, k int, add bool) (*Checked, error) {
	ms, err := x.Similar(ctx, doc, k)
	if err != nil {
		return nil, err
	}
	c := &Checked{Matches: ms}
	if index.CheckID(doc.ID) != nil {
		return c, nil
	}
	self, err := x.Get(ctx, doc.ID)
	switch {
	case errors.Is(err, index.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		c.Self, c.Same = &self, self.ContentHash == doc.ContentHash
	}
	if add && len(ms) == 0 && c.Self == nil {
		if err := x.Add(ctx, *doc); err != nil {
			return nil, err
		}
		c.Added = true
	}
	return c, nil
}
