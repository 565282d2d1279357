package index

import (
	"hash/maphash"
	"runtime"
	"slices"
)

// cands is an Ingest call's candidate bookkeeping: one entry for each
// document (by ID) that the call's documents saw, with the number it
// was last seen under and its record. A batch at 10^6 archived
// documents sees tens of thousands of postings, so the table is built
// on every core, in shards by a hash of the ID, and the ordered
// decisions reach a document's candidates by their indices; only the
// few looked up by ID afterwards (markers, clusters' originals, the
// matches of a resumed document) are hashed in the caller's goroutine.
type cands struct {
	seed   maphash.Seed
	mask   uint64
	shards []map[string]int32 // ID → index in c, less off of its shard
	off    []int32
	extra  map[string]int32 // ID → index in c of the entries added after build
	c      []cand
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
	shardOf := make([]uint8, total) // and its shard
	parallel(len(order), func(j int) {
		for p, e := range seen[order[j]] {
			shardOf[at[j]+p] = uint8(maphash.String(cs.seed, e.ID) & cs.mask)
		}
	})
	cs.shards = make([]map[string]int32, shards)
	local := make([][]cand, shards)
	spread(shards, func(s int) {
		m := make(map[string]int32, total/shards/2)
		var c []cand
		for j, i := range order {
			for p, e := range seen[i] {
				q := at[j] + p
				if shardOf[q] != uint8(s) {
					continue
				}
				k, ok := m[e.ID]
				if !ok {
					k = int32(len(c))
					m[e.ID] = k
					c = append(c, cand{id: e.ID})
				}
				c[k].num = e.Num
				flat[q] = k
			}
		}
		cs.shards[s], local[s] = m, c
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
			ks[p] += cs.off[shardOf[at[j]+p]]
		}
		slices.Sort(ks)
		idx[order[j]] = slices.Compact(ks)
	})
	return idx
}

// find returns the index of the candidate with the ID id.
func (cs *cands) find(id string) (int32, bool) {
	if len(cs.shards) > 0 {
		s := maphash.String(cs.seed, id) & cs.mask
		if k, ok := cs.shards[s][id]; ok {
			return cs.off[s] + k, true
		}
	}
	k, ok := cs.extra[id]
	return k, ok
}

// add returns the index of the candidate with the ID id, added (with
// the number num, no record read) if there is none.
func (cs *cands) add(id string, num uint64) int32 {
	if k, ok := cs.find(id); ok {
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
