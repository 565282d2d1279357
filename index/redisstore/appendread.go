package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

// Earlier is a posting that was in a bucket before a document's own, as
// AppendRead reports it: the document number (ingest order), the ID it
// resolves to ("" if the document has been deleted or replaced since),
// and, under table keys, its fingerprint.
type Earlier struct {
	Num         uint64
	ID          string
	Fingerprint simhash.Fingerprint
}

// AppendRead is the primitive for deduplicating with many writers at
// once (it is not part of index.Store). It writes ws as Apply does — new
// documents only: a Write that replaces or deletes is refused — and
// returns, for each write, its document number and, for each of its
// Keys, the postings under that key that reached the bucket before the
// write's own: the documents that came first there.
//
// It needs no script: the numbers and records are written first, then
// the postings with APPEND, whose answer (the bucket's length with the
// new posting) says where the posting landed; everything before it is
// read back (GETRANGE) and its numbers resolved. Appends to one bucket
// are totally ordered, so of two documents sharing a key exactly one
// sees the other under it; over several shared keys each may see the
// other under a different one, and their numbers (handed out in one
// INCRBY per batch, increasing) break the tie. A dedup engine on top:
// ingest a batch with AppendRead, confirm each document against the
// earlier ones it saw (and those of its own batch before it), and mark
// the duplicates with a claim (SET NX GET) keyed by the document, so
// that a rerun after a crash agrees with the first run.
func (s *Store) AppendRead(ctx context.Context, ws []index.Write) ([]uint64, [][][]Earlier, error) {
	if err := s.use(); err != nil {
		return nil, nil, err
	}
	defer s.life.RUnlock()
	for i := range ws {
		if ws[i].Replaces || ws[i].Record == nil {
			return nil, nil, s.errorf("append-read: write %d: only new documents", i)
		}
	}
	lens := make([][]int64, len(ws))
	for i := range ws {
		lens[i] = make([]int64, len(ws[i].Keys))
	}
	nums, err := s.apply(ctx, ws, lens)
	if err != nil {
		return nil, nil, err
	}
	// Read each bucket up to the end of the write's own posting. A
	// removal (a delete elsewhere) may have shifted the bucket since, so
	// the posting is found by its number, not by its offset.
	type read struct {
		i, j int
		bk   bucket
		c    *redis.StringCmd
	}
	var reads []read
	var cmds []redis.Cmder
	for i := range ws {
		for j, k := range ws[i].Keys {
			bk, err := s.bucketOf(k)
			if err != nil {
				return nil, nil, s.errorf("append-read: %w", err)
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
		return nil, nil, s.errorf("append-read: %w", err)
	}
	out := make([][][]Earlier, len(ws))
	for i := range ws {
		out[i] = make([][]Earlier, len(ws[i].Keys))
	}
	ids := map[uint64]string{}
	for _, r := range reads {
		val := r.c.Val()
		n := r.bk.recLen()
		val = val[:len(val)/n*n]
		var all []Earlier
		err := r.bk.scan(val, func(fp simhash.Fingerprint, num uint64) {
			all = append(all, Earlier{Num: num, Fingerprint: fp})
		})
		if err != nil {
			return nil, nil, s.errorf("append-read: %w", err)
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
		out[r.i][r.j] = all
	}
	if len(ids) > 0 {
		if err := s.resolve(ctx, ids); err != nil {
			return nil, nil, err
		}
	}
	for i := range out {
		for j := range out[i] {
			for k := range out[i][j] {
				out[i][j][k].ID = ids[out[i][j][k].Num]
			}
		}
	}
	return nums, out, nil
}
