package index

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/neardup/neardup/simhash"
)

// Memory is an in-memory fingerprint index with the methods and
// semantics of Index: the same layout and tables, as maps from table key
// to entries, and a map from content hash to IDs in place of the Bloom
// filter and the store. Nothing is persisted.
type Memory struct {
	layout     *layout
	analyzer   string
	minContent float64

	mu         sync.RWMutex
	closed     bool
	docs       map[string]*Doc
	bucketBits uint          // table key bits that pick a bucket, at most; grows with the documents
	tables     [][]memBucket // per table, 2^min(bucketBits, table key bits) buckets
	content    map[uint64]idList
	bands      [Bands]map[uint64]idList // per band: packed band value → IDs
}

// idList is the IDs under one content hash or band value: nearly always
// one, which is kept without a slice of its own (a document's 16 bands
// and content hash would otherwise cost 17 small allocations). Their
// order does not matter.
type idList struct {
	first string
	rest  []string
}

func (l *idList) add(id string) {
	if l.first == "" {
		l.first = id
	} else {
		l.rest = append(l.rest, id)
	}
}

// remove deletes id, if present, and reports whether the list is empty.
func (l *idList) remove(id string) (empty bool) {
	if l.first == id {
		l.first = ""
		if n := len(l.rest); n > 0 {
			l.first, l.rest[n-1] = l.rest[n-1], ""
			l.rest = l.rest[:n-1]
		}
	} else if i := slices.Index(l.rest, id); i >= 0 {
		n := len(l.rest)
		l.rest[i], l.rest[n-1] = l.rest[n-1], ""
		l.rest = l.rest[:n-1]
	}
	return l.first == ""
}

// appendTo appends the IDs to ids.
func (l *idList) appendTo(ids []string) []string {
	if l.first == "" {
		return ids
	}
	return append(append(ids, l.first), l.rest...)
}

// memBucket holds the fingerprints whose table keys begin with the
// bucket's number, and their IDs. Fingerprints are kept apart from IDs
// so that a query scans a few contiguous cache lines. A bucket may hold
// fingerprints with different table keys (when the key has more bits
// than pick the bucket); they are extra candidates, which the distance
// check rejects.
type memBucket struct {
	fps []simhash.Fingerprint
	ids []string
}

// Bucket sizing: start with 2^minBucketBits buckets per table and grow
// by 4× whenever there are more than 4 documents per bucket, up to
// 2^maxBucketBits (or the table key's bits).
const (
	minBucketBits = 8
	maxBucketBits = 20
)

// NewMemory returns an empty in-memory index. nil opts means the
// defaults; zero Blocks and MaxDistance mean DefaultBlocks and
// DefaultMaxDistance.
func NewMemory(opts *Options) (*Memory, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	o = o.withDefaults()
	l, err := newLayout(o.Blocks, o.MaxDistance)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	m := &Memory{
		layout:     l,
		analyzer:   o.AnalyzerID,
		minContent: o.MinContent,
		docs:       make(map[string]*Doc),
		content:    make(map[uint64]idList),
	}
	for b := range m.bands {
		m.bands[b] = make(map[uint64]idList)
	}
	m.resize(minBucketBits)
	return m, nil
}

// bucket returns the bucket number of fp in table t.
func (m *Memory) bucket(t int, fp simhash.Fingerprint) uint64 {
	bits := uint(m.layout.tables[t].bits)
	return m.layout.tableKey(t, fp) >> (bits - min(bits, m.bucketBits))
}

// resize redistributes the tables into 2^bits buckets each (fewer for
// short table keys). m.mu is held.
func (m *Memory) resize(bits uint) {
	m.bucketBits = bits
	m.tables = make([][]memBucket, len(m.layout.tables))
	for t, tab := range m.layout.tables {
		m.tables[t] = make([]memBucket, 1<<min(bits, uint(tab.bits)))
	}
	for _, d := range m.docs {
		m.insert(d)
	}
}

// insert adds d's fingerprint to every table. m.mu is held.
func (m *Memory) insert(d *Doc) {
	for t := range m.tables {
		b := &m.tables[t][m.bucket(t, d.Fingerprint)]
		b.fps = append(b.fps, d.Fingerprint)
		b.ids = append(b.ids, d.ID)
	}
}

var errMemoryClosed = fmt.Errorf("index: memory: %w", ErrClosed)

// copyDoc returns a copy of d whose Keywords slice is its own.
func copyDoc(d *Doc) *Doc {
	c := *d
	c.Keywords = slices.Clone(d.Keywords)
	return &c
}

// ownDoc returns a copy of d whose ID, title and keywords share no memory
// with d's (Job, one string for a whole run, is kept as it is): a
// caller's strings are often slices of something much larger
// (a keyword of the article's normalised text, a title of the input line
// it was decoded from), which a Memory that kept them would keep alive
// in full. Deduplicating zh_news in memory, that was 40 MB of texts
// beyond the 19 MB the index needs.
//
// The copies are cut from one new string, one allocation for them all.
func ownDoc(d *Doc) *Doc {
	c := copyDoc(d)
	n := len(d.ID) + len(d.Title)
	for _, k := range d.Keywords {
		n += len(k.Word)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(d.ID)
	b.WriteString(d.Title)
	for _, k := range d.Keywords {
		b.WriteString(k.Word)
	}
	all := b.String()
	next := func(n int) string {
		s := all[:n]
		all = all[n:]
		return s
	}
	c.ID, c.Title = next(len(d.ID)), next(len(d.Title))
	for i := range c.Keywords {
		c.Keywords[i].Word = next(len(c.Keywords[i].Word))
	}
	return c
}

// Add adds docs, replacing any documents with the same IDs. IDs must be
// 1 to MaxIDLen bytes; if one is not, nothing is added.
func (m *Memory) Add(docs ...Doc) error {
	if err := checkDocs(docs); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errMemoryClosed
	}
	for i := range docs {
		d := ownDoc(&docs[i])
		if old, ok := m.docs[d.ID]; ok {
			m.remove(old)
		}
		m.docs[d.ID] = d
		m.insert(d)
		addID(m.content, d.ContentHash, d.ID)
		if !d.Sketch.IsZero() {
			for b := range m.bands {
				addID(m.bands[b], bandValue(&d.Sketch, b), d.ID)
			}
		}
	}
	if len(m.docs) > 4<<m.bucketBits && m.bucketBits < maxBucketBits {
		m.resize(min(m.bucketBits+2, maxBucketBits))
	}
	return nil
}

// Load adds docs to an empty Memory, as Index.Load does to an empty
// index; for a Memory it is Add a batch at a time. It returns the number
// of distinct documents loaded, and ErrNotEmpty if m holds documents.
func (m *Memory) Load(docs iter.Seq[Doc]) (int, error) {
	m.mu.Lock()
	n, closed := len(m.docs), m.closed
	m.mu.Unlock()
	switch {
	case closed:
		return 0, errMemoryClosed
	case n != 0:
		return 0, fmt.Errorf("index: load: %w: it holds %d documents", ErrNotEmpty, n)
	}
	batch := make([]Doc, 0, 1024)
	seen := 0
	for d := range docs {
		if err := checkID(d.ID); err != nil {
			return 0, fmt.Errorf("index: load: document %d: %w", seen, err)
		}
		seen++
		if batch = append(batch, d); len(batch) == cap(batch) {
			if err := m.Add(batch...); err != nil {
				return 0, err
			}
			batch = batch[:0]
		}
	}
	if err := m.Add(batch...); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.docs), nil
}

// addID adds id to the list under key k of lists.
func addID(lists map[uint64]idList, k uint64, id string) {
	l := lists[k]
	l.add(id)
	lists[k] = l
}

// removeID deletes id from the list under key k of lists.
func removeID(lists map[uint64]idList, k uint64, id string) {
	l, ok := lists[k]
	if !ok {
		return
	}
	if l.remove(id) {
		delete(lists, k)
	} else {
		lists[k] = l
	}
}

// remove deletes d's entries. m.mu is held.
func (m *Memory) remove(d *Doc) {
	for t := range m.tables {
		b := &m.tables[t][m.bucket(t, d.Fingerprint)]
		if i := slices.Index(b.ids, d.ID); i >= 0 {
			last := len(b.ids) - 1
			b.fps[i], b.ids[i] = b.fps[last], b.ids[last]
			b.ids[last] = "" // let the ID be collected
			b.fps, b.ids = b.fps[:last], b.ids[:last]
		}
	}
	removeID(m.content, d.ContentHash, d.ID)
	if !d.Sketch.IsZero() {
		for b := range m.bands {
			removeID(m.bands[b], bandValue(&d.Sketch, b), d.ID)
		}
	}
	delete(m.docs, d.ID)
}

// banded returns the IDs of documents sharing a band with s. m.mu is held.
func (m *Memory) banded(s *simhash.Sketch) []string {
	if s.IsZero() {
		return nil
	}
	var ids []string
	for b := range m.bands {
		l := m.bands[b][bandValue(s, b)]
		ids = l.appendTo(ids)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// Get returns the document with the given ID, or an error wrapping
// ErrNotFound.
func (m *Memory) Get(id string) (Doc, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Doc{}, errMemoryClosed
	}
	d, ok := m.docs[id]
	if !ok {
		return Doc{}, &docNotFound{"memory", id}
	}
	return *copyDoc(d), nil
}

// Delete deletes the documents with the given IDs. If any ID is not in
// the index, Delete deletes nothing and returns an error wrapping
// ErrNotFound that names it. Repeated IDs count once.
func (m *Memory) Delete(ids ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errMemoryClosed
	}
	ids = uniq(ids)
	var missing []string
	for _, id := range ids {
		if _, ok := m.docs[id]; !ok {
			missing = append(missing, id)
		}
	}
	if err := missingErr("memory", missing); err != nil {
		return err
	}
	for _, id := range ids {
		m.remove(m.docs[id])
	}
	return nil
}

// Near returns the documents whose fingerprints are within Hamming
// distance k of fp, sorted by distance, then ID, like Index.Near.
func (m *Memory) Near(fp simhash.Fingerprint, k int) ([]Match, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, errMemoryClosed
	}
	if err := checkDistance(m.layout, k); err != nil {
		return nil, err
	}
	return m.near(fp, k), nil
}

// near collects the matches of fp. m.mu is held.
func (m *Memory) near(fp simhash.Fingerprint, k int) []Match {
	var ms []Match
	cover := m.layout.cover[k]
	for _, t := range cover {
		b := &m.tables[t][m.bucket(t, fp)]
		for i, c := range b.fps {
			if d := fp.Distance(c); d <= k {
				ms = append(ms, Match{ID: b.ids[i], Distance: d, Similarity: fp.Similarity(c)})
			}
		}
	}
	return sortUniq(ms, len(cover) > 1)
}

// Exact returns the IDs of the documents with the given content hash, in
// byte order.
func (m *Memory) Exact(contentHash uint64) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, errMemoryClosed
	}
	return m.exact(contentHash), nil
}

func (m *Memory) exact(h uint64) []string {
	l := m.content[h]
	ids := l.appendTo(nil)
	slices.Sort(ids)
	return ids
}

// Similar returns the documents similar to d, like Index.Similar.
func (m *Memory) Similar(d *Doc, k int) ([]Match, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, errMemoryClosed
	}
	if err := checkDistance(m.layout, k); err != nil {
		return nil, err
	}
	get := func(id string) (Doc, error) {
		r, ok := m.docs[id]
		if !ok {
			return Doc{}, &docNotFound{"memory", id}
		}
		return *copyDoc(r), nil
	}
	return similar(d, m.exact(d.ContentHash), m.near(d.Fingerprint, k), m.banded(&d.Sketch), get, m.minContent)
}

// Stats describes the index. DiskBytes and Bloom are zero.
func (m *Memory) Stats() (Stats, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Stats{}, errMemoryClosed
	}
	return Stats{
		Docs:          int64(len(m.docs)),
		Blocks:        m.layout.blocks,
		MaxDistance:   m.layout.maxDist,
		Tables:        len(m.layout.tables),
		AnalyzerID:    m.analyzer,
		FormatVersion: formatVersion,
	}, nil
}

// Close releases the index. Later calls of any method but Close fail
// with ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.docs, m.tables, m.content, m.bands = nil, nil, nil, [Bands]map[uint64]idList{}
	return nil
}
