package redisstore

import (
	"context"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/internal/redistest"
)

// TestConformance runs the store conformance suite against a real Redis
// Cluster, each subtest in an archive (key namespace) of its own.
func TestConformance(t *testing.T) {
	c := redistest.Shared(t)
	indextest.Run(t, func(t *testing.T) index.Store {
		s, err := Open(context.Background(), c.URL(redistest.Name(t)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestTextStats runs indextest.TextStats: the store lists its records
// (ScanRecords), each archive's only.
func TestTextStats(t *testing.T) {
	c := redistest.Shared(t)
	open := func(t *testing.T) index.Store {
		s, err := Open(context.Background(), c.URL(redistest.Name(t)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Another archive on the same cluster: its records must not be
	// counted.
	other := open(t)
	x, err := index.New(t.Context(), other, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(t.Context(), indextest.SeqDocs(100, 5, 0)...); err != nil {
		t.Fatal(err)
	}
	t.Run("suite", func(t *testing.T) { indextest.TextStats(t, open) })
	x.Close()
}
