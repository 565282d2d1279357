package redisstore

import (
	"context"
	"slices"

	"github.com/neardup/neardup/index"
)

// refStore is the plainest index.Store: maps, no concurrency, the
// reference the Redis store is compared with. (The repository's
// memstore is not importable on this branch.)
type refStore struct {
	lists map[index.Key][]index.Posting
	recs  map[string][]byte
	meta  map[string][]byte
}

func newRef() *refStore {
	return &refStore{lists: map[index.Key][]index.Posting{}, recs: map[string][]byte{}, meta: map[string][]byte{}}
}

func (s *refStore) Postings(_ context.Context, keys []index.Key) ([][]index.Posting, error) {
	out := make([][]index.Posting, len(keys))
	for i, k := range keys {
		out[i] = slices.Clone(s.lists[k])
	}
	return out, nil
}

func (s *refStore) Records(_ context.Context, ids []string) ([][]byte, error) {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		out[i] = s.recs[id]
	}
	return out, nil
}

func (s *refStore) Apply(_ context.Context, b *index.Batch) error {
	for _, w := range b.Writes {
		for _, k := range w.OldKeys {
			s.lists[k] = slices.DeleteFunc(s.lists[k], func(p index.Posting) bool { return p.ID == w.ID })
		}
		if w.Record == nil {
			delete(s.recs, w.ID)
			continue
		}
		s.recs[w.ID] = slices.Clone(w.Record)
		for _, k := range w.Keys {
			p := index.Posting{ID: w.ID}
			if k.Kind == index.KindTable {
				p.Fingerprint = w.Fingerprint
			}
			s.lists[k] = append(s.lists[k], p)
		}
	}
	return nil
}

func (s *refStore) Claim(_ context.Context, values map[string][]byte) (map[string][]byte, error) {
	out := make(map[string][]byte, len(values))
	for name, value := range values {
		if _, ok := s.meta[name]; !ok {
			s.meta[name] = slices.Clone(value)
		}
		out[name] = slices.Clone(s.meta[name])
	}
	return out, nil
}

func (s *refStore) Stats(context.Context) (index.StoreStats, error) {
	return index.StoreStats{Docs: int64(len(s.recs))}, nil
}

func (s *refStore) Close() error { return nil }
