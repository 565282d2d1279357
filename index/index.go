// Package index finds, among archived documents, those whose SimHash
// fingerprints lie within a small Hamming distance of a query, or whose
// MinHash sketches share a band with it, and confirms them against their
// content. It owns the layout (which keys a document is filed under),
// candidate generation, confirmation and the record format; where the
// keys and records are kept is a Store's business (subpackages
// badgerstore, memstore and redisstore; indextest is the suite every
// store passes).
//
// # Blocks, tables and the pigeonhole argument
//
// The 64 bits of a fingerprint are split into b blocks of consecutive
// bits, most significant first, as equal in size as possible: the first
// 64 mod b blocks get one bit more (b=4: 16/16/16/16; b=5: 13/13/13/13/12;
// b=6: 11/11/11/11/10/10). For a maximum distance k the index keeps
// C(b, k) tables, one for every combination of b−k blocks in lexicographic
// order (b=4, k=3: {0} {1} {2} {3}; b=5, k=3: {0,1} {0,2} … {3,4}, 10
// tables). A fingerprint's table key in a table is the concatenation of
// the bits of that table's blocks.
//
// Two fingerprints at distance d ≤ k differ in at most d bits, so in at
// most d ≤ k blocks; they therefore agree exactly on at least b−k blocks,
// and those blocks (or any b−k of them) form one of the tables, where the
// two fingerprints have the same table key. So reading, in every table,
// the postings under the query's table key finds every fingerprint
// within distance k (pigeonhole); each candidate's full fingerprint,
// carried by its posting, is then checked. A query for d < k needs fewer
// tables: any set of tables such that every d blocks miss at least one of
// them; the index picks such a set greedily (for d = 0, a single table).
//
// The argument needs k < b, and every document is filed once per table,
// so New rejects layouts with k ≥ b, b > 64, more than MaxTables tables,
// or table keys shorter than MinKeyBits bits (which would select too
// large a part of the archive). The default is b=4, k=3: four tables of
// 16-bit keys.
//
// # Keys and records
//
// A document is filed under these Keys (see Key), each a posting list
// of document IDs:
//
//	table t, the fingerprint's table key   (one per table; the posting carries the whole fingerprint)
//	band  b, the sketch's band b values    (16, when the document has a sketch; see bands.go)
//	content, the content hash              (one)
//	passage, each of Doc.Passages          (none unless a caller sets them: package reuse)
//
// and its record, under its ID, holds the rest: fingerprint, content
// hash, time added, title, keywords, sketch, job and sequence (see
// encodeDoc; the format is versioned). Three named values recorded once,
// together, with Store.Claim describe the archive: "format" (the key and record
// format, 1), "layout" (b and k, one byte each) and "analyzer" (the
// analyzer ID the fingerprints came from). New refuses an archive whose
// values differ from those asked for.
//
// With the default layout, a document is 21 postings and one record;
// Similar reads the 21 posting lists of a query in one batch (Postings),
// then the records of the candidates in one more (Records).
//
// # Content candidates and confirmation
//
// Similar finds candidates three ways: documents with the same content
// hash (exact duplicates), documents within SimHash distance k (the
// tables above), and documents that share a whole MinHash band with the
// query (see bands.go: a copy with a few edits shares one with
// probability 0.9998 at Jaccard 0.8, whatever its SimHash distance).
// Every candidate but the exact ones is then confirmed by the estimated
// Jaccard similarity of the two sketches, which must reach
// Options.MinContent; a SimHash candidate without a sketch (loaded from
// bare fingerprints) is kept unconfirmed. A posting whose record is
// missing (a store shared by several writers may show one for a moment)
// is skipped. Near is the SimHash screen alone.
//
// # Writes and concurrency
//
// An Index is safe for concurrent use. Its writers (Add, Delete) run one
// at a time: each reads the records it replaces, then hands the store
// one Batch; readers run in parallel with them and with each other. How
// durable and how atomic a Batch is, is the store's to say.
//
// Several processes deduplicating into one archive at once need more:
// a check-then-add lets two near-duplicates added at the same moment
// both become originals. Ingest (ingest.go) adds and decides documents
// race-free over a store that is a Shared (redisstore), with the same
// decisions as adding them one at a time when there is one writer.
package index

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/neardup/neardup/docid"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// Errors wrapped by the errors of this package and of the stores.
var (
	ErrNotFound = errors.New("not found")
	ErrInUse    = errors.New("index is in use by another process")
	ErrMismatch = errors.New("index options do not match the index")
	ErrLayout   = errors.New("invalid index layout")
	ErrCorrupt  = errors.New("corrupt index")
	ErrClosed   = errors.New("index is closed")
	ErrReadOnly = errors.New("index is read-only")
	ErrID       = docid.ErrInvalid
	ErrDistance = errors.New("distance out of range")
	ErrNoSpace  = errors.New("not enough free disk space")
	ErrNotEmpty = errors.New("index is not empty")
)

// Defaults for zero Options fields.
const (
	DefaultBlocks      = 4
	DefaultMaxDistance = 3
	DefaultMinContent  = 0.7
)

// FormatVersion is the key and record format, recorded as "format".
const FormatVersion = 1

// Names of the values New records with Store.Claim, in one claim.
const (
	MetaFormat   = "format"
	MetaLayout   = "layout"
	MetaAnalyzer = "analyzer"
)

// writeChunk is the most documents Add hands a store in one Batch.
const writeChunk = 10000

// Options configure New. The zero value (or nil) means the defaults.
type Options struct {
	// Blocks is the number of blocks the 64 fingerprint bits are split
	// into, and MaxDistance the largest Hamming distance Near and Similar
	// accept. Zero means the recorded value when the store holds an
	// archive, and DefaultBlocks or DefaultMaxDistance otherwise; a
	// nonzero value that differs from the recorded one is an error
	// (ErrMismatch).
	Blocks      int
	MaxDistance int

	// Distance, if not zero, is the largest distance the caller will
	// query: a new index whose Blocks and MaxDistance are zero is laid
	// out for it (LayoutFor), and an index that answers less is refused
	// (ErrDistance).
	Distance int

	// AnalyzerID names the text analysis the fingerprints came from
	// (segmenter, IDF table, keyword count, hash). It is recorded at
	// creation; an archive with a different one is refused with
	// ErrMismatch, unless AnalyzerID is empty, which accepts the
	// recorded one.
	AnalyzerID string

	// MinContent is the estimated content similarity (MinHash Jaccard)
	// Similar requires to confirm a candidate, in (0, 1]. Zero means
	// DefaultMinContent.
	MinContent float64

	// Lean says that the store keeps records without the fields that
	// only explain a match to a person, the title, keywords and kept
	// text (BatchRecord: memstore.NewLean). Ingest then writes records
	// without them, rather than whole ones for the store to cut, so that
	// a match with a document of the same Ingest call has what a match
	// with an earlier one has.
	Lean bool
}

// resolve checks o and fills in MinContent.
func (o *Options) resolve() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	switch {
	case r.MinContent == 0:
		r.MinContent = DefaultMinContent
	case !(r.MinContent > 0 && r.MinContent <= 1):
		return r, fmt.Errorf("index: MinContent %v: want a value in (0, 1]", r.MinContent)
	}
	if r.Blocks < 0 {
		return r, fmt.Errorf("index: %w: Blocks %d: want at least 1", ErrLayout, r.Blocks)
	}
	if r.MaxDistance < 0 {
		return r, fmt.Errorf("index: %w: MaxDistance %d: want at least 1", ErrLayout, r.MaxDistance)
	}
	if r.Distance < 0 || r.Distance > MaxLayoutDistance {
		return r, fmt.Errorf("index: %w: distance %d: an index answers distances 0 to %d", ErrDistance, r.Distance, MaxLayoutDistance)
	}
	return r, nil
}

// Match is a document found by Near or Similar.
type Match struct {
	ID         string
	Title      string  // Similar only
	Distance   int     // Hamming distance between the fingerprints
	Similarity float64 // 1 − Distance/64
	Content    float64 // Similar only: estimated content similarity (MinHash Jaccard, Content: from the confirmation sketches when both have one), 1 for exact matches, 0 when a sketch is missing
	// Containment (Similar only): the estimated share of the smaller
	// text's 5-grams the other holds (Containment), 1 for exact
	// matches, 0 when a sketch or set size is missing.
	Containment float64
	Exact       bool            // Similar only: the content hashes are equal
	Unverified  bool            // Similar only: kept without a content check, a sketch being missing (a document loaded from a bare fingerprint)
	Keywords    []tfidf.Keyword // Similar only: the match's keywords
	// Original and Hops (Similar only): the match's Doc.Original and
	// Doc.Hops, when it is a duplicate archived in a cluster.
	Original string
	Hops     int
	Job      string // Similar only: the match's Doc.Job
	Seq      int64  // Similar only: the match's Doc.Seq
}

// Index is an archive of documents over a Store.
type Index struct {
	store      Store
	sh         Shared // the store when it is Shared, else an in-process one beside it (see local)
	name       string // the store, in error messages
	layout     *layout
	analyzer   string
	minContent float64
	lean       bool // Options.Lean

	life   sync.RWMutex // shared by every operation, exclusive in Close and Load
	closed bool
	wmu    sync.Mutex // serialises Add and Delete
}

// New opens the archive in s, recording its format, layout and analyzer
// when s holds none yet, and checking them against opts otherwise. nil
// opts means the defaults. The Index owns s: Close closes it, and so
// does New when it fails.
func New(ctx context.Context, s Store, opts *Options) (*Index, error) {
	x, err := newIndex(ctx, s, opts)
	if err != nil {
		s.Close()
		return nil, err
	}
	return x, nil
}

func newIndex(ctx context.Context, s Store, opts *Options) (*Index, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	x := &Index{store: s, name: storeName(s), minContent: o.MinContent, lean: o.Lean}
	if o.MaxDistance != 0 && o.Distance > o.MaxDistance {
		// Refused before anything is recorded.
		return nil, &DistanceError{Name: x.name, Max: o.MaxDistance, Want: o.Distance}
	}
	want := o
	switch {
	case want.Blocks == 0 && want.MaxDistance == 0 && o.Distance > 0:
		want.Blocks, want.MaxDistance = LayoutFor(o.Distance)
	case want.Blocks == 0 && want.MaxDistance > 0:
		want.Blocks, _ = LayoutFor(want.MaxDistance)
	}
	if want.Blocks == 0 {
		want.Blocks = DefaultBlocks
	}
	if want.MaxDistance == 0 {
		want.MaxDistance = DefaultMaxDistance
	}
	if _, err := newLayout(want.Blocks, want.MaxDistance); err != nil {
		return nil, fmt.Errorf("index: %s: %w", x.name, err)
	}
	meta, err := s.Claim(ctx, map[string][]byte{
		MetaFormat:   {FormatVersion},
		MetaLayout:   {byte(want.Blocks), byte(want.MaxDistance)},
		MetaAnalyzer: []byte(o.AnalyzerID),
	})
	if err != nil {
		return nil, err
	}
	format, lay, analyzer := meta[MetaFormat], meta[MetaLayout], meta[MetaAnalyzer]
	if len(format) != 1 || format[0] != FormatVersion {
		return nil, fmt.Errorf("index: %s: %w: format version %v, this program reads version %d", x.name, ErrMismatch, format, FormatVersion)
	}
	if len(lay) != 2 {
		return nil, fmt.Errorf("index: %s: %w: layout metadata %q: want 2 bytes", x.name, ErrCorrupt, lay)
	}
	l, err := newLayout(int(lay[0]), int(lay[1]))
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w: stored layout: %w", x.name, ErrCorrupt, err)
	}
	if (o.Blocks != 0 && o.Blocks != l.blocks) || (o.MaxDistance != 0 && o.MaxDistance != l.maxDist) {
		if o.Blocks == 0 {
			want.Blocks = l.blocks
		}
		if o.MaxDistance == 0 {
			want.MaxDistance = l.maxDist
		}
		return nil, fmt.Errorf("index: %s: %w: the index has %d blocks, max distance %d; the options ask for %d blocks, max distance %d",
			x.name, ErrMismatch, l.blocks, l.maxDist, want.Blocks, want.MaxDistance)
	}
	if o.Distance > l.maxDist {
		return nil, &DistanceError{Name: x.name, Max: l.maxDist, Want: o.Distance}
	}
	if o.AnalyzerID != "" && o.AnalyzerID != string(analyzer) {
		return nil, fmt.Errorf("index: %s: %w: the index was built with analyzer %q; the options ask for %q",
			x.name, ErrMismatch, analyzer, o.AnalyzerID)
	}
	x.layout, x.analyzer = l, string(analyzer)
	if sh, ok := s.(Shared); ok {
		x.sh = sh
	} else {
		x.sh = newLocal(x, s)
	}
	return x, nil
}

// DistanceError is New's error for an index that answers smaller
// distances than Options.Distance. It wraps ErrDistance.
type DistanceError struct {
	Name      string // the store
	Max, Want int
}

func (e *DistanceError) Error() string {
	return fmt.Sprintf("index: %s: %v: it answers distances up to %d, not %d (its layout is fixed when it is created)", e.Name, ErrDistance, e.Max, e.Want)
}

func (e *DistanceError) Unwrap() error { return ErrDistance }

// storeName names s in error messages: its String method's result (a
// directory, an address), or its type.
func storeName(s Store) string {
	if n, ok := s.(fmt.Stringer); ok {
		return n.String()
	}
	return fmt.Sprintf("%T", s)
}

// Store returns the store x reads and writes.
func (x *Index) Store() Store { return x.store }

// AnalyzerID returns the analyzer ID the archive records.
func (x *Index) AnalyzerID() string { return x.analyzer }

// MaxDistance returns the largest distance Near and Similar answer.
func (x *Index) MaxDistance() int { return x.layout.maxDist }

// use takes the shared lifetime lock, failing if x is closed. The caller
// must call x.life.RUnlock when use returns nil.
func (x *Index) use() error {
	x.life.RLock()
	if x.closed {
		x.life.RUnlock()
		return fmt.Errorf("index: %s: %w", x.name, ErrClosed)
	}
	return nil
}

// CheckID returns an error wrapping ErrID if id cannot be a document ID:
// it is empty or longer than MaxIDLen bytes (docid.Check, the rule the
// input reader applies too).
func CheckID(id string) error { return docid.Check(id) }

// checkDocs checks the IDs of docs, naming the first bad one.
func checkDocs(docs []Doc) error {
	for i := range docs {
		if err := CheckID(docs[i].ID); err != nil {
			return fmt.Errorf("index: add: document %d: %w", i, err)
		}
		if docs[i].Text != "" {
			if _, err := textCodec(); err != nil {
				return err
			}
		}
	}
	return nil
}

// keys returns the keys d is filed under: its content hash alone when
// it is RecordOnly (a store counts and filters documents by their
// content postings).
func (x *Index) keys(dst []Key, d *Doc) []Key {
	if d.RecordOnly {
		return append(dst, Key{Kind: KindContent, Value: d.ContentHash})
	}
	for t := range x.layout.tables {
		dst = append(dst, x.layout.key(t, d.Fingerprint))
	}
	dst = append(dst, Key{Kind: KindContent, Value: d.ContentHash})
	// A batch record's band digests (see digested) give no band keys:
	// the document's are not in it, and a store that keeps such records
	// does not need them to remove its postings.
	if !d.Sketch.IsZero() && !digested(&d.Sketch) {
		for b := 0; b < Bands; b++ {
			dst = append(dst, Key{Kind: KindBand, Table: uint8(b), Value: bandValue(&d.Sketch, b)})
		}
	}
	for _, p := range d.Passages {
		dst = append(dst, Key{Kind: KindPassage, Value: p})
	}
	return dst
}

// oldKeys returns the keys the stored document d is filed under, to
// remove its postings: in a Shared store, where Ingest files every
// document under all its keys before deciding it (and only then, for a
// duplicate, perhaps RecordOnly), those of d as if it were not
// RecordOnly; elsewhere keys'.
func (x *Index) oldKeys(d *Doc) []Key {
	if _, ok := x.store.(Shared); ok && d.RecordOnly {
		all := *d
		all.RecordOnly = false
		return x.keys(nil, &all)
	}
	return x.keys(nil, d)
}

// Add adds docs, replacing any documents with the same IDs. IDs must be
// 1 to MaxIDLen bytes; if one is not, nothing is added. If several docs
// share an ID, the last wins. When Add returns, the documents are as
// durable as the store makes a Batch (see its doc). Add hands the store
// up to 10,000 documents a Batch; if one fails, the ones before it stay
// written and Add returns the error.
func (x *Index) Add(ctx context.Context, docs ...Doc) error {
	if err := checkDocs(docs); err != nil {
		return err
	}
	if err := x.use(); err != nil {
		return err
	}
	defer x.life.RUnlock()
	x.wmu.Lock()
	defer x.wmu.Unlock()
	docs = lastByID(docs)
	for len(docs) > 0 {
		n := min(len(docs), writeChunk)
		if err := x.add(ctx, docs[:n]); err != nil {
			return err
		}
		docs = docs[n:]
	}
	return nil
}

// add writes docs, whose IDs are distinct, in one Batch. x.wmu is held.
func (x *Index) add(ctx context.Context, docs []Doc) error {
	ids := make([]string, len(docs))
	for i := range docs {
		ids[i] = docs[i].ID
	}
	old, err := x.store.Records(ctx, ids)
	if err != nil {
		return err
	}
	b := &Batch{Writes: make([]Write, len(docs))}
	keys := make([]Key, 0, len(docs)*(len(x.layout.tables)+1+Bands))
	var recs []byte
	for i := range docs {
		d := &docs[i]
		w := &b.Writes[i]
		start := len(recs)
		recs = encodeDoc(recs, d)
		w.ID, w.Fingerprint = d.ID, d.Fingerprint
		w.Record = recs[start:len(recs):len(recs)]
		k0 := len(keys)
		keys = x.keys(keys, d)
		w.Keys = keys[k0:len(keys):len(keys)]
		if old[i] != nil {
			od, err := x.decode(d.ID, old[i], false)
			if err != nil {
				return err
			}
			w.Replaces, w.OldFingerprint, w.OldKeys = true, od.Fingerprint, x.oldKeys(&od)
		}
	}
	return x.store.Apply(ctx, b)
}

// lastByID returns docs without the earlier of two documents with the
// same ID, keeping the order of the others.
func lastByID(docs []Doc) []Doc {
	last := make(map[string]int, len(docs))
	for i := range docs {
		last[docs[i].ID] = i
	}
	if len(last) == len(docs) {
		return docs
	}
	out := make([]Doc, 0, len(last))
	for i := range docs {
		if last[docs[i].ID] == i {
			out = append(out, docs[i])
		}
	}
	return out
}

// docNotFound is the error of a Get that finds no document, "index:
// WHERE: document "ID": not found", wrapping ErrNotFound. It is formatted
// only when printed: Dedup asks for the ID of every new original, and
// formatting them took 1% of the CPU time of deduplicating en_reuters in
// memory.
type docNotFound struct{ where, id string }

func (e *docNotFound) Error() string {
	return fmt.Sprintf("index: %s: document %q: %v", e.where, e.id, ErrNotFound)
}

func (e *docNotFound) Unwrap() error { return ErrNotFound }

// decode decodes the record of id, naming it in the error; its kept text
// only when withText is set.
func (x *Index) decode(id string, rec []byte, withText bool) (Doc, error) {
	d, err := decodeRecord(rec, id, withText)
	if err != nil {
		return Doc{}, fmt.Errorf("index: %s: record of %q: %w: %w", x.name, id, ErrCorrupt, err)
	}
	return d, nil
}

// Get returns the document with the given ID, with its kept text (see
// Doc.Text), or an error wrapping ErrNotFound. Added is returned in UTC.
func (x *Index) Get(ctx context.Context, id string) (Doc, error) {
	if err := x.use(); err != nil {
		return Doc{}, err
	}
	defer x.life.RUnlock()
	recs, err := x.store.Records(ctx, []string{id})
	if err != nil {
		return Doc{}, err
	}
	if recs[0] == nil {
		return Doc{}, &docNotFound{x.name, id}
	}
	return x.decode(id, recs[0], true)
}

// Delete deletes the documents with the given IDs. If any ID is not in
// the index, Delete deletes nothing and returns an error wrapping
// ErrNotFound that names it. Repeated IDs count once.
func (x *Index) Delete(ctx context.Context, ids ...string) error {
	d, err := x.deleteIDs(ctx, ids, true)
	if err != nil {
		return err
	}
	return missingErr(x.name, d.Missing)
}

// Deletion is what DeleteFound did. The JSON is neardup delete --json's;
// report.WriteDeletion writes its text.
type Deletion struct {
	Deleted []string `json:"deleted"` // the IDs deleted, in the order given
	Missing []string `json:"missing"` // the IDs not found, in the order given
	Docs    int64    `json:"docs"`    // the documents the index holds afterwards
}

// DeleteFound deletes those of the documents with the given IDs that
// the index holds, as rm does, and says which it deleted and which it
// did not find (repeated IDs once; empty lists, not nil, when there are
// none). The documents are looked up, deleted and counted with no Add
// or Delete of x in between; an error in counting them comes with what
// was deleted.
func (x *Index) DeleteFound(ctx context.Context, ids ...string) (Deletion, error) {
	return x.deleteIDs(ctx, ids, false)
}

// deleteIDs deletes the documents of ids the index holds and counts
// those left; with strict, it deletes and counts nothing when some are
// missing.
func (x *Index) deleteIDs(ctx context.Context, ids []string, strict bool) (Deletion, error) {
	if err := x.use(); err != nil {
		return Deletion{}, err
	}
	defer x.life.RUnlock()
	x.wmu.Lock()
	defer x.wmu.Unlock()
	ids = uniq(ids)
	all, err := x.store.Records(ctx, ids)
	if err != nil {
		return Deletion{}, err
	}
	d := Deletion{Deleted: make([]string, 0, len(ids)), Missing: []string{}}
	var recs [][]byte
	for i, r := range all {
		if r == nil {
			d.Missing = append(d.Missing, ids[i])
		} else {
			d.Deleted, recs = append(d.Deleted, ids[i]), append(recs, r)
		}
	}
	if strict && len(d.Missing) > 0 {
		return Deletion{Deleted: []string{}, Missing: d.Missing}, nil
	}
	for ids := d.Deleted; len(ids) > 0; {
		n := min(len(ids), writeChunk)
		b := &Batch{Writes: make([]Write, n)}
		for i := range n {
			doc, err := x.decode(ids[i], recs[i], false)
			if err != nil {
				return Deletion{}, err
			}
			b.Writes[i] = Write{ID: doc.ID, Replaces: true, OldFingerprint: doc.Fingerprint, OldKeys: x.oldKeys(&doc)}
		}
		if err := x.store.Apply(ctx, b); err != nil {
			return Deletion{}, err
		}
		ids, recs = ids[n:], recs[n:]
	}
	if strict {
		return d, nil
	}
	ss, err := x.store.Stats(ctx)
	d.Docs = ss.Docs
	return d, err
}

// missingErr reports unknown IDs, or returns nil if there are none.
func missingErr(where string, missing []string) error {
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("index: %s: delete %q: %w", where, missing[0], ErrNotFound)
	}
	return fmt.Errorf("index: %s: delete %q and %d more: %w", where, missing[0], len(missing)-1, ErrNotFound)
}

// uniq returns ids without repeats, in first-seen order.
func uniq(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// checkDistance checks a query distance against the layout.
func checkDistance(l *layout, k int) error {
	if k < 0 || k > l.maxDist {
		return fmt.Errorf("index: %w: distance %d: the index answers distances 0 to %d", ErrDistance, k, l.maxDist)
	}
	return nil
}

// Near returns the documents whose fingerprints are within Hamming
// distance k of fp, sorted by distance, then ID. It fills in ID,
// Distance and Similarity only. k must be between 0 and the index's
// MaxDistance.
func (x *Index) Near(ctx context.Context, fp simhash.Fingerprint, k int) ([]Match, error) {
	if err := x.use(); err != nil {
		return nil, err
	}
	defer x.life.RUnlock()
	if err := checkDistance(x.layout, k); err != nil {
		return nil, err
	}
	keys := x.tableKeys(nil, fp, k)
	ps, err := postingsNear(ctx, x.store, keys, sameFingerprint(fp, len(keys)), k)
	if err != nil {
		return nil, err
	}
	return x.near(nil, ps, fp, k), nil
}

// tableKeys appends the keys of fp in the tables distance k needs.
func (x *Index) tableKeys(dst []Key, fp simhash.Fingerprint, k int) []Key {
	for _, t := range x.layout.cover[k] {
		dst = append(dst, x.layout.key(t, fp))
	}
	return dst
}

// near appends to ms the table postings of ps within distance k of fp,
// sorted by distance, then ID, without repeats.
func (x *Index) near(ms []Match, ps [][]Posting, fp simhash.Fingerprint, k int) []Match {
	for _, list := range ps {
		for _, p := range list {
			if d := fp.Distance(p.Fingerprint); d <= k {
				ms = append(ms, Match{ID: p.ID, Distance: d, Similarity: fp.Similarity(p.Fingerprint)})
			}
		}
	}
	return sortUniq(ms, len(ps) > 1)
}

// sortUniq sorts matches by distance, then ID, and drops repeats, which
// have the same distance and so are adjacent.
func sortUniq(ms []Match, dups bool) []Match {
	slices.SortFunc(ms, func(a, b Match) int {
		if a.Distance != b.Distance {
			return a.Distance - b.Distance
		}
		return strings.Compare(a.ID, b.ID)
	})
	if !dups || len(ms) < 2 {
		return ms
	}
	out := ms[:1]
	for _, m := range ms[1:] {
		if m.ID != out[len(out)-1].ID {
			out = append(out, m)
		}
	}
	return out
}

// ids returns the IDs of the postings of lists, sorted, without repeats.
func ids(lists ...[]Posting) []string {
	var out []string
	for _, l := range lists {
		for _, p := range l {
			out = append(out, p.ID)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Exact returns the IDs of the documents with the given content hash, in
// byte order.
func (x *Index) Exact(ctx context.Context, contentHash uint64) ([]string, error) {
	if err := x.use(); err != nil {
		return nil, err
	}
	defer x.life.RUnlock()
	ps, err := x.store.Postings(ctx, []Key{{Kind: KindContent, Value: contentHash}})
	if err != nil {
		return nil, err
	}
	return ids(ps[0]), nil
}

// Similar returns the documents similar to d: those with d's content
// hash (Exact set, Content 1), and those within fingerprint distance k
// or sharing a sketch band whose MinHash sketch agrees with d's at least
// Options.MinContent (a SimHash candidate is kept unconfirmed, with
// Content 0, when either sketch is zero). The document with d's own ID
// is left out. Matches are sorted exact first, then by distance, then by
// ID, with every field filled in. Similar reads the store twice: the
// posting lists of d's keys in one batch, then the candidates' records.
func (x *Index) Similar(ctx context.Context, d *Doc, k int) ([]Match, error) {
	if err := x.use(); err != nil {
		return nil, err
	}
	defer x.life.RUnlock()
	if err := checkDistance(x.layout, k); err != nil {
		return nil, err
	}
	var buf [1 + MaxTables + Bands]Key
	keys := append(buf[:0], Key{Kind: KindContent, Value: d.ContentHash})
	keys = x.tableKeys(keys, d.Fingerprint, k)
	nt := len(keys) - 1
	if !d.Sketch.IsZero() {
		for b := 0; b < Bands; b++ {
			keys = append(keys, Key{Kind: KindBand, Table: uint8(b), Value: bandValue(&d.Sketch, b)})
		}
	}
	ps, err := postingsNear(ctx, x.store, keys, sameFingerprint(d.Fingerprint, len(keys)), k)
	if err != nil {
		return nil, err
	}
	exact := ids(ps[0])
	near := x.near(nil, ps[1:1+nt], d.Fingerprint, k)
	banded := ids(ps[1+nt:]...)
	want := make([]string, 0, len(exact)+len(near)+len(banded))
	want = append(want, exact...)
	for _, m := range near {
		want = append(want, m.ID)
	}
	want = append(want, banded...)
	slices.Sort(want)
	want = slices.Compact(want)
	if i, ok := slices.BinarySearch(want, d.ID); ok {
		want = slices.Delete(want, i, i+1)
	}
	if len(want) == 0 {
		return nil, nil
	}
	recs, err := x.store.Records(ctx, want)
	if err != nil {
		return nil, err
	}
	docs := make(map[string]*Doc, len(want))
	for i, r := range recs {
		if r == nil {
			continue // a posting without its record: skipped
		}
		doc, err := x.decode(want[i], r, false)
		if err != nil {
			return nil, err
		}
		docs[want[i]] = &doc
	}
	return similar(d, exact, near, banded, docs, x.minContent), nil
}

// loadBatch is the number of documents Load hands Add at a time when the
// store is no Loader.
const loadBatch = 1024

// Load adds docs to an index that holds no documents. A store that is a
// Loader fills itself its own faster way (badgerstore writes its tables
// directly); any other gets the documents through Add, a batch at a
// time. An index that already holds documents gets ErrNotEmpty (use
// Add). If several docs share an ID, the last wins. Load returns the
// number of documents the index holds afterwards (after an error too).
// It excludes every other method of x while it runs. docs is read once.
func (x *Index) Load(ctx context.Context, docs iter.Seq[Doc]) (int, error) {
	x.life.Lock()
	defer x.life.Unlock()
	if x.closed {
		return 0, fmt.Errorf("index: %s: %w", x.name, ErrClosed)
	}
	ss, err := x.store.Stats(ctx)
	if err != nil {
		return 0, err
	}
	if ss.Docs != 0 {
		return 0, fmt.Errorf("index: %s: load: %w: it holds %d documents", x.name, ErrNotEmpty, ss.Docs)
	}
	var bad error
	seen := 0
	checked := func(yield func(*Doc) bool) {
		for d := range docs {
			if err := CheckID(d.ID); err != nil {
				bad = fmt.Errorf("index: load: document %d: %w", seen, err)
				return
			}
			seen++
			if !yield(&d) {
				return
			}
		}
	}
	if l, ok := x.store.(Loader); ok {
		// A bad ID cancels the load before the store writes anything.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var keys []Key
		var rec []byte
		n, err := l.Load(ctx, func(yield func(*Write) bool) {
			for d := range checked {
				keys = x.keys(keys[:0], d)
				rec = encodeDoc(rec[:0], d)
				if !yield(&Write{ID: d.ID, Record: rec, Fingerprint: d.Fingerprint, Keys: keys}) {
					return
				}
			}
			if bad != nil {
				cancel()
			}
		})
		if bad != nil {
			return 0, bad
		}
		return int(n), err
	}
	batch := make([]Doc, 0, loadBatch)
	flush := func() error {
		x.wmu.Lock()
		defer x.wmu.Unlock()
		err := x.add(ctx, lastByID(batch))
		batch = batch[:0]
		return err
	}
	for d := range checked {
		if batch = append(batch, *d); len(batch) == cap(batch) {
			if err = flush(); err != nil {
				break
			}
		}
	}
	if err == nil && bad == nil && len(batch) > 0 {
		err = flush()
	}
	if bad != nil {
		return 0, bad
	}
	ss, serr := x.store.Stats(ctx)
	return int(ss.Docs), errors.Join(err, serr)
}

// Close closes the index and its store, waiting for operations in
// progress. Later calls of any method but Close fail with ErrClosed.
func (x *Index) Close() error {
	x.life.Lock()
	defer x.life.Unlock()
	if x.closed {
		return nil
	}
	x.closed = true
	var err error
	if l, ok := x.sh.(*local); ok {
		err = l.flush(context.Background())
	}
	return errors.Join(err, x.store.Close())
}
