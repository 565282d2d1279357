package badgerstore

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The key bytes of fingerprint 0123456789abcdef and ID "a", worked out by
// hand (and checked with a separate Python script) from the layout in the
// package documentation: the bytes the index package wrote before the
// Store seam, so that old archives open. index's TestTableKeyGolden
// checks that the layout makes these Keys of the fingerprint.
func TestTableKeyGolden(t *testing.T) {
	const fp = simhash.Fingerprint(0x0123456789abcdef)
	tests := []struct {
		key index.Key
		hex string
	}{
		{index.Key{Kind: index.KindTable, Table: 0, Bits: 16, Value: 0x0123}, "74" + "00" + "0123" + "0123456789abcdef" + "61"},                         // (4,3) table 0
		{index.Key{Kind: index.KindTable, Table: 1, Bits: 16, Value: 0x4567}, "74" + "01" + "4567" + "0123456789abcdef" + "61"},                         // (4,3) table 1
		{index.Key{Kind: index.KindTable, Table: 3, Bits: 16, Value: 0xcdef}, "74" + "03" + "cdef" + "0123456789abcdef" + "61"},                         // (4,3) table 3
		{index.Key{Kind: index.KindTable, Table: 0, Bits: 26, Value: 0x48d15}, "74" + "00" + "01234540" + "0123456789abcdef" + "61"},                    // (5,3) blocks {0,1}: 26 bits, 6 zero bits of padding
		{index.Key{Kind: index.KindTable, Table: 4, Bits: 26, Value: 0x1a2b3c4}, "74" + "04" + "68acf100" + "0123456789abcdef" + "61"},                  // (5,3) blocks {1,2}
		{index.Key{Kind: index.KindTable, Table: 9, Bits: 25, Value: 0x1abcdef}, "74" + "09" + "d5e6f780" + "0123456789abcdef" + "61"},                  // (5,3) blocks {3,4}: 13+12 bits
		{index.Key{Kind: index.KindTable, Table: 19, Bits: 31, Value: 0x9abcdef}, "74" + "13" + "13579bde" + "0123456789abcdef" + "61"},                 // (6,3) blocks {3,4,5}
		{index.Key{Kind: index.KindTable, Table: 27, Bits: 16, Value: 0xcdef}, "74" + "1b" + "cdef" + "0123456789abcdef" + "61"},                        // (8,6) blocks {6,7}
		{index.Key{Kind: index.KindTable, Table: 5, Bits: 32, Value: 0x89abcdef}, "74" + "05" + "89abcdef" + "0123456789abcdef" + "61"},                 // (4,2) blocks {2,3}
		{index.Key{Kind: index.KindTable, Table: 0, Bits: 64, Value: 0x0123456789abcdef}, "74" + "00" + "0123456789abcdef" + "0123456789abcdef" + "61"}, // (1,0)
	}
	for _, tt := range tests {
		if got := hex.EncodeToString(appendPostingKey(nil, tt.key, fp, "a")); got != tt.hex {
			t.Errorf("%v: key %s, want %s", tt.key, got, tt.hex)
		}
		n := len(tt.hex)/2 - 9
		if got := hex.EncodeToString(appendPrefix(nil, tt.key)); got != tt.hex[:2*n] || prefixLen(tt.key) != n {
			t.Errorf("%v: prefix %s (length %d), want %s", tt.key, got, prefixLen(tt.key), tt.hex[:2*n])
		}
	}
}

func TestOtherKeysGolden(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"doc", docKey("a"), "6461"},
		{"content", appendPostingKey(nil, index.Key{Kind: index.KindContent, Value: 0x0123456789abcdef}, 0x5555, "a"), "63" + "0123456789abcdef" + "61"},
		{"content prefix", appendPrefix(nil, index.Key{Kind: index.KindContent, Value: 0xff}), "63" + "00000000000000ff"},
		// 'b', band 2, the values 8 9 10 11 as 16-bit big-endian, "id"
		{"band", appendPostingKey(nil, index.Key{Kind: index.KindBand, Table: 2, Value: 0x0008_0009_000a_000b}, 0x5555, "id"), "6202" + "00080009000a000b" + "6964"},
		{"band prefix", appendPrefix(nil, index.Key{Kind: index.KindBand, Table: 15, Value: 1}), "620f" + "0000000000000001"},
		{"meta", metaKey(index.MetaLayout), "6d" + hex.EncodeToString([]byte("layout"))},
		{"meta format", metaKey(index.MetaFormat), "6d" + hex.EncodeToString([]byte("format"))},
		{"meta analyzer", metaKey(index.MetaAnalyzer), "6d" + hex.EncodeToString([]byte("analyzer"))},
	}
	for _, tt := range tests {
		if got := hex.EncodeToString(tt.got); got != tt.want {
			t.Errorf("%s key %s, want %s", tt.name, got, tt.want)
		}
	}
	h, id, err := parseContentKey(mustHex(t, "63 0123456789abcdef 61"))
	if h != 0x0123456789abcdef || id != "a" || err != nil {
		t.Errorf("parseContentKey = %x, %q, %v", h, id, err)
	}
	for _, bad := range []string{"", "63 0123", "64 0123456789abcdef 61"} {
		if _, _, err := parseContentKey(mustHex(t, bad)); err == nil || !strings.Contains(err.Error(), "corrupt index: content key") {
			t.Errorf("parseContentKey(%s): %v, want ErrCorrupt", bad, err)
		}
	}
}

// FuzzKey checks that posting keys hold their key's prefix, the
// fingerprint (table keys) and the ID where Postings reads them, that
// table prefixes sort as their values, and that parsing arbitrary
// bytes as a content key fails cleanly or round-trips.
func FuzzKey(f *testing.F) {
	f.Add(uint8(4), uint8(3), uint8(1), uint64(0x0123456789abcdef), "a", []byte("t\x01\x45\x67\x01\x23\x45\x67\x89\xab\xcd\xef"))
	f.Add(uint8(5), uint8(3), uint8(9), uint64(0), "", []byte{})
	f.Add(uint8(1), uint8(0), uint8(0), uint64(1<<63), "id\x00x", []byte("c\x00\x00\x00\x00\x00\x00\x00\x01id"))
	f.Fuzz(func(t *testing.T, bits, kind, table uint8, fp uint64, id string, raw []byte) {
		n := 1 + int(bits)%64
		k := index.Key{Kind: index.KindTable, Table: table, Bits: uint8(n), Value: fp >> (64 - n)}
		switch kind % 3 {
		case 1:
			k = index.Key{Kind: index.KindBand, Table: table, Value: fp}
		case 2:
			k = index.Key{Kind: index.KindContent, Value: fp}
		}
		key := appendPostingKey(nil, k, simhash.Fingerprint(fp), id)
		prefix := appendPrefix(nil, k)
		if !bytes.HasPrefix(key, prefix) || len(prefix) != prefixLen(k) || len(key) != prefixLen(k)+fpLen(k)+len(id) || key[0] != byte(k.Kind) {
			t.Fatalf("%v: key %x, prefix %x (prefixLen %d, fpLen %d)", k, key, prefix, prefixLen(k), fpLen(k))
		}
		rest := key[len(prefix):]
		switch k.Kind {
		case index.KindTable:
			var v [8]byte
			copy(v[:], prefix[2:])
			if prefix[1] != table || binary.BigEndian.Uint64(v[:])>>(64-n) != k.Value || binary.BigEndian.Uint64(rest) != fp {
				t.Fatalf("%v: key %x does not hold the table, the value and fingerprint %x", k, key, fp)
			}
			rest = rest[8:]
			if k.Value+1 < 1<<n || n == 64 && k.Value+1 != 0 {
				next := k
				next.Value++
				if bytes.Compare(appendPrefix(nil, next), prefix) <= 0 {
					t.Fatalf("%v: the prefix of value %x does not sort after %x", k, next.Value, prefix)
				}
			}
		case index.KindContent:
			if h, cid, err := parseContentKey(key); err != nil || h != fp || cid != id {
				t.Fatalf("content key round trip of (%x, %q): %x, %q, %v", fp, id, h, cid, err)
			}
		}
		if string(rest) != id {
			t.Fatalf("%v: key %x ends in %q, want the ID %q", k, key, rest, id)
		}
		if h, cid, err := parseContentKey(raw); err == nil {
			if again := appendPostingKey(nil, index.Key{Kind: index.KindContent, Value: h}, 0, cid); !bytes.Equal(again, raw) {
				t.Fatalf("content key %x parsed as (%x, %q), which makes %x", raw, h, cid, again)
			}
		}
	})
}

// oldArchiveDocs are the documents of testdata/old-archive.txt: every
// key and value of a Badger directory that the index package wrote
// before the Store seam (commit 5b682bc, layout 5 blocks, max distance
// 3, analyzer "old/v1"), dumped as hex, a key and its value a line.
func oldArchiveDocs() []index.Doc {
	base := "the committee approved the budget for the new library on tuesday after a long debate about costs"
	edit := "the committee approved the budget for the new library on wednesday after a long debate about costs"
	other := "heavy rain flooded the valley roads and the river rose above the old stone bridge overnight"
	const fp = simhash.Fingerprint(0x0123456789abcdef)
	t0 := time.Date(2024, 3, 4, 5, 6, 7, 8, time.UTC)
	return []index.Doc{
		{ID: "a", Fingerprint: fp, ContentHash: 100, Title: "A", Sketch: minhash.New(base), Added: t0,
			Keywords: []tfidf.Keyword{{Word: "budget", Weight: 2.5}, {Word: "library", Weight: 1.25}}, Job: "job1", Seq: 1},
		{ID: "copy", Fingerprint: fp, ContentHash: 100, Title: "Copy", Sketch: minhash.New(base), Added: t0.Add(time.Second), Job: "job1", Seq: 2},
		{ID: "edit", Fingerprint: fp ^ 0x3, ContentHash: 101, Title: "Edit", Sketch: minhash.New(edit), Added: t0.Add(2 * time.Second)},
		{ID: "other", Fingerprint: fp ^ 0x1, ContentHash: 102, Title: "Other", Sketch: minhash.New(other), Added: t0.Add(3 * time.Second)},
		{ID: "bare", Fingerprint: fp ^ 0x8000000000000000, Added: t0.Add(4 * time.Second)},
		{ID: "far", Fingerprint: ^fp, ContentHash: 104, Sketch: minhash.New(base), Added: t0.Add(5 * time.Second)},
	}
}

// oldArchive returns the lines of testdata/old-archive.txt.
func oldArchive(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "old-archive.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// An archive written by the index package before the Store seam opens
// and answers as the old code did: its keys are written into a new
// Badger directory as they were, and the answers are those the old code
// gave on it.
func TestOldArchive(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "old")
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(txn *badger.Txn) error {
		for _, line := range oldArchive(t) {
			k, v, _ := strings.Cut(line, " ")
			if err := txn.Set(mustHex(t, k), mustHex(t, v)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	x, _ := openDir(t, dir, &Options{ReadOnly: true}, nil)
	st, err := x.Stats(ctx)
	if err != nil || st.Docs != 6 || st.Blocks != 5 || st.MaxDistance != 3 || st.Tables != 10 || st.AnalyzerID != "old/v1" || st.FormatVersion != 1 {
		t.Errorf("Stats = %+v, %v", st, err)
	}
	// What the old code answered (Similar: id@distance/content/exact/seq).
	wantSimilar := map[string]string{
		"a":     "copy@0/1/true/2 bare@1/0/false/0 edit@2/0.890625/false/0 far@64/1/false/0",
		"copy":  "a@0/1/true/1 bare@1/0/false/0 edit@2/0.890625/false/0 far@64/1/false/0",
		"edit":  "a@2/0.890625/false/1 copy@2/0.890625/false/2 bare@3/0/false/0 far@62/0.890625/false/0",
		"other": "bare@2/0/false/0",
		"bare":  "a@1/0/false/1 copy@1/0/false/2 other@2/0/false/0 edit@3/0/false/0",
		"far":   "edit@62/0.890625/false/0 a@64/1/false/1 copy@64/1/false/2",
	}
	wantNear := map[string]string{
		"a":     "a@0 copy@0 bare@1 other@1 edit@2",
		"copy":  "a@0 copy@0 bare@1 other@1 edit@2",
		"edit":  "edit@0 other@1 a@2 copy@2 bare@3",
		"other": "other@0 a@1 copy@1 edit@1 bare@2",
		"bare":  "bare@0 a@1 copy@1 other@2 edit@3",
		"far":   "far@0",
	}
	for _, d := range oldArchiveDocs() {
		got, err := x.Get(ctx, d.ID)
		if err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("Get(%s) = %+v, %v\nwant %+v", d.ID, got, err, d)
		}
		ms, err := x.Similar(ctx, &d, 3)
		if err != nil {
			t.Fatal(err)
		}
		var sim []string
		for _, m := range ms {
			sim = append(sim, fmt.Sprintf("%s@%d/%v/%v/%v", m.ID, m.Distance, m.Content, m.Exact, m.Seq))
		}
		if got := strings.Join(sim, " "); got != wantSimilar[d.ID] {
			t.Errorf("Similar(%s) = %s\nwant %s", d.ID, got, wantSimilar[d.ID])
		}
		ms, err = x.Near(ctx, d.Fingerprint, 3)
		if err != nil {
			t.Fatal(err)
		}
		var near []string
		for _, m := range ms {
			near = append(near, fmt.Sprintf("%s@%d", m.ID, m.Distance))
		}
		if got := strings.Join(near, " "); got != wantNear[d.ID] {
			t.Errorf("Near(%s) = %s, want %s", d.ID, got, wantNear[d.ID])
		}
	}
	for h, want := range map[uint64][]string{0: {"bare"}, 100: {"a", "copy"}, 101: {"edit"}, 104: {"far"}, 105: nil} {
		if got, err := x.Exact(ctx, h); err != nil || !slices.Equal(got, want) {
			t.Errorf("Exact(%d) = %q, %v; want %q", h, got, err, want)
		}
	}
}

// oldStore writes the keys and values of testdata/old-archive.txt into
// a new Badger directory, as the index package wrote them before the
// Store seam, and returns the directory.
func oldStore(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "old")
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(txn *badger.Txn) error {
		for _, line := range oldArchive(t) {
			k, v, _ := strings.Cut(line, " ")
			if err := txn.Set(mustHex(t, k), mustHex(t, v)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A store written before numbered postings keeps its layout: what is
// written into it afterwards, by Apply or by Load into it once it is
// empty again, is keyed by ID as before, exactly the old archive's keys
// and values.
func TestWritesOldArchive(t *testing.T) {
	ctx := t.Context()
	docs := oldArchiveDocs()
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	x, s := openDir(t, oldStore(t), nil, &index.Options{Blocks: 5, MaxDistance: 3, AnalyzerID: "old/v1"})
	if s.numbered {
		t.Fatal("an archive of postings by ID opened as numbered")
	}
	if err := x.Delete(ctx, ids...); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	got, want := dumpKeys(t, s), oldArchive(t)
	if !slices.Equal(got, want) {
		i := firstDiff(got, want)
		t.Errorf("%d keys, the old archive %d; first difference at %d:\n%s\nwant\n%s", len(got), len(want), i, at(got, i), at(want, i))
	}
	// Load writes them too.
	if err := x.Delete(ctx, ids...); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Load(ctx, slices.Values(docs)); err != nil {
		t.Fatal(err)
	}
	if got := dumpKeys(t, s); !slices.Equal(got, want) {
		i := firstDiff(got, want)
		t.Errorf("Load: %d keys, the old archive %d; first difference at %d:\n%s\nwant\n%s", len(got), len(want), i, at(got, i), at(want, i))
	}
}

// A new store numbers its documents: every posting key ends in the
// document's 5-byte number instead of its ID, 'n' number → ID resolves
// it, the record's value starts with it, 'M' "postings" says so and
// 'M' "next" keeps the next number.
// Apply and Load write the same keys.
func TestNumberedKeys(t *testing.T) {
	ctx := t.Context()
	d := index.Doc{ID: "doc/a", Fingerprint: 0x0123456789abcdef, ContentHash: 0x1111, Added: time.Unix(5, 0)}
	e := index.Doc{ID: "doc/b", Fingerprint: 0xfedcba9876543210, ContentHash: 0x2222, Added: time.Unix(6, 0)}
	rec := func(x *index.Index, d index.Doc) string {
		t.Helper()
		b, err := x.Store().Records(ctx, []string{d.ID})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", b[0])
	}
	for _, load := range []bool{false, true} {
		x, s := openTemp(t, &index.Options{AnalyzerID: "num/v1"})
		if !s.numbered {
			t.Fatal("a new store is not numbered")
		}
		var err error
		if load {
			_, err = x.Load(ctx, slices.Values([]index.Doc{d, e}))
		} else {
			err = x.Add(ctx, d, e)
		}
		if err != nil {
			t.Fatal(err)
		}
		ra, rb := rec(x, d), rec(x, e)
		want := []string{
			"4d6e657874 0000000003",               // 'M' "next" → the next number, 3
			"4d706f7374696e6773 6e756d6265726564", // 'M' "postings" → "numbered"
			"6300000000000011110000000001 ",       // 'c' content hash, number 1
			"6300000000000022220000000002 ",
			"64646f632f61 0000000001" + ra, // 'd' "doc/a" → number 1, record
			"64646f632f62 0000000002" + rb,
			"6d616e616c797a6572 6e756d2f7631", // 'm' analyzer, format, layout
			"6d666f726d6174 01",
			"6d6c61796f7574 0403",
			"6e0000000001 646f632f61", // 'n' 1 → "doc/a"
			"6e0000000002 646f632f62",
			// 't' table, its 16 bits, the fingerprint, the number
			"74000123" + "0123456789abcdef" + "0000000001 ",
			"7400fedc" + "fedcba9876543210" + "0000000002 ",
			"74014567" + "0123456789abcdef" + "0000000001 ",
			"7401ba98" + "fedcba9876543210" + "0000000002 ",
			"74027654" + "fedcba9876543210" + "0000000002 ",
			"740289ab" + "0123456789abcdef" + "0000000001 ",
			"740332" + "10" + "fedcba9876543210" + "0000000002 ",
			"7403cdef" + "0123456789abcdef" + "0000000001 ",
		}
		if got := dumpKeys(t, s); !slices.Equal(got, want) {
			t.Errorf("load %v: keys\n%s\nwant\n%s", load, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// A posting of a number with no ID (left by a write that a failure cut
// short) is left out, and PostingsNear leaves out the table postings
// too far from the query, which Postings keeps.
func TestNumberedPostings(t *testing.T) {
	ctx := t.Context()
	x, s := openTemp(t, nil)
	near := index.Doc{ID: "near", Fingerprint: 0x0123456789abcdef, Added: time.Unix(5, 0)}
	far := index.Doc{ID: "far", Fingerprint: 0x0123456789abcdef ^ 0xff, Added: time.Unix(5, 0)} // 8 bits away, same table 0 key
	if err := x.Add(ctx, near, far); err != nil {
		t.Fatal(err)
	}
	key := index.Key{Kind: index.KindTable, Table: 0, Bits: 16, Value: 0x0123}
	idsOf := func(ps [][]index.Posting) []string {
		var out []string
		for _, p := range ps[0] {
			out = append(out, p.ID)
		}
		slices.Sort(out)
		return out
	}
	ps, err := s.Postings(ctx, []index.Key{key})
	if err != nil || !slices.Equal(idsOf(ps), []string{"far", "near"}) {
		t.Errorf("Postings = %v, %v; want far and near", ps, err)
	}
	ps, err = s.PostingsNear(ctx, []index.Key{key}, []simhash.Fingerprint{near.Fingerprint}, 3)
	if err != nil || !slices.Equal(idsOf(ps), []string{"near"}) {
		t.Errorf("PostingsNear = %v, %v; want near alone", ps, err)
	}
	// A posting of number 9, which no document has.
	err = s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(appendNumPostingKey(nil, key, near.Fingerprint, 9), nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if ps, err = s.Postings(ctx, []index.Key{key}); err != nil || !slices.Equal(idsOf(ps), []string{"far", "near"}) {
		t.Errorf("Postings with an unnumbered posting = %v, %v; want far and near", ps, err)
	}
	// Replacing a document keeps its number; deleting it removes it.
	moved := near
	moved.Fingerprint ^= 1 << 63
	if err := x.Add(ctx, moved); err != nil {
		t.Fatal(err)
	}
	if got := countKeys(t, s, kindNum); got != 2 {
		t.Errorf("%d numbers after a replace, want 2", got)
	}
	if err := x.Delete(ctx, "far"); err != nil {
		t.Fatal(err)
	}
	dump := strings.Join(dumpKeys(t, s), "\n")
	for _, gone := range []string{"6e0000000002 ", "0000000002 \n", fmt.Sprintf("%x", "far")} {
		if strings.Contains(dump, gone) {
			t.Errorf("after deleting far (number 2) the store holds %q:\n%s", gone, dump)
		}
	}
	if got, err := x.Near(ctx, moved.Fingerprint, 0); err != nil || len(got) != 1 || got[0].ID != "near" {
		t.Errorf("Near(moved) = %v, %v", got, err)
	}
	// Numbers go on from the highest after a reopen.
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	y, s2 := openDir(t, s.dir, nil, nil)
	if s2.next != 3 || !s2.numbered {
		t.Errorf("reopened: next number %d, numbered %v; want 3, true", s2.next, s2.numbered)
	}
	if err := y.Add(ctx, index.Doc{ID: "new", Fingerprint: 7}); err != nil {
		t.Fatal(err)
	}
	if got := countKeys(t, s2, kindNum); got != 2 {
		t.Errorf("%d numbers, want 2 (near's 1, new's 3)", got)
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end)"
}

// A key of a kind the store has no keys for is refused by Apply and
// Postings, not filed as a content key; a passage key is its own.
func TestUnknownKind(t *testing.T) {
	s, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	z := index.Key{Kind: 'z', Value: 5}
	err = s.Apply(ctx, &index.Batch{Writes: []index.Write{{ID: "a", Record: []byte{1}, Keys: []index.Key{z}}}})
	if err == nil || !strings.Contains(err.Error(), `key kind 'z' table 0 bits 0 value 5: unknown kind`) {
		t.Errorf("Apply of a 'z' key: %v, want unknown kind", err)
	}
	if _, err := s.Postings(ctx, []index.Key{z}); err == nil || !strings.Contains(err.Error(), "unknown kind") {
		t.Errorf("Postings of a 'z' key: %v, want unknown kind", err)
	}
	if got := appendPostingKey(nil, index.Key{Kind: index.KindPassage, Value: 0x0102030405060708}, 0, "a"); string(got) != "p\x01\x02\x03\x04\x05\x06\x07\x08a" {
		t.Errorf("passage posting key = %q", got)
	}
}

// Salvage keeps the named values besides format, layout and analyzer
// (package reuse's "reuse") and files the passage postings again.
func TestSalvageKeepsReuse(t *testing.T) {
	ctx := t.Context()
	dir, out := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	x, err := OpenIndex(ctx, dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Store().Claim(ctx, map[string][]byte{"reuse": {1, 12, 39}}); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ctx, index.Doc{ID: "a", Fingerprint: 5, ContentHash: 6, Passages: []uint64{0xabc}}); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, n, err := Salvage(ctx, dir, out, nil); err != nil || n != 1 {
		t.Fatalf("Salvage: %d, %v", n, err)
	}
	y, err := OpenIndex(ctx, out, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	got, err := y.Store().Claim(ctx, map[string][]byte{"reuse": {0}})
	if err != nil || !bytes.Equal(got["reuse"], []byte{1, 12, 39}) {
		t.Errorf("salvaged reuse value %v, %v; want 010c27", got["reuse"], err)
	}
	ps, err := y.Store().Postings(ctx, []index.Key{{Kind: index.KindPassage, Value: 0xabc}})
	if err != nil || len(ps[0]) != 1 || ps[0][0].ID != "a" {
		t.Errorf("salvaged passage postings %v, %v", ps, err)
	}
}

// A store created lean keeps records without title, keywords and text,
// written by Apply and by Load, and stays lean when opened without the
// option; a store created whole stays whole when opened with it.
func TestLean(t *testing.T) {
	ctx := t.Context()
	d := index.Doc{ID: "a", Fingerprint: 5, ContentHash: 6, Title: "Title", Keywords: []tfidf.Keyword{{Word: "w", Weight: 1.5}},
		Text: "the text", Shingles: 7, Sketch: minhash.New("some text to sketch here"), Added: time.Unix(9, 0).UTC(), Job: "j", Seq: 3}
	lean := d
	lean.Title, lean.Keywords, lean.Text = "", nil, ""
	get := func(dir string, o *Options) (index.Doc, *Store) {
		t.Helper()
		x, s := openDir(t, dir, o, nil)
		got, err := x.Get(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		return got, s
	}
	for _, load := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "lean")
		x, _ := openDir(t, dir, &Options{Lean: true}, nil)
		var err error
		if load {
			_, err = x.Load(ctx, slices.Values([]index.Doc{d}))
		} else {
			err = x.Add(ctx, d)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		if got, s := get(dir, nil); !reflect.DeepEqual(got, lean) || !s.lean {
			t.Errorf("load %v: lean store: Get = %+v, lean %v; want %+v", load, got, s.lean, lean)
		}
	}
	dir := filepath.Join(t.TempDir(), "whole")
	x, _ := openDir(t, dir, nil, nil)
	if err := x.Add(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if got, s := get(dir, &Options{Lean: true}); !reflect.DeepEqual(got, d) || s.lean {
		t.Errorf("whole store opened with Lean: Get = %+v, lean %v; want %+v", got, s.lean, d)
	}
}

// A store created with compressed tables records it and writes them
// compressed when opened later without the option (its Stats say so);
// a store created without stays uncompressed when opened with it; a
// damaged setting is refused.
func TestCompressKept(t *testing.T) {
	ctx := t.Context()
	doc := func(i int) index.Doc {
		return index.Doc{ID: fmt.Sprintf("doc-%03d", i), Fingerprint: simhash.Fingerprint(i * 7919), ContentHash: uint64(i),
			Title: strings.Repeat("a title that compresses well ", 8)}
	}
	// add opens dir with o, adds documents from..to-1 and closes it,
	// returning what the open store said of itself.
	add := func(dir string, o *Options, from, to int) (index.StoreStats, options.CompressionType) {
		t.Helper()
		x, s := openDir(t, dir, o, nil)
		for i := from; i < to; i++ {
			if err := x.Add(ctx, doc(i)); err != nil {
				t.Fatal(err)
			}
		}
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c := s.db.Opts().Compression
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		return st, c
	}
	// tables returns the on-disk and uncompressed bytes of dir's tables.
	tables := func(dir string) (disk, raw int) {
		t.Helper()
		s, err := Open(dir, &Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, ti := range s.db.Tables() {
			disk += int(ti.OnDiskSize)
			raw += int(ti.UncompressedSize)
		}
		return disk, raw
	}

	dir := filepath.Join(t.TempDir(), "zstd")
	if st, c := add(dir, &Options{Compress: true}, 0, 50); !st.Compressed || c != options.ZSTD {
		t.Fatalf("new store with Compress: Stats.Compressed %v, Badger's compression %v; want true, ZSTD", st.Compressed, c)
	}
	if st, c := add(dir, nil, 50, 100); !st.Compressed || c != options.ZSTD {
		t.Errorf("compressed store opened without Compress: Stats.Compressed %v, Badger's compression %v; want true, ZSTD", st.Compressed, c)
	}
	if disk, raw := tables(dir); disk == 0 || disk*2 > raw {
		t.Errorf("compressed store: %d bytes of tables on disk for %d uncompressed; want less than half", disk, raw)
	}
	x, _ := openDir(t, dir, nil, nil)
	for _, i := range []int{0, 99} {
		if got, err := x.Get(ctx, doc(i).ID); err != nil || got.Title != doc(i).Title {
			t.Errorf("Get %s: %q, %v", doc(i).ID, got.Title, err)
		}
	}
	x.Close()

	plain := filepath.Join(t.TempDir(), "plain")
	add(plain, nil, 0, 50)
	if st, c := add(plain, &Options{Compress: true}, 50, 100); st.Compressed || c != options.None {
		t.Errorf("uncompressed store opened with Compress: Stats.Compressed %v, Badger's compression %v; want false, None", st.Compressed, c)
	}
	if disk, raw := tables(plain); disk < raw {
		t.Errorf("uncompressed store: %d bytes of tables on disk for %d uncompressed", disk, raw)
	}

	// A damaged setting.
	db, err := badger.Open(badger.DefaultOptions(plain).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set(storeMetaKey(metaTables), []byte("lz5")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(plain, nil); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `tables setting "lz5"`) {
		t.Errorf("Open with tables setting lz5: %v; want ErrCorrupt naming it", err)
	}
}

// A lean store gives a replaced record a new number: postings of the
// old one that OldKeys leave out (band keys, when a lean record keeps
// no sketch) then resolve to no ID, while the new postings do.
func TestLeanReplaceRenumbers(t *testing.T) {
	ctx := t.Context()
	// A valid record, as an Index writes it.
	ms := memstore.New()
	mx, err := index.New(ctx, ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := mx.Add(ctx, index.Doc{ID: "a", Fingerprint: 5, ContentHash: 6, Title: "Title", Sketch: minhash.New("some text to sketch here")}); err != nil {
		t.Fatal(err)
	}
	var rec []byte
	if err := ms.ScanRecords(ctx, func(_ string, r []byte) error { rec = slices.Clone(r); return nil }); err != nil || rec == nil {
		t.Fatalf("record: %v", err)
	}
	table := index.Key{Kind: index.KindTable, Table: 0, Bits: 16, Value: 0x1234}
	band := index.Key{Kind: index.KindBand, Table: 3, Value: 0xabcdef}
	for _, lean := range []bool{true, false} {
		s, err := Open(filepath.Join(t.TempDir(), "idx"), &Options{Lean: lean})
		if err != nil {
			t.Fatal(err)
		}
		writes := []index.Write{
			{ID: "a", Record: rec, Fingerprint: 5, Keys: []index.Key{table, band}},
			{ID: "a", Record: rec, Fingerprint: 5, Keys: []index.Key{table}, Replaces: true, OldFingerprint: 5, OldKeys: []index.Key{table}},
		}
		for _, w := range writes {
			if err := s.Apply(ctx, &index.Batch{Writes: []index.Write{w}}); err != nil {
				t.Fatal(err)
			}
		}
		ps, err := s.Postings(ctx, []index.Key{table, band})
		if err != nil {
			t.Fatal(err)
		}
		wantBand := 1 // the old posting, left under the number kept
		if lean {
			wantBand = 0
		}
		if len(ps[0]) != 1 || ps[0][0].ID != "a" || len(ps[1]) != wantBand {
			t.Errorf("lean %v: postings after the replacement: table %v, band %v; want a, and %d band posting", lean, ps[0], ps[1], wantBand)
		}
		if st, err := s.Stats(ctx); err != nil || st.Docs != 1 {
			t.Errorf("lean %v: %d documents, %v; want 1", lean, st.Docs, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Salvage keeps the settings of the store it copies: lean records and
// compressed tables, or neither.
func TestSalvageKeepsSettings(t *testing.T) {
	ctx := t.Context()
	for _, o := range []Options{{Lean: true, Compress: true}, {}} {
		dir := filepath.Join(t.TempDir(), "idx")
		x, _ := openDir(t, dir, &o, &index.Options{AnalyzerID: "salvage-test"})
		if err := x.Add(ctx, index.Doc{ID: "a", Fingerprint: 5, ContentHash: 6, Title: "Title"}); err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "out")
		if _, n, err := Salvage(ctx, dir, out, nil); err != nil || n != 1 {
			t.Fatalf("%+v: Salvage: %d documents, %v", o, n, err)
		}
		s, err := Open(out, &Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Stats(ctx)
		s.Close()
		if err != nil || st.Lean != o.Lean || st.Compressed != o.Compress {
			t.Errorf("salvaged from %+v: Stats lean %v, compressed %v, %v", o, st.Lean, st.Compressed, err)
		}
	}
}

// The cache of decompressed blocks is twice the tables' bytes and 256
// MiB, between 64 MiB and 2 GiB; Options.BlockCache sets it, and a
// compressed store's Badger gets it.
func TestBlockCache(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ sst, want int64 }{
		{0, 256 * mib},
		{100 * mib, 456 * mib},
		{384 * mib, 1024 * mib},
		{896 * mib, 2048 * mib},
		{5000 * mib, 2048 * mib},
	} {
		if got := blockCacheSize(c.sst); got != c.want {
			t.Errorf("blockCacheSize(%d MiB) = %d MiB, want %d", c.sst/mib, got/mib, c.want/mib)
		}
	}
	dir := filepath.Join(t.TempDir(), "idx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, size := range map[string]int64{"000001.sst": 10 * mib, "000002.sst": 20 * mib, "000001.vlog": 100 * mib} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(dir, name), size); err != nil {
			t.Fatal(err)
		}
	}
	if got := tableBytes(dir); got != 30*mib {
		t.Errorf("tableBytes = %d, want %d", got, 30*mib)
	}
	for _, c := range []struct {
		o    Options
		want int64
	}{
		{Options{Compress: true}, 256 * mib},
		{Options{Compress: true, BlockCache: 8 * mib}, 8 * mib},
		{Options{}, 0},
		// Postings and records in memory: a small cache.
		{Options{Compress: true, Lean: true, MemPostings: true}, 64 * mib},
		{Options{Compress: true, Lean: true, MemPostings: true, BlockCache: 8 * mib}, 8 * mib},
		// Records read from Badger: the cache is sized by the tables.
		{Options{Compress: true, MemPostings: true}, 256 * mib},
		{Options{Compress: true, Lean: true}, 256 * mib},
	} {
		s, err := Open(filepath.Join(t.TempDir(), "idx"), &c.o)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.db.Opts().BlockCacheSize; got != c.want {
			t.Errorf("%+v: Badger's block cache %d, want %d", c.o, got, c.want)
		}
		s.Close()
	}
	// An existing store's cache follows what it was created with, not
	// what a later Open asks (0: sized by its tables, blockCacheSize).
	for _, c := range []struct {
		created, opened Options
		want            int64
	}{
		{Options{Compress: true, Lean: true}, Options{MemPostings: true}, 64 * mib},
		{Options{Compress: true}, Options{Compress: true, Lean: true, MemPostings: true}, 0},
		{Options{Compress: true, Lean: true}, Options{Compress: true, Lean: true}, 0},
	} {
		dir := filepath.Join(t.TempDir(), "idx")
		s, err := Open(dir, &c.created)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Claim(t.Context(), map[string][]byte{index.MetaFormat: {1}}); err != nil {
			t.Fatal(err) // the first write records the settings
		}
		s.Close()
		if s, err = Open(dir, &c.opened); err != nil {
			t.Fatal(err)
		}
		want := cmp.Or(c.want, blockCacheSize(tableBytes(dir)))
		if got := s.db.Opts().BlockCacheSize; got != want {
			t.Errorf("created %+v, opened %+v: Badger's block cache %d, want %d", c.created, c.opened, got, want)
		}
		s.Close()
	}
}

// A writer with MemPostings lets 40 level-0 tables pile up before
// Badger compacts them (100 before writes stall); any other opener keeps
// Badger's 5 and 15, a reader of a store such a writer left included.
func TestBatchLevelZero(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	for _, c := range []struct {
		o             Options
		tables, stall int
	}{
		{Options{MemPostings: true}, 40, 100},
		{Options{MemPostings: true, Lean: true, Compress: true}, 40, 100},
		{Options{}, 5, 15},
		{Options{Lean: true, Compress: true}, 5, 15},
		{Options{MemPostings: true, ReadOnly: true}, 5, 15},
		{Options{ReadOnly: true}, 5, 15},
	} {
		s, err := Open(dir, &c.o)
		if err != nil {
			t.Fatal(err)
		}
		if !c.o.ReadOnly {
			if _, err := s.Claim(t.Context(), map[string][]byte{index.MetaFormat: {1}}); err != nil {
				t.Fatal(err)
			}
		}
		o := s.db.Opts()
		if o.NumLevelZeroTables != c.tables || o.NumLevelZeroTablesStall != c.stall {
			t.Errorf("%+v: %d level-0 tables before compaction and %d before a stall, want %d and %d",
				c.o, o.NumLevelZeroTables, o.NumLevelZeroTablesStall, c.tables, c.stall)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
