package memstore

import (
	"hash/maphash"
	"slices"
)

// The store's tables hold numbers, not pointers: documents are numbered
// from 1 (0 marks an empty slot), their IDs and records live in large
// byte chunks, and posting lists are open-addressing tables of (key
// value, document number) or buckets of document numbers. The garbage
// collector sees a few hundred large objects whatever the number of
// documents, and scans none of their contents.

// chunkSize is the size of the byte chunks IDs and records are kept
// in; a larger entry gets a chunk of its own.
const chunkSize = 4 << 20

// arena keeps byte strings in chunks that are never written again once
// a string is in them: a slice of a chunk, handed to a reader, stays
// valid and unchanged for as long as the reader keeps it.
type arena struct {
	chunks [][]byte
	bytes  int64 // bytes of the chunks in use
}

// add appends id and rec, one after the other, and returns where they
// are: their chunk and offset.
func (a *arena) add(id string, rec []byte) (chunk, off uint32) {
	n := len(id) + len(rec)
	last := len(a.chunks) - 1
	if last < 0 || len(a.chunks[last])+n > cap(a.chunks[last]) {
		a.chunks = append(a.chunks, make([]byte, 0, max(n, chunkSize)))
		last++
	}
	c := a.chunks[last]
	off = uint32(len(c))
	a.chunks[last] = append(append(c, id...), rec...)
	a.bytes += int64(n)
	return uint32(last), off
}

// doc is one document's slot: where its ID and record are (the ID,
// then the record, in one arena entry), and its fingerprint, which its
// table postings carry.
type doc struct {
	chunk, off    uint32
	idLen, recLen uint32
	fp            uint64
}

// deleted marks the slot of a deleted document.
const deleted = ^uint32(0)

// idTable maps IDs to document numbers: an open-addressing table with
// linear probing of document numbers, which are compared by the IDs in
// the arena.
type idTable struct {
	slots []uint32 // len a power of two; 0 is empty
	n     int
}

// postTable is a multimap of 64-bit key values to document numbers:
// open addressing with linear probing, a key value once per document
// that has it. It holds the postings of one kind of key (a sketch
// band, or the content hash), whose values are nearly unique.
type postTable struct {
	keys []uint64
	docs []uint32 // 0 is empty
	n    int
}

// mix spreads the bits of a key value over the table.
func mix(v uint64) uint64 {
	v ^= v >> 33
	v *= 0xff51afd7ed558ccd
	v ^= v >> 33
	v *= 0xc4ceb9fe1a85ec53
	v ^= v >> 33
	return v
}

// maxLoad is the fraction of a table's slots in use above which it
// grows: by half its size, to keep the empty slots few.
const maxLoad = 0.8

func (t *postTable) grow() {
	size := max(1024, len(t.keys)*3/2)
	old, oldDocs := t.keys, t.docs
	t.keys, t.docs, t.n = make([]uint64, size), make([]uint32, size), 0
	for i, d := range oldDocs {
		if d != 0 {
			t.add(old[i], d)
		}
	}
}

func (t *postTable) add(v uint64, d uint32) {
	if float64(t.n+1) > maxLoad*float64(len(t.keys)) {
		t.grow()
	}
	size := uint64(len(t.keys))
	for i := mix(v) % size; ; i = (i + 1) % size {
		if t.docs[i] == 0 {
			t.keys[i], t.docs[i] = v, d
			t.n++
			return
		}
		if t.docs[i] == d && t.keys[i] == v {
			return
		}
	}
}

// each calls fn with each document under v.
func (t *postTable) each(v uint64, fn func(uint32)) {
	if t.n == 0 {
		return
	}
	size := uint64(len(t.keys))
	for i := mix(v) % size; t.docs[i] != 0; i = (i + 1) % size {
		if t.keys[i] == v {
			fn(t.docs[i])
		}
	}
}

// remove deletes the posting of d under v, shifting the entries after
// it back so that no probe sequence is broken.
func (t *postTable) remove(v uint64, d uint32) {
	if t.n == 0 {
		return
	}
	size := uint64(len(t.keys))
	i := mix(v) % size
	for ; t.docs[i] != 0; i = (i + 1) % size {
		if t.keys[i] == v && t.docs[i] == d {
			break
		}
	}
	if t.docs[i] == 0 {
		return
	}
	t.n--
	for j := (i + 1) % size; t.docs[j] != 0; j = (j + 1) % size {
		// The entry at j may move to the hole at i unless its home lies
		// cyclically in (i, j].
		h := mix(t.keys[j]) % size
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.keys[i], t.docs[i] = t.keys[j], t.docs[j]
			i = j
		}
	}
	t.keys[i], t.docs[i] = 0, 0
}

// bucketBits is the widest table key kept in buckets: one list of
// document numbers per value of the key, 2^bucketBits lists at most.
// A wider table key goes into a postTable.
const bucketBits = 18

// buckets holds the postings of one SimHash table whose keys have at
// most bucketBits bits: the documents of each key value. Its postings
// carry the documents' fingerprints from their slots.
type buckets [][]uint32

func (b buckets) remove(v uint64, d uint32) {
	l := b[v]
	if i := slices.Index(l, d); i >= 0 {
		l[i] = l[len(l)-1]
		b[v] = l[:len(l)-1]
	}
}

// hashID hashes an ID for the idTable.
func hashID(seed maphash.Seed, id []byte) uint64 {
	return maphash.Bytes(seed, id)
}
