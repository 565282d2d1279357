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

// TestOpenExplained: the refusals Open documents, each told apart; an
// analyzer mismatch is named even when the layout is refused too.
func TestOpenExplained(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a")
	_, err := Open(ctx, dir, &Options{ReadOnly: true})
	if !errors.Is(err, index.ErrNotFound) {
		t.Errorf("read-only Open of a missing directory: %v, want ErrNotFound", err)
	}
	x, err := Open(ctx, dir, &Options{AnalyzerID: "a1", Distance: 3})
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	for _, tt := range []struct {
		o        Options
		mismatch *MismatchError
		distance *index.DistanceError
	}{
		{Options{AnalyzerID: "a2"}, &MismatchError{Name: dir, Stored: "a1", Want: "a2"}, nil},
		{Options{AnalyzerID: "a2", Distance: 6}, &MismatchError{Name: dir, Stored: "a1", Want: "a2"}, nil},
		{Options{AnalyzerID: "a1", Distance: 6}, nil, &index.DistanceError{Name: dir, Max: 3, Want: 6}},
		{Options{Distance: 6}, nil, &index.DistanceError{Name: dir, Max: 3, Want: 6}},
	} {
		_, err := Open(ctx, dir, &tt.o)
		var me *MismatchError
		var de *index.DistanceError
		switch {
		case tt.mismatch != nil:
			if !errors.As(err, &me) || *me != *tt.mismatch || !errors.Is(err, index.ErrMismatch) {
				t.Errorf("Open(%+v): %v, want %#v", tt.o, err, tt.mismatch)
			}
		case !errors.As(err, &de) || *de != *tt.distance || errors.As(err, &me):
			t.Errorf("Open(%+v): %v, want %#v", tt.o, err, tt.distance)
		}
	}
	want := `index: ` + dir + `: index options do not match the index: the index was built with analyzer "a1"; the options ask for "a2"`
	if got := (&MismatchError{Name: dir, Stored: "a1", Want: "a2"}).Error(); got != want {
		t.Errorf("MismatchError: %q, want %q", got, want)
	}
}

// TestMemory: an archive in memory laid out for the distance asked.
func TestMemory(t *testing.T) {
	ctx := context.Background()
	x, err := Memory(ctx, &Options{AnalyzerID: "a1", Distance: 5, MinContent: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	st, err := x.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Blocks != 7 || st.MaxDistance != 5 || st.AnalyzerID != "a1" || st.Docs != 0 {
		t.Errorf("Memory: %+v, want 7 blocks, max distance 5, analyzer a1, no documents", st)
	}
	if _, err := Memory(ctx, &Options{Distance: index.MaxLayoutDistance + 1}); !errors.Is(err, index.ErrDistance) {
		t.Errorf("Memory at distance %d: %v, want ErrDistance", index.MaxLayoutDistance+1, err)
	}
}

// TestMemoryLean: a lean archive in memory keeps no title; a full one
// does.
func TestMemoryLean(t *testing.T) {
	ctx := context.Background()
	for _, lean := range []bool{false, true} {
		x, err := Memory(ctx, &Options{Lean: lean})
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Add(ctx, index.Doc{ID: "a", Title: "Title", Fingerprint: 1, ContentHash: 2}); err != nil {
			t.Fatal(err)
		}
		d, err := x.Get(ctx, "a")
		x.Close()
		if want := map[bool]string{false: "Title", true: ""}[lean]; err != nil || d.Title != want {
			t.Errorf("Lean %t: Get = %+v, %v; want title %q", lean, d, err, want)
		}
	}
}
