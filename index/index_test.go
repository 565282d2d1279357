package index

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// indexer is what Index and Memory have in common.
type indexer interface {
	Add(docs ...Doc) error
	Get(id string) (Doc, error)
	Delete(ids ...string) error
	Near(fp simhash.Fingerprint, k int) ([]Match, error)
	Similar(d *Doc, k int) ([]Match, error)
	Exact(contentHash uint64) ([]string, error)
	Stats() (Stats, error)
	Close() error
}

var (
	_ indexer = (*Index)(nil)
	_ indexer = (*Memory)(nil)
)

// TestMain runs the helper processes of the multi-process tests when
// NEARDUP_INDEX_HELPER says so, and the tests otherwise.
func TestMain(m *testing.M) {
	switch os.Getenv("NEARDUP_INDEX_HELPER") {
	case "":
		os.Exit(m.Run())
	case "add":
		helperAdd()
	case "open":
		helperOpen()
	case "load":
		helperLoad()
	}
	os.Exit(2)
}

// helperAdd adds documents one by one to the index in
// NEARDUP_INDEX_DIR, starting at NEARDUP_INDEX_START, printing each ID
// once Add has returned, until killed.
func helperAdd() {
	x, err := Open(os.Getenv("NEARDUP_INDEX_DIR"), nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	var start int
	fmt.Sscan(os.Getenv("NEARDUP_INDEX_START"), &start)
	for i := start; ; i++ {
		d := killDoc(i)
		if err := x.Add(d); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		os.Stdout.WriteString(d.ID + "\n")
	}
}

// helperOpen tries to open the index in NEARDUP_INDEX_DIR and says how
// that went.
func helperOpen() {
	x, err := Open(os.Getenv("NEARDUP_INDEX_DIR"), nil)
	switch {
	case errors.Is(err, ErrInUse):
		fmt.Println("in use:", err)
	case err != nil:
		fmt.Println("error:", err)
	default:
		x.Close()
		fmt.Println("opened")
	}
	os.Exit(0)
}

func killDoc(i int) Doc {
	id := fmt.Sprintf("k%06d", i)
	return Doc{ID: id, Fingerprint: simhash.Fingerprint(simhash.HashWord(id)), ContentHash: simhash.HashWord("c" + id), Title: "title " + id}
}

func helperCmd(t *testing.T, mode, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "NEARDUP_INDEX_HELPER="+mode, "NEARDUP_INDEX_DIR="+dir)...)
	return cmd
}

func openTemp(t testing.TB, opts *Options) (*Index, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "idx")
	x, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, dir
}

// implementations returns a fresh Badger index and a fresh Memory, both
// with opts.
func implementations(t *testing.T, opts *Options) map[string]indexer {
	t.Helper()
	x, _ := openTemp(t, opts)
	m, err := NewMemory(opts)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]indexer{"badger": x, "memory": m}
}

// flip returns fp with n distinct random bits flipped.
func flip(r *rand.Rand, fp simhash.Fingerprint, n int) simhash.Fingerprint {
	for _, b := range r.Perm(64)[:n] {
		fp ^= 1 << uint(b)
	}
	return fp
}

// bruteNear is Near by comparing with every document.
func bruteNear(docs map[string]simhash.Fingerprint, fp simhash.Fingerprint, k int) []Match {
	var ms []Match
	for id, g := range docs {
		if d := fp.Distance(g); d <= k {
			ms = append(ms, Match{ID: id, Distance: d, Similarity: fp.Similarity(g)})
		}
	}
	return sortUniq(ms, false)
}

// Near must agree exactly with brute force for every layout, every
// query distance, on random fingerprints with neighbours planted at every
// distance from 0 to k+1.
func TestNearAgainstBruteForce(t *testing.T) {
	for _, lk := range [][2]int{{4, 3}, {5, 3}, {6, 3}, {4, 2}, {8, 6}, {2, 1}} {
		opts := &Options{Blocks: lk[0], MaxDistance: lk[1]}
		for name, x := range implementations(t, opts) {
			r := rand.New(rand.NewPCG(uint64(lk[0]), uint64(lk[1])))
			docs := map[string]simhash.Fingerprint{}
			var batch []Doc
			add := func(fp simhash.Fingerprint) {
				id := fmt.Sprintf("d%05d", len(docs))
				docs[id] = fp
				batch = append(batch, Doc{ID: id, Fingerprint: fp, ContentHash: uint64(len(docs))})
			}
			for i := 0; i < 1000; i++ {
				add(simhash.Fingerprint(r.Uint64()))
			}
			var queries []simhash.Fingerprint
			for q := 0; q < 20; q++ {
				fp := simhash.Fingerprint(r.Uint64())
				queries = append(queries, fp)
				for d := 0; d <= lk[1]+1; d++ {
					add(flip(r, fp, d))
					add(flip(r, fp, d))
				}
			}
			r.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
			for len(batch) > 0 { // in several calls, so that Memory grows its tables in between
				n := min(len(batch), 300)
				if err := x.Add(batch[:n]...); err != nil {
					t.Fatal(err)
				}
				batch = batch[n:]
			}
			check := func(planted int) {
				t.Helper()
				for qi, fp := range queries {
					for k := 0; k <= lk[1]; k++ {
						got, err := x.Near(fp, k)
						if err != nil {
							t.Fatal(err)
						}
						want := bruteNear(docs, fp, k)
						if len(want) < planted*(k+1) {
							t.Fatalf("%v: query %d has %d neighbours within %d, planted %d", lk, qi, len(want), k, planted*(k+1))
						}
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("%s %v: Near(%v, %d) = %v, want %v", name, lk, fp, k, got, want)
						}
					}
				}
			}
			check(2)
			var del []string
			for id := range docs {
				if id[len(id)-1]%2 == 0 {
					del = append(del, id)
				}
			}
			if err := x.Delete(del...); err != nil {
				t.Fatal(err)
			}
			for _, id := range del {
				delete(docs, id)
			}
			check(0)
			if _, err := x.Near(0, lk[1]+1); !errors.Is(err, ErrDistance) {
				t.Errorf("%s %v: Near beyond max distance: error %v, want ErrDistance", name, lk, err)
			}
			if _, err := x.Near(0, -1); !errors.Is(err, ErrDistance) {
				t.Errorf("%s %v: Near(-1): error %v, want ErrDistance", name, lk, err)
			}
		}
	}
}

// countKeys counts the Badger keys starting with prefix.
func countKeys(t *testing.T, x *Index, prefix byte) int {
	t.Helper()
	n := 0
	err := x.db.View(func(txn *badger.Txn) error {
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

func matchIDs(ms []Match) []string {
	var ids []string
	for _, m := range ms {
		ids = append(ids, fmt.Sprintf("%s@%d", m.ID, m.Distance))
	}
	return ids
}

func TestReAddAndDelete(t *testing.T) {
	const fp1, fp2 = simhash.Fingerprint(0x1111222233334444), simhash.Fingerprint(0xeeeeddddccccbbbb)
	for name, x := range implementations(t, nil) {
		if err := x.Add(Doc{ID: "a", Fingerprint: fp1, ContentHash: 1}, Doc{ID: "b", Fingerprint: fp1 ^ 1, ContentHash: 2}); err != nil {
			t.Fatal(err)
		}
		if err := x.Add(Doc{ID: "a", Fingerprint: fp2, ContentHash: 3, Title: "new"}); err != nil {
			t.Fatal(err)
		}
		checkNear := func(fp simhash.Fingerprint, want ...string) {
			t.Helper()
			ms, err := x.Near(fp, 3)
			if err != nil {
				t.Fatal(err)
			}
			if got := matchIDs(ms); !slices.Equal(got, want) {
				t.Errorf("%s: Near(%v) = %v, want %v", name, fp, got, want)
			}
		}
		checkExact := func(h uint64, want ...string) {
			t.Helper()
			got, err := x.Exact(h)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: Exact(%d) = %q, want %q", name, h, got, want)
			}
		}
		checkNear(fp1, "b@1")
		checkNear(fp2, "a@0")
		checkExact(1)
		checkExact(3, "a")
		if d, err := x.Get("a"); err != nil || d.Title != "new" || d.Fingerprint != fp2 {
			t.Errorf("%s: Get(a) = %+v, %v", name, d, err)
		}
		if s, _ := x.Stats(); s.Docs != 2 {
			t.Errorf("%s: %d docs, want 2", name, s.Docs)
		}
		if xi, ok := x.(*Index); ok {
			if n := countKeys(t, xi, kindTable); n != 8 {
				t.Errorf("%d table keys after re-add, want 8", n)
			}
			if n := countKeys(t, xi, kindContent); n != 2 {
				t.Errorf("%d content keys after re-add, want 2", n)
			}
		}

		if err := x.Delete("a", "a"); err != nil {
			t.Fatal(err)
		}
		checkNear(fp2)
		checkExact(3)
		if _, err := x.Get("a"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"a"`) {
			t.Errorf("%s: Get of deleted: %v", name, err)
		}
		err := x.Delete("b", "nope", "nope2")
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"nope" and 1 more`) {
			t.Errorf("%s: Delete of unknown: %v", name, err)
		}
		checkNear(fp1, "b@1") // nothing deleted
		if err := x.Delete("b"); err != nil {
			t.Fatal(err)
		}
		if s, _ := x.Stats(); s.Docs != 0 {
			t.Errorf("%s: %d docs, want 0", name, s.Docs)
		}
		if xi, ok := x.(*Index); ok {
			for _, kind := range []byte{kindTable, kindContent, kindDoc} {
				if n := countKeys(t, xi, kind); n != 0 {
					t.Errorf("%d %c keys after deleting everything", n, kind)
				}
			}
		}
		where := "memory"
		if xi, ok := x.(*Index); ok {
			where = xi.dir
		}
		want := fmt.Sprintf(`index: %s: document "nope": not found`, where)
		if _, err := x.Get("nope"); !errors.Is(err, ErrNotFound) || err.Error() != want {
			t.Errorf("%s: Get(nope): %v, want %s", name, err, want)
		}
	}
}

func TestAddInvalidIDs(t *testing.T) {
	long := strings.Repeat("x", MaxIDLen+1)
	for name, x := range implementations(t, nil) {
		for _, bad := range []string{"", long} {
			err := x.Add(Doc{ID: "fine"}, Doc{ID: bad})
			if !errors.Is(err, ErrID) || !strings.Contains(err.Error(), "document 1") {
				t.Errorf("%s: Add(%.10q…): %v", name, bad, err)
			}
		}
		if err := x.Add(Doc{ID: strings.Repeat("y", MaxIDLen)}); err != nil {
			t.Errorf("%s: Add of a %d-byte ID: %v", name, MaxIDLen, err)
		}
		if s, _ := x.Stats(); s.Docs != 1 {
			t.Errorf("%s: %d docs, want 1", name, s.Docs)
		}
	}
}

func TestDuplicateIDsInOneAdd(t *testing.T) {
	for name, x := range implementations(t, nil) {
		err := x.Add(Doc{ID: "a", Fingerprint: 1, ContentHash: 10}, Doc{ID: "a", Fingerprint: 0xff00, ContentHash: 20})
		if err != nil {
			t.Fatal(err)
		}
		d, err := x.Get("a")
		if err != nil || d.Fingerprint != 0xff00 {
			t.Errorf("%s: Get(a) = %v, %v", name, d.Fingerprint, err)
		}
		if ids, _ := x.Exact(10); len(ids) != 0 {
			t.Errorf("%s: Exact(10) = %q, want none", name, ids)
		}
		if ms, _ := x.Near(1, 0); len(ms) != 0 {
			t.Errorf("%s: Near(1) = %v, want none", name, ms)
		}
		if s, _ := x.Stats(); s.Docs != 1 {
			t.Errorf("%s: %d docs, want 1", name, s.Docs)
		}
	}
}

// An Add of several transactions' worth of documents, re-adding IDs
// from an earlier Add before and after a reopen (when the ID filter is
// rebuilt from the store) and repeating IDs within one call, leaves
// exactly one set of keys per document.
func TestAddAcrossTransactions(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 55000 documents")
	}
	dir := filepath.Join(t.TempDir(), "idx")
	x, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(from, to int, gen uint64) []Doc {
		var docs []Doc
		for i := from; i < to; i++ {
			docs = append(docs, Doc{ID: fmt.Sprintf("doc%06d", i), Fingerprint: simhash.Fingerprint(uint64(i)*0x9e3779b97f4a7c15 ^ gen), ContentHash: uint64(i) + gen})
		}
		return docs
	}
	if err := x.Add(mk(0, 25000, 0)...); err != nil {
		t.Fatal(err)
	}
	// 15000 re-added with new fingerprints, 5000 new, one ID three times.
	batch := append(mk(10000, 30000, 1<<40), mk(29999, 30000, 2<<40)...)
	batch = append(mk(29999, 30000, 3<<40), batch...)
	if err := x.Add(batch...); err != nil {
		t.Fatal(err)
	}
	check := func(when string, docs int, gens map[int]uint64) {
		t.Helper()
		if s, _ := x.Stats(); s.Docs != int64(docs) {
			t.Errorf("%s: Stats: %d docs, want %d", when, s.Docs, docs)
		}
		for kind, want := range map[byte]int{kindTable: 4 * docs, kindContent: docs, kindDoc: docs} {
			if n := countKeys(t, x, kind); n != want {
				t.Errorf("%s: %d %c keys, want %d", when, n, kind, want)
			}
		}
		for i, gen := range gens {
			d, err := x.Get(fmt.Sprintf("doc%06d", i))
			if want := simhash.Fingerprint(uint64(i)*0x9e3779b97f4a7c15 ^ gen); err != nil || d.Fingerprint != want {
				t.Errorf("%s: Get(doc%06d) = %v, %v; want %v", when, i, d.Fingerprint, err, want)
			}
			ms, err := x.Near(d.Fingerprint, 0)
			if err != nil || len(ms) != 1 || ms[0].ID != d.ID {
				t.Errorf("%s: Near(%v, 0) = %v, %v; want %s only", when, d.Fingerprint, ms, err, d.ID)
			}
		}
	}
	check("after two adds", 30000, map[int]uint64{0: 0, 9999: 0, 10000: 1 << 40, 24999: 1 << 40, 25000: 1 << 40, 29999: 2 << 40})
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if x, err = Open(dir, nil); err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Add(mk(0, 25000, 4<<40)...); err != nil {
		t.Fatal(err)
	}
	check("after reopening and re-adding", 30000, map[int]uint64{0: 4 << 40, 24999: 4 << 40, 25000: 1 << 40, 29999: 2 << 40})
}

func TestReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	x, err := Open(dir, &Options{Blocks: 5, MaxDistance: 3, AnalyzerID: "jieba/v1"})
	if err != nil {
		t.Fatal(err)
	}
	added := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	doc := Doc{ID: "a", Fingerprint: 0xabc, ContentHash: 7, Title: "T", Keywords: []tfidf.Keyword{{Word: "k", Weight: 2}}, Added: added,
		Sketch: simhash.NewSketch("some text to sketch")}
	if err := x.Add(doc); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := x.Get("a"); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close: %v", err)
	}

	x, err = Open(dir, nil) // the stored layout and analyzer
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	got, err := x.Get("a")
	if err != nil || !reflect.DeepEqual(got, doc) {
		t.Errorf("Get after reopen = %+v, %v; want %+v", got, err, doc)
	}
	s, err := x.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s.Docs != 1 || s.Blocks != 5 || s.MaxDistance != 3 || s.Tables != 10 || s.AnalyzerID != "jieba/v1" || s.FormatVersion != 1 || s.DiskBytes <= 0 {
		t.Errorf("Stats after reopen = %+v", s)
	}
	if ms, err := x.Near(0xabc^0x101, 2); err != nil || len(ms) != 1 || ms[0].ID != "a" {
		t.Errorf("Near after reopen = %v, %v", ms, err)
	}
}

func TestMismatch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	x, err := Open(dir, &Options{Blocks: 4, MaxDistance: 3, AnalyzerID: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	tests := []struct {
		opts Options
		want []string
	}{
		{Options{Blocks: 5}, []string{"index has 4 blocks, max distance 3", "ask for 5 blocks, max distance 3"}},
		{Options{MaxDistance: 2}, []string{"index has 4 blocks, max distance 3", "ask for 4 blocks, max distance 2"}},
		{Options{AnalyzerID: "a2"}, []string{`analyzer "a1"`, `ask for "a2"`}},
	}
	for _, tt := range tests {
		_, err := Open(dir, &tt.opts)
		if !errors.Is(err, ErrMismatch) {
			t.Errorf("Open(%+v): %v, want ErrMismatch", tt.opts, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Open(%+v): %q lacks %q", tt.opts, err, w)
			}
		}
	}
	for _, o := range []*Options{nil, {Blocks: 4, MaxDistance: 3, AnalyzerID: "a1"}, {ReadOnly: true}} {
		x, err := Open(dir, o)
		if err != nil {
			t.Errorf("Open(%+v): %v", o, err)
			continue
		}
		if s, _ := x.Stats(); s.AnalyzerID != "a1" {
			t.Errorf("Open(%+v): analyzer %q, want a1", o, s.AnalyzerID)
		}
		x.Close()
	}
}

func TestBadOptions(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		opts Options
		want error
		msg  string
	}{
		{Options{Blocks: 4, MaxDistance: 4}, ErrLayout, "max distance < blocks"},
		{Options{Blocks: 10, MaxDistance: 5}, ErrLayout, "252 tables"},
		{Options{Blocks: -1}, ErrLayout, "Blocks -1"},
		{Options{MinContent: 1.5}, nil, "MinContent 1.5"},
		{Options{FalsePositive: 0.9}, nil, "FalsePositive 0.9"},
	}
	for i, tt := range tests {
		_, err := Open(filepath.Join(dir, fmt.Sprint(i)), &tt.opts)
		if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Open(%+v): %v, want %v mentioning %q", tt.opts, err, tt.want, tt.msg)
		}
		_, err = NewMemory(&tt.opts)
		if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("NewMemory(%+v): %v, want %v", tt.opts, err, tt.want)
		}
	}
}

func TestInUse(t *testing.T) {
	x, dir := openTemp(t, nil)
	_, err := Open(dir, nil)
	if !errors.Is(err, ErrInUse) || err.Error() != "index is in use by another process: "+dir {
		t.Errorf("second Open in the same process: %v", err)
	}
	_, err = Open(dir, &Options{ReadOnly: true})
	if !errors.Is(err, ErrInUse) {
		t.Errorf("read-only Open while open for writing: %v", err)
	}
	out, err := helperCmd(t, "open", dir).CombinedOutput()
	if err != nil || string(out) != "in use: index is in use by another process: "+dir+"\n" {
		t.Errorf("Open in another process: %q, %v", out, err)
	}
	x.Close()
	out, err = helperCmd(t, "open", dir).CombinedOutput()
	if err != nil || string(out) != "opened\n" {
		t.Errorf("Open in another process after Close: %q, %v", out, err)
	}
}

func TestReadOnly(t *testing.T) {
	x, dir := openTemp(t, nil)
	if err := x.Add(Doc{ID: "a", Fingerprint: 5}); err != nil {
		t.Fatal(err)
	}
	x.Close()
	r1, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("second read-only Open: %v", err)
	}
	defer r2.Close()
	if err := r1.Add(Doc{ID: "b"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Add on read-only: %v", err)
	}
	if err := r1.Delete("a"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Delete on read-only: %v", err)
	}
	if ms, err := r2.Near(4, 1); err != nil || len(ms) != 1 {
		t.Errorf("Near on read-only = %v, %v", ms, err)
	}
	if _, err := Open(filepath.Join(dir, "missing"), &Options{ReadOnly: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read-only Open of a missing directory: %v", err)
	}
	if _, err := Open(t.TempDir(), &Options{ReadOnly: true}); !errors.Is(err, ErrNotFound) {
		t.Errorf("read-only Open of an empty directory: %v", err)
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
	x, _ := openTemp(t, nil)
	if err := x.Add(Doc{ID: "a", Fingerprint: 5, ContentHash: 9}); err != nil {
		t.Fatal(err)
	}
	err := x.db.Update(func(txn *badger.Txn) error { return txn.Set(docKey("a"), []byte{1, 2, 3}) })
	if err != nil {
		t.Fatal(err)
	}
	_, err = x.Get("a")
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `record key "da"`) || !strings.Contains(err.Error(), "hashes: need 16 bytes") {
		t.Errorf("Get of a corrupt record: %v", err)
	}
	if _, err := x.Similar(&Doc{Fingerprint: 5}, 3); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Similar reaching a corrupt record: %v", err)
	}
	if err := x.Delete("a"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Delete of a corrupt record: %v", err)
	}
	if err := x.Add(Doc{ID: "a"}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("re-Add over a corrupt record: %v", err)
	}
}

func TestClosedMemory(t *testing.T) {
	m, _ := NewMemory(nil)
	m.Close()
	if err := m.Add(Doc{ID: "a"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close: %v", err)
	}
	if _, err := m.Near(0, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("Near after Close: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// The two implementations have exactly the same exported methods, so
// that one interface fits both.
func TestMethodSets(t *testing.T) {
	methods := func(v any) []string {
		ty := reflect.TypeOf(v)
		var ms []string
		for i := 0; i < ty.NumMethod(); i++ {
			m := ty.Method(i)
			sig := m.Name + "("
			for j := 1; j < m.Type.NumIn(); j++ { // skip the receiver
				sig += m.Type.In(j).String() + ","
			}
			sig += ") ("
			for j := 0; j < m.Type.NumOut(); j++ {
				sig += m.Type.Out(j).String() + ","
			}
			ms = append(ms, sig+")")
		}
		return ms
	}
	a, b := methods(&Index{}), methods(&Memory{})
	if !slices.Equal(a, b) {
		t.Errorf("method sets differ:\n%q\n%q", a, b)
	}
	if len(a) != 9 {
		t.Errorf("%d methods, want 9: %q", len(a), a)
	}
}

// Documents similar in content to "a": an exact copy, a light edit, an
// unrelated text whose fingerprint happens to be close, a document
// without a sketch, and a copy whose fingerprint is far (found through the
// MinHash bands, not the SimHash tables).
func TestSimilar(t *testing.T) {
	base := "the committee approved the budget for the new library on tuesday after a long debate about costs"
	edit := "the committee approved the budget for the new library on wednesday after a long debate about costs"
	other := "heavy rain flooded the valley roads and the river rose above the old stone bridge overnight"
	const fp = simhash.Fingerprint(0xf0f0f0f0f0f0f0f0)
	docs := []Doc{
		{ID: "a", Fingerprint: fp, ContentHash: 100, Title: "A", Sketch: simhash.NewSketch(base)},
		{ID: "copy", Fingerprint: fp, ContentHash: 100, Title: "Copy", Sketch: simhash.NewSketch(base)},
		{ID: "edit", Fingerprint: fp ^ 0x3, ContentHash: 101, Title: "Edit", Sketch: simhash.NewSketch(edit),
			Keywords: []tfidf.Keyword{{Word: "budget", Weight: 1}}},
		{ID: "other", Fingerprint: fp ^ 0x1, ContentHash: 102, Title: "Other", Sketch: simhash.NewSketch(other)},
		{ID: "nosketch", Fingerprint: fp ^ 0x1, ContentHash: 103, Title: "No sketch"},
		{ID: "far", Fingerprint: ^fp, ContentHash: 104, Sketch: simhash.NewSketch(base)},
	}
	editJ := simhash.NewSketch(base).Jaccard(simhash.NewSketch(edit))
	if editJ < 0.5 {
		t.Fatalf("sketches of the edit agree only %v", editJ)
	}
	for name, x := range implementations(t, &Options{MinContent: 0.5}) {
		if err := x.Add(docs...); err != nil {
			t.Fatal(err)
		}
		got, err := x.Similar(&docs[0], 3)
		if err != nil {
			t.Fatal(err)
		}
		want := []Match{
			{ID: "copy", Title: "Copy", Distance: 0, Similarity: 1, Content: 1, Exact: true},
			{ID: "nosketch", Title: "No sketch", Distance: 1, Similarity: 63.0 / 64},
			{ID: "edit", Title: "Edit", Distance: 2, Similarity: 62.0 / 64, Content: editJ, Keywords: []tfidf.Keyword{{Word: "budget", Weight: 1}}},
			{ID: "far", Distance: 64, Similarity: 0, Content: 1},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Similar =\n%+v\nwant\n%+v", name, got, want)
		}
		// A query that is not in the index finds "a" too; at distance 0
		// the edit and the far copy still come through the bands.
		q := docs[0]
		q.ID = ""
		got, _ = x.Similar(&q, 0)
		if ids := matchIDs(got); !slices.Equal(ids, []string{"a@0", "copy@0", "edit@2", "far@64"}) {
			t.Errorf("%s: Similar(unindexed, 0) = %v", name, ids)
		}
		if _, err := x.Similar(&q, 4); !errors.Is(err, ErrDistance) {
			t.Errorf("%s: Similar beyond max distance: %v", name, err)
		}
	}
}

func TestExactFilter(t *testing.T) {
	x, _ := openTemp(t, nil)
	var docs []Doc
	for i := 0; i < 20; i++ {
		docs = append(docs, Doc{ID: fmt.Sprintf("dup%02d", i), ContentHash: 0xdddd}) // saturates the filter
	}
	docs = append(docs, Doc{ID: "one", ContentHash: 0x1111})
	if err := x.Add(docs...); err != nil {
		t.Fatal(err)
	}
	if ids, _ := x.Exact(0x1111); !slices.Equal(ids, []string{"one"}) {
		t.Errorf("Exact(0x1111) = %q", ids)
	}
	if ids, _ := x.Exact(0xdddd); len(ids) != 20 || ids[0] != "dup00" || ids[19] != "dup19" {
		t.Errorf("Exact(0xdddd) = %q", ids)
	}
	for i := uint64(0); i < 1000; i++ {
		if ids, _ := x.Exact(0x1_0000_0000 + i); len(ids) != 0 {
			t.Fatalf("Exact of an absent hash = %q", ids)
		}
	}
	s, _ := x.Stats()
	b := s.Bloom
	if b.Lookups != 1002 || b.ReadsDone+b.ReadsSaved != 1002 || b.ReadsDone-b.FalseHits != 2 || b.ReadsSaved < 970 {
		t.Errorf("filter stats after 2 present and 1000 absent lookups: %+v", b)
	}
	if b.Capacity != 1024 || b.Hashes != 7 || b.Saturated != 7 || b.Rebuilds != 0 || b.MemoryBytes != 9816/2 {
		t.Errorf("filter shape: %+v", b)
	}

	// Deleting the 20 duplicates leaves their counters stuck at 15: the
	// filter still says maybe and the store says no.
	var dups []string
	for _, d := range docs[:20] {
		dups = append(dups, d.ID)
	}
	if err := x.Delete(dups...); err != nil {
		t.Fatal(err)
	}
	before, _ := x.Stats()
	if ids, _ := x.Exact(0xdddd); len(ids) != 0 {
		t.Errorf("Exact after deleting the duplicates = %q", ids)
	}
	after, _ := x.Stats()
	if after.Bloom.FalseHits != before.Bloom.FalseHits+1 || after.Bloom.Saturated != 7 {
		t.Errorf("stuck counters: before %+v, after %+v", before.Bloom, after.Bloom)
	}

	// Past the stuck limit the filter is rebuilt from the store.
	x.maxStuck = 10
	if err := x.Add(docs[:20]...); err != nil {
		t.Fatal(err)
	}
	if err := x.Delete(dups...); err != nil {
		t.Fatal(err)
	}
	s, _ = x.Stats()
	if s.Bloom.Rebuilds != 1 || s.Bloom.Saturated != 0 {
		t.Errorf("after rebuild: %+v", s.Bloom)
	}
	if ids, _ := x.Exact(0xdddd); len(ids) != 0 {
		t.Errorf("Exact after rebuild = %q", ids)
	}
	if s2, _ := x.Stats(); s2.Bloom.ReadsSaved != s.Bloom.ReadsSaved+1 {
		t.Errorf("Exact after rebuild read the store: %+v", s2.Bloom)
	}
	if ids, _ := x.Exact(0x1111); !slices.Equal(ids, []string{"one"}) {
		t.Errorf("Exact(0x1111) after rebuild = %q", ids)
	}
}

// Random adds, re-adds and deletes with many shared content hashes on a
// filter that must grow and rebuild: Exact always agrees with a model.
func TestExactProperty(t *testing.T) {
	x, _ := openTemp(t, nil)
	x.maxStuck = 50
	r := rand.New(rand.NewPCG(5, 6))
	model := map[string]uint64{} // id → content hash
	for round := 0; round < 30; round++ {
		var batch []Doc
		for i := 0; i < 100; i++ {
			id := fmt.Sprintf("d%04d", r.IntN(3000))
			h := uint64(r.IntN(400)) // many duplicates
			batch = append(batch, Doc{ID: id, ContentHash: h, Fingerprint: simhash.Fingerprint(r.Uint64())})
			model[id] = h
		}
		if err := x.Add(batch...); err != nil {
			t.Fatal(err)
		}
		var del []string
		for id := range model {
			if r.IntN(4) == 0 {
				del = append(del, id)
			}
		}
		if err := x.Delete(del...); err != nil {
			t.Fatal(err)
		}
		for _, id := range del {
			delete(model, id)
		}
		want := map[uint64][]string{}
		for id, h := range model {
			want[h] = append(want[h], id)
		}
		for h := uint64(0); h < 400; h++ {
			w := want[h]
			slices.Sort(w)
			got, err := x.Exact(h)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, w) {
				t.Fatalf("round %d: Exact(%d) = %q, want %q", round, h, got, w)
			}
		}
	}
	s, _ := x.Stats()
	if s.Docs != int64(len(model)) || s.Bloom.Rebuilds == 0 {
		t.Errorf("stats %+v with %d documents in the model", s, len(model))
	}
}

func TestBloomGrows(t *testing.T) {
	x, dir := openTemp(t, nil)
	var docs []Doc
	for i := 0; i < 3000; i++ {
		docs = append(docs, Doc{ID: fmt.Sprint(i), ContentHash: mix64(uint64(i))})
	}
	for i := 0; i < 3000; i += 1000 {
		if err := x.Add(docs[i : i+1000]...); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := x.Stats()
	if s.Bloom.Capacity != 4000 || s.Bloom.Rebuilds != 1 {
		t.Errorf("after 3000 docs in batches of 1000: %+v", s.Bloom) // 1024 → 2·2000 at the second batch
	}
	for _, d := range docs {
		if ids, _ := x.Exact(d.ContentHash); len(ids) != 1 {
			t.Fatalf("Exact(%x) = %q", d.ContentHash, ids)
		}
	}
	x.Close()
	// Reopened, the filters come from the file Close saved.
	x, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := x.Stats(); s.Bloom.Capacity != 4000 || s.Docs != 3000 {
		t.Errorf("after reopening: %+v", s)
	}
	x.Close()
	// Without it, they are rebuilt for 1.5 times the documents.
	if err := os.Remove(filepath.Join(dir, filtersFile)); err != nil {
		t.Fatal(err)
	}
	x, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if s, _ := x.Stats(); s.Bloom.Capacity != 4500 || s.Docs != 3000 {
		t.Errorf("after reopening without the filters file: %+v", s)
	}
}

// Transactions that Badger finds too big are split.
func TestLargeBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 12 MB")
	}
	x, _ := openTemp(t, nil)
	title := strings.Repeat("t", 12000)
	var docs []Doc
	for i := 0; i < 1000; i++ {
		docs = append(docs, Doc{ID: fmt.Sprintf("big%04d", i), Title: title, Fingerprint: simhash.Fingerprint(i)})
	}
	if err := x.Add(docs...); err != nil {
		t.Fatal(err)
	}
	if s, _ := x.Stats(); s.Docs != 1000 {
		t.Errorf("%d docs, want 1000", s.Docs)
	}
	if d, err := x.Get("big0999"); err != nil || d.Title != title {
		t.Errorf("Get(big0999): %v", err)
	}
}

// Concurrent Add, Near, Similar and Delete, for the race detector; each
// writer owns its IDs, so the final state is known.
func TestConcurrent(t *testing.T) {
	for name, x := range implementations(t, nil) {
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 9))
				for i := 0; i < 60; i++ {
					id := fmt.Sprintf("w%d-%03d", w, i)
					if err := x.Add(Doc{ID: id, Fingerprint: simhash.Fingerprint(i), ContentHash: uint64(i % 7)}); err != nil {
						errs <- err
						return
					}
					if i%3 == 0 {
						if err := x.Delete(id); err != nil {
							errs <- err
							return
						}
					}
					if _, err := x.Near(simhash.Fingerprint(r.Uint64()), 3); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		for q := 0; q < 2; q++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 60; i++ {
					d := Doc{Fingerprint: simhash.Fingerprint(i), ContentHash: uint64(i % 7)}
					if _, err := x.Similar(&d, 3); err != nil {
						errs <- err
						return
					}
					if _, err := x.Exact(uint64(i)); err != nil {
						errs <- err
						return
					}
					if _, err := x.Stats(); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("%s: %v", name, err)
		}
		s, _ := x.Stats()
		if s.Docs != 3*40 {
			t.Errorf("%s: %d docs, want 120", name, s.Docs)
		}
		ms, _ := x.Near(5, 0)
		if ids := matchIDs(ms); !slices.Equal(ids, []string{"w0-005@0", "w1-005@0", "w2-005@0"}) {
			t.Errorf("%s: Near(5, 0) = %v", name, ids)
		}
		ids, _ := x.Exact(3)
		if len(ids) != 3*6 { // i%7 == 3 and i%3 != 0 for i < 60: 10 17 31 38 52 59
			t.Errorf("%s: Exact(3) = %q", name, ids)
		}
	}
}

// addUntilKilled starts a child that adds documents k<start>, k<start+1>…
// to the index in dir one at a time, printing each ID once Add has
// returned. onAck is called after each acknowledged document with the
// count so far, and kills the child when it sees fit. It returns the
// acknowledged IDs once the child has exited.
func addUntilKilled(t *testing.T, dir string, start int, onAck func(n int, cmd *exec.Cmd)) []string {
	t.Helper()
	cmd := helperCmd(t, "add", dir, fmt.Sprintf("NEARDUP_INDEX_START=%d", start))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "error:") {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child: %s", line)
		}
		acked = append(acked, line)
		onAck(len(acked), cmd)
	}
	cmd.Wait()
	return acked
}

// A process killed with SIGKILL right after Add returned loses none of
// the documents it acknowledged.
func TestKillDuringAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := filepath.Join(t.TempDir(), "idx")
	r := rand.New(rand.NewPCG(7, 8))
	var acked []string
	next := 0
	for round := 0; round < 3; round++ {
		stop := 20 + r.IntN(60)
		got := addUntilKilled(t, dir, next, func(n int, cmd *exec.Cmd) {
			if n == stop {
				cmd.Process.Kill() // SIGKILL
			}
		})
		if len(got) < stop {
			t.Fatalf("round %d: child stopped after %d documents", round, len(got))
		}
		acked = append(acked, got...)
		fmt.Sscanf(acked[len(acked)-1], "k%d", &next)
		next++

		x, err := Open(dir, nil)
		if err != nil {
			t.Fatalf("round %d: reopening after kill: %v", round, err)
		}
		for _, id := range acked {
			var i int
			fmt.Sscanf(id, "k%d", &i)
			want := killDoc(i)
			d, err := x.Get(id)
			if err != nil || d.Fingerprint != want.Fingerprint || d.Title != want.Title {
				t.Fatalf("round %d: acknowledged %s lost: %+v, %v", round, id, d, err)
			}
			ms, err := x.Near(want.Fingerprint, 0)
			if err != nil || !slices.ContainsFunc(ms, func(m Match) bool { return m.ID == id }) {
				t.Fatalf("round %d: Near does not find acknowledged %s: %v, %v", round, id, ms, err)
			}
			if ids, err := x.Exact(want.ContentHash); err != nil || !slices.Contains(ids, id) {
				t.Fatalf("round %d: Exact does not find acknowledged %s: %v, %v", round, id, ids, err)
			}
		}
		t.Logf("round %d: %d acknowledged documents survived", round, len(acked))
		x.Close()
	}
}

// TestBands checks the MinHash band path: a document whose fingerprint
// is far from the query's but whose content is close is found, a
// confirmed-dissimilar one sharing a band is not, and Delete and re-Add
// remove the old band entries.
func TestBands(t *testing.T) {
	base := "the committee approved the budget for the new library on tuesday after a long debate about costs and staffing"
	edit := "the committee approved the budget for the new library on friday after a long debate about costs and staffing"
	other := "heavy rain flooded the valley roads and the river rose above the old stone bridge overnight, officials said"
	q := Doc{ID: "q", Fingerprint: 0, ContentHash: 1, Sketch: simhash.NewSketch(base)}
	for name, x := range implementations(t, nil) {
		if err := x.Add(Doc{ID: "edit", Fingerprint: ^simhash.Fingerprint(0), ContentHash: 2, Sketch: simhash.NewSketch(edit)},
			Doc{ID: "other", Fingerprint: ^simhash.Fingerprint(0), ContentHash: 3, Sketch: simhash.NewSketch(other)}); err != nil {
			t.Fatal(err)
		}
		got, err := x.Similar(&q, 3)
		if err != nil {
			t.Fatal(err)
		}
		if ids := matchIDs(got); !slices.Equal(ids, []string{"edit@64"}) {
			t.Errorf("%s: Similar = %v, want [edit@64]", name, ids)
		}
		// Re-adding "edit" with unrelated content drops its old bands.
		if err := x.Add(Doc{ID: "edit", Fingerprint: ^simhash.Fingerprint(0), ContentHash: 2, Sketch: simhash.NewSketch(other + " again")}); err != nil {
			t.Fatal(err)
		}
		if got, _ := x.Similar(&q, 3); len(got) != 0 {
			t.Errorf("%s: after re-add, Similar = %v, want none", name, matchIDs(got))
		}
		if err := x.Add(Doc{ID: "edit2", Fingerprint: ^simhash.Fingerprint(0), ContentHash: 4, Sketch: simhash.NewSketch(edit)}); err != nil {
			t.Fatal(err)
		}
		if err := x.Delete("edit2"); err != nil {
			t.Fatal(err)
		}
		if got, _ := x.Similar(&q, 3); len(got) != 0 {
			t.Errorf("%s: after delete, Similar = %v, want none", name, matchIDs(got))
		}
	}
}

func TestBandKeyGolden(t *testing.T) {
	var s simhash.Sketch
	for i := range s {
		s[i] = uint16(i)
	}
	got := hex.EncodeToString(appendBandKey(nil, 2, bandValue(&s, 2), "id"))
	// 'b', band 2, values 8 9 10 11 as 16-bit big-endian, "id"
	if want := "6202" + "0008000900 0a000b" + "6964"; got != strings.ReplaceAll(want, " ", "") {
		t.Errorf("band key %s, want %s", got, want)
	}
}
