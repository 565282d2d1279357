package archive

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/redisstore"
)

// TestOpenDirectory: a directory is a Badger archive, laid out for the
// distance asked when new, refused when it cannot answer it, and not
// created by read-only or MustExist opens.
func TestOpenDirectory(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a")
	for _, o := range []*Options{{ReadOnly: true}, {MustExist: true}} {
		if _, err := Open(ctx, dir, o); err == nil {
			t.Errorf("Open(%+v) of a missing archive succeeded", *o)
		}
	}
	x, err := Open(ctx, dir, &Options{AnalyzerID: "a1", Distance: 5})
	if err != nil {
		t.Fatal(err)
	}
	st, err := x.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Blocks != 7 || st.MaxDistance != 5 || st.Tables != 21 || st.AnalyzerID != "a1" {
		t.Errorf("new archive for distance 5: %d blocks, max distance %d, %d tables, analyzer %q; want 7, 5, 21, a1",
			st.Blocks, st.MaxDistance, st.Tables, st.AnalyzerID)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		o    Options
		want error
	}{
		{Options{Distance: 6}, index.ErrDistance},
		{Options{AnalyzerID: "a2"}, index.ErrMismatch},
		{Options{ReadOnly: true, Distance: 5}, nil},
		{Options{MustExist: true, AnalyzerID: "a1"}, nil},
	} {
		x, err := Open(ctx, dir, &tt.o)
		if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
			t.Errorf("Open(%+v): %v, want %v", tt.o, err, tt.want)
		}
		if err == nil {
			x.Close()
		}
	}
}

// TestOpenRedisURL: a redis:// name goes to redisstore, which fails
// clearly when nothing listens (port 1 on loopback).
func TestOpenRedisURL(t *testing.T) {
	name := "redis://127.0.0.1:1/news"
	if !redisstore.IsURL(name) {
		t.Fatalf("IsURL(%q) = false", name)
	}
	_, err := Open(context.Background(), name, nil)
	if err == nil {
		t.Fatal("Open of an unreachable cluster succeeded")
	}
}
