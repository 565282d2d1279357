package reuse

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/segment"
)

// MetaReuse is the name of the value an archive records with
// index.Store.Claim to say whether it has a reuse index: 3 bytes, the
// version then Params.Gram and Params.Window, when it has one; one byte
// 0 when it has none.
const MetaReuse = "reuse"

// The versions of MetaReuse's value for an archive with a reuse index:
// the fingerprints' format (GramHash over NewText's characters, robust
// winnowing) and their keys, whole hashes (Params.Bits 64) in version 1,
// their low 32 bits (Params.Bits 32) in version 2.
const (
	metaVersion64 = 1
	metaVersion32 = 2
)

// ErrNoIndex is wrapped by Open's error for an archive that has no
// reuse index.
var ErrNoIndex = errors.New("the archive has no reuse index")

// Defaults of Options.
const (
	DefaultMinShare      = 0.5
	DefaultMinPassage    = 50
	DefaultMaxDocs       = 100
	DefaultMaxCandidates = 20
)

// Options are the thresholds of Find. The zero value (or nil) means the
// defaults.
type Options struct {
	// MinShare: a match is reported when the larger of its two shares
	// (nearly always the shorter text's) reaches it. Default 0.5.
	MinShare float64
	// MinPassage: the fewest characters a shared passage counts with.
	// Default 50, Params' default guarantee.
	MinPassage int
	// MaxDocs is the stop rule: a fingerprint that MaxDocs archived
	// documents have is boilerplate (agency credits, disclaimers,
	// navigation): it finds no candidates, its passages count for
	// nothing, and no more documents are filed under it. Default 100.
	MaxDocs int
	// MaxCandidates is how many archived documents, those sharing the
	// most fingerprints, Find compares. Default 20.
	MaxCandidates int
}

func (o *Options) resolve() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MinShare == 0 {
		r.MinShare = DefaultMinShare
	}
	if r.MinPassage == 0 {
		r.MinPassage = DefaultMinPassage
	}
	if r.MaxDocs == 0 {
		r.MaxDocs = DefaultMaxDocs
	}
	if r.MaxCandidates == 0 {
		r.MaxCandidates = DefaultMaxCandidates
	}
	return r
}

// Index is the reuse index of an archive: passage fingerprints filed
// beside its near-duplicate keys (index.KindPassage) and the answers.
type Index struct {
	x    *index.Index
	p    Params
	fold segment.Folder
	o    Options
}

// Open returns the reuse index of x, creating it when x holds no
// documents yet: an archive has one from its creation or never (the
// documents added before would be missing from it). An archive with
// documents and without one gives an error wrapping ErrNoIndex, and
// records that it has none. fold is the analyzer's fold (nil when it
// folds nothing), so that passages are compared as the analysis
// compares text. p is used for a new reuse index (zero: DefaultParams);
// an existing one keeps its own.
func Open(ctx context.Context, x *index.Index, fold segment.Folder, p Params, o *Options) (*Index, error) {
	p = p.resolve()
	if err := p.check(); err != nil {
		return nil, err
	}
	st, err := x.Store().Stats(ctx)
	if err != nil {
		return nil, err
	}
	want := []byte{0}
	if st.Docs == 0 {
		want = []byte{metaVersion32, byte(p.Gram), byte(p.Window)}
		if p.Bits == 64 {
			want[0] = metaVersion64
		}
	}
	got, err := x.Store().Claim(ctx, map[string][]byte{MetaReuse: want})
	if err != nil {
		return nil, err
	}
	v := got[MetaReuse]
	switch {
	case len(v) == 1 && v[0] == 0:
		return nil, fmt.Errorf("reuse: %w: it was created without one, and a reuse index is made only when an archive is created (it has %d documents)", ErrNoIndex, st.Docs)
	case len(v) != 3 || v[0] != metaVersion64 && v[0] != metaVersion32:
		return nil, fmt.Errorf("reuse: %w: reuse index metadata %x: want version %d or %d", index.ErrMismatch, v, metaVersion64, metaVersion32)
	}
	r := &Index{x: x, p: Params{Gram: int(v[1]), Window: int(v[2]), Bits: 32}, fold: fold, o: o.resolve()}
	if v[0] == metaVersion64 {
		r.p.Bits = 64
	}
	if err := r.p.check(); err != nil {
		return nil, fmt.Errorf("reuse: %w: reuse index metadata %x: %w", index.ErrCorrupt, v, err)
	}
	return r, nil
}

// OpenExisting returns the reuse index of x when it has one, and nil
// when it has none, recording that it has none when nothing is recorded
// yet: a writer that does not ask for a reuse index calls it, so that
// the documents it adds are filed in the archive's reuse index when
// there is one, and an archive it writes first has none (the first
// writer decides).
func OpenExisting(ctx context.Context, x *index.Index, fold segment.Folder, o *Options) (*Index, error) {
	got, err := x.Store().Claim(ctx, map[string][]byte{MetaReuse: {0}})
	if err != nil {
		return nil, err
	}
	if v := got[MetaReuse]; len(v) == 1 && v[0] == 0 {
		return nil, nil
	}
	return Open(ctx, x, fold, Params{}, o)
}

// Params returns the archive's winnowing parameters.
func (r *Index) Params() Params { return r.p }

// Options returns the thresholds in use, defaults filled in.
func (r *Index) Options() Options { return r.o }

// Match is an archived article that shares passages with the one asked
// about.
type Match struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Here is the share of this article found in the archived one;
	// There the share of the archived one found in this one.
	Here  float64 `json:"here"`
	There float64 `json:"there"`
	// Prints is the number of fingerprints they share (boilerplate ones
	// left out).
	Prints int `json:"prints"`
	// Estimated: the archived article's text is not kept, so the shares
	// are estimated from the fingerprints (the share of each one's
	// fingerprints the other has) and there are no passages.
	Estimated bool `json:"estimated,omitempty"`
	// Passages: offsets in this article (Here) and in the archived one
	// (There), bytes of the texts as given and as kept.
	Passages []Passage `json:"passages,omitempty"`
}

// Answer is Find's answer.
type Answer struct {
	Matches    []Match `json:"matches"`
	Prints     int     `json:"prints"`     // distinct fingerprints of the article
	Dropped    int     `json:"dropped"`    // of them, boilerplate (in MaxDocs documents)
	Candidates int     `json:"candidates"` // archived articles considered: those sharing the most fingerprints, at most MaxCandidates
	// File is what Prepare files the article under: its fingerprints
	// but those MaxDocs documents have already.
	File []uint64 `json:"-"`
}

// limitPostings is a store that can stop each key's postings at a
// limit (redisstore, which resolves every posting's document number to
// its ID with a lookup; a passage of common text has postings in
// proportion to the archive): a list of limit postings means at least
// limit. The stop rule needs no more of a list than MaxDocs postings,
// so it stays exact.
type limitPostings interface {
	PostingsLimit(ctx context.Context, keys []index.Key, limit int) ([][]index.Posting, error)
}

// query is what the postings of a text say.
type query struct {
	t      *Text
	side   *side    // t's k-grams and fingerprints, for Compare; made on first use
	hashes []uint64 // the distinct keys of t's fingerprints (Params.Key)
	lists  [][]index.Posting
	stop   map[uint64]bool // keys
	file   []uint64        // keys
}

func (r *Index) query(ctx context.Context, text string) (*query, error) {
	t, err := NewText(text, r.fold)
	if err != nil {
		return nil, err
	}
	ps := r.p.Prints(t)
	hs := make([]uint64, len(ps))
	for i, p := range ps {
		hs[i] = p.Hash
	}
	q := &query{t: t, hashes: r.p.Keys(hs), stop: map[uint64]bool{}}
	if len(q.hashes) == 0 {
		return q, nil
	}
	keys := make([]index.Key, len(q.hashes))
	for i, h := range q.hashes {
		keys[i] = index.Key{Kind: index.KindPassage, Value: h}
	}
	if ls, ok := r.x.Store().(limitPostings); ok {
		q.lists, err = ls.PostingsLimit(ctx, keys, r.o.MaxDocs)
	} else {
		q.lists, err = r.x.Store().Postings(ctx, keys)
	}
	if err != nil {
		return nil, err
	}
	for i, l := range q.lists {
		if len(l) >= r.o.MaxDocs {
			q.stop[q.hashes[i]] = true
		} else {
			q.file = append(q.file, q.hashes[i])
		}
	}
	return q, nil
}

// Prepare sets d.Passages to the keys (Params.Key) of the fingerprints
// of text that d is to be filed under (its kept text, when d keeps one, should be text): all
// but those that MaxDocs archived documents have already (the stop
// rule). d is then added with the archive's Add or Ingest.
func (r *Index) Prepare(ctx context.Context, d *index.Doc, text string) error {
	q, err := r.query(ctx, text)
	if err != nil {
		return err
	}
	d.Passages = q.file
	return nil
}

// Find returns the archived articles that share passages with text,
// those whose larger share reaches MinShare, largest first; self, when
// not empty, is the article's own ID, left out. The shares and passages
// of an archived article whose text is kept are measured on the two
// texts (Compare); of one without, estimated from the fingerprints
// (Match.Estimated). Answer.File is for Prepare's use.
func (r *Index) Find(ctx context.Context, text, self string) (Answer, error) {
	q, err := r.query(ctx, text)
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Matches: []Match{}, Prints: len(q.hashes), Dropped: len(q.stop), File: q.file}
	count := map[string]int{}
	for i, l := range q.lists {
		if q.stop[q.hashes[i]] {
			continue
		}
		for _, p := range l {
			if p.ID != self {
				count[p.ID]++
			}
		}
	}
	ids := make([]string, 0, len(count))
	for id := range count {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(x, y string) int {
		return cmp.Or(cmp.Compare(count[y], count[x]), cmp.Compare(x, y))
	})
	ids = ids[:min(len(ids), r.o.MaxCandidates)]
	a.Candidates = len(ids)
	if len(ids) == 0 {
		return a, nil
	}
	recs, err := r.x.Store().Records(ctx, ids)
	if err != nil {
		return Answer{}, err
	}
	for i, rec := range recs {
		if rec == nil {
			continue // deleted since its postings were read
		}
		d, err := index.DecodeRecordHead(ids[i], rec)
		if err != nil {
			return Answer{}, err
		}
		est := estimate(q, &d, count[d.ID])
		if max(est.Here, est.There) < r.o.MinShare/4 {
			// Too few fingerprints shared to reach MinShare: each
			// fingerprint stands for about (Window+1)/2 characters,
			// and a quarter of the share is slack enough for how they
			// fall (the labelled set: no link lost at 0.1, 0.2, 0.5).
			continue
		}
		if d, err = index.DecodeRecord(ids[i], rec); err != nil { // with its text, now
			return Answer{}, err
		}
		m := est
		if d.Text != "" {
			m = r.measure(q, &d, count[d.ID])
		}
		if max(m.Here, m.There) >= r.o.MinShare {
			a.Matches = append(a.Matches, m)
		}
	}
	sortMatches(a.Matches)
	return a, nil
}

// estimate is the match of the archived document d estimated from the
// fingerprints it shares with the query: the share of each one's
// fingerprints the other has.
func estimate(q *query, d *index.Doc, shared int) Match {
	m := Match{ID: d.ID, Title: d.Title, Prints: shared, Estimated: true}
	if n := len(q.hashes) - len(q.stop); n > 0 {
		m.Here = min(1, float64(shared)/float64(n))
	}
	if len(d.Passages) > 0 {
		m.There = min(1, float64(shared)/float64(len(d.Passages)))
	}
	return m
}

// measure is the match of the archived document d, whose text is kept,
// measured on the two texts.
func (r *Index) measure(q *query, d *index.Doc, shared int) Match {
	m := Match{ID: d.ID, Title: d.Title, Prints: shared}
	t, err := NewText(d.Text, r.fold)
	if err != nil {
		// Only a fold can fail, and it failed on the query first.
		return estimate(q, d, shared)
	}
	if q.side == nil {
		q.side = newSide(q.t, r.p)
	}
	o := q.side.compare(t, r.p, r.o.MinPassage, q.stop)
	m.Here, m.There, m.Passages = o.Here, o.There, o.Passages
	return m
}

// sortMatches sorts by the larger share, then the other, then ID.
func sortMatches(ms []Match) {
	slices.SortFunc(ms, func(x, y Match) int {
		return cmp.Or(cmp.Compare(max(y.Here, y.There), max(x.Here, x.There)),
			cmp.Compare(min(y.Here, y.There), min(x.Here, x.There)), cmp.Compare(x.ID, y.ID))
	})
}
