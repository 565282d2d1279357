package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

// Postings implements index.Store: one pipeline reads every bucket of
// keys, a second resolves the numbers found to IDs. Postings whose number
// no longer resolves (deleted or replaced documents) are left out, and so
// are repeats of an ID within one key's list.
func (s *Store) Postings(ctx context.Context, keys []index.Key) ([][]index.Posting, error) {
	return s.postings(ctx, keys, nil, -1, 0)
}

// PostingsLimit is Postings that stops each key's list at limit
// postings (all of them when limit < 1): a list of limit postings means
// that the key has at least that many documents. Only the numbers kept
// are resolved to IDs, the first limit of each bucket in the order they
// were appended and, when some of those no longer resolve or repeat an
// ID, the next ones in a further round, so a list is short of limit
// only when the key has fewer live documents. Package reuse's stop rule
// asks it: a passage of common text has postings in proportion to the
// archive, and only whether they reach the bound matters.
func (s *Store) PostingsLimit(ctx context.Context, keys []index.Key, limit int) ([][]index.Posting, error) {
	return s.postings(ctx, keys, nil, -1, limit)
}

// PostingsNear implements index.NearPostings: Postings that resolves
// the numbers of the table postings within k bits of fps[i] only (the
// others, most of a table bucket's at scale, cost no lookup).
func (s *Store) PostingsNear(ctx context.Context, keys []index.Key, fps []simhash.Fingerprint, k int) ([][]index.Posting, error) {
	if len(fps) != len(keys) {
		return nil, s.errorf("postings: %d keys and %d fingerprints", len(keys), len(fps))
	}
	return s.postings(ctx, keys, fps, k, 0)
}

// postings is Postings, PostingsNear when fps is not nil, and
// PostingsLimit when limit > 0.
func (s *Store) postings(ctx context.Context, keys []index.Key, fps []simhash.Fingerprint, k, limit int) ([][]index.Posting, error) {
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	// A key's buckets: one, or one per level up to the highest known
	// (then N tells whether there are more).
	bs := make([][]bucket, len(keys))
	at := make(map[string]int, len(keys))
	cmds := make([]redis.Cmder, 0, len(keys)+5)
	get := func(b bucket) {
		if _, ok := at[b.key]; !ok {
			at[b.key] = len(cmds)
			cmds = append(cmds, redis.NewStringCmd(ctx, "get", b.key))
		}
	}
	top := int(max(s.top.Load(), 0))
	var last *redis.StringCmd
	for i, k := range keys {
		b, err := s.bucketOf(k)
		if err != nil {
			return nil, s.errorf("postings: %w", err)
		}
		if !s.leveled(k) {
			bs[i] = []bucket{b}
			get(b)
			continue
		}
		for l := 0; l <= top; l++ {
			b := s.levelBucket(k, l)
			bs[i] = append(bs[i], b)
			get(b)
		}
		if last == nil {
			last = redis.NewStringCmd(ctx, "get", s.prefix+string(kindNext))
			cmds = append(cmds, last)
		}
	}
	nget := len(cmds)
	cmds = append(cmds, s.checkCmds(ctx)...)
	if err := s.exec(ctx, cmds, false); err != nil {
		return nil, s.errorf("postings: %w", err)
	}
	if err := s.verify(cmds[nget:]); err != nil {
		return nil, err
	}
	if last != nil {
		// Levels above those read: read them too, and remember.
		n, err := strconv.ParseUint(last.Val(), 10, 64)
		if err != nil && last.Err() != redis.Nil {
			return nil, s.errorf("%w: postings: last document number %q", index.ErrCorrupt, last.Val())
		}
		if lt := s.levelOf(n); lt > top {
			more := len(cmds)
			for i, k := range keys {
				if s.leveled(k) {
					for l := top + 1; l <= lt; l++ {
						b := s.levelBucket(k, l)
						bs[i] = append(bs[i], b)
						get(b)
					}
				}
			}
			if err := s.exec(ctx, cmds[more:], false); err != nil {
				return nil, s.errorf("postings: %w", err)
			}
			top = lt
		}
		for old := s.top.Load(); int64(top) > old && !s.top.CompareAndSwap(old, int64(top)); old = s.top.Load() {
		}
	}
	hits := make([][]hit, len(keys))
	for i := range keys {
		for _, b := range bs[i] {
			val := cmds[at[b.key]].(*redis.StringCmd).Val()
			far := fps != nil && b.table
			err := b.scan(val, func(fp simhash.Fingerprint, num uint64) {
				if far && fps[i].Distance(fp) > k {
					return
				}
				hits[i] = append(hits[i], hit{fp, num})
			})
			if err != nil {
				return nil, s.errorf("postings: %w", err)
			}
		}
	}
	return s.resolveHits(ctx, hits, limit)
}

// hit is a posting read from a bucket, before its number is resolved.
type hit struct {
	fp  simhash.Fingerprint
	num uint64
}

// resolveHits turns hits[i] into the postings of key i: the numbers
// resolved to IDs (resolve), those that no longer resolve left out, and
// repeats of an ID within a list. With limit > 0 a list stops at limit
// postings: each round resolves, for every list still short of limit,
// as many of its next hits as it lacks, so that common keys cost limit
// lookups, not one per posting.
func (s *Store) resolveHits(ctx context.Context, hits [][]hit, limit int) ([][]index.Posting, error) {
	out := make([][]index.Posting, len(hits))
	next := make([]int, len(hits)) // hits[i][:next[i]] are done
	seen := make([]map[string]bool, len(hits))
	ids := map[uint64]string{}
	for {
		batch := map[uint64]string{}
		for i, hs := range hits {
			want := len(hs) - next[i]
			if limit > 0 {
				want = min(want, limit-len(out[i]))
			}
			for _, h := range hs[next[i] : next[i]+max(want, 0)] {
				if _, ok := ids[h.num]; !ok {
					batch[h.num] = ""
				}
			}
		}
		if len(batch) == 0 {
			break
		}
		if err := s.resolve(ctx, batch); err != nil {
			return nil, err
		}
		for num, id := range batch {
			ids[num] = id
		}
		for i, hs := range hits {
			for next[i] < len(hs) && (limit < 1 || len(out[i]) < limit) {
				h := hs[next[i]]
				id, ok := ids[h.num]
				if !ok {
					break // for the next round
				}
				next[i]++
				if id == "" {
					continue
				}
				if len(hs) > 1 {
					if seen[i] == nil {
						seen[i] = map[string]bool{}
					}
					if seen[i][id] {
						continue
					}
					seen[i][id] = true
				}
				out[i] = append(out[i], index.Posting{ID: id, Fingerprint: h.fp})
			}
		}
	}
	return out, nil
}

// resolve fills in the ID of every number of ids, in one pipeline of
// HMGETs; numbers without one keep "".
func (s *Store) resolve(ctx context.Context, ids map[uint64]string) error {
	type group struct {
		nums []uint64
		cmd  *redis.SliceCmd
	}
	groups := map[string]*group{}
	for num := range ids {
		k, _ := s.numHash(num)
		g := groups[k]
		if g == nil {
			g = &group{}
			groups[k] = g
		}
		g.nums = append(g.nums, num)
	}
	cmds := make([]redis.Cmder, 0, len(groups))
	for k, g := range groups {
		args := make([]any, 0, 2+len(g.nums))
		args = append(args, "hmget", k)
		for _, n := range g.nums {
			_, f := s.numHash(n)
			args = append(args, f)
		}
		g.cmd = redis.NewSliceCmd(ctx, args...)
		cmds = append(cmds, g.cmd)
	}
	if err := s.exec(ctx, cmds, false); err != nil {
		return s.errorf("postings: resolving numbers: %w", err)
	}
	for _, g := range groups {
		for i, v := range g.cmd.Val() {
			if id, ok := v.(string); ok {
				ids[g.nums[i]] = id
			}
		}
	}
	return nil
}

// Records implements index.Store: one pipeline of GETs.
func (s *Store) Records(ctx context.Context, ids []string) ([][]byte, error) {
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	cmds := make([]redis.Cmder, 0, len(ids)+4)
	for _, id := range ids {
		cmds = append(cmds, redis.NewStringCmd(ctx, "get", s.recordKey(id)))
	}
	cmds = append(cmds, s.checkCmds(ctx)...)
	if err := s.exec(ctx, cmds, false); err != nil {
		return nil, s.errorf("records: %w", err)
	}
	if err := s.verify(cmds[len(ids):]); err != nil {
		return nil, err
	}
	out := make([][]byte, len(ids))
	for i := range ids {
		c := cmds[i].(*redis.StringCmd)
		if c.Err() == redis.Nil {
			continue
		}
		v := c.Val()
		if len(v) < numBytes {
			return nil, s.errorf("%w: record of %q is %d bytes: want at least %d", index.ErrCorrupt, ids[i], len(v), numBytes)
		}
		out[i] = []byte(v[numBytes:])
	}
	return out, nil
}

// applyChunk is the most documents whose writes go in one pipeline;
// applyParallel pipelines run at once.
const (
	applyChunk    = 256
	applyParallel = 4
)

// bigMin is the fewest records a bucket must reach before Apply records
// it among the largest, and topBig how many of those the archive keeps.
const (
	bigMin = 64
	topBig = 100
)

// Apply implements index.Store (see the package doc for the order of
// the writes and what an acknowledged Apply means).
func (s *Store) Apply(ctx context.Context, b *index.Batch) error {
	if err := s.use(); err != nil {
		return err
	}
	defer s.life.RUnlock()
	_, err := s.apply(ctx, b.Writes, nil, false)
	return err
}

// apply is Apply. When lens is not nil, it sets lens[i][j] to the length
// of the bucket of ws[i].Keys[j] right after ws[i]'s posting was
// appended (APPEND's answer), and it returns the writes' numbers. When
// shared (AppendRead), it writes each record only if its ID has none
// (SET NX: a write whose ID is taken gets number 0 and no postings) and
// sets each new number's state to pending, before any posting.
//
// It checks everything first (planApply), then writes in four phases,
// each a pipeline (the third a few at once) that waits for the one
// before: numberApply, unlinkApply, writeNew, finishApply. Every write
// of every phase is safe to repeat (exec may send it again; see each
// phase's doc and the package doc), and a batch applied again after a
// failure completes what the first wrote.
func (s *Store) apply(ctx context.Context, ws []index.Write, lens [][]int64, shared bool) ([]uint64, error) {
	if s.opts.ReadOnly {
		return nil, s.errorf("%w", index.ErrReadOnly)
	}
	if len(ws) == 0 {
		return nil, nil
	}
	b, err := s.planApply(ws, lens, shared)
	if err != nil {
		return nil, err
	}
	if err := s.numberApply(ctx, b); err != nil {
		return nil, err
	}
	s.levelApply(b)
	if err := s.unlinkApply(ctx, b); err != nil {
		return nil, err
	}
	s.writeNew(ctx, b)
	err = s.finishApply(ctx, b)
	if b.firstErr != nil {
		return nil, s.errorf("apply: %w", b.firstErr)
	}
	if err != nil {
		return nil, s.errorf("apply: %w", err)
	}
	if err := s.compactLevels(ctx, b); err != nil {
		return nil, err
	}
	nums := make([]uint64, len(ws))
	for i := range b.ps {
		nums[i] = b.ps[i].num
	}
	return nums, nil
}

// applyPlan is what apply knows of one write.
type applyPlan struct {
	keys, old []bucket
	num, prev uint64 // the new number; the old one (0: none)
}

// applyBatch is one call of apply: its writes and their plans, and what
// the phases found. writeNew's chunks run at once and add to docs, big,
// strays and firstErr under mu; each chunk changes only its own writes'
// plans.
type applyBatch struct {
	ws     []index.Write
	ps     []applyPlan
	lens   [][]int64
	shared bool
	nNew   int    // the writes with a record
	first  uint64 // the new numbers are first to first+nNew-1

	mu       sync.Mutex
	docs     int64 // the change in the number of documents
	big      []redis.Z
	strays   []uint64 // numbers of records that were there unexpectedly
	firstErr error    // writeNew's first error
}

// planApply checks every write's ID and keys and finds their buckets,
// so that a batch with a bad write writes nothing. It sends nothing.
func (s *Store) planApply(ws []index.Write, lens [][]int64, shared bool) (*applyBatch, error) {
	b := &applyBatch{ws: ws, ps: make([]applyPlan, len(ws)), lens: lens, shared: shared}
	for i := range ws {
		w := &ws[i]
		if err := index.CheckID(w.ID); err != nil {
			return nil, s.errorf("apply: write %d: %w", i, err)
		}
		p := &b.ps[i]
		for _, k := range w.Keys {
			bk, err := s.bucketOf(k)
			if err != nil {
				return nil, s.errorf("apply: write %d: %w", i, err)
			}
			p.keys = append(p.keys, bk)
		}
		for _, k := range w.OldKeys {
			bk, err := s.bucketOf(k)
			if err != nil {
				return nil, s.errorf("apply: write %d: %w", i, err)
			}
			p.old = append(p.old, bk)
		}
		if w.Record != nil {
			b.nNew++
		}
	}
	return b, nil
}

// numberApply is phase 1: it hands out the new numbers (INCRBY of N),
// reads the old numbers of replaced and deleted documents (GETRANGE of
// their records) and reads the markers, checking them before anything is
// written. Its one write, the INCRBY, is safe to repeat: a repeat hands
// out a new range and leaves the first unused, a gap.
func (s *Store) numberApply(ctx context.Context, b *applyBatch) error {
	ws, ps := b.ws, b.ps
	var cmds []redis.Cmder
	var incr *redis.IntCmd
	if b.nNew > 0 {
		incr = redis.NewIntCmd(ctx, "incrby", s.prefix+string(kindNext), b.nNew)
		cmds = append(cmds, incr)
	}
	olds := make([]*redis.StringCmd, len(ws))
	for i := range ws {
		if w := &ws[i]; w.Replaces || w.Record == nil {
			olds[i] = redis.NewStringCmd(ctx, "getrange", s.recordKey(w.ID), 0, numBytes-1)
			cmds = append(cmds, olds[i])
		}
	}
	checks := s.checkCmds(ctx)
	cmds = append(cmds, checks...)
	if err := s.exec(ctx, cmds, false); err != nil {
		return s.errorf("apply: %w", err)
	}
	if err := s.verify(checks); err != nil {
		return err
	}
	if incr != nil {
		last := uint64(incr.Val())
		if last > maxNum {
			return s.errorf("apply: document numbers exhausted (%d)", last)
		}
		next := last - uint64(b.nNew) + 1
		b.first = next
		for i := range ws {
			if ws[i].Record != nil {
				ps[i].num = next
				next++
			}
		}
	}
	for i, c := range olds {
		if c != nil && len(c.Val()) == numBytes {
			ps[i].prev = parseNum(c.Val())
		}
	}
	return nil
}

// levelApply puts the leveled postings (keys.go, Passage levels and
// Posting levels) in the buckets of their documents' numbers, known
// now: the new number's level for the postings written, the old
// number's for those removed (planApply found the flat buckets).
func (s *Store) levelApply(b *applyBatch) {
	if !s.levels && !s.postLevels {
		return
	}
	for i := range b.ws {
		w, p := &b.ws[i], &b.ps[i]
		for j, k := range w.Keys {
			if s.leveled(k) {
				p.keys[j] = s.levelBucket(k, s.levelOf(p.num))
			}
		}
		for j, k := range w.OldKeys {
			if s.leveled(k) {
				p.old[j] = s.levelBucket(k, s.levelOf(p.prev))
			}
		}
	}
}

// unlinkApply is phase 2: before anything new is visible, it deletes the
// records of deleted documents (GETDEL), unlinks the old numbers (HDEL
// from the n hash) and removes them from their old postings
// (neardup_v1_rmnum), counting the deleted documents in b.docs. All are
// safe to repeat: HDEL and rmnum remove what is there, and a repeated
// GETDEL only leaves the count (a statistic) off.
func (s *Store) unlinkApply(ctx context.Context, b *applyBatch) error {
	var cmds []redis.Cmder
	var dels []*redis.StringCmd
	for i := range b.ws {
		w, p := &b.ws[i], &b.ps[i]
		if w.Record == nil {
			c := redis.NewStringCmd(ctx, "getdel", s.recordKey(w.ID))
			cmds = append(cmds, c)
			dels = append(dels, c)
		}
		if p.prev == 0 {
			continue
		}
		hk, f := s.numHash(p.prev)
		cmds = append(cmds, redis.NewIntCmd(ctx, "hdel", hk, f))
		for _, bk := range p.old {
			cmds = append(cmds, redis.NewCmd(ctx, "fcall", fnRemoveNum, 1, bk.key, bk.recLen(), bk.numOffset(), bk.numString(p.prev)))
		}
	}
	if err := s.exec(ctx, cmds, true); err != nil {
		return s.errorf("apply: %w", err)
	}
	for _, c := range dels {
		if c.Err() == nil {
			b.docs--
		}
	}
	return nil
}

// writeNew is phase 3: the new numbers, records and postings, a chunk of
// applyChunk documents per writeChunk, applyParallel chunks at once. It
// returns when every chunk is done; the first chunk error is in
// b.firstErr. Its writes are those of writeRecords and appendPostings,
// whose docs say why each is safe to repeat.
func (s *Store) writeNew(ctx context.Context, b *applyBatch) {
	var (
		wg  sync.WaitGroup
		sem = make(chan struct{}, applyParallel)
	)
	for lo := 0; lo < len(b.ws); lo += applyChunk {
		hi := min(lo+applyChunk, len(b.ws))
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			s.writeChunk(ctx, b, lo, hi)
		}()
	}
	wg.Wait()
}

// newRecord is the SET of the record of write i.
type newRecord struct {
	c *redis.StringCmd
	i int
}

// newPosting is the APPEND of the posting of write w under its key k.
type newPosting struct {
	c    *redis.IntCmd
	bk   *bucket
	w, k int
}

// writeChunk writes ws[lo:hi]: numbers and records first (writeRecords),
// then the postings (appendPostings), so that a posting a reader sees
// resolves and its record is there; then it adds what was written to b
// (tallyChunk), even when some commands failed.
func (s *Store) writeChunk(ctx context.Context, b *applyBatch, lo, hi int) {
	sets, err := s.writeRecords(ctx, b, lo, hi)
	taken := map[int]bool{}
	if b.shared {
		for _, r := range sets {
			if r.c.Err() == nil && !b.mine(r) {
				taken[r.i] = true
			}
		}
	}
	var apps []newPosting
	if err == nil {
		apps, err = s.appendPostings(ctx, b, lo, hi, taken)
	}
	b.tallyChunk(sets, taken, apps, err)
}

// mine reports whether the SET r answered with the record of the number
// it writes: it was executed before, its reply lost (a retry).
func (b *applyBatch) mine(r newRecord) bool {
	c := r.c
	return c.Err() == nil && len(c.Val()) >= numBytes && parseNum(c.Val()) == b.ps[r.i].num
}

// writeRecords writes the numbers of ws[lo:hi]'s new documents (one HSET
// per n hash: a batch's numbers are consecutive), when shared their
// states set to pending (HSET of the s hash), and their records (SET ...
// GET, with NX when shared), in one pipeline. A repeat is safe: the
// HSETs write the same values, which nothing else writes before the
// postings, and a repeated SET answers with the record it wrote, which
// mine recognises as the write's own.
func (s *Store) writeRecords(ctx context.Context, b *applyBatch, lo, hi int) ([]newRecord, error) {
	var cmds []redis.Cmder
	var sets []newRecord
	var hset, sset []any
	flush := func() {
		if len(hset) > 0 {
			cmds = append(cmds, redis.NewIntCmd(ctx, hset...))
			hset = nil
		}
		if len(sset) > 0 {
			cmds = append(cmds, redis.NewIntCmd(ctx, sset...))
			sset = nil
		}
	}
	for i := lo; i < hi; i++ {
		w, p := &b.ws[i], &b.ps[i]
		if w.Record == nil {
			continue
		}
		hk, f := s.numHash(p.num)
		if len(hset) == 0 || hset[1] != hk {
			flush()
			hset = []any{"hset", hk}
		}
		hset = append(hset, f, w.ID)
		if b.shared {
			sk, _ := s.stateHash(p.num)
			if len(sset) == 0 {
				sset = []any{"hset", sk}
			}
			sset = append(sset, f, string(index.StatusPending))
		}
		v, err := s.appendRecord(appendNum(make([]byte, 0, numBytes+len(w.Record)), p.num), w.Record, w.ID)
		if err != nil {
			return nil, s.errorf("write %q: %w", w.ID, err)
		}
		args := []any{"set", s.recordKey(w.ID), string(v), "get"}
		if b.shared {
			args = append(args, "nx")
		}
		c := redis.NewStringCmd(ctx, args...)
		cmds = append(cmds, c)
		sets = append(sets, newRecord{c, i})
	}
	flush()
	return sets, s.exec(ctx, cmds, true)
}

// appendPostings appends the postings of ws[lo:hi]'s new documents whose
// ID was not taken (APPEND), in one pipeline. APPEND is not idempotent:
// exec makes its retries safe by appending only a posting the bucket
// lacks (see retry.go and the package doc).
func (s *Store) appendPostings(ctx context.Context, b *applyBatch, lo, hi int, taken map[int]bool) ([]newPosting, error) {
	var cmds []redis.Cmder
	var apps []newPosting
	var rec []byte
	for i := lo; i < hi; i++ {
		w, p := &b.ws[i], &b.ps[i]
		if w.Record == nil || taken[i] {
			continue
		}
		for j := range p.keys {
			bk := &p.keys[j]
			rec = bk.appendRecord(rec[:0], w.Fingerprint, p.num)
			c := redis.NewIntCmd(ctx, "append", bk.key, string(rec))
			cmds = append(cmds, c)
			apps = append(apps, newPosting{c, bk, i, j})
		}
	}
	return apps, s.exec(ctx, cmds, true)
}

// tallyChunk adds a chunk's new documents to b.docs and the numbers of
// records it replaced unexpectedly to b.strays, gives taken writes
// number 0, and, unless err (kept in b.firstErr), notes the postings
// (notePostings). It sends nothing.
func (b *applyBatch) tallyChunk(sets []newRecord, taken map[int]bool, apps []newPosting, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range sets {
		c, p := r.c, &b.ps[r.i]
		switch {
		case c.Err() == redis.Nil, b.mine(r) && (b.shared || p.prev == 0):
			b.docs++
		case c.Err() == nil && len(c.Val()) >= numBytes && !b.shared:
			if n := parseNum(c.Val()); n != p.prev && n != p.num {
				b.strays = append(b.strays, n)
			}
		}
	}
	for i := range taken {
		b.ps[i].num = 0
	}
	if err != nil {
		if b.firstErr == nil {
			b.firstErr = err
		}
		return
	}
	b.notePostings(apps)
}

// notePostings sets lens to the APPENDs' answers and notes in b.big the
// buckets that doubled past bigMin records. b.mu must be held.
func (b *applyBatch) notePostings(apps []newPosting) {
	for _, a := range apps {
		if b.lens != nil {
			b.lens[a.w][a.k] = a.c.Val()
		}
		n := a.c.Val() / int64(a.bk.recLen())
		if n >= bigMin && n&(n-1) == 0 {
			// The member says the record length, which a table
			// key's name does not.
			b.big = append(b.big, redis.Z{Score: float64(n), Member: string(rune(a.bk.recLen())) + a.bk.key})
		}
	}
}

// finishApply is phase 4, run even when writeNew failed: the document
// count (INCRBY of D by b.docs); rarely, unlinking the numbers of records
// that were replaced without the caller knowing (HDEL of b.strays:
// another writer, or a batch applied again); and noting the buckets that
// doubled past bigMin records (ZADD GT, then trimming to topBig). HDEL,
// ZADD GT and the trim are the same when repeated; a repeated INCRBY
// leaves the count (a statistic) off.
func (s *Store) finishApply(ctx context.Context, b *applyBatch) error {
	var cmds []redis.Cmder
	if b.docs != 0 {
		cmds = append(cmds, redis.NewIntCmd(ctx, "incrby", s.prefix+string(kindDocs), b.docs))
	}
	for _, n := range b.strays {
		hk, f := s.numHash(n)
		cmds = append(cmds, redis.NewIntCmd(ctx, "hdel", hk, f))
	}
	if len(b.big) > 0 {
		zk := s.prefix + string(kindBig)
		args := []any{"zadd", zk, "gt"}
		for _, z := range b.big {
			args = append(args, z.Score, z.Member)
		}
		cmds = append(cmds, redis.NewIntCmd(ctx, args...), redis.NewIntCmd(ctx, "zremrangebyrank", zk, 0, -topBig-1))
	}
	return s.exec(ctx, cmds, true)
}

// claimScript sets every field of the claims hash (KEYS[1]) that is
// not set yet to its value (ARGV: field, value, field, value, …) and
// returns the fields' values afterwards: one key, so one slot, so atomic.
var claimScript = redis.NewScript(`
for i = 1, #ARGV, 2 do
  redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i+1])
end
local out = {}
for i = 1, #ARGV, 2 do
  out[#out+1] = redis.call('HGET', KEYS[1], ARGV[i])
end
return out`)

// Claim implements index.Store: the values are fields of one hash, set
// together by one script.
func (s *Store) Claim(ctx context.Context, values map[string][]byte) (map[string][]byte, error) {
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	key := s.metaKey("")
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make(map[string][]byte, len(names))
	if s.opts.ReadOnly {
		vs, err := s.c.HMGet(ctx, key, names...).Result()
		if err != nil {
			return nil, s.errorf("claim: %w", err)
		}
		for i, v := range vs {
			str, ok := v.(string)
			if !ok {
				return nil, s.errorf("claim %q: %w", names[i], index.ErrReadOnly)
			}
			out[names[i]] = []byte(str)
		}
		return out, nil
	}
	args := make([]any, 0, 2*len(names))
	for _, name := range names {
		args = append(args, name, string(values[name]))
	}
	res, err := claimScript.Run(ctx, s.c, []string{key}, args...).Slice()
	if err != nil {
		return nil, s.errorf("claim: %w", err)
	}
	if len(res) != len(names) {
		return nil, s.errorf("claim: %d values for %d names", len(res), len(names))
	}
	for i, v := range res {
		str, _ := v.(string)
		out[names[i]] = []byte(str)
	}
	return out, nil
}

// Stats implements index.Store: Docs is the archive's document count,
// which Apply keeps (an Apply that fails part way may leave it off by
// the documents it wrote), read together with the markers of one slot
// of every master.
func (s *Store) Stats(ctx context.Context) (index.StoreStats, error) {
	if err := s.use(); err != nil {
		return index.StoreStats{}, err
	}
	defer s.life.RUnlock()
	docs, err := s.docs(ctx)
	return index.StoreStats{Docs: docs}, err
}

func (s *Store) docs(ctx context.Context) (int64, error) {
	c := redis.NewStringCmd(ctx, "get", s.prefix+string(kindDocs))
	checks := s.checkCmds(ctx)
	if err := s.exec(ctx, append([]redis.Cmder{c}, checks...), false); err != nil {
		return 0, s.errorf("stats: %w", err)
	}
	if err := s.verify(checks); err != nil {
		return 0, err
	}
	if c.Err() == redis.Nil {
		return 0, nil
	}
	n, err := strconv.ParseInt(c.Val(), 10, 64)
	if err != nil {
		return 0, s.errorf("%w: document count %q", index.ErrCorrupt, c.Val())
	}
	return n, nil
}

// stateSamples is how many state hashes (of numsPerHash states each)
// ClusterStats measures.
const stateSamples = 16

// stateMemory measures the memory of the state hashes of the numbers up
// to last (see ClusterStats.StateBytesPerDoc): mem bytes for n states.
func (s *Store) stateMemory(ctx context.Context, last uint64) (mem, n int64, err error) {
	hashes := last/numsPerHash + 1
	var cmds []redis.Cmder
	for i := uint64(0); i < min(hashes, stateSamples); i++ {
		k, _ := s.stateHash(i * hashes / min(hashes, stateSamples) * numsPerHash)
		cmds = append(cmds, redis.NewIntCmd(ctx, "memory", "usage", k, "samples", 0), redis.NewIntCmd(ctx, "hlen", k))
	}
	if err := s.exec(ctx, cmds, false); err != nil {
		return 0, 0, err
	}
	for i := 0; i < len(cmds); i += 2 {
		mem += cmds[i].(*redis.IntCmd).Val()
		n += cmds[i+1].(*redis.IntCmd).Val()
	}
	return mem, n, nil
}

// ClusterStats returns what the store holds and how much memory the
// cluster uses, and the largest buckets (up to max). It checks the
// markers of all 16384 slots.
func (s *Store) ClusterStats(ctx context.Context, max int) (index.ClusterStats, error) {
	if err := s.use(); err != nil {
		return index.ClusterStats{}, err
	}
	defer s.life.RUnlock()
	st := index.ClusterStats{BucketBits: s.bucketBits}
	bad, err := s.checkAllMarkers(ctx)
	if err != nil {
		return st, err
	}
	if len(bad) > 0 {
		return st, s.lostError(bad)
	}
	if st.Docs, err = s.docs(ctx); err != nil {
		return st, err
	}
	var mu sync.Mutex
	err = s.c.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		v, err := c.Info(ctx, "memory", "replication").Result()
		if err != nil {
			return err
		}
		mem, _ := strconv.ParseInt(infoField(v, "used_memory"), 10, 64)
		reps, _ := strconv.Atoi(infoField(v, "connected_slaves"))
		mu.Lock()
		st.UsedMemory += mem
		st.Masters++
		st.Replicas += reps
		mu.Unlock()
		return nil
	})
	if err != nil {
		return st, s.errorf("stats: %w", err)
	}
	if st.Docs > 0 {
		st.BytesPerDoc = float64(st.UsedMemory) / float64(st.Docs)
	}
	if n, err := s.c.Get(ctx, s.prefix+string(kindNext)).Int64(); err == nil {
		st.LastNumber = n
	} else if err != redis.Nil {
		return st, s.errorf("stats: %w", err)
	}
	if st.LastNumber > 0 {
		mem, n, err := s.stateMemory(ctx, uint64(st.LastNumber))
		if err != nil {
			return st, s.errorf("stats: states: %w", err)
		}
		if n > 0 {
			st.StateBytesPerDoc, st.StateSamples = float64(mem)/float64(n), n
		}
	}
	if max <= 0 {
		return st, nil
	}
	keys, err := s.c.ZRevRange(ctx, s.prefix+string(kindBig), 0, int64(max)-1).Result()
	if err != nil {
		return st, s.errorf("stats: %w", err)
	}
	cmds := make([]redis.Cmder, len(keys))
	for i, k := range keys {
		if len(k) < 2 || k[0] == 0 || k[0] >= 0x80 {
			return st, s.errorf("%w: largest-bucket entry %q", index.ErrCorrupt, k)
		}
		cmds[i] = redis.NewIntCmd(ctx, "strlen", k[1:])
	}
	if err := s.exec(ctx, cmds, false); err != nil {
		return st, s.errorf("stats: %w", err)
	}
	for i, k := range keys {
		n := cmds[i].(*redis.IntCmd).Val()
		st.Largest = append(st.Largest, index.BigKey{Key: s.describe(k[1:]), Bytes: n, Postings: n / int64(k[0])})
	}
	sortBig(st.Largest)
	return st, nil
}

// reportLargest is how many of the largest buckets ClusterReport
// names.
const reportLargest = 5

// ClusterReport implements index.ClusterReporter: the ClusterStats of
// the archive, with its reportLargest largest buckets.
func (s *Store) ClusterReport(ctx context.Context) (*index.ClusterStats, error) {
	st, err := s.ClusterStats(ctx, reportLargest)
	if err != nil {
		return nil, err
	}
	return &st, nil
}

func sortBig(b []index.BigKey) {
	for i := 1; i < len(b); i++ {
		for j := i; j > 0 && b[j].Bytes > b[j-1].Bytes; j-- {
			b[j], b[j-1] = b[j-1], b[j]
		}
	}
}

var _ index.Store = (*Store)(nil)
var _ index.ClusterReporter = (*Store)(nil)
var _ fmt.Stringer = (*Store)(nil)

// compactLevels rewrites at their exact size (neardup_v1_compact) the
// buckets of the level below that of b's new numbers, whose postings
// are all written (keys.go, Posting levels), a share per number: the
// batches that take the first 2^-levelShift of level l's numbers
// compact level l-1, bucket j by the batch holding the number at j's
// place in that stretch, so that each bucket is compacted once, and the
// cost, one function call per 2^(levelShift-1) postings or fewer, is
// spread over those batches. A posting a slow writer appends to level
// l-1 afterwards grows its bucket again (APPEND; Compact shrinks it).
// The tables and bands are those of b's keys; a function call is safe
// to repeat.
func (s *Store) compactLevels(ctx context.Context, b *applyBatch) error {
	if !s.postLevels || b.nNew == 0 {
		return nil
	}
	type group struct {
		kind  index.Kind
		table uint8
		width int
	}
	var groups []group
	for i := range b.ws {
		for _, k := range b.ws[i].Keys {
			if k.Kind == index.KindPassage {
				continue
			}
			g := group{k.Kind, k.Table, 64}
			if k.Kind == index.KindTable {
				g.width = int(k.Bits)
			}
			if !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
	}
	first, last := b.first, b.first+uint64(b.nNew)-1
	var cmds []redis.Cmder
	for l := max(s.levelOf(first), 1); l <= s.levelOf(last); l++ {
		start := (uint64(1)<<l - 1) << s.bucketBits
		w := s.bucketBits + l - levelShift // the stretch is 2^w numbers
		p0, p1 := max(first, start)-start, min(last-start, uint64(1)<<w-1)
		if p0 > p1 {
			continue
		}
		for _, g := range groups {
			bb := min(g.width, s.bucketBits-levelShift+l-1, maxLevelBits)
			d := w - bb // bucket j is compacted by number start + j<<d
			for j := (p0 + 1<<d - 1) >> d; j <= p1>>d; j++ {
				cmds = append(cmds, redis.NewCmd(ctx, "fcall", fnCompact, 1, s.levelKey(g.kind, g.table, l-1, j, bb)))
			}
		}
	}
	if err := s.exec(ctx, cmds, true); err != nil {
		return s.errorf("apply: compacting a level: %w", err)
	}
	return nil
}

// Compact rewrites every posting bucket of the archive at its exact
// size, a function call per bucket, a SCAN per master, and returns the
// buckets rewritten. APPEND grows strings by doubling, so buckets hold
// about 1.4 times their data between compactions (see bench/redisarchive);
// compacting returns that room, until they grow again. It may run while
// others write: each bucket is rewritten atomically.
func (s *Store) Compact(ctx context.Context) (int64, error) {
	if err := s.use(); err != nil {
		return 0, err
	}
	defer s.life.RUnlock()
	if s.opts.ReadOnly {
		return 0, s.errorf("%w", index.ErrReadOnly)
	}
	var mu sync.Mutex
	var n int64
	err := s.c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		var cursor uint64
		for {
			keys, next, err := m.Scan(ctx, cursor, s.prefix+"[tbcp]*", 1000).Result()
			if err != nil {
				return err
			}
			if len(keys) > 0 {
				pipe := m.Pipeline()
				for _, k := range keys {
					pipe.FCall(ctx, fnCompact, []string{k})
				}
				if _, err := pipe.Exec(ctx); err != nil {
					return err
				}
				mu.Lock()
				n += int64(len(keys))
				mu.Unlock()
			}
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	})
	if err != nil {
		return n, s.errorf("compact: %w", err)
	}
	return n, nil
}

// scanCount is SCAN's COUNT hint, and the most record keys read in one
// pipeline, when ScanRecords lists an archive.
const scanCount = 512

// ScanRecords implements index.RecordScanner: it SCANs every master for
// the archive's record keys (an archive name holds no glob character, so
// the pattern matches this archive's records only) and reads them in
// pipelines of GETs, the masters one after the other. fn runs on one
// goroutine at a time. A record written or deleted during the scan may
// be seen or not; one that stays is seen once (SCAN may return a key
// twice, which ScanRecords skips).
func (s *Store) ScanRecords(ctx context.Context, fn func(id string, rec []byte) error) error {
	if err := s.use(); err != nil {
		return err
	}
	defer s.life.RUnlock()
	pre := s.prefix + string(kindRecord)
	var masters []*redis.Client
	var mu sync.Mutex
	if err := s.c.ForEachMaster(ctx, func(_ context.Context, m *redis.Client) error {
		mu.Lock()
		masters = append(masters, m)
		mu.Unlock()
		return nil
	}); err != nil {
		return s.errorf("scan records: %w", err)
	}
	for _, m := range masters {
		seen := make(map[string]bool)
		it := m.ScanType(ctx, 0, pre+"*", scanCount, "string").Iterator()
		var keys []string
		type scanned struct {
			id  string
			num uint64
			rec []byte
		}
		var recs []scanned
		flush := func() error {
			if len(keys) == 0 {
				return nil
			}
			cmds, err := m.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, k := range keys {
					p.Get(ctx, k)
				}
				return nil
			})
			if err != nil && err != redis.Nil {
				return s.errorf("scan records: %w", err)
			}
			for i, c := range cmds {
				v, err := c.(*redis.StringCmd).Result()
				if err == redis.Nil {
					continue // deleted since the SCAN
				}
				if err != nil {
					return s.errorf("scan records: %w", err)
				}
				if len(v) < numBytes {
					what := strconv.Quote(keys[i][len(pre):])
					if s.hashedKeys {
						what = s.describe(keys[i])
					}
					return s.errorf("%w: record %s is %d bytes: want at least %d", index.ErrCorrupt, what, len(v), numBytes)
				}
				recs = append(recs, scanned{keys[i][len(pre):], parseNum(v), []byte(v[numBytes:])})
			}
			if s.hashedKeys {
				// The key holds a hash: the IDs are the numbers'.
				ids := map[uint64]string{}
				for _, r := range recs {
					ids[r.num] = ""
				}
				if err := s.resolve(ctx, ids); err != nil {
					return s.errorf("scan records: %w", err)
				}
				for i := range recs {
					recs[i].id = ids[recs[i].num]
				}
			}
			for _, r := range recs {
				if r.id == "" {
					continue // deleted or replaced since the GET
				}
				if err := fn(r.id, r.rec); err != nil {
					return err
				}
			}
			keys, recs = keys[:0], recs[:0]
			return nil
		}
		for it.Next(ctx) {
			k := it.Val()
			if seen[k] {
				continue
			}
			seen[k] = true
			if keys = append(keys, k); len(keys) == scanCount {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := it.Err(); err != nil {
			return s.errorf("scan records: %w", err)
		}
		if err := flush(); err != nil {
			return err
		}
	}
	return nil
}
