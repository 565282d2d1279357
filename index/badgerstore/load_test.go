package badgerstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// loadDocs returns n documents with random fingerprints, some with
// sketches and keywords, and some IDs repeated (later ones win).
func loadDocs(r *rand.Rand, n int) []Doc {
	var docs []Doc
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("doc%05d", i)
		if i%10 == 9 {
			id = fmt.Sprintf("doc%05d", r.IntN(i)) // a repeat, maybe in an earlier chunk
		}
		d := Doc{ID: id, Fingerprint: simhash.Fingerprint(r.Uint64()), ContentHash: r.Uint64() % 50,
			Added: time.Unix(1.7e9+int64(i), 0).UTC(), Seq: int64(i)}
		if i%3 == 0 {
			d.Title = "title " + id
			d.Keywords = []tfidf.Keyword{{Word: "w" + id, Weight: 1.5}}
			for k := range d.Sketch {
				d.Sketch[k] = uint16(r.Uint32()) | 1
			}
		}
		docs = append(docs, d)
	}
	return docs
}

// dumpKeys returns every key of x (with its value for records and
// metadata), in order.
func dumpKeys(t *testing.T, x *Index) []string {
	t.Helper()
	var out []string
	err := x.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%q=%q", k, v))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Load writes exactly the keys Add writes for the same documents, across
// chunks, with repeated IDs inside a chunk and across chunks, for the
// default layout and one with more tables.
func TestLoadEqualsAdd(t *testing.T) {
	for _, opts := range []*Options{nil, {Blocks: 5, MaxDistance: 3, AnalyzerID: "a1"}} {
		docs := loadDocs(rand.New(rand.NewPCG(5, 6)), 5000)
		added, _ := openTemp(t, opts)
		if err := added.Add(docs...); err != nil {
			t.Fatal(err)
		}
		loaded, dir := openTemp(t, opts)
		loaded.loadChunk = 1500 // four chunks
		n, err := loaded.Load(slices.Values(docs))
		if err != nil {
			t.Fatal(err)
		}
		want := dumpKeys(t, added)
		if got := dumpKeys(t, loaded); !slices.Equal(got, want) {
			t.Errorf("%v: Load wrote %d keys, Add %d; first difference at %d", opts, len(got), len(want), firstDiff(got, want))
		}
		distinct := 0
		seen := map[string]bool{}
		for _, d := range docs {
			if !seen[d.ID] {
				seen[d.ID] = true
				distinct++
			}
		}
		if n != distinct {
			t.Errorf("Load returned %d, want %d distinct documents", n, distinct)
		}
		sa, _ := added.Stats()
		sl, _ := loaded.Stats()
		if sl.Docs != sa.Docs || sl.Docs != int64(distinct) {
			t.Errorf("Stats: %d docs after Load, %d after Add, want %d", sl.Docs, sa.Docs, distinct)
		}
		// The filters know every document: Exact and a re-add work.
		for h := uint64(0); h < 50; h++ {
			a, _ := added.Exact(h)
			l, _ := loaded.Exact(h)
			if !slices.Equal(a, l) {
				t.Errorf("Exact(%d): %d ids after Load, %d after Add", h, len(l), len(a))
			}
		}
		if _, err := loaded.Load(slices.Values(docs[:1])); !errors.Is(err, ErrNotEmpty) {
			t.Errorf("second Load: %v, want ErrNotEmpty", err)
		}
		if err := loaded.Add(docs[:100]...); err != nil {
			t.Fatal(err)
		}
		if err := added.Add(docs[:100]...); err != nil {
			t.Fatal(err)
		}
		if got, want := dumpKeys(t, loaded), dumpKeys(t, added); !slices.Equal(got, want) {
			t.Errorf("after re-adding: %d keys, want %d", len(got), len(want))
		}
		// And after reopening.
		if err := loaded.Close(); err != nil {
			t.Fatal(err)
		}
		x, err := Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		for _, d := range docs[len(docs)-20:] {
			ms, err := x.Near(d.Fingerprint, 0)
			if err != nil || !slices.ContainsFunc(ms, func(m Match) bool { return m.ID == d.ID }) {
				t.Errorf("after reopening: Near(%v, 0) = %v, %v; want %s", d.Fingerprint, ms, err, d.ID)
			}
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestLoadErrors(t *testing.T) {
	x, dir := openTemp(t, nil)
	_, err := x.Load(slices.Values([]Doc{{ID: "a"}, {ID: ""}}))
	if !errors.Is(err, ErrID) || !strings.Contains(err.Error(), "document 1") {
		t.Errorf("Load with an empty id: %v", err)
	}
	if s, _ := x.Stats(); s.Docs != 0 {
		t.Errorf("%d docs after a failed Load, want 0", s.Docs)
	}
	x.Close()
	if _, err := x.Load(slices.Values([]Doc{{ID: "a"}})); !errors.Is(err, ErrClosed) {
		t.Errorf("Load after Close: %v", err)
	}
	ro, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Load(slices.Values([]Doc{{ID: "a"}})); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Load on a read-only index: %v", err)
	}
}

// A Load into a fresh directory leaves a directory that opens as the
// same index.
func TestLoadNewDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	x, err := Open(dir, &Options{AnalyzerID: "an"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Load(slices.Values([]Doc{{ID: "a", Fingerprint: 0xf0f0}, {ID: "b", Fingerprint: 0xf0f1}})); err != nil {
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
	if _, err := Open(dir, &Options{AnalyzerID: "other"}); !errors.Is(err, ErrMismatch) {
		t.Errorf("reopening with another analyzer: %v, want ErrMismatch", err)
	}
	x, err = Open(dir, &Options{AnalyzerID: "an"})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := os.Stat(filepath.Join(dir, loadTmp)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after Open: %v, want it removed", loadTmp, err)
	}
	ms, err := x.Near(0xf0f0, 1)
	if got := matchIDs(ms); err != nil || !slices.Equal(got, []string{"a@0", "b@1"}) {
		t.Errorf("Near after Load and reopen = %v, %v", got, err)
	}
}

// Loading nothing leaves the index as it was, metadata included.
func TestLoadNothing(t *testing.T) {
	x, dir := openTemp(t, &Options{AnalyzerID: "an"})
	before := dumpKeys(t, x)
	n, err := x.Load(slices.Values([]Doc(nil)))
	if n != 0 || err != nil {
		t.Fatalf("Load of nothing: %d, %v", n, err)
	}
	if after := dumpKeys(t, x); !slices.Equal(after, before) {
		t.Errorf("keys after loading nothing: %q, want %q", after, before)
	}
	if _, err := os.Stat(filepath.Join(dir, loadTmp)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind: %v", loadTmp, err)
	}
}
