package memstore

// postTable32 is a postTable of 32-bit key values: the postings of
// passage keys below 2^32 (package reuse's 32-bit keys), 8 bytes a slot
// rather than 12.
type postTable32 struct {
	keys []uint32
	docs []uint32 // 0 is empty
	n    int
}

func (t *postTable32) grow() {
	size := max(1024, len(t.keys)*3/2)
	old, oldDocs := t.keys, t.docs
	t.keys, t.docs, t.n = make([]uint32, size), make([]uint32, size), 0
	for i, d := range oldDocs {
		if d != 0 {
			t.add(old[i], d)
		}
	}
}

func (t *postTable32) add(v, d uint32) {
	if float64(t.n+1) > maxLoad*float64(len(t.keys)) {
		t.grow()
	}
	size := uint64(len(t.keys))
	for i := mix(uint64(v)) % size; ; i = (i + 1) % size {
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
func (t *postTable32) each(v uint32, fn func(uint32)) {
	if t.n == 0 {
		return
	}
	size := uint64(len(t.keys))
	for i := mix(uint64(v)) % size; t.docs[i] != 0; i = (i + 1) % size {
		if t.keys[i] == v {
			fn(t.docs[i])
		}
	}
}

// remove deletes the posting of d under v, shifting the entries after
// it back so that no probe sequence is broken.
func (t *postTable32) remove(v, d uint32) {
	if t.n == 0 {
		return
	}
	size := uint64(len(t.keys))
	i := mix(uint64(v)) % size
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
		h := mix(uint64(t.keys[j])) % size
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.keys[i], t.docs[i] = t.keys[j], t.docs[j]
			i = j
		}
	}
	t.keys[i], t.docs[i] = 0, 0
}
