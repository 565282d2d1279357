package badgerstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// TestMain runs the helper processes of the multi-process tests when
// NEARDUP_INDEX_HELPER says so, and the tests otherwise.
func TestMain(m *testing.M) {
	switch os.Getenv("NEARDUP_INDEX_HELPER") {
	case "":
		code := m.Run()
		if pristineDir != "" {
			os.RemoveAll(filepath.Dir(pristineDir))
		}
		os.Exit(code)
	case "add":
		helperAdd()
	case "open":
		helperOpen()
	case "load":
		helperLoad()
	}
	os.Exit(2)
}

func TestConformance(t *testing.T) {
	indextest.Run(t, openStore)
}

// A store whose tables are compressed (Options.Compress) passes the
// suite too.
func TestConformanceCompressed(t *testing.T) {
	indextest.Run(t, func(t *testing.T) index.Store {
		s, err := Open(filepath.Join(t.TempDir(), "idx"), &Options{Compress: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A store that keeps its postings in memory (Options.MemPostings)
// passes the suite.
func TestConformanceMemPostings(t *testing.T) {
	indextest.Run(t, func(t *testing.T) index.Store {
		s, err := Open(filepath.Join(t.TempDir(), "idx"), &Options{MemPostings: true})
		if err != nil {
			t.Fatal(err)
		}
		if s.mem.Load() == nil {
			t.Fatal("no postings in memory")
		}
		return s
	})
}

func openStore(t *testing.T) index.Store {
	s, err := Open(filepath.Join(t.TempDir(), "idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTextStats(t *testing.T) {
	indextest.TextStats(t, openStore)
}

// openDir opens the store in dir with sopts and the index in it with
// iopts; the test's cleanup closes them.
func openDir(t testing.TB, dir string, sopts *Options, iopts *index.Options) (*index.Index, *Store) {
	t.Helper()
	s, err := Open(dir, sopts)
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.New(context.Background(), s, iopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, s
}

// openTemp opens an index with iopts in a new directory.
func openTemp(t testing.TB, iopts *index.Options) (*index.Index, *Store) {
	t.Helper()
	return openDir(t, filepath.Join(t.TempDir(), "idx"), nil, iopts)
}

// countKeys counts the Badger keys starting with prefix.
func countKeys(t *testing.T, s *Store, prefix byte) int {
	t.Helper()
	n := 0
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefix}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// dumpKeys returns every key of s and its value, in hex, in key order.
func dumpKeys(t testing.TB, s *Store) []string {
	t.Helper()
	var out []string
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%x %x", it.Item().Key(), v))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dumpResolved is dumpKeys of a numbered store with every number
// replaced by its document's ID (a posting key's, a record value's) and
// without the 'n' keys and the next number: what two stores holding the same documents,
// numbered in different orders, both hold. (Load numbers a document by
// its place in the input, Add by its place among the documents it
// writes; they differ where an ID repeats.)
func dumpResolved(t testing.TB, s *Store) []string {
	t.Helper()
	ids := map[string]string{}
	var lines []string
	for _, line := range dumpKeys(t, s) {
		k, v, _ := strings.Cut(line, " ")
		if strings.HasPrefix(k, fmt.Sprintf("%x", kindNum)) {
			ids[k[2:]] = v
			continue
		}
		if k == fmt.Sprintf("%x", storeMetaKey(metaNext)) {
			continue
		}
		lines = append(lines, line)
	}
	var out []string
	for _, line := range lines {
		k, v, _ := strings.Cut(line, " ")
		switch kind := k[:2]; {
		case kind == fmt.Sprintf("%x", kindDoc):
			v = v[2*numLen:]
		case kind == "63" || kind == "62" || kind == "70" || kind == "74":
			num := k[len(k)-2*numLen:]
			id, ok := ids[num]
			if !ok {
				id = "#" + num // no ID: differs from every store's that has one
			}
			k = k[:len(k)-2*numLen] + "/" + id
		}
		out = append(out, k+" "+v)
	}
	slices.Sort(out)
	return out
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// recorder is a memory store that keeps every Write applied to it, so
// that a test can hand a Badger store the writes an Index makes in one
// Batch larger than those Index makes (10,000 documents).
type recorder struct {
	*memstore.Store
	writes []index.Write
}

func (r *recorder) Apply(ctx context.Context, b *index.Batch) error {
	r.writes = append(r.writes, b.Writes...)
	return r.Store.Apply(ctx, b)
}

// Applies of more documents than one Badger transaction takes (10,000),
// re-adding IDs of an earlier Apply, and re-adding after a reopen (with
// the ID filter from the filters file), leave exactly one set of keys
// per document.
func TestApplyAcrossTransactions(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 24,000 documents")
	}
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	x, s := openDir(t, dir, nil, nil)
	rec := &recorder{Store: memstore.New()}
	model, err := index.New(ctx, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	fp, mk := indextest.SeqFingerprint, indextest.SeqDocs
	// apply adds docs to the model and applies its writes to s in one
	// Batch.
	apply := func(docs []index.Doc) {
		t.Helper()
		rec.writes = nil
		if err := model.Add(ctx, docs...); err != nil {
			t.Fatal(err)
		}
		if err := s.Apply(ctx, &index.Batch{Writes: rec.writes}); err != nil {
			t.Fatal(err)
		}
	}
	apply(mk(0, 10500, 0))
	// 1500 re-added with new fingerprints, 9000 new, one ID three times.
	batch := append(mk(9000, 19500, 1<<40), mk(19499, 19500, 2<<40)...)
	apply(append(mk(19499, 19500, 3<<40), batch...))
	check := func(x *index.Index, s *Store, when string, gens map[int]uint64) {
		t.Helper()
		if st, _ := x.Stats(ctx); st.Docs != 19500 {
			t.Errorf("%s: Stats: %d docs, want 19500", when, st.Docs)
		}
		for kind, want := range map[byte]int{'t': 4 * 19500, 'c': 19500, 'd': 19500} {
			if n := countKeys(t, s, kind); n != want {
				t.Errorf("%s: %d %c keys, want %d", when, n, kind, want)
			}
		}
		for i, gen := range gens {
			id := fmt.Sprintf("doc%06d", i)
			d, err := x.Get(ctx, id)
			if err != nil || d.Fingerprint != fp(i, gen) {
				t.Errorf("%s: Get(%s) = %v, %v; want %v", when, id, d.Fingerprint, err, fp(i, gen))
			}
			ms, err := x.Near(ctx, d.Fingerprint, 0)
			if err != nil || len(ms) != 1 || ms[0].ID != id {
				t.Errorf("%s: Near(%v, 0) = %v, %v; want %s only", when, d.Fingerprint, ms, err, id)
			}
		}
	}
	check(x, s, "after two applies", map[int]uint64{0: 0, 8999: 0, 9000: 1 << 40, 10499: 1 << 40, 10500: 1 << 40, 19498: 1 << 40, 19499: 2 << 40})
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	x, s = openDir(t, dir, nil, nil)
	if err := x.Add(ctx, mk(0, 3000, 4<<40)...); err != nil {
		t.Fatal(err)
	}
	check(x, s, "after reopening and re-adding", map[int]uint64{0: 4 << 40, 2999: 4 << 40, 3000: 0, 9000: 1 << 40, 19499: 2 << 40})
}

func TestReopen(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	x, _ := openDir(t, dir, nil, &index.Options{Blocks: 5, MaxDistance: 3, AnalyzerID: "jieba/v1"})
	added := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	doc := index.Doc{ID: "a", Fingerprint: 0xabc, ContentHash: 7, Title: "T", Keywords: []tfidf.Keyword{{Word: "k", Weight: 2}}, Added: added,
		Sketch: minhash.New("some text to sketch"), Job: "j", Seq: 9}
	if err := x.Add(ctx, doc); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Get(ctx, "a"); !errors.Is(err, index.ErrClosed) {
		t.Errorf("Get after Close: %v", err)
	}

	x, _ = openDir(t, dir, nil, nil) // the stored layout and analyzer
	got, err := x.Get(ctx, "a")
	if err != nil || !reflect.DeepEqual(got, doc) {
		t.Errorf("Get after reopen = %+v, %v; want %+v", got, err, doc)
	}
	s, err := x.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Docs != 1 || s.Blocks != 5 || s.MaxDistance != 3 || s.Tables != 10 || s.AnalyzerID != "jieba/v1" || s.FormatVersion != 1 || s.DiskBytes <= 0 {
		t.Errorf("Stats after reopen = %+v", s)
	}
	if ms, err := x.Near(ctx, 0xabc^0x101, 2); err != nil || len(ms) != 1 || ms[0].ID != "a" {
		t.Errorf("Near after reopen = %v, %v", ms, err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	// Mismatched options, then agreeing ones, read-only among them.
	tests := []struct {
		sopts *Options
		iopts *index.Options
		err   error
	}{
		{nil, &index.Options{Blocks: 4}, index.ErrMismatch},
		{nil, &index.Options{AnalyzerID: "other"}, index.ErrMismatch},
		{&Options{ReadOnly: true}, &index.Options{AnalyzerID: "other"}, index.ErrMismatch},
		{&Options{ReadOnly: true}, nil, nil},
		{&Options{ReadOnly: true}, &index.Options{Blocks: 5, MaxDistance: 3, AnalyzerID: "jieba/v1"}, nil},
		{&Options{FalsePositive: 0.001}, &index.Options{MaxDistance: 3}, nil},
	}
	for _, tt := range tests {
		x, err := OpenIndex(ctx, dir, tt.sopts, tt.iopts)
		if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("OpenIndex(%+v, %+v): %v, want %v", tt.sopts, tt.iopts, err, tt.err)
		}
		if err == nil {
			if s, err := x.Stats(ctx); err != nil || s.AnalyzerID != "jieba/v1" || s.Docs != 1 {
				t.Errorf("OpenIndex(%+v, %+v): Stats %+v, %v", tt.sopts, tt.iopts, s, err)
			}
			x.Close()
		}
	}
}

func TestBadOptions(t *testing.T) {
	dir := t.TempDir()
	for i, fp := range []float64{0.9, -0.1, 1} {
		if _, err := Open(filepath.Join(dir, fmt.Sprint(i)), &Options{FalsePositive: fp}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("FalsePositive %v: want a value in (0, 0.5]", fp)) {
			t.Errorf("Open with FalsePositive %v: %v", fp, err)
		}
	}
	if _, err := Open("", nil); err == nil || err.Error() != "index: empty directory name" {
		t.Errorf("Open(\"\"): %v", err)
	}
	// A failed New closes the store, which releases the directory.
	d := filepath.Join(dir, "idx")
	if _, err := OpenIndex(t.Context(), d, nil, &index.Options{Blocks: 4, MaxDistance: 4}); !errors.Is(err, index.ErrLayout) {
		t.Errorf("OpenIndex with a bad layout: %v", err)
	}
	x, err := OpenIndex(t.Context(), d, nil, nil)
	if err != nil {
		t.Fatalf("OpenIndex after a failed one: %v", err)
	}
	x.Close()
}

// helperAdd adds documents one by one to the index in
// NEARDUP_INDEX_DIR, starting at NEARDUP_INDEX_START, printing each ID
// once Add has returned, until killed.
func helperAdd() {
	ctx := context.Background()
	var opts *Options
	if os.Getenv("NEARDUP_INDEX_MEM") == "1" {
		opts = &Options{MemPostings: true}
	}
	x, err := OpenIndex(ctx, os.Getenv("NEARDUP_INDEX_DIR"), opts, nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	var start int
	fmt.Sscan(os.Getenv("NEARDUP_INDEX_START"), &start)
	for i := start; ; i++ {
		d := killDoc(i)
		if err := x.Add(ctx, d); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		os.Stdout.WriteString(d.ID + "\n")
	}
}

// helperOpen tries to open the index in NEARDUP_INDEX_DIR and says how
// that went.
func helperOpen() {
	x, err := OpenIndex(context.Background(), os.Getenv("NEARDUP_INDEX_DIR"), nil, nil)
	switch {
	case errors.Is(err, index.ErrInUse):
		fmt.Println("in use:", err)
	case err != nil:
		fmt.Println("error:", err)
	default:
		x.Close()
		fmt.Println("opened")
	}
	os.Exit(0)
}

func TestInUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	x, _ := openDir(t, dir, nil, nil)
	_, err := Open(dir, nil)
	if !errors.Is(err, index.ErrInUse) || err.Error() != "index is in use by another process: "+dir {
		t.Errorf("second Open in the same process: %v", err)
	}
	_, err = Open(dir, &Options{ReadOnly: true})
	if !errors.Is(err, index.ErrInUse) {
		t.Errorf("read-only Open while open for writing: %v", err)
	}
	out, err := helperCmd("open", dir).CombinedOutput()
	if err != nil || string(out) != "in use: index is in use by another process: "+dir+"\n" {
		t.Errorf("Open in another process: %q, %v", out, err)
	}
	x.Close()
	out, err = helperCmd("open", dir).CombinedOutput()
	if err != nil || string(out) != "opened\n" {
		t.Errorf("Open in another process after Close: %q, %v", out, err)
	}
}

// TestReopenWhileForking: an Open right after a Close finds the
// directory free while other goroutines start programs. Each child
// holds a copy of the lock's file until it executes its program (here
// this test binary, running no test); before Open retried a held lock,
// 7 runs of 8 found some reopens in use (ErrInUse), up to 34 of 40.
func TestReopenWhileForking(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	stop := make(chan struct{})
	var forks sync.WaitGroup
	for range 4 {
		forks.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				exec.Command(os.Args[0], "-test.run=^$").Run()
			}
		})
	}
	defer forks.Wait()
	defer close(stop)
	failed := 0
	for range 40 {
		s, err := Open(dir, nil)
		if err != nil {
			if !errors.Is(err, index.ErrInUse) {
				t.Fatal(err)
			}
			failed++
			continue
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if failed > 0 {
		t.Errorf("%d of 40 opens right after a Close found the directory in use", failed)
	}
}

func TestReadOnly(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	x, _ := openDir(t, dir, nil, nil)
	if err := x.Add(ctx, index.Doc{ID: "a", Fingerprint: 5}); err != nil {
		t.Fatal(err)
	}
	x.Close()
	r1, _ := openDir(t, dir, &Options{ReadOnly: true}, nil)
	r2, _ := openDir(t, dir, &Options{ReadOnly: true}, nil)
	if err := r1.Add(ctx, index.Doc{ID: "b"}); !errors.Is(err, index.ErrReadOnly) {
		t.Errorf("Add on read-only: %v", err)
	}
	if err := r1.Delete(ctx, "a"); !errors.Is(err, index.ErrReadOnly) {
		t.Errorf("Delete on read-only: %v", err)
	}
	_, err := r1.Store().Claim(ctx, map[string][]byte{"new": []byte("v"), index.MetaFormat: {7}})
	if !errors.Is(err, index.ErrReadOnly) || !strings.HasSuffix(err.Error(), ": recording new: index is read-only") {
		t.Errorf("Claim of a new name on read-only: %v", err)
	}
	if v, err := r1.Store().Claim(ctx, map[string][]byte{index.MetaFormat: {7}}); err != nil || len(v) != 1 || string(v[index.MetaFormat]) != "\x01" {
		t.Errorf("Claim of a recorded name on read-only = %q, %v", v, err)
	}
	if ms, err := r2.Near(ctx, 4, 1); err != nil || len(ms) != 1 {
		t.Errorf("Near on read-only = %v, %v", ms, err)
	}
	if _, err := Open(filepath.Join(dir, "missing"), &Options{ReadOnly: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read-only Open of a missing directory: %v", err)
	}
	if _, err := Open(t.TempDir(), &Options{ReadOnly: true}); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("read-only Open of an empty directory: %v", err)
	}
	// An index with no documents, read-only, refuses a Load.
	empty := filepath.Join(t.TempDir(), "empty")
	x, _ = openDir(t, empty, nil, nil)
	x.Close()
	ro, _ := openDir(t, empty, &Options{ReadOnly: true}, nil)
	if _, err := ro.Load(ctx, slices.Values([]index.Doc{{ID: "a"}})); !errors.Is(err, index.ErrReadOnly) {
		t.Errorf("Load on a read-only index: %v", err)
	}
}

func TestUnusableDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(filepath.Join(file, "idx"), nil)
	if err == nil || !strings.Contains(err.Error(), file) || !errors.Is(err, fs.ErrExist) && !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Open under a file: %v", err)
	}
	if _, err := Open(file, &Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("read-only Open of a file: %v", err)
	}
	// A Badger database that is not an index.
	other := filepath.Join(t.TempDir(), "other")
	db, err := badger.Open(badger.DefaultOptions(other).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("key"), []byte("value")) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(other, nil); err == nil || !strings.Contains(err.Error(), "not a neardup index (no format metadata)") {
		t.Errorf("Open of a Badger database that is not an index: %v", err)
	}
	if os.Getuid() == 0 {
		t.Log("running as root: permission bits do not stop root, so the read-only directory case is not checked")
		return
	}
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ro, nil); !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), ro+" is not writable") {
		t.Errorf("Open of a read-only directory: %v", err)
	}
}

func TestCorruptRecord(t *testing.T) {
	ctx := t.Context()
	x, s := openTemp(t, nil)
	if err := x.Add(ctx, index.Doc{ID: "a", Fingerprint: 5, ContentHash: 9}); err != nil {
		t.Fatal(err)
	}
	// The record's number (1), then 3 bytes of a record.
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(docKey("a"), []byte{0, 0, 0, 0, 1, 1, 2, 3}) }); err != nil {
		t.Fatal(err)
	}
	_, err := x.Get(ctx, "a")
	if !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), `record of "a"`) || !strings.Contains(err.Error(), "hashes: need 16 bytes") {
		t.Errorf("Get of a corrupt record: %v", err)
	}
	if _, err := x.Similar(ctx, &index.Doc{Fingerprint: 5}, 3); !errors.Is(err, index.ErrCorrupt) {
		t.Errorf("Similar reaching a corrupt record: %v", err)
	}
	if err := x.Delete(ctx, "a"); !errors.Is(err, index.ErrCorrupt) {
		t.Errorf("Delete of a corrupt record: %v", err)
	}
	if err := x.Add(ctx, index.Doc{ID: "a"}); !errors.Is(err, index.ErrCorrupt) {
		t.Errorf("re-Add over a corrupt record: %v", err)
	}
	// A table key too short to hold a fingerprint.
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("t\x00\xf0\x0f\x01\x02"), nil) }); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Near(ctx, 0xf00f<<48, 0); !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), "posting key 7400f00f0102: corrupt index: 6 bytes, want 17") {
		t.Errorf("Near reaching a short table key: %v", err)
	}
	// A record value too short to hold its number.
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(docKey("b"), []byte{0, 0, 2}) }); err != nil {
		t.Fatal(err)
	}
	s.ids.add(xxhash.Sum64String("b"))
	if _, err := x.Get(ctx, "b"); !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), `reading document "b": corrupt index: record value of 3 bytes: want a 5-byte number first`) {
		t.Errorf("Get of a record without its number: %v", err)
	}
}

func TestExactFilter(t *testing.T) {
	ctx := t.Context()
	x, s := openTemp(t, nil)
	var docs []index.Doc
	for i := range 20 {
		docs = append(docs, index.Doc{ID: fmt.Sprintf("dup%02d", i), ContentHash: 0xdddd}) // saturates the filter
	}
	docs = append(docs, index.Doc{ID: "one", ContentHash: 0x1111})
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	if ids, _ := x.Exact(ctx, 0x1111); !slices.Equal(ids, []string{"one"}) {
		t.Errorf("Exact(0x1111) = %q", ids)
	}
	if ids, _ := x.Exact(ctx, 0xdddd); len(ids) != 20 || ids[0] != "dup00" || ids[19] != "dup19" {
		t.Errorf("Exact(0xdddd) = %q", ids)
	}
	for i := range uint64(1000) {
		if ids, _ := x.Exact(ctx, 0x1_0000_0000+i); len(ids) != 0 {
			t.Fatalf("Exact of an absent hash = %q", ids)
		}
	}
	st, _ := x.Stats(ctx)
	b := st.Bloom
	if b.Lookups != 1002 || b.ReadsDone+b.ReadsSaved != 1002 || b.ReadsDone-b.FalseHits != 2 || b.ReadsSaved < 970 {
		t.Errorf("filter stats after 2 present and 1000 absent lookups: %+v", b)
	}
	if b.Capacity != 1024 || b.Hashes != 7 || b.Saturated != 7 || b.Rebuilds != 0 || b.MemoryBytes != 9816/2 || b.Counters != 9816 || b.FalsePositive != 0.01 {
		t.Errorf("filter shape: %+v", b)
	}

	// Deleting the 20 duplicates leaves their counters stuck at 15: the
	// filter still says maybe and the store says no.
	var dups []string
	for _, d := range docs[:20] {
		dups = append(dups, d.ID)
	}
	if err := x.Delete(ctx, dups...); err != nil {
		t.Fatal(err)
	}
	before, _ := x.Stats(ctx)
	if ids, _ := x.Exact(ctx, 0xdddd); len(ids) != 0 {
		t.Errorf("Exact after deleting the duplicates = %q", ids)
	}
	after, _ := x.Stats(ctx)
	if after.Bloom.FalseHits != before.Bloom.FalseHits+1 || after.Bloom.Saturated != 7 {
		t.Errorf("stuck counters: before %+v, after %+v", before.Bloom, after.Bloom)
	}

	// Past the stuck limit the filter is rebuilt from the store.
	s.maxStuck = 10
	if err := x.Add(ctx, docs[:20]...); err != nil {
		t.Fatal(err)
	}
	if err := x.Delete(ctx, dups...); err != nil {
		t.Fatal(err)
	}
	st, _ = x.Stats(ctx)
	if st.Bloom.Rebuilds != 1 || st.Bloom.Saturated != 0 {
		t.Errorf("after rebuild: %+v", st.Bloom)
	}
	if ids, _ := x.Exact(ctx, 0xdddd); len(ids) != 0 {
		t.Errorf("Exact after rebuild = %q", ids)
	}
	if s2, _ := x.Stats(ctx); s2.Bloom.ReadsSaved != st.Bloom.ReadsSaved+1 {
		t.Errorf("Exact after rebuild read the store: %+v", s2.Bloom)
	}
	if ids, _ := x.Exact(ctx, 0x1111); !slices.Equal(ids, []string{"one"}) {
		t.Errorf("Exact(0x1111) after rebuild = %q", ids)
	}
}

// The ID filter spares the record reads of new IDs: adding documents
// that are all new reads no record, nor does Get of an unknown ID.
func TestIDFilterAfterAdd(t *testing.T) {
	ctx := t.Context()
	x, s := openTemp(t, nil)
	docs := indextest.SeqDocs(0, 500, 0)
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	maybe := 0
	for i := range 10000 {
		if s.ids.mayContain(xxhash.Sum64String(fmt.Sprint("new", i))) {
			maybe++
		}
	}
	if maybe > 300 { // 1% of 10,000 at capacity; the filter is a third full
		t.Errorf("the ID filter says maybe for %d of 10,000 new IDs", maybe)
	}
	for _, d := range docs {
		if !s.ids.mayContain(xxhash.Sum64String(d.ID)) {
			t.Fatalf("the ID filter lacks %s", d.ID)
		}
	}
}

func TestBloomGrows(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	x, _ := openDir(t, dir, nil, nil)
	var docs []index.Doc
	for i := range 3000 {
		docs = append(docs, index.Doc{ID: fmt.Sprint(i), ContentHash: mix64(uint64(i))})
	}
	for i := 0; i < 3000; i += 1000 {
		if err := x.Add(ctx, docs[i:i+1000]...); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := x.Stats(ctx)
	if st.Bloom.Capacity != 4000 || st.Bloom.Rebuilds != 1 {
		t.Errorf("after 3000 docs in batches of 1000: %+v", st.Bloom) // 1024 → 2·2000 at the second batch
	}
	for _, d := range docs {
		if ids, _ := x.Exact(ctx, d.ContentHash); len(ids) != 1 {
			t.Fatalf("Exact(%x) = %q", d.ContentHash, ids)
		}
	}
	x.Close()
	// Reopened, the filters come from the file Close saved.
	x, _ = openDir(t, dir, nil, nil)
	if st, _ := x.Stats(ctx); st.Bloom.Capacity != 4000 || st.Docs != 3000 || st.Bloom.Rebuilds != 0 {
		t.Errorf("after reopening: %+v", st)
	}
	x.Close()
	// Without it, they are rebuilt for 1.5 times the documents.
	if err := os.Remove(filepath.Join(dir, filtersFile)); err != nil {
		t.Fatal(err)
	}
	x, _ = openDir(t, dir, nil, nil)
	if st, _ := x.Stats(ctx); st.Bloom.Capacity != 4500 || st.Docs != 3000 {
		t.Errorf("after reopening without the filters file: %+v", st)
	}
}

// Transactions that Badger finds too big are split.
func TestLargeBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 12 MB")
	}
	ctx := t.Context()
	x, _ := openTemp(t, nil)
	title := strings.Repeat("t", 12000)
	var docs []index.Doc
	for i := range 1000 {
		docs = append(docs, index.Doc{ID: fmt.Sprintf("big%04d", i), Title: title, Fingerprint: simhash.Fingerprint(i)})
	}
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	if st, _ := x.Stats(ctx); st.Docs != 1000 {
		t.Errorf("%d docs, want 1000", st.Docs)
	}
	if d, err := x.Get(ctx, "big0999"); err != nil || d.Title != title {
		t.Errorf("Get(big0999): %v", err)
	}
	// A record over Badger's value threshold (1 MiB) goes to its value
	// log.
	huge := index.Doc{ID: "huge", Title: strings.Repeat("h", 3<<20)}
	if err := x.Add(ctx, huge); err != nil {
		t.Fatalf("Add of a 3 MiB document: %v", err)
	}
	if d, err := x.Get(ctx, "huge"); err != nil || d.Title != huge.Title {
		t.Errorf("Get(huge): %v", err)
	}
}
