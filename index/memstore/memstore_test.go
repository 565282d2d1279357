package memstore

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/tfidf"
)

func TestConformance(t *testing.T) {
	indextest.Run(t, func(*testing.T) index.Store { return New() })
}

func TestTextStats(t *testing.T) {
	indextest.TextStats(t, func(*testing.T) index.Store { return New() })
}

func TestPlist(t *testing.T) {
	for _, tt := range []struct {
		add, remove []string
		want        []string // sorted
		empty       bool     // what the last remove reports
	}{
		{add: []string{"a"}, remove: []string{"a"}, want: nil, empty: true},
		{add: []string{"a"}, remove: []string{"b"}, want: []string{"a"}},
		{add: []string{"a", "b", "c"}, remove: []string{"a"}, want: []string{"b", "c"}},
		{add: []string{"a", "b", "c"}, remove: []string{"b"}, want: []string{"a", "c"}},
		{add: []string{"a", "b", "c"}, remove: []string{"c", "a", "b"}, want: nil, empty: true},
		{add: []string{"a", "b"}, remove: []string{"a", "x"}, want: []string{"b"}},
	} {
		var l plist
		for _, id := range tt.add {
			l.add(index.Posting{ID: id})
		}
		var empty bool
		for _, id := range tt.remove {
			empty = l.remove(id)
		}
		var got []string
		for _, p := range l.appendTo(nil) {
			got = append(got, p.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) || empty != tt.empty {
			t.Errorf("add %v, remove %v: got %v (empty %v), want %v (empty %v)", tt.add, tt.remove, got, empty, tt.want, tt.empty)
		}
	}
}

// Open is index.New over a new Store.
func TestOpen(t *testing.T) {
	x, err := Open(t.Context(), &index.Options{Blocks: 5, MaxDistance: 3, AnalyzerID: "an"})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if s, err := x.Stats(t.Context()); err != nil || s.Tables != 10 || s.AnalyzerID != "an" || s.DiskBytes != 0 || s.Bloom != (index.BloomStats{}) {
		t.Errorf("Stats = %+v, %v", s, err)
	}
	if _, err := Open(t.Context(), &index.Options{Blocks: 3, MaxDistance: 3}); !errors.Is(err, index.ErrLayout) {
		t.Errorf("Open with a bad layout: %v", err)
	}
	_, err = x.Get(t.Context(), "nope")
	if want := `index: memory: document "nope": not found`; err == nil || err.Error() != want {
		t.Errorf("Get(nope): %v, want %s", err, want)
	}
}

// The store keeps copies of the IDs and records it is given, not the
// larger strings and buffers they may be slices of: Dedup passes IDs cut
// from whole input lines.
func TestStoreOwnsData(t *testing.T) {
	text := strings.Repeat("news article text ", 1000)
	within := func(p unsafe.Pointer) bool {
		start := uintptr(unsafe.Pointer(unsafe.StringData(text)))
		return start <= uintptr(p) && uintptr(p) < start+uintptr(len(text))
	}
	x, err := Open(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	d := index.Doc{ID: text[:4], Title: text[5:12], Fingerprint: 0x0123456789abcdef, ContentHash: 3,
		Keywords: []tfidf.Keyword{{Word: text[13:17], Weight: 2}}}
	if err := x.Add(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	ms, err := x.Near(t.Context(), d.Fingerprint, 0)
	if err != nil || len(ms) != 1 || ms[0].ID != "news" {
		t.Fatalf("Near = %v, %v", ms, err)
	}
	ids, err := x.Exact(t.Context(), 3)
	if err != nil || len(ids) != 1 {
		t.Fatalf("Exact = %q, %v", ids, err)
	}
	s := x.Store().(*Store)
	// And postings without a record.
	ghost := index.Write{ID: text[20:25], Keys: []index.Key{{Kind: index.KindContent, Value: 3}}}
	if err := s.Apply(t.Context(), &index.Batch{Writes: []index.Write{ghost}}); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for id := range s.recs {
		kept = append(kept, id)
	}
	for _, l := range s.lists {
		for _, p := range l.appendTo(nil) {
			kept = append(kept, p.ID)
		}
	}
	kept = append(kept, ms[0].ID, ids[0])
	for _, id := range kept {
		if within(unsafe.Pointer(unsafe.StringData(id))) {
			t.Errorf("the store keeps the ID %q as a slice of the text it was cut from", id)
		}
	}
	recs, err := s.Records(t.Context(), []string{"news"})
	if err != nil || recs[0] == nil {
		t.Fatalf("Records = %q, %v", recs, err)
	}
	got, err := x.Get(t.Context(), "news")
	if err != nil || got.Title != "article" || got.Keywords[0].Word != "text" {
		t.Errorf("Get = %+v, %v", got, err)
	}
	if within(unsafe.Pointer(unsafe.StringData(got.Title))) || within(unsafe.Pointer(unsafe.StringData(got.Keywords[0].Word))) {
		t.Errorf("Get returns strings that are slices of the text they were cut from")
	}
}

// A closed Store fails every method with ErrClosed and frees its maps.
func TestClosed(t *testing.T) {
	s := New()
	ctx := t.Context()
	if err := s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "a", Record: []byte{1}}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if s.lists != nil || s.recs != nil || s.meta != nil {
		t.Errorf("Close kept the maps")
	}
	_, err := s.Records(ctx, []string{"a"})
	if want := "index: memory: index is closed"; !errors.Is(err, index.ErrClosed) || err.Error() != want {
		t.Errorf("Records after Close: %v, want %s", err, want)
	}
	if err := s.Apply(ctx, &index.Batch{}); !errors.Is(err, index.ErrClosed) {
		t.Errorf("Apply after Close: %v", err)
	}
}

// Apply checks every ID before it writes any.
func TestApplyInvalidID(t *testing.T) {
	s := New()
	ctx := t.Context()
	err := s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "a", Record: []byte{1}}, {ID: "", Record: []byte{2}}}})
	if !errors.Is(err, index.ErrID) || !strings.Contains(err.Error(), "write 1") {
		t.Errorf("Apply with an empty ID: %v", err)
	}
	if st, _ := s.Stats(ctx); st.Docs != 0 {
		t.Errorf("%d docs after a refused Apply", st.Docs)
	}
}
