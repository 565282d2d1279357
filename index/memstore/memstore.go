// Package memstore keeps an index.Store in memory: a map from key to
// posting list and one from ID to record. Nothing is persisted; it is
// for deduplicating a corpus in one run and for tests. It is safe for
// concurrent use: readers share a lock, Apply takes it alone.
package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/neardup/neardup/index"
)

// Store is an in-memory index.Store.
type Store struct {
	mu     sync.RWMutex
	closed bool
	lists  map[index.Key]plist
	recs   map[string][]byte
	meta   map[string][]byte
}

// plist is a posting list: nearly always one posting (band and content
// keys are all but unique), which is kept without a slice of its own, so
// that a document's 17 such keys do not cost 17 small allocations. The
// order of the postings does not matter.
type plist struct {
	first index.Posting
	rest  []index.Posting
}

func (l *plist) add(p index.Posting) {
	if l.first.ID == "" {
		l.first = p
	} else {
		l.rest = append(l.rest, p)
	}
}

// remove deletes the posting of id, if present, and reports whether the
// list is empty.
func (l *plist) remove(id string) (empty bool) {
	if l.first.ID == id {
		l.first = index.Posting{}
		if n := len(l.rest); n > 0 {
			l.first, l.rest[n-1] = l.rest[n-1], index.Posting{}
			l.rest = l.rest[:n-1]
		}
	} else if i := slices.IndexFunc(l.rest, func(p index.Posting) bool { return p.ID == id }); i >= 0 {
		n := len(l.rest)
		l.rest[i], l.rest[n-1] = l.rest[n-1], index.Posting{}
		l.rest = l.rest[:n-1]
	}
	return l.first.ID == ""
}

// appendTo appends a copy of the postings to ps.
func (l *plist) appendTo(ps []index.Posting) []index.Posting {
	if l.first.ID == "" {
		return ps
	}
	return append(append(ps, l.first), l.rest...)
}

// New returns an empty store.
func New() *Store {
	return &Store{
		lists: make(map[index.Key]plist),
		recs:  make(map[string][]byte),
		meta:  make(map[string][]byte),
	}
}

// Open returns an index over a new, empty Store, for the common case of
// deduplicating in memory.
func Open(ctx context.Context, opts *index.Options) (*index.Index, error) {
	return index.New(ctx, New(), opts)
}

// String names the store in error messages.
func (s *Store) String() string { return "memory" }

var errClosed = fmt.Errorf("index: memory: %w", index.ErrClosed)

// Postings implements index.Store.
func (s *Store) Postings(_ context.Context, keys []index.Key) ([][]index.Posting, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	out := make([][]index.Posting, len(keys))
	for i, k := range keys {
		if l, ok := s.lists[k]; ok {
			out[i] = l.appendTo(nil)
		}
	}
	return out, nil
}

// Records implements index.Store. The records are the store's own: the
// caller must not modify them.
func (s *Store) Records(_ context.Context, ids []string) ([][]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	out := make([][]byte, len(ids))
	for i, id := range ids {
		out[i] = s.recs[id]
	}
	return out, nil
}

// Apply implements index.Store. The store keeps copies of the IDs and
// records: a caller's ID is often a slice of a much larger input line,
// which the store would otherwise keep alive.
func (s *Store) Apply(_ context.Context, b *index.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	for i := range b.Writes {
		w := &b.Writes[i]
		if err := index.CheckID(w.ID); err != nil {
			return fmt.Errorf("index: memory: write %d: %w", i, err)
		}
	}
	for i := range b.Writes {
		w := &b.Writes[i]
		for _, k := range w.OldKeys {
			s.remove(k, w.ID)
		}
		var id string
		if w.Record == nil {
			delete(s.recs, w.ID)
			if len(w.Keys) == 0 {
				continue
			}
			id = strings.Clone(w.ID) // postings without a record
		} else {
			// One allocation for the ID and the record.
			var sb strings.Builder
			sb.Grow(len(w.ID) + len(w.Record))
			sb.WriteString(w.ID)
			sb.Write(w.Record)
			all := sb.String()
			id = all[:len(w.ID)]
			s.recs[id] = []byte(all[len(w.ID):])
		}
		for _, k := range w.Keys {
			p := index.Posting{ID: id}
			if k.Kind == index.KindTable {
				p.Fingerprint = w.Fingerprint
			}
			l := s.lists[k]
			l.add(p)
			s.lists[k] = l
		}
	}
	return nil
}

// remove deletes the posting of id under k. s.mu is held.
func (s *Store) remove(k index.Key, id string) {
	l, ok := s.lists[k]
	if !ok {
		return
	}
	if l.remove(id) {
		delete(s.lists, k)
	} else {
		s.lists[k] = l
	}
}

// Claim implements index.Store.
func (s *Store) Claim(_ context.Context, values map[string][]byte) (map[string][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	out := make(map[string][]byte, len(values))
	for name, v := range values {
		if _, ok := s.meta[name]; !ok {
			s.meta[name] = slices.Clone(v)
		}
		out[name] = slices.Clone(s.meta[name])
	}
	return out, nil
}

// Stats implements index.Store.
func (s *Store) Stats(context.Context) (index.StoreStats, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return index.StoreStats{}, errClosed
	}
	return index.StoreStats{Docs: int64(len(s.recs))}, nil
}

// Close releases the store's memory. Later calls fail.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.lists, s.recs, s.meta = nil, nil, nil
	return nil
}

// ScanRecords implements index.RecordScanner. The store's writes wait
// while it runs.
func (s *Store) ScanRecords(ctx context.Context, fn func(id string, rec []byte) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return errClosed
	}
	for id, rec := range s.recs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(id, rec); err != nil {
			return err
		}
	}
	return nil
}
