package index

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"runtime/pprof"
	"slices"
	"sync"
	"time"

	"github.com/neardup/neardup/internal/workers"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// Shared is a Store that many writers share at once (redisstore), and
// that hands every document it writes a number: unique, increasing in
// the order the store handed them out, never reused. Ingest uses it to
// decide race-free which of the documents written at the same moment
// by several writers are originals. It is a capability of a store, like
// Loader. An Index over a store that is not one (a store one process
// owns: memstore, badgerstore) runs the same protocol in process
// (InProcess: a counter, the states and the undecided documents in
// memory), so that Ingest is every writer's way to archive;
// indextest.Run checks the protocol on every store.
//
// Every document AppendRead writes has a state under its number:
// pending until it is decided original or duplicate, once and for all,
// with the numbers of the lower-numbered documents that marked it on
// the way (see Ingest). A document written otherwise (Apply) has no
// state, StatusNone, and is an archived original.
type Shared interface {
	Store

	// AppendRead writes new documents as Apply does, each with a new
	// number and the state pending, and returns, for each write, its
	// number and, under each of its Keys (in order), the postings that
	// were there before its own. Appends to one posting list are
	// totally ordered, so of two documents that share a key, one sees
	// the other there. A write whose ID has a record already is not
	// written (its Num is 0): AppendRead never replaces a record. A
	// Write that replaces or deletes is refused.
	AppendRead(ctx context.Context, ws []Write) ([]Appended, error)

	// Reappend completes the AppendRead of writes whose records are
	// already stored (an AppendRead that failed part way, or the run of
	// a writer killed since): each keeps its stored number, its postings
	// are appended under the keys that lack them, its state is set to
	// pending unless it has one, and the result is AppendRead's.
	Reappend(ctx context.Context, ws []Write) ([]Appended, error)

	// States returns the state of each number, with the ID it resolves
	// to ("" for a number no document has any more).
	States(ctx context.Context, nums []uint64) ([]State, error)

	// Mark adds each mark's By to the markers of its Target, unless the
	// target is decided already, atomically per target, and returns the
	// targets' states afterwards. A target without a state is left so.
	Mark(ctx context.Context, marks []Mark) ([]State, error)

	// Decide decides each number, atomically per number, unless it is
	// decided already: as a duplicate, or as an original if every one of
	// its markers is in Dead (otherwise it stays pending). It returns the
	// states afterwards. The Records of the decisions are stored before
	// any state changes.
	Decide(ctx context.Context, ds []Decision) ([]State, error)
}

// Earlier is a posting that preceded a document's own in a posting
// list of a Shared store: the document's number, its ID ("" if it has
// been deleted or replaced since) and, in table lists, its fingerprint.
type Earlier struct {
	Num         uint64
	ID          string
	Fingerprint simhash.Fingerprint
}

// Appended is what AppendRead and Reappend return for a write: its
// number (0 when AppendRead did not write it) and, for each of its
// Keys, the postings before its own.
type Appended struct {
	Num    uint64
	Before [][]Earlier
}

// Status is the decision about a document in a Shared store.
type Status byte

// Statuses. Their byte values are what redisstore stores.
const (
	StatusNone      Status = 0   // not written by AppendRead: an archived original
	StatusPending   Status = 'p' // written, not decided yet
	StatusOriginal  Status = 'o'
	StatusDuplicate Status = 'd'
)

// Original reports whether a document in state s counts as an original:
// decided so, or archived without a state.
func (s Status) Original() bool { return s == StatusOriginal || s == StatusNone }

// State is the state of one document number in a Shared store.
type State struct {
	ID      string
	Status  Status
	Markers []uint64 // lower-numbered documents that saw this one and went on to claim (see Ingest)
}

// Mark asks Shared.Mark to add By to Target's markers.
type Mark struct{ Target, By uint64 }

// Decision asks Shared.Decide to decide Num.
type Decision struct {
	Num      uint64
	Original bool
	Dead     []uint64 // markers known to be duplicates
	// ID and Record (a duplicate only, optional): the document's ID and
	// its record with its cluster (Doc.Original, Via, Hops, More), which
	// replaces the stored one, if the ID still has a record, before the
	// state is decided: whoever finds the document decided reads its
	// cluster from its record.
	ID     string
	Record []byte
	// Drop (a duplicate only): the document is not kept. A store that
	// has not stored it yet (the in-process one) never stores it; a
	// store that has may keep it (Ingest deletes it then).
	Drop bool
	// Keys (a duplicate with a Record, optional): the keys it is filed
	// under from now on, for a store that files decided documents anew
	// (the in-process one: a RecordOnly duplicate under its content hash
	// alone); nil keeps those of its write.
	Keys []Key
}

// DefaultIngestWait is how long Ingest waits for a lower-numbered
// document another writer has not decided yet.
const DefaultIngestWait = 30 * time.Second

// IngestOptions configure Ingest.
type IngestOptions struct {
	// Distance is the SimHash distance of the candidates (as Similar's
	// k), 0 to MaxDistance.
	Distance int
	// Wait is how long to wait for a lower-numbered document to be
	// decided by its writer; zero means DefaultIngestWait. One still
	// pending after it (its writer died) counts as an original: the
	// document waiting becomes its duplicate rather than risk two
	// originals that match.
	Wait time.Duration
	// JoinMinContent, when above 0, lets a document join a cluster
	// through a member: a lower-numbered document decided a duplicate
	// (whose record names its cluster) that it matches, when it does
	// not match the cluster's original itself, provided Confirmed
	// confirms it against that original at JoinMinContent (dedup's
	// DriftMinContent; a missing original lets the member stand). 0
	// matches originals only.
	JoinMinContent float64
	// Member, when set, is asked about each document Ingest decides a
	// duplicate, in number order, with its cluster set (Original, Via,
	// Hops, More) and its best match: false archives it RecordOnly
	// (later documents match it only as an exact copy, as Similar does
	// in any store). Nil: every duplicate is a member.
	Member func(d *Doc, best *Match) bool
	// Drop, when set, is asked about each duplicate Member did not make
	// a member (RecordOnly): true leaves it out of the archive (it is
	// never stored in a store one process owns, and deleted once
	// decided in a shared one). Its Ingested says so (Dropped).
	Drop func(d *Doc) bool
	// Deferred lets Ingest return before its decisions are stored in a
	// store one process owns (memstore, badgerstore): the write goes on
	// beside the caller until the next Ingest, Flush or Close, which
	// return its error; meanwhile this Index reads the decided documents
	// from memory. A caller that acknowledges what it archived (the
	// service) leaves it false; one that writes a corpus in order
	// (dedup.Run) sets it and calls Flush at the end. A shared store
	// stores the decisions before Ingest returns whatever it says.
	Deferred bool
}

// ProfileLabel is the pprof label of Ingest's CPU samples: "serial" for
// the part of a call that runs in its caller's goroutine (reading and
// writing the store, the ordered decisions), "parallel" for the
// candidates confirmed on every core, "write" for a deferred store write
// (IngestOptions.Deferred) running beside the caller. A store that
// spreads a write over the cores labels that part "parallel" (memstore's
// lists, badgerstore's memory copy). A writer that calls Ingest in order (dedup.Run) is serialised
// by the first.
//
// dedup.Run labels the whole of its ordered part "serial" too: what it
// does with each record in input order, Ingest among it.
const ProfileLabel = "neardup-engine"

// Ingested is Ingest's decision about one document.
type Ingested struct {
	Num      uint64 // its number in the store; 0 when Taken
	Original bool
	// Resumed: the store held the document already (same ID, Job and
	// Seq: the run of an interrupted job), and its decision, if made,
	// was kept.
	Resumed bool
	// Taken is the document the store holds under the ID, when it is
	// not this one (another Job or Seq, or an earlier document of the
	// same call); nothing was written.
	Taken *Doc
	// Matches are, for a duplicate, the documents it matched, one per
	// cluster (the cluster's original where it matched it, else a
	// member), in Similar's order and with Similar's fields; the first
	// is its Via (see Doc), the others its More.
	Matches []Match
	// Dropped: a duplicate that IngestOptions.Drop left out of the
	// archive.
	Dropped bool
}

// Ingest is the archive's decision engine: it adds docs and decides,
// race-free with every other writer of the store (other Ingest calls,
// in this process or, on a Shared store, in any), which are originals:
// no two originals match each other (by Similar's definition, at
// distance o.Distance), and every duplicate matches an original or,
// with o.JoinMinContent, a member of an original's cluster (its
// Matches). With one writer, the decisions are those of adding docs
// one at a time in order, whatever the batches: a document is a
// duplicate iff it matches a lower-numbered original, or
// (o.JoinMinContent) a lower-numbered member of a cluster whose
// original it still resembles; else an original. A document of the
// same Job at a later Seq (stored by an interrupted run of the job) is
// not a candidate: the uninterrupted run had not seen it. Duplicates
// are kept in the store too (unless o.Drop), decided as such, their
// records naming their clusters (Doc.Original, Via, Hops, More).
// Candidates are looked up and confirmed for all of docs at once, on
// every core; only the decisions, in number order, are serial.
//
// The protocol, for each document d in number order:
//
//  1. AppendRead files d under all its keys and returns the postings
//     before d's under each: of two documents sharing a key, the one
//     appended second sees the first. Two documents that match share a
//     key (the content hash, a table key by pigeonhole, or a band), so
//     at least one sees the other. The seen documents are confirmed by
//     their records as Similar confirms candidates, and split into
//     lower (L) and higher (H) numbers.
//  2. d waits until every document of L and every marker of d (a lower
//     document that saw d) is decided. If one is an original, d is a
//     duplicate of it. With o.JoinMinContent, a decided duplicate among
//     them that is a member (not RecordOnly, or an exact copy) is
//     read again, now naming its cluster, and d joins that cluster if
//     the drift guard passes: d is then a duplicate, its record
//     rewritten with its cluster before its state says so.
//  3. Otherwise d marks every document of H (adds itself to its
//     markers, atomically on that document's state); if one is decided
//     original already, d yields: it is a duplicate of that one.
//  4. Otherwise d decides itself original, atomically on its state,
//     only if every marker it has is a known duplicate; if a new marker
//     came meanwhile, it goes back to 2.
//
// Why no two originals match, with any number of writers: a document
// becomes an original in step 4 only, and every state changes once
// (pending to decided). Take two matching documents x < y. They share
// a key, and appends to it are ordered, so y saw x or x saw y.
//
//   - y saw x: x is in y's L, y waits until x is decided and reads its
//     final state; if x is original, y is a duplicate (step 2).
//   - x saw y: y is in x's H. Before x can decide itself original, its
//     Mark on y's state came first, and either found y decided (an
//     original: x yields; a duplicate: no conflict) or added x to y's
//     markers while y was pending. Then y, before deciding itself
//     original, must read its markers (the Decide of step 4 checks
//     them atomically on y's state, so a marker added before it is
//     seen), waits for x to be decided, and is a duplicate if x is an
//     original.
//
// The join rule of step 2 only turns documents that might have been
// originals into duplicates, reading states that are final; it never
// makes an original, so the argument stands, and a joined document's
// cluster has an original: a member is decided a duplicate only after
// its own cluster's original (or the member it joined through) was
// final. Waits go to lower numbers only, so they end; a writer that
// dies leaves its documents pending, which those waiting treat as
// originals after o.Wait. Ingest decides docs in order, each after
// the ones before it.
//
// A document whose ID the store holds for another document is not
// written (Taken). One it holds as the same document (ID, Job and Seq
// equal, Job not empty) is completed with Reappend and decided, or its
// earlier decision kept (Resumed; a duplicate's Matches are read again
// from its record's Via and More), so that a killed run can be re-run.
func (x *Index) Ingest(ctx context.Context, docs []Doc, o IngestOptions) (out []Ingested, err error) {
	defer pprof.SetGoroutineLabels(ctx)
	pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels(ProfileLabel, "serial")))
	if err := checkDocs(docs); err != nil {
		return nil, err
	}
	if err := x.use(); err != nil {
		return nil, err
	}
	defer x.life.RUnlock()
	if err := checkDistance(x.layout, o.Distance); err != nil {
		return nil, err
	}
	if o.Wait <= 0 {
		o.Wait = DefaultIngestWait
	}
	in := &ingest{x: x, sh: x.sh, o: o, batch: docs, out: make([]Ingested, len(docs)),
		stored: make([]*Doc, len(docs)), before: make([][][]Earlier, len(docs)), local: map[uint64]Status{}}
	if l, ok := x.sh.(*local); ok && l.nr != nil {
		// The store's documents are known by the store's numbers.
		in.cs.byNum = storeNum
		in.cs.resolve = func(id string) uint64 {
			nums, err := l.nr.Nums(ctx, []string{id})
			if err != nil {
				return 0 // closed: nothing found by number, as by ID
			}
			return nums[0]
		}
	}
	if l, ok := x.sh.(*local); ok {
		if err := l.begin(ctx); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				l.abandon(in.written)
			}
			if e := l.end(ctx, o.Deferred); e != nil && err == nil {
				out, err = nil, e
			}
		}()
	}
	if err := in.run(ctx); err != nil {
		return nil, err
	}
	return in.out, nil
}

// run is Ingest's work, in its steps: the documents written (new ones
// appended, those of an interrupted run completed), their candidates
// read and confirmed, then each decided in number order.
func (in *ingest) run(ctx context.Context) error {
	if len(in.batch) == 0 {
		return nil
	}
	fresh, again, err := in.sortOut(ctx)
	if err != nil {
		return err
	}
	if again, err = in.appendFresh(ctx, fresh, again); err != nil {
		return err
	}
	if err := in.reappend(ctx, again); err != nil {
		return err
	}
	order, cands, err := in.candidates(ctx)
	if err != nil {
		return err
	}
	if err := in.decideInOrder(ctx, order, cands); err != nil {
		return err
	}
	if err := in.sendDeferred(ctx); err != nil {
		return err
	}
	if _, ok := in.sh.(*local); !ok && len(in.dropped) > 0 {
		// A shared store has them: deleted now that they are decided.
		return in.x.drop(ctx, in.dropped)
	}
	return nil
}

// sortOut reads the stored records under the batch's IDs and sorts the
// documents out: fresh (no record: to append), again (the same
// document stored by an earlier run of its job: to complete, its
// record in stored) and the others, Taken (by the stored document or
// an earlier document of the batch with the ID).
func (in *ingest) sortOut(ctx context.Context) (fresh, again []int, err error) {
	ids := make([]string, len(in.batch))
	for i := range in.batch {
		ids[i] = in.batch[i].ID
	}
	recs, err := in.sh.Records(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	holder := make(map[string]*Doc, len(in.batch)) // what holds each ID after the call: the first document with it, or the stored one
	for i := range in.batch {
		d := &in.batch[i]
		if h, ok := holder[d.ID]; ok {
			taken := *h
			in.out[i].Taken = &taken
			continue
		}
		if recs[i] == nil {
			fresh = append(fresh, i)
			holder[d.ID] = d
			continue
		}
		old, err := in.x.decode(d.ID, recs[i], false)
		if err != nil {
			return nil, nil, err
		}
		holder[d.ID] = &old
		if in.storedAs(i, &old) {
			again = append(again, i)
		}
	}
	return fresh, again, nil
}

// storedAs notes that the store holds old under the ID of document i:
// the same document (stored by an earlier run of its job), to
// complete, or another one, which took the ID. It reports the first.
func (in *ingest) storedAs(i int, old *Doc) bool {
	if sameDoc(old, &in.batch[i]) {
		in.stored[i] = old
		return true
	}
	in.out[i].Taken = old
	return false
}

// appendFresh appends the documents fresh with AppendRead, noting their
// numbers and the postings before theirs, and returns again with those
// that another writer stored meanwhile as the same document (a retry
// of our own write); those stored as another are Taken.
func (in *ingest) appendFresh(ctx context.Context, fresh, again []int) ([]int, error) {
	if len(fresh) == 0 {
		return again, nil
	}
	app, err := in.sh.AppendRead(ctx, in.x.writes(in.batch, fresh))
	if err != nil {
		return nil, err
	}
	var lost []int // taken by another writer since Records
	for j, i := range fresh {
		if app[j].Num == 0 {
			lost = append(lost, i)
			continue
		}
		in.out[i].Num, in.before[i] = app[j].Num, app[j].Before
		in.written = append(in.written, app[j].Num)
	}
	if len(lost) == 0 {
		return again, nil
	}
	lids := make([]string, len(lost))
	for j, i := range lost {
		lids[j] = in.batch[i].ID
	}
	lrecs, err := in.sh.Records(ctx, lids)
	if err != nil {
		return nil, err
	}
	for j, i := range lost {
		if lrecs[j] == nil {
			return nil, fmt.Errorf("index: %s: ingest: the record of %q was there, then gone (deleted meanwhile?)", in.x.name, in.batch[i].ID)
		}
		old, err := in.x.decode(in.batch[i].ID, lrecs[j], false)
		if err != nil {
			return nil, err
		}
		if in.storedAs(i, &old) {
			again = append(again, i)
		}
	}
	return again, nil
}

// reappend completes the writes of the documents again, stored before:
// they keep their numbers and are Resumed.
func (in *ingest) reappend(ctx context.Context, again []int) error {
	if len(again) == 0 {
		return nil
	}
	app, err := in.sh.Reappend(ctx, in.x.writes(in.batch, again))
	if err != nil {
		return err
	}
	for j, i := range again {
		in.out[i].Num, in.out[i].Resumed, in.before[i] = app[j].Num, true, app[j].Before
		in.written = append(in.written, app[j].Num)
	}
	return nil
}

// candidates returns the written documents in number order and, for
// each, the indices (in in.cs) of the documents it saw that may match
// it, whose records it reads, for the whole call at once, on every core.
func (in *ingest) candidates(ctx context.Context) (order []int, cands [][]int32, err error) {
	seen := make([][]Earlier, len(in.batch))
	for i := range in.batch {
		if in.out[i].Num != 0 {
			order = append(order, i)
		}
	}
	// A store whose records are read in place: local.read turned its
	// postings down as it read them, at the layout's largest distance;
	// at a smaller distance, more can be turned down here.
	var nr NumberedRecords
	if l, ok := in.sh.(*local); ok && in.o.Distance < in.x.layout.maxDist {
		nr = l.nr
	}
	parallel(len(order), func(j int) {
		i := order[j]
		seen[i] = in.x.seen(&in.batch[i], in.out[i].Num, in.before[i], in.o.Distance)
		if nr != nil {
			seen[i] = in.x.dropUnconfirmable(ctx, nr, &in.batch[i], seen[i], in.o.Distance)
		}
	})
	cands = in.cs.build(len(in.batch), order, seen)
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(in.out[a].Num, in.out[b].Num) })
	all := make([]int32, len(in.cs.c))
	for k := range all {
		all[k] = int32(k)
	}
	if err := in.fetch(ctx, all); err != nil {
		return nil, nil, err
	}
	return order, cands, nil
}

// decideInOrder decides the documents of order, in that order: every
// one's candidates confirmed at once, on every core (those of a
// candidate this call decided before the document, whose record then
// names its cluster, again in turn); the documents that match none
// decided original together, the others one at a time by decide.
func (in *ingest) decideInOrder(ctx context.Context, order []int, cands [][]int32) error {
	pre := in.confirmAll(in.batch, order, cands)
	for _, i := range order {
		d := &in.batch[i]
		ms := pre[i]
		if in.cs.anyChanged(cands[i]) {
			ms = in.confirm(d, cands[i])
		}
		if len(ms) == 0 {
			in.simple = append(in.simple, i)
			continue
		}
		if err := in.decideSimple(ctx); err != nil {
			return err
		}
		if err := in.decide(ctx, d, &in.out[i], ms, in.stored[i]); err != nil {
			return err
		}
	}
	return in.decideSimple(ctx)
}

// decideSimple decides the documents that saw nothing that matches
// them (in.simple) originals, together; one marked by a lower document
// meanwhile, or decided before (a resumed run), goes through the whole
// protocol.
func (in *ingest) decideSimple(ctx context.Context) error {
	if len(in.simple) == 0 {
		return nil
	}
	ds := make([]Decision, len(in.simple))
	for j, i := range in.simple {
		ds[j] = Decision{Num: in.out[i].Num, Original: true}
	}
	sts, err := in.sh.Decide(ctx, ds)
	if err != nil {
		return err
	}
	for j, i := range in.simple {
		if sts[j].Status == StatusOriginal {
			in.out[i].Original = true
			in.local[in.out[i].Num] = StatusOriginal
			continue
		}
		if err := in.decide(ctx, &in.batch[i], &in.out[i], nil, in.stored[i]); err != nil {
			return err
		}
	}
	in.simple = in.simple[:0]
	return nil
}

// seen returns the documents d (number num) saw before it, under its
// keys, that may match it, as Similar's candidates: every one under its
// content and band keys, and under its table keys those within distance
// k; the others' records are not read.
func (x *Index) seen(d *Doc, num uint64, before [][]Earlier, k int) []Earlier {
	tables := len(x.layout.tables) // d's first keys (see keys)
	if d.RecordOnly {
		tables = 0
	}
	var out []Earlier
	for j, list := range before {
		table := j < tables
		for _, e := range list {
			if e.ID == "" || e.Num == num || (table && d.Fingerprint.Distance(e.Fingerprint) > k) {
				continue
			}
			out = append(out, e)
		}
	}
	return out
}

// sendDeferred sends the deferred decisions, their records encoded
// and keys made on every core.
func (in *ingest) sendDeferred(ctx context.Context) error {
	if len(in.deferred) == 0 {
		return nil
	}
	parallel(len(in.deferred), func(i int) {
		dc := &in.deferred[i]
		c := in.cs.c[in.deferredAt[i]].doc
		r := in.x.written(c)
		dc.Record = encodeDoc(make([]byte, 0, recordSizeHint(r)+len(r.Original)+len(r.Via)+16), r)
		dc.Keys = in.x.keys(make([]Key, 0, in.x.keysSize(c)), c)
	})
	if _, err := in.sh.Decide(ctx, in.deferred); err != nil {
		return err
	}
	in.deferred, in.deferredAt = in.deferred[:0], in.deferredAt[:0]
	return nil
}

// sameDoc reports whether stored is d from an earlier run of the same
// job.
func sameDoc(stored, d *Doc) bool {
	return d.Job != "" && stored.Job == d.Job && stored.Seq == d.Seq
}

// writes returns the writes of docs[at...], as add makes them for new
// documents, encoded on every core for a large batch.
func (x *Index) writes(docs []Doc, at []int) []Write {
	ws := make([]Write, len(at))
	parallel(len(at), func(j int) {
		d := &docs[at[j]]
		r := x.written(d)
		// Sized to take the record and keys without growing.
		rec := make([]byte, 0, recordSizeHint(r))
		keys := make([]Key, 0, x.keysSize(d))
		ws[j] = Write{ID: d.ID, Record: encodeDoc(rec, r), Fingerprint: d.Fingerprint, Keys: x.keys(keys, d)}
	})
	return ws
}

// written returns d as Ingest encodes its record: d, or on a lean
// store (Options.Lean) a copy without the title, keywords and text,
// which the store would cut (its keys are made from d).
func (x *Index) written(d *Doc) *Doc {
	if !x.lean || (d.Title == "" && d.Keywords == nil && d.Text == "") {
		return d
	}
	c := *d
	c.Title, c.Keywords, c.Text = "", nil, ""
	return &c
}

// recordSizeHint is about the size of d's record (encodeDoc), at least
// that of a record without text or cluster.
func recordSizeHint(d *Doc) int {
	n := 64 + len(d.Title) + len(d.Job) + 2*minhash.Size + minhash.LongEncodedSize + 8*len(d.Passages)
	for _, k := range d.Keywords {
		n += len(k.Word) + 10
	}
	return n
}

// keysSize is the number of keys of d (keys) at most.
func (x *Index) keysSize(d *Doc) int {
	n := 1 + Bands + len(d.Passages)
	if x.layout != nil {
		n += len(x.layout.tables)
	}
	return n
}

// parallel calls f(0) to f(n−1), on up to GOMAXPROCS goroutines (in
// batches of at least 8 calls), labelled as Ingest's parallel part.
func parallel(n int, f func(i int)) { parallelBy(n, 8, f) }

// parallelChunks is parallel for calls that each do a chunk of work (a
// read of many records): one a goroutine at least.
func parallelChunks(n int, f func(i int)) { parallelBy(n, 1, f) }

// parallelBy is parallel with at least per calls a goroutine: the calls
// in chunks of per, taken in turn by workers.Each's goroutines.
func parallelBy(n, per int, f func(i int)) {
	// Profiles tell this parallel part from the rest of the call (see
	// ProfileLabel).
	ctx := pprof.WithLabels(context.Background(), pprof.Labels(ProfileLabel, "parallel"))
	workers.Each(ctx, (n+per-1)/per, func(j int) {
		for i := j * per; i < min(n, (j+1)*per); i++ {
			f(i)
		}
	})
}

// spread calls f(0) to f(n−1), each in a goroutine of its own (f(0) in
// the caller's when n is 1), labelled as Ingest's parallel part.
func spread(n int, f func(i int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(ProfileLabel, "parallel")))
			f(i)
		})
	}
	wg.Wait()
}

// ingest is the state of one Ingest call.
type ingest struct {
	x  *Index
	sh Shared
	o  IngestOptions

	// The call's documents and their decisions; stored the records of
	// those stored by an earlier run of their job, before the postings
	// each saw before its own, written the numbers this call wrote
	// (abandoned if it fails), simple the documents that matched
	// nothing, waiting to be decided together (decideSimple).
	batch   []Doc
	out     []Ingested
	stored  []*Doc
	before  [][][]Earlier
	written []uint64
	simple  []int

	cs cands // the documents the call's documents saw, and their records

	// local are the decisions of this call, deferred those not sent
	// yet (duplicates, sent together at the end).
	local      map[uint64]Status
	deferred   []Decision
	deferredAt []int32  // the index in cs of each deferred decision's document
	dropped    []string // IDs of the duplicates Drop left out
}

// confirmAll returns confirm's matches for each docs[i] of order among
// its candidates cands[i], on every core.
func (in *ingest) confirmAll(docs []Doc, order []int, cands [][]int32) [][]Match {
	out := make([][]Match, len(docs))
	var todo []int
	for _, i := range order {
		if len(cands[i]) > 0 {
			todo = append(todo, i)
		}
	}
	parallel(len(todo), func(j int) {
		i := todo[j]
		out[i] = in.confirm(&docs[i], cands[i])
	})
	return out
}

// fetch reads the records of the candidates ks not read yet, decoding
// them on every core.
func (in *ingest) fetch(ctx context.Context, ks []int32) error {
	var want []int32
	for _, k := range ks {
		if !in.cs.c[k].read {
			want = append(want, k)
		}
	}
	if len(want) == 0 {
		return nil
	}
	slices.Sort(want)
	want = slices.Compact(want)
	ids, nums := make([]string, len(want)), make([]uint64, len(want))
	for j, k := range want {
		ids[j], nums[j] = in.cs.c[k].id, in.cs.c[k].num
	}
	var recs [][]byte
	var err error
	if l, ok := in.sh.(*local); ok {
		recs, err = l.records(ctx, ids, nums)
	} else {
		recs, err = in.sh.Records(ctx, ids)
	}
	if err != nil {
		return err
	}
	// Decoded on every core, fetchChunk records at a time into a slab
	// of Docs (one allocation a chunk, not one a candidate).
	chunks := (len(recs) + fetchChunk - 1) / fetchChunk
	errs := make([]error, chunks)
	parallelChunks(chunks, func(ch int) {
		lo, hi := ch*fetchChunk, min(len(recs), (ch+1)*fetchChunk)
		docs := make([]Doc, hi-lo)
		for j := lo; j < hi; j++ {
			c := &in.cs.c[want[j]]
			c.doc, c.read = nil, true
			if recs[j] == nil {
				continue
			}
			var err error
			if docs[j-lo], err = in.x.decode(ids[j], recs[j], false); err != nil {
				errs[ch] = err
				return
			}
			c.doc = &docs[j-lo]
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fetchChunk is how many candidates' records fetch decodes in one
// goroutine's turn.
const fetchChunk = 32

// fetchIDs returns the candidates with the IDs ids (added, with no
// number, if they were none), sorted, without repeats, their records
// read.
func (in *ingest) fetchIDs(ctx context.Context, ids []string) ([]int32, error) {
	ks := make([]int32, len(ids))
	for j, id := range ids {
		ks[j] = in.cs.add(id, 0)
	}
	slices.Sort(ks)
	ks = slices.Compact(ks)
	return ks, in.fetch(ctx, ks)
}

// num returns the number of the candidate with the ID id (0: none).
func (in *ingest) num(id string) uint64 {
	if k, ok := in.cs.find(id); ok {
		return in.cs.c[k].num
	}
	return 0
}

// confirm returns the documents among the candidates ks (sorted,
// without repeats, their records read) that Similar would return for
// d: the exact copies, those within the distance, and those sharing a
// band, confirmed by content, in Similar's order.
func (in *ingest) confirm(d *Doc, ks []int32) []Match {
	k := in.o.Distance
	var out []Match
	for _, c := range ks {
		cd := &in.cs.c[c]
		r := cd.doc
		if r == nil || (r.Seq > d.Seq && d.Job != "" && r.Job == d.Job) || sameID(cd.id, d.ID) {
			// A document of this job at a later position (stored by
			// an interrupted run of the job) is not a candidate yet:
			// an uninterrupted run has not seen it. (Seq first: in a
			// run that was not interrupted no candidate is later, and
			// the job names, equal, are not compared; at 10^7 the
			// comparisons were 10% of dedup's CPU.)
			continue
		}
		if r.ContentHash == d.ContentHash {
			out = append(out, exactMatch(d, r, cd.id))
			continue
		}
		if dist := d.Fingerprint.Distance(r.Fingerprint); dist <= k {
			m := Match{ID: cd.id, Distance: dist, Similarity: d.Fingerprint.Similarity(r.Fingerprint)}
			if m, ok := nearMatch(d, r, m, in.x.minContent); ok {
				out = append(out, m)
			}
			continue
		}
		if sharesBand(&d.Sketch, &r.Sketch) {
			if m, ok := bandMatch(d, r, cd.id, in.x.minContent); ok {
				out = append(out, m)
			}
		}
	}
	SortMatches(out)
	return out
}

// sameID reports whether a == b, comparing the last bytes first: IDs
// of one length (URLs of one site) share long prefixes and differ near
// their ends, and at 10^7 archived documents an article is compared
// with hundreds of candidates.
func sameID(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := len(a) - 1; i >= 0 && i >= len(a)-16; i-- {
		if a[i] != b[i] {
			return false
		}
	}
	return a == b
}

// decide runs the protocol (see Ingest) for d, whose confirmed matches
// among the documents it saw are ms; stored is its record when the
// store held it already (a resumed run).
func (in *ingest) decide(ctx context.Context, d *Doc, res *Ingested, ms []Match, stored *Doc) error {
	n := res.Num
	var lower, higher []uint64
	byNum := map[uint64]*Match{}
	for i := range ms {
		num := in.num(ms[i].ID)
		byNum[num] = &ms[i]
		if num < n {
			lower = append(lower, num)
		} else {
			higher = append(higher, num)
		}
	}
	dead := map[uint64]bool{}
	for {
		// d's own state and those of L in one round trip; the pending
		// ones and d's markers (lower documents that saw d) waited for.
		sts, err := in.sh.States(ctx, append([]uint64{n}, lower...))
		if err != nil {
			return err
		}
		switch sts[0].Status {
		case StatusOriginal:
			res.Original = true
			return nil
		case StatusDuplicate:
			return in.resumed(ctx, d, res, stored, byNum, higher)
		}
		wait, known, err := in.waitLower(ctx, d, lower, sts, byNum)
		if err != nil {
			return err
		}
		for _, num := range wait {
			if !known[num].Status.Original() {
				dead[num] = true
			}
		}
		kept, err := in.clusters(ctx, d, wait, known, byNum)
		if err != nil {
			return err
		}
		if len(kept) == 0 {
			kept, err = in.markHigher(ctx, n, higher, byNum)
			if err != nil {
				return err
			}
		}
		if len(kept) > 0 {
			in.duplicate(d, res, kept)
			return nil
		}
		st, err := in.sh.Decide(ctx, []Decision{{Num: n, Original: true, Dead: slices.Collect(maps.Keys(dead))}})
		if err != nil {
			return err
		}
		switch st[0].Status {
		case StatusOriginal:
			res.Original = true
			in.local[n] = StatusOriginal
			return nil
		case StatusDuplicate:
			// Decided meanwhile by another run of the job.
			return in.resumed(ctx, d, res, stored, byNum, higher)
		}
		// A new marker came: go round again.
	}
}

// waitLower is step 2 of the protocol for d: given the states sts of d
// (first) and of lower, it confirms d's markers that are new (adding
// them to byNum), and returns the lower documents and markers, wait,
// with their final states, known (waiting for those pending).
func (in *ingest) waitLower(ctx context.Context, d *Doc, lower []uint64, sts []State, byNum map[uint64]*Match) (wait []uint64, known map[uint64]State, err error) {
	known = make(map[uint64]State, len(lower))
	for i, num := range lower {
		known[num] = sts[1+i]
		if st, ok := in.local[num]; ok {
			known[num] = State{Status: st}
		}
	}
	markers := sts[0].Markers
	if err := in.addMarkers(ctx, d, markers, byNum); err != nil {
		return nil, nil, err
	}
	wait = append(slices.Clone(lower), markers...)
	slices.Sort(wait)
	wait = slices.Compact(wait)
	var need []uint64
	for _, num := range wait {
		if st, ok := known[num]; !ok || st.Status == StatusPending {
			need = append(need, num)
		}
	}
	got, err := in.final(ctx, need)
	if err != nil {
		return nil, nil, err
	}
	for i, num := range need {
		known[num] = got[i]
	}
	return wait, known, nil
}

// markHigher is step 3 of the protocol for document n: it marks the
// higher documents it saw and returns the matches among them that are
// decided originals already (n yields to them), best first.
func (in *ingest) markHigher(ctx context.Context, n uint64, higher []uint64, byNum map[uint64]*Match) ([]Match, error) {
	if len(higher) == 0 {
		return nil, nil
	}
	marks := make([]Mark, len(higher))
	for i, h := range higher {
		marks[i] = Mark{Target: h, By: n}
	}
	hs, err := in.sh.Mark(ctx, marks)
	if err != nil {
		return nil, err
	}
	var yield []Match
	for i, h := range higher {
		if m := byNum[h]; m != nil && hs[i].Status.Original() {
			yield = append(yield, *m)
		}
	}
	SortMatches(yield)
	return yield, nil
}

// clusters returns the matches d joins among the documents of wait,
// whose states known are final: one per cluster, in Similar's order,
// as dedup.Run keeps them. The originals are clusters of their own;
// with o.JoinMinContent, a duplicate whose record names its cluster
// (read again: it may have been read while pending) stands for that
// cluster, unless the cluster's original matched too or d is not
// confirmed against it at o.JoinMinContent (the drift guard; a missing
// original lets the member stand). A RecordOnly duplicate is a match
// only as an exact copy (confirm and similar see to it).
func (in *ingest) clusters(ctx context.Context, d *Doc, wait []uint64, known map[uint64]State, byNum map[uint64]*Match) ([]Match, error) {
	join := in.o.JoinMinContent > 0
	if join {
		if err := in.reconfirmMembers(ctx, d, wait, known, byNum); err != nil {
			return nil, err
		}
	}
	var ms []Match
	for _, num := range wait {
		m := byNum[num]
		switch {
		case m == nil:
		case known[num].Status.Original():
			ms = append(ms, *m)
		case join && known[num].Status == StatusDuplicate && m.Original != "":
			ms = append(ms, *m)
		}
	}
	if len(ms) == 0 {
		return nil, nil
	}
	SortMatches(ms)
	return in.onePerCluster(ctx, d, ms)
}

// reconfirmMembers confirms d again against the duplicates of wait
// (final states known) whose matches in byNum were made from their
// records as first read, before they named their clusters: their
// records read again (unless decided in this call, whose records are
// in memory), their matches in byNum replaced by the new ones.
func (in *ingest) reconfirmMembers(ctx context.Context, d *Doc, wait []uint64, known map[uint64]State, byNum map[uint64]*Match) error {
	var redo, stale []string
	for _, num := range wait {
		m := byNum[num]
		if m == nil || known[num].Status != StatusDuplicate || m.Original != "" {
			continue
		}
		redo = append(redo, m.ID)
		if _, ok := in.local[num]; !ok {
			stale = append(stale, m.ID)
		}
	}
	if len(redo) == 0 {
		return nil
	}
	for _, id := range stale {
		if k, ok := in.cs.find(id); ok {
			in.cs.forget(k)
		}
	}
	ks, err := in.fetchIDs(ctx, redo)
	if err != nil {
		return err
	}
	for _, id := range redo {
		delete(byNum, in.num(id))
	}
	for _, m := range in.confirm(d, ks) {
		byNum[in.num(m.ID)] = &m
	}
	return nil
}

// onePerCluster keeps of ms (sorted, originals and members) the first
// match of each cluster, leaving out a member whose cluster's original
// matched d itself, or whose original d is not confirmed against at
// o.JoinMinContent (the drift guard).
func (in *ingest) onePerCluster(ctx context.Context, d *Doc, ms []Match) ([]Match, error) {
	direct := map[string]bool{}
	var origs []string
	for _, m := range ms {
		if m.Original == "" {
			direct[m.ID] = true
		}
	}
	for _, m := range ms {
		if m.Original != "" && !direct[m.Original] {
			origs = append(origs, m.Original)
		}
	}
	if _, err := in.fetchIDs(ctx, origs); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Match
	for _, m := range ms {
		c := m.ID
		if m.Original != "" {
			c = m.Original
		}
		if seen[c] || (m.Original != "" && direct[c]) {
			continue
		}
		if m.Original != "" {
			if orig := in.cs.c[in.cs.add(c, 0)].doc; orig != nil && !Confirmed(d, orig, in.o.JoinMinContent) {
				continue
			}
		}
		seen[c] = true
		out = append(out, m)
	}
	return out, nil
}

// addMarkers confirms the markers that are not among byNum yet and adds
// them.
func (in *ingest) addMarkers(ctx context.Context, d *Doc, markers []uint64, byNum map[uint64]*Match) error {
	var fresh []uint64
	for _, m := range markers {
		if _, ok := byNum[m]; !ok {
			fresh = append(fresh, m)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	sts, err := in.sh.States(ctx, fresh)
	if err != nil {
		return err
	}
	var ids []string
	for i, st := range sts {
		if st.ID != "" {
			in.cs.c[in.cs.add(st.ID, fresh[i])].num = fresh[i]
			ids = append(ids, st.ID)
		}
	}
	ks, err := in.fetchIDs(ctx, ids)
	if err != nil {
		return err
	}
	for _, m := range in.confirm(d, ks) {
		byNum[in.num(m.ID)] = &m
	}
	return nil
}

// final returns the states of nums once none is pending, waiting for
// their writers up to o.Wait; one still pending then is returned as
// StatusNone (counted as an original).
func (in *ingest) final(ctx context.Context, nums []uint64) ([]State, error) {
	out := make([]State, len(nums))
	if len(nums) == 0 {
		return out, nil
	}
	var todo []int
	for i, num := range nums {
		if st, ok := in.local[num]; ok {
			out[i].Status = st
		} else {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return out, nil
	}
	deadline := time.Now().Add(in.o.Wait)
	pause := time.Millisecond
	for {
		ask := make([]uint64, len(todo))
		for j, i := range todo {
			ask[j] = nums[i]
		}
		sts, err := in.sh.States(ctx, ask)
		if err != nil {
			return nil, err
		}
		left := todo[:0]
		for j, i := range todo {
			out[i] = sts[j]
			if sts[j].Status == StatusPending {
				left = append(left, i)
			}
		}
		todo = left
		if len(todo) == 0 {
			return out, nil
		}
		if time.Now().After(deadline) {
			for _, i := range todo {
				out[i].Status = StatusNone
			}
			return out, nil
		}
		// Another writer's document may be waiting for one of ours:
		// send the deferred decisions before waiting for theirs.
		if err := in.sendDeferred(ctx); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// duplicate decides d a duplicate that joins the clusters of kept (one
// match per cluster, best first): its record, with its cluster, and
// its decision are sent with the others at the end of the call (or
// before waiting for another writer), and known here meanwhile. Only
// d's writer decides d, and d is not an original (its state was read
// first), so the decision cannot fail.
func (in *ingest) duplicate(d *Doc, res *Ingested, kept []Match) {
	c := *d
	best := &kept[0]
	c.Original, c.Via, c.Hops, c.More = best.ID, best.ID, best.Hops+1, nil
	if best.Original != "" {
		c.Original = best.Original
	}
	for _, m := range kept[1:] {
		c.More = append(c.More, m.ID)
	}
	c.RecordOnly = in.o.Member != nil && !in.o.Member(&c, best)
	res.Dropped = c.RecordOnly && in.o.Drop != nil && in.o.Drop(&c)
	in.local[res.Num] = StatusDuplicate
	k := in.cs.add(d.ID, res.Num)
	in.cs.set(k, &c)
	// Its Record and Keys are made from its candidate's record when sent.
	in.deferred = append(in.deferred, Decision{Num: res.Num, ID: d.ID, Drop: res.Dropped})
	in.deferredAt = append(in.deferredAt, k)
	if res.Dropped {
		in.dropped = append(in.dropped, d.ID)
	}
	res.Matches = kept
}

// resumed returns the matches of d, decided a duplicate before (a
// resumed run): those its stored record names (Via, then More), as
// Similar measures them now; for a record that names none (written
// before records named clusters), the lower originals among its
// matches, else the higher ones.
func (in *ingest) resumed(ctx context.Context, d *Doc, res *Ingested, stored *Doc, byNum map[uint64]*Match, higher []uint64) error {
	in.local[res.Num] = StatusDuplicate
	res.Matches = res.Matches[:0]
	if stored != nil && stored.Original != "" {
		in.cs.set(in.cs.add(d.ID, res.Num), stored)
		ids := append([]string{stored.Via}, stored.More...)
		ks, err := in.fetchIDs(ctx, ids)
		if err != nil {
			return err
		}
		got := map[string]Match{}
		for _, m := range in.confirm(d, ks) {
			got[m.ID] = m
		}
		for _, id := range ids {
			if m, ok := got[id]; ok {
				res.Matches = append(res.Matches, m)
			}
		}
		if len(res.Matches) > 0 {
			return nil
		}
	}
	var lower []uint64
	for num := range byNum {
		if num < res.Num {
			lower = append(lower, num)
		}
	}
	slices.Sort(lower)
	sts, err := in.final(ctx, lower)
	if err != nil {
		return err
	}
	var orig []uint64
	for i, s := range sts {
		if s.Status.Original() {
			orig = append(orig, lower[i])
		}
	}
	if len(orig) == 0 && len(higher) > 0 {
		sts, err := in.sh.States(ctx, higher)
		if err != nil {
			return err
		}
		for i, s := range sts {
			if s.Status.Original() {
				orig = append(orig, higher[i])
			}
		}
	}
	for _, num := range orig {
		if m := byNum[num]; m != nil {
			res.Matches = append(res.Matches, *m)
		}
	}
	SortMatches(res.Matches)
	return nil
}

// drop deletes the documents ids from a shared store.
func (x *Index) drop(ctx context.Context, ids []string) error {
	recs, err := x.store.Records(ctx, ids)
	if err != nil {
		return err
	}
	b := &Batch{}
	for i, r := range recs {
		if r == nil {
			continue
		}
		doc, err := x.decode(ids[i], r, false)
		if err != nil {
			return err
		}
		b.Writes = append(b.Writes, Write{ID: doc.ID, Replaces: true, OldFingerprint: doc.Fingerprint, OldKeys: x.oldKeys(&doc)})
	}
	return x.store.Apply(ctx, b)
}
