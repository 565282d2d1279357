package badgerstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
)

// Load writes exactly the keys Add writes for the same documents, across
// chunks, with repeated IDs inside a chunk and across chunks, for the
// default layout and one with more tables.
func TestLoadEqualsAdd(t *testing.T) {
	ctx := t.Context()
	for _, opts := range []*index.Options{nil, {Blocks: 5, MaxDistance: 3, AnalyzerID: "a1"}} {
		docs := indextest.RandomDocs(rand.New(rand.NewPCG(5, 6)), 4000)
		added, addedStore := openTemp(t, opts)
		if err := added.Add(ctx, docs...); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "idx")
		loaded, s := openDir(t, dir, nil, opts)
		s.loadChunk = 1500 // three chunks
		n, err := loaded.Load(ctx, slices.Values(docs))
		if err != nil {
			t.Fatal(err)
		}
		want := dumpResolved(t, addedStore)
		if got := dumpResolved(t, s); !slices.Equal(got, want) {
			t.Errorf("%+v: Load wrote %d keys, Add %d; first difference at %d", opts, len(got), len(want), firstDiff(got, want))
		}
		distinct := map[string]bool{}
		for _, d := range docs {
			distinct[d.ID] = true
		}
		if n != len(distinct) {
			t.Errorf("Load returned %d, want %d distinct documents", n, len(distinct))
		}
		sa, _ := added.Stats(ctx)
		sl, _ := loaded.Stats(ctx)
		if sl.Docs != sa.Docs || sl.Docs != int64(len(distinct)) {
			t.Errorf("Stats: %d docs after Load, %d after Add, want %d", sl.Docs, sa.Docs, len(distinct))
		}
		// The filters know every document: Exact and a re-add work.
		for h := range uint64(50) {
			a, _ := added.Exact(ctx, h)
			l, _ := loaded.Exact(ctx, h)
			if !slices.Equal(a, l) || len(a) == 0 {
				t.Errorf("Exact(%d): %d ids after Load, %d after Add", h, len(l), len(a))
			}
		}
		if _, err := loaded.Load(ctx, slices.Values(docs[:1])); !errors.Is(err, index.ErrNotEmpty) {
			t.Errorf("second Load: %v, want ErrNotEmpty", err)
		}
		if _, err := s.Load(ctx, func(func(*index.Write) bool) {}); !errors.Is(err, index.ErrNotEmpty) {
			t.Errorf("second Store.Load: %v, want ErrNotEmpty", err)
		}
		if err := loaded.Add(ctx, docs[:100]...); err != nil {
			t.Fatal(err)
		}
		if err := added.Add(ctx, docs[:100]...); err != nil {
			t.Fatal(err)
		}
		if got, want := dumpResolved(t, s), dumpResolved(t, addedStore); !slices.Equal(got, want) {
			t.Errorf("after re-adding: %d keys, want %d", len(got), len(want))
		}
		// And after reopening.
		if err := loaded.Close(); err != nil {
			t.Fatal(err)
		}
		x, _ := openDir(t, dir, nil, opts)
		for _, d := range docs[len(docs)-20:] {
			ms, err := x.Near(ctx, d.Fingerprint, 0)
			if err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == d.ID }) {
				t.Errorf("after reopening: Near(%v, 0) = %v, %v; want %s", d.Fingerprint, ms, err, d.ID)
			}
		}
	}
}

func TestLoadErrors(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	x, s := openDir(t, dir, nil, nil)
	_, err := x.Load(ctx, slices.Values([]index.Doc{{ID: "a"}, {ID: ""}}))
	if !errors.Is(err, index.ErrID) || err.Error() != "index: load: document 1: empty id" {
		t.Errorf("Load with an empty id: %v", err)
	}
	if st, _ := x.Stats(ctx); st.Docs != 0 {
		t.Errorf("%d docs after a failed Load, want 0", st.Docs)
	}
	// The Store checks IDs itself, and a Load whose context ends before
	// its writes do writes nothing.
	_, err = s.Load(ctx, slices.Values([]*index.Write{{ID: "a", Record: []byte{1}}, {ID: ""}}))
	if !errors.Is(err, index.ErrID) {
		t.Errorf("Store.Load with an empty id: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	n, err := s.Load(cctx, func(yield func(*index.Write) bool) {
		yield(&index.Write{ID: "a", Record: []byte{1}})
		cancel()
	})
	if !errors.Is(err, context.Canceled) || n != 0 {
		t.Errorf("Store.Load cancelled: %d, %v", n, err)
	}
	if recs, _ := s.Records(ctx, []string{"a"}); recs[0] != nil {
		t.Errorf("a cancelled Load wrote %q", recs[0])
	}
	x.Close()
	if _, err := s.Load(ctx, slices.Values([]*index.Write{{ID: "a"}})); !errors.Is(err, index.ErrClosed) {
		t.Errorf("Store.Load after Close: %v", err)
	}
}

// A Load into a fresh directory leaves a directory that opens as the
// same index, metadata included.
func TestLoadNewDirectory(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	x, _ := openDir(t, dir, nil, &index.Options{AnalyzerID: "an", Blocks: 5, MaxDistance: 3})
	if _, err := x.Load(ctx, slices.Values([]index.Doc{{ID: "a", Fingerprint: 0xf0f0}, {ID: "b", Fingerprint: 0xf0f1}})); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	// Run files left by a Load that did not finish are removed.
	if err := os.MkdirAll(filepath.Join(dir, loadTmp), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, loadTmp, "0.0"), []byte("run"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenIndex(ctx, dir, nil, &index.Options{AnalyzerID: "other"}); !errors.Is(err, index.ErrMismatch) {
		t.Errorf("reopening with another analyzer: %v, want ErrMismatch", err)
	}
	x, _ = openDir(t, dir, nil, nil)
	if _, err := os.Stat(filepath.Join(dir, loadTmp)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after Open: %v, want it removed", loadTmp, err)
	}
	if st, err := x.Stats(ctx); err != nil || st.AnalyzerID != "an" || st.Tables != 10 || st.Docs != 2 {
		t.Errorf("Stats after Load and reopen = %+v, %v", st, err)
	}
	ms, err := x.Near(ctx, 0xf0f0, 1)
	if got := indextest.IDs(ms); err != nil || !slices.Equal(got, []string{"a@0", "b@1"}) {
		t.Errorf("Near after Load and reopen = %v, %v", got, err)
	}
}

// Loading nothing leaves the index as it was, metadata included.
func TestLoadNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	x, s := openDir(t, dir, nil, &index.Options{AnalyzerID: "an"})
	before := dumpKeys(t, s)
	n, err := x.Load(t.Context(), slices.Values([]index.Doc(nil)))
	if n != 0 || err != nil {
		t.Fatalf("Load of nothing: %d, %v", n, err)
	}
	if after := dumpKeys(t, s); !slices.Equal(after, before) {
		t.Errorf("keys after loading nothing: %q, want %q", after, before)
	}
	if _, err := os.Stat(filepath.Join(dir, loadTmp)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind: %v", loadTmp, err)
	}
}

// A store that holds metadata and no settings, as a Load of a new store
// killed before its settings landed leaves it, is read as a new store
// when that Load's mark is in its directory, and loaded again as one:
// numbered postings, its settings recorded, the same keys as Add
// writes. (Without the mark it is read as a store written before issue
// #27, which is what TestKillDuringLoad found one run in four.)
func TestLoadOverCutShortLoad(t *testing.T) {
	ctx := t.Context()
	var docs []index.Doc
	for i := range 40 {
		docs = append(docs, killDoc(i))
	}
	ref, refStore := openTemp(t, nil)
	if err := ref.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	want := dumpResolved(t, refStore)
	meta, err := refStore.readMeta()
	if err != nil || len(meta) == 0 {
		t.Fatalf("the reference store's metadata: %d keys, %v", len(meta), err)
	}

	// What the cut-short Load left: its metadata stream, not its
	// settings (written straight to Badger, past setMark).
	dir := filepath.Join(t.TempDir(), "idx")
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.db.Update(func(txn *badger.Txn) error {
		for _, kv := range meta {
			if err := txn.Set(kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	})
	if err := errors.Join(err, s.Close()); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.numbered {
		t.Error("without a Load's mark, a store of metadata and no settings is read as numbered")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, loadTmp), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, loadTmp, loadNumbered), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	x, s := openDir(t, dir, nil, nil)
	if !s.numbered {
		t.Fatal("with the mark of a Load of a numbered store, the store is not read as numbered")
	}
	if n, err := x.Load(ctx, slices.Values(docs)); n != len(docs) || err != nil {
		t.Fatalf("Load: %d, %v", n, err)
	}
	if got := dumpResolved(t, s); !slices.Equal(got, want) {
		t.Fatalf("%d keys after the Load, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
	x.Close()
	_, s = openDir(t, dir, nil, nil)
	if !s.numbered {
		t.Error("reopened, the store's postings are not numbered")
	}
}
