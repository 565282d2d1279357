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
