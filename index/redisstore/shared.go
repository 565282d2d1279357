package redisstore

import (
	"context"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

// The store is an index.Shared: AppendRead and Reappend write new
// documents and read what came before them, and every document they
// write has a state (s hashes, grouped by number like the n hashes)
// that Mark and Decide change with the functions of the ingest library,
// each on one hash, so atomically. A state is a status byte ('p', 'o',
// 'd') then the 5-byte numbers of the document's markers.

var _ index.Shared = (*Store)(nil)

// AppendRead implements index.Shared. It needs no script: the numbers,
// states and records are written first (SET NX: a taken ID is left
// alone and gets number 0), then the postings with APPEND, whose answer
// (the bucket's length with the new posting) says where the posting
// landed; everything before it is read back (GETRANGE) and its numbers
// resolved. Appends to one bucket are totally ordered, so of two
// documents sharing a key exactly one sees the other under it. A
// passage key of an archive of passage levels has a bucket per level:
// its Before is its own level's postings before its own and every
// other level's postings, read after the appends up to the level of N
// read then, so that of two documents sharing it at least one sees the
// other (both may; index.Ingest splits what a document saw by number,
// not by order).
func (s *Store) AppendRead(ctx context.Context, ws []index.Write) ([]index.Appended, error) {
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	for i := range ws {
		if ws[i].Replaces || ws[i].Record == nil {
			return nil, s.errorf("append-read: write %d: only new documents", i)
		}
	}
	lens := make([][]int64, len(ws))
	for i := range ws {
		lens[i] = make([]int64, len(ws[i].Keys))
	}
	nums, err := s.apply(ctx, ws, lens, true)
	if err != nil {
		return nil, err
	}
	return s.readBefore(ctx, ws, nums, lens)
}

// Reappend implements index.Shared: each write's number is read from
// its record; a bucket that lacks the write's posting gets it appended
// (APPEND, then read as AppendRead reads), one that has it is read up to
// it. Only the writer of a document appends its postings, so reading
// first and appending after does not race.
func (s *Store) Reappend(ctx context.Context, ws []index.Write) ([]index.Appended, error) {
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	if s.opts.ReadOnly {
		return nil, s.errorf("%w", index.ErrReadOnly)
	}
	cmds := make([]redis.Cmder, len(ws))
	for i := range ws {
		cmds[i] = redis.NewStringCmd(ctx, "getrange", s.recordKey(ws[i].ID), 0, numBytes-1)
	}
	if err := s.exec(ctx, cmds, false); err != nil {
		return nil, s.errorf("reappend: %w", err)
	}
	nums := make([]uint64, len(ws))
	for i, c := range cmds {
		v := c.(*redis.StringCmd).Val()
		if len(v) != numBytes {
			return nil, s.errorf("reappend %q: %w", ws[i].ID, index.ErrNotFound)
		}
		nums[i] = parseNum(v)
	}
	// The number's ID and state (idempotent), and the buckets.
	type read struct {
		i, j int
		bk   bucket
		c    *redis.StringCmd
	}
	var reads []read
	cmds = cmds[:0]
	for i := range ws {
		hk, f := s.numHash(nums[i])
		sk, _ := s.stateHash(nums[i])
		cmds = append(cmds, redis.NewIntCmd(ctx, "hset", hk, f, ws[i].ID),
			redis.NewBoolCmd(ctx, "hsetnx", sk, f, string(index.StatusPending)))
		for j, k := range ws[i].Keys {
			bk, err := s.bucketFor(k, nums[i])
			if err != nil {
				return nil, s.errorf("reappend: %w", err)
			}
			c := redis.NewStringCmd(ctx, "get", bk.key)
			reads = append(reads, read{i, j, bk, c})
			cmds = append(cmds, c)
		}
	}
	if err := s.exec(ctx, cmds, true); err != nil {
		return nil, s.errorf("reappend: %w", err)
	}
	lens := make([][]int64, len(ws))
	for i := range ws {
		lens[i] = make([]int64, len(ws[i].Keys))
	}
	type app struct {
		i, j int
		c    *redis.IntCmd
	}
	var apps []app
	cmds = cmds[:0]
	var rec []byte
	for _, r := range reads {
		val := r.c.Val()
		found := false
		err := r.bk.scan(val, func(_ simhash.Fingerprint, num uint64) {
			found = found || num == nums[r.i]
		})
		if err != nil {
			return nil, s.errorf("reappend: %w", err)
		}
		if found {
			lens[r.i][r.j] = int64(len(val))
			continue
		}
		rec = r.bk.appendRecord(rec[:0], ws[r.i].Fingerprint, nums[r.i])
		c := redis.NewIntCmd(ctx, "append", r.bk.key, string(rec))
		apps = append(apps, app{r.i, r.j, c})
		cmds = append(cmds, c)
	}
	if err := s.exec(ctx, cmds, true); err != nil {
		return nil, s.errorf("reappend: %w", err)
	}
	for _, a := range apps {
		lens[a.i][a.j] = a.c.Val()
	}
	return s.readBefore(ctx, ws, nums, lens)
}

// readBefore reads each bucket of ws[i].Keys[j] up to lens[i][j] bytes,
// where the write's own posting ends, and returns the postings before
// it, with their IDs resolved. A removal (a delete elsewhere) may have
// shifted a bucket since, so the posting is found by its number, not by
// its offset. Writes whose number is 0 get none.
func (s *Store) readBefore(ctx context.Context, ws []index.Write, nums []uint64, lens [][]int64) ([]index.Appended, error) {
	type read struct {
		i, j int
		bk   bucket
		c    *redis.StringCmd
	}
	top, err := s.topLevel(ctx, ws, nums)
	if err != nil {
		return nil, err
	}
	var reads []read
	var cmds []redis.Cmder
	out := make([]index.Appended, len(ws))
	for i := range ws {
		if nums[i] == 0 {
			continue
		}
		out[i] = index.Appended{Num: nums[i], Before: make([][]index.Earlier, len(ws[i].Keys))}
		for j, k := range ws[i].Keys {
			bk, err := s.bucketFor(k, nums[i])
			if err != nil {
				return nil, s.errorf("append-read: %w", err)
			}
			if s.leveled(k) {
				// The other levels, whole: of two documents
				// under this key at different levels, the
				// second to append finds the first's posting
				// there (its level is at most the highest
				// level of a number handed out before this
				// read, top).
				own := s.levelOf(nums[i])
				for l := 0; l <= top; l++ {
					if l != own {
						lb := s.levelBucket(k, l)
						c := redis.NewStringCmd(ctx, "get", lb.key)
						reads = append(reads, read{i, j, lb, c})
						cmds = append(cmds, c)
					}
				}
			}
			if lens[i][j] <= int64(bk.recLen()) {
				continue // the bucket's first posting
			}
			c := redis.NewStringCmd(ctx, "getrange", bk.key, 0, lens[i][j]-1)
			reads = append(reads, read{i, j, bk, c})
			cmds = append(cmds, c)
		}
	}
	if err := s.exec(ctx, cmds, false); err != nil {
		return nil, s.errorf("append-read: %w", err)
	}
	ids := map[uint64]string{}
	for _, r := range reads {
		val := r.c.Val()
		n := r.bk.recLen()
		val = val[:len(val)/n*n]
		var all []index.Earlier
		err := r.bk.scan(val, func(fp simhash.Fingerprint, num uint64) {
			all = append(all, index.Earlier{Num: num, Fingerprint: fp})
		})
		if err != nil {
			return nil, s.errorf("append-read: %w", err)
		}
		for k, e := range all {
			if e.Num == nums[r.i] {
				all = all[:k]
				break
			}
		}
		for _, e := range all {
			ids[e.Num] = ""
		}
		out[r.i].Before[r.j] = append(out[r.i].Before[r.j], all...)
	}
	if len(ids) > 0 {
		if err := s.resolve(ctx, ids); err != nil {
			return nil, err
		}
	}
	for i := range out {
		for j := range out[i].Before {
			for k := range out[i].Before[j] {
				out[i].Before[j][k].ID = ids[out[i].Before[j][k].Num]
			}
		}
	}
	return out, nil
}

// topLevel returns, when some write of ws has a leveled key (keys.go,
// Passage levels and Posting levels), the highest level of the document
// numbers handed out so far (a GET of N, after the writes' appends),
// and 0 otherwise.
func (s *Store) topLevel(ctx context.Context, ws []index.Write, nums []uint64) (int, error) {
	if !s.levels && !s.postLevels {
		return 0, nil
	}
	need := false
	for i := range ws {
		need = need || nums[i] != 0 && slices.ContainsFunc(ws[i].Keys, s.leveled)
	}
	if !need {
		return 0, nil
	}
	c := redis.NewStringCmd(ctx, "get", s.prefix+string(kindNext))
	if err := s.exec(ctx, []redis.Cmder{c}, false); err != nil {
		return 0, s.errorf("append-read: %w", err)
	}
	n, err := strconv.ParseUint(c.Val(), 10, 64)
	if err != nil {
		return 0, s.errorf("%w: append-read: last document number %q", index.ErrCorrupt, c.Val())
	}
	return s.levelOf(n), nil
}

// parseState decodes a state as the functions store it.
func parseState(v string) (index.State, error) {
	if v == "" {
		return index.State{}, nil
	}
	st := index.State{Status: index.Status(v[0])}
	switch st.Status {
	case index.StatusPending, index.StatusOriginal, index.StatusDuplicate:
	default:
		return st, errorState(v)
	}
	rest := v[1:]
	if len(rest)%numBytes != 0 {
		return st, errorState(v)
	}
	for ; len(rest) > 0; rest = rest[numBytes:] {
		st.Markers = append(st.Markers, parseNum(rest))
	}
	return st, nil
}

type errorState string

func (e errorState) Error() string { return "invalid document state " + string(e) }
func (e errorState) Unwrap() error { return index.ErrCorrupt }

// States implements index.Shared: one pipeline of HGETs of states and
// IDs, with the markers of one slot per master.
func (s *Store) States(ctx context.Context, nums []uint64) ([]index.State, error) {
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	cmds := make([]redis.Cmder, 0, 2*len(nums)+4)
	for _, n := range nums {
		sk, f := s.stateHash(n)
		hk, _ := s.numHash(n)
		cmds = append(cmds, redis.NewStringCmd(ctx, "hget", sk, f), redis.NewStringCmd(ctx, "hget", hk, f))
	}
	checks := s.checkCmds(ctx)
	cmds = append(cmds, checks...)
	if err := s.exec(ctx, cmds, false); err != nil {
		return nil, s.errorf("states: %w", err)
	}
	if err := s.verify(checks); err != nil {
		return nil, err
	}
	out := make([]index.State, len(nums))
	for i := range nums {
		st, err := parseState(cmds[2*i].(*redis.StringCmd).Val())
		if err != nil {
			return nil, s.errorf("states: document number %d: %w", nums[i], err)
		}
		st.ID = cmds[2*i+1].(*redis.StringCmd).Val()
		out[i] = st
	}
	return out, nil
}

// Mark implements index.Shared: a function call per mark.
func (s *Store) Mark(ctx context.Context, marks []index.Mark) ([]index.State, error) {
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	if s.opts.ReadOnly {
		return nil, s.errorf("%w", index.ErrReadOnly)
	}
	cmds := make([]redis.Cmder, len(marks))
	for i, m := range marks {
		sk, f := s.stateHash(m.Target)
		cmds[i] = redis.NewCmd(ctx, "fcall", fnMark, 1, sk, f, numString(m.By))
	}
	return s.runStates(ctx, "mark", cmds)
}

// Decide implements index.Shared: the decisions' records first, in one
// pipeline of SET XX (the number kept in front: a record deleted
// meanwhile stays deleted), then a function call per decision.
func (s *Store) Decide(ctx context.Context, ds []index.Decision) ([]index.State, error) {
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.life.RUnlock()
	if s.opts.ReadOnly {
		return nil, s.errorf("%w", index.ErrReadOnly)
	}
	var sets []redis.Cmder
	for _, d := range ds {
		if d.Record == nil {
			continue
		}
		if err := index.CheckID(d.ID); err != nil {
			return nil, s.errorf("decide %d: %w", d.Num, err)
		}
		v, err := s.appendRecord(appendNum(make([]byte, 0, numBytes+len(d.Record)), d.Num), d.Record, d.ID)
		if err != nil {
			return nil, s.errorf("decide %d: %w", d.Num, err)
		}
		sets = append(sets, redis.NewStatusCmd(ctx, "set", s.recordKey(d.ID), string(v), "xx"))
	}
	if err := s.exec(ctx, sets, true); err != nil {
		return nil, s.errorf("decide: records: %w", err)
	}
	cmds := make([]redis.Cmder, len(ds))
	for i, d := range ds {
		sk, f := s.stateHash(d.Num)
		want, dead := "d", []byte(nil)
		if d.Original {
			want = "o"
			for _, n := range d.Dead {
				dead = appendNum(dead, n)
			}
		}
		cmds[i] = redis.NewCmd(ctx, "fcall", fnDecide, 1, sk, f, want, string(dead))
	}
	return s.runStates(ctx, "decide", cmds)
}

// runStates runs function calls that return states, checking the
// markers of one slot per master in the same pipeline.
func (s *Store) runStates(ctx context.Context, what string, cmds []redis.Cmder) ([]index.State, error) {
	n := len(cmds)
	checks := s.checkCmds(ctx)
	cmds = append(cmds, checks...)
	if err := s.exec(ctx, cmds, true); err != nil {
		return nil, s.errorf("%s: %w", what, err)
	}
	if err := s.verify(checks); err != nil {
		return nil, err
	}
	out := make([]index.State, n)
	for i := 0; i < n; i++ {
		v, _ := cmds[i].(*redis.Cmd).Val().(string)
		st, err := parseState(v)
		if err != nil {
			return nil, s.errorf("%s: %w", what, err)
		}
		out[i] = st
	}
	return out, nil
}
