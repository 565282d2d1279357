package index

import (
	"hash/maphash"
	"runtime"
	"slices"
)

// cands is an Ingest call's candidate bookkeeping: one entry for each
// document that the call's documents saw, with the number it was last
// seen under and its record. A batch at 10^6 archived documents sees
// tens of thousands of postings, so the table is built on every core,
// in shards, and the ordered decisions reach a document's candidates
// by their indices; only the few looked up by ID afterwards (markers,
// clusters' originals, the matches of a resumed document) are found in
// the caller's goroutine.
//
// A document is known by its ID, hashed, unless byNum says that the
// number it was seen under is its own, the same wherever it is seen (a
// store's number, Posting.Num): then by that number, without hashing
// or comparing its ID. find reaches such an entry by ID through
// resolve, which returns the number of an ID.
type cands struct {
	seed      maphash.Seed
	mask      uint64
	shards    []map[string]int32 // ID → index in c, less off of its shard
	numShards []map[uint64]int32 // number (byNum) → index in c, less off of its shard
	off       []int32
	extra     map[string]int32 // ID → index in c of the entries added after build
	c         []cand
	byNum     func(uint64) bool // nil: every document by ID
	resolve   func(string) uint64
	// changed counts the entries whose records changed since the
	// call's candidates were first confirmed (cand.changed).
	changed int
}

// cand is one candidate of an Ingest call.
type cand struct {
	id  string
	num uint64
	doc *Doc // its record; nil: none, or not read yet
	// read: doc was read (or set); changed: it changed since the
	// candidates were first confirmed.
	read, changed bool
}

// maxCandShards bounds the shards of cands (their number is a byte).
const maxCandShards = 64

// build fills cs with the documents seen[i] of the documents order (of
// n in all), and returns, for each document, the indices of the
// candidates it saw, sorted, without repeats. The numbers kept are
// those last seen, in order's order.
func (cs *cands) build(n int, order []int, seen [][]Earlier) [][]int32 {
	shards := 1 // a power of 2, for the mask
	for shards < runtime.GOMAXPROCS(0) && shards < maxCandShards {
		shards *= 2
	}
	cs.seed, cs.mask = maphash.MakeSeed(), uint64(shards-1)
	at := make([]int, len(order)+1) // where document order[j]'s postings start in flat
	for j, i := range order {
		at[j+1] = at[j] + len(seen[i])
	}
	total := at[len(order)]
	flat := make([]int32, total)    // the candidate index of each posting
	shardOf := make([]uint8, total) // and its shard, its top bit set for one by number
	parallel(len(order), func(j int) {
		for p, e := range seen[order[j]] {
			if cs.byNum != nil && cs.byNum(e.Num) {
				shardOf[at[j]+p] = 0x80 | cs.numShard(e.Num)
			} else {
				shardOf[at[j]+p] = uint8(maphash.String(cs.seed, e.ID) & cs.mask)
			}
		}
	})
	cs.shards = make([]map[string]int32, shards)
	cs.numShards = make([]map[uint64]int32, shards)
	local := make([][]cand, shards)
	spread(shards, func(s int) {
		m := map[string]int32{}
		nm := make(map[uint64]int32, total/shards/2)
		var c []cand
		for j, i := range order {
			for p, e := range seen[i] {
				q := at[j] + p
				if shardOf[q]&0x7f != uint8(s) {
					continue
				}
				var k int32
				if shardOf[q]&0x80 != 0 {
					var ok bool
					if k, ok = nm[e.Num]; !ok {
						k = int32(len(c))
						nm[e.Num] = k
						c = append(c, cand{id: e.ID, num: e.Num})
					}
				} else {
					var ok bool
					if k, ok = m[e.ID]; !ok {
						k = int32(len(c))
						m[e.ID] = k
						c = append(c, cand{id: e.ID})
					}
					c[k].num = e.Num
				}
				flat[q] = k
			}
		}
		cs.shards[s], cs.numShards[s], local[s] = m, nm, c
	})
	cs.off = make([]int32, shards)
	size := 0
	for s := range local {
		cs.off[s] = int32(size)
		size += len(local[s])
	}
	cs.c = make([]cand, size)
	spread(shards, func(s int) { copy(cs.c[cs.off[s]:], local[s]) })
	idx := make([][]int32, n)
	parallel(len(order), func(j int) {
		ks := flat[at[j]:at[j+1]]
		for p := range ks {
			ks[p] += cs.off[shardOf[at[j]+p]&0x7f]
		}
		slices.Sort(ks)
		idx[order[j]] = slices.Compact(ks)
	})
	return idx
}

// numShard returns the shard of the candidate known by the number num.
func (cs *cands) numShard(num uint64) uint8 {
	return uint8((num * 0x9e3779b97f4a7c15 >> 32) & cs.mask)
}

// find returns the index of the candidate with the ID id.
func (cs *cands) find(id string) (int32, bool) {
	if k, ok := cs.findID(id); ok {
		return k, true
	}
	if cs.resolve != nil && len(cs.numShards) > 0 {
		if num := cs.resolve(id); num != 0 && cs.byNum(num) {
			return cs.findNum(num)
		}
	}
	return 0, false
}

// findID returns the index of the candidate known by the ID id (not
// by number).
func (cs *cands) findID(id string) (int32, bool) {
	if len(cs.shards) > 0 {
		s := maphash.String(cs.seed, id) & cs.mask
		if k, ok := cs.shards[s][id]; ok {
			return cs.off[s] + k, true
		}
	}
	k, ok := cs.extra[id]
	return k, ok
}

// findNum returns the index of the candidate known by the number num
// (see byNum).
func (cs *cands) findNum(num uint64) (int32, bool) {
	s := cs.numShard(num)
	k, ok := cs.numShards[s][num]
	return cs.off[s] + k, ok
}

// add returns the index of the candidate with the ID id, added (with
// the number num, no record read) if there is none.
func (cs *cands) add(id string, num uint64) int32 {
	if num != 0 && cs.byNum != nil && cs.byNum(num) && len(cs.numShards) > 0 {
		if k, ok := cs.findNum(num); ok {
			return k
		}
	}
	if num >= firstFresh {
		// A written document: known by its ID, never by a store's
		// number (it is not stored while its Ingest runs), so not
		// resolved.
		if k, ok := cs.findID(id); ok {
			return k
		}
	} else if k, ok := cs.find(id); ok {
		return k
	}
	if cs.extra == nil {
		cs.extra = map[string]int32{}
	}
	k := int32(len(cs.c))
	cs.c = append(cs.c, cand{id: id, num: num})
	cs.extra[id] = k
	return k
}

// set sets the record of the candidate k to doc, which changed since
// the candidates were first confirmed.
func (cs *cands) set(k int32, doc *Doc) {
	c := &cs.c[k]
	c.doc, c.read = doc, true
	if !c.changed {
		c.changed = true
		cs.changed++
	}
}

// forget marks the record of the candidate k unread (to read again),
// changed.
func (cs *cands) forget(k int32) {
	cs.set(k, nil)
	cs.c[k].read = false
}

// anyChanged reports whether a candidate of ks changed since the
// candidates were first confirmed.
func (cs *cands) anyChanged(ks []int32) bool {
	if cs.changed == 0 {
		return false
	}
	return slices.ContainsFunc(ks, func(k int32) bool { return cs.c[k].changed })
}
