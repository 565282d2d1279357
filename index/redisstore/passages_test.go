package redisstore

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/simhash"
)

func passageKey(v uint64) index.Key { return index.Key{Kind: index.KindPassage, Value: v} }

// listIDs returns the IDs of each list.
func listIDs(lists [][]index.Posting) [][]string {
	out := make([][]string, len(lists))
	for i, l := range lists {
		out[i] = []string{}
		for _, p := range l {
			out[i] = append(out[i], p.ID)
		}
	}
	return out
}

// PostingsLimit stops a list at the limit, in the order the postings
// were appended, and reads further postings when some of the first ones
// no longer resolve or repeat an ID.
func TestPostingsLimit(t *testing.T) {
	x, s := openIndex(t, nil, nil)
	var docs []index.Doc
	for i := range 6 {
		d := index.Doc{ID: fmt.Sprintf("d%d", i), ContentHash: uint64(100 + i), Passages: []uint64{0x42}}
		d.Fingerprint = 1 << i
		if i < 2 {
			d.Passages = append(d.Passages, 0x43)
		}
		docs = append(docs, d)
	}
	for _, d := range docs { // one Add each: appended in this order
		if err := x.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	keys := []index.Key{passageKey(0x42), passageKey(0x43), passageKey(0x44)}
	check := func(limit int, want [][]string) {
		t.Helper()
		got, err := s.PostingsLimit(ctx, keys, limit)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(listIDs(got), want) {
			t.Errorf("PostingsLimit(%d) = %v, want %v", limit, listIDs(got), want)
		}
	}
	check(3, [][]string{{"d0", "d1", "d2"}, {"d0", "d1"}, {}})
	check(6, [][]string{{"d0", "d1", "d2", "d3", "d4", "d5"}, {"d0", "d1"}, {}})
	check(0, [][]string{{"d0", "d1", "d2", "d3", "d4", "d5"}, {"d0", "d1"}, {}})

	// d1's number no longer resolves (as after a write cut short), and
	// d0's posting is there twice: the first three live IDs need a
	// second round of lookups.
	num := func(id string) uint64 {
		v, err := s.c.GetRange(ctx, s.recordKey(id), 0, numBytes-1).Result()
		if err != nil || len(v) != numBytes {
			t.Fatalf("number of %s: %q, %v", id, v, err)
		}
		return parseNum(v)
	}
	n0, n1 := num("d0"), num("d1")
	hk, f := s.numHash(n1)
	if err := s.c.HDel(ctx, hk, f).Err(); err != nil {
		t.Fatal(err)
	}
	b, err := s.bucketFor(passageKey(0x42), n0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.c.Append(ctx, b.key, string(b.appendRecord(nil, 0, n0))).Err(); err != nil {
		t.Fatal(err)
	}
	check(3, [][]string{{"d0", "d2", "d3"}, {"d0"}, {}})
	check(1, [][]string{{"d0"}, {"d0"}, {}})
	check(10, [][]string{{"d0", "d2", "d3", "d4", "d5"}, {"d0"}, {}})
	got, err := s.Postings(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"d0", "d2", "d3", "d4", "d5"}, {"d0"}, {}}; !reflect.DeepEqual(listIDs(got), want) {
		t.Errorf("Postings = %v, want %v", listIDs(got), want)
	}
}

// An archive of bucket bits 8 has passage levels of 256, 512 and 1024
// numbers: postings are filed, found, moved and removed across them,
// also by a store that opens the archive afterwards and learns of the
// higher levels from the last number.
func TestPassageLevels(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	s, err := Open(ctx, url, &Options{BucketBits: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x, err := index.New(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	// Document i gets number i+1: 0-254 level 0, 255-766 level 1,
	// 767-899 level 2. Each has passage 1000+i%7 and one of its own.
	var docs []index.Doc
	for i := range 900 {
		docs = append(docs, index.Doc{ID: fmt.Sprintf("d%03d", i), Fingerprint: simhash.Fingerprint(i), ContentHash: uint64(i + 1),
			Passages: []uint64{1000 + uint64(i%7), 5000 + uint64(i)}})
	}
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	key := func(id string) int { // the level of id's number
		v, err := s.c.GetRange(ctx, s.recordKey(id), 0, numBytes-1).Result()
		if err != nil {
			t.Fatal(err)
		}
		return s.levelOf(parseNum(v))
	}
	for id, want := range map[string]int{"d000": 0, "d254": 0, "d255": 1, "d766": 1, "d767": 2, "d899": 2} {
		if got := key(id); got != want {
			t.Errorf("%s is at level %d, want %d", id, got, want)
		}
	}
	// filed counts the postings of k in its bucket of level l (which
	// other keys share).
	filed := func(k index.Key, l int) int {
		b := s.passageBucket(k, l)
		v, err := s.c.Get(ctx, b.key).Result()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		n := 0
		if err := b.scan(v, func(simhash.Fingerprint, uint64) { n++ }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// d800's own passage is in level 2's bucket only.
	for l, want := range []int{0, 0, 1} {
		if n := filed(passageKey(5800), l); n != want {
			t.Errorf("level %d holds %d postings of p:5800, want %d", l, n, want)
		}
	}
	every7 := func(r int, skip ...string) []string {
		var out []string
		for i := r; i < 900; i += 7 {
			if id := fmt.Sprintf("d%03d", i); !slices.Contains(skip, id) {
				out = append(out, id)
			}
		}
		return out
	}
	check := func(s *Store, what string, keys []index.Key, want [][]string) {
		t.Helper()
		got, err := s.Postings(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		ids := listIDs(got)
		for _, l := range ids {
			slices.Sort(l) // Add appends in chunks at once
		}
		if !reflect.DeepEqual(ids, want) {
			t.Errorf("%s: Postings = %v, want %v", what, ids, want)
		}
	}
	keys := []index.Key{passageKey(1003), passageKey(5000), passageKey(5300), passageKey(5899), passageKey(6000)}
	check(s, "after Add", keys, [][]string{every7(3), {"d000"}, {"d300"}, {"d899"}, {}})
	if got, err := s.PostingsLimit(ctx, keys[:1], 3); err != nil || !reflect.DeepEqual(listIDs(got), [][]string{{"d003", "d010", "d017"}}) {
		t.Errorf("PostingsLimit(p:1003, 3) = %v, %v", listIDs(got), err)
	}

	// d000 replaced (a new number, 901: level 2), d300 deleted.
	d0 := docs[0]
	d0.Passages = []uint64{1003}
	if err := x.Add(ctx, d0); err != nil {
		t.Fatal(err)
	}
	if got := key("d000"); got != 2 {
		t.Errorf("d000 replaced is at level %d, want 2", got)
	}
	if err := x.Delete(ctx, "d300"); err != nil {
		t.Fatal(err)
	}
	keys = append(keys, passageKey(1000))
	want := [][]string{append([]string{"d000"}, every7(3)...), {}, {}, {"d899"}, {}, every7(0, "d000")}
	check(s, "after a replace and a delete", keys, want)
	// The postings moved, not just hidden: level 0 holds none of
	// p:5000 now, level 1 none of p:5300; of p:1003 level 0 holds
	// d003 to d252 (36), level 2 d773 to d899 (19) and d000.
	for _, tt := range []struct {
		k       index.Key
		l, want int
	}{{passageKey(5000), 0, 0}, {passageKey(5300), 1, 0}, {passageKey(1003), 0, 36}, {passageKey(1003), 2, 20}} {
		if n := filed(tt.k, tt.l); n != tt.want {
			t.Errorf("level %d holds %d postings of %v, want %d", tt.l, n, tt.k, tt.want)
		}
	}

	// Another store knows no level yet: it reads level 0 and the last
	// number, then the levels above.
	s2, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.top.Load() != -1 {
		t.Fatalf("a new store knows level %d", s2.top.Load())
	}
	check(s2, "a new store", keys, want)
	if got := s2.top.Load(); got != 2 {
		t.Errorf("after a read the new store knows level %d, want 2", got)
	}

	// AppendRead at level 2 sees the earlier documents at levels 0 and
	// 1 under a shared passage key, and Reappend of one at level 0
	// sees the later one at level 2.
	app, err := s.AppendRead(ctx, []index.Write{{ID: "late", Record: []byte("r"), Keys: []index.Key{passageKey(1006)}}})
	if err != nil {
		t.Fatal(err)
	}
	var before []string
	for _, e := range app[0].Before[0] {
		before = append(before, e.ID)
	}
	slices.Sort(before)
	if want := every7(6, "d300"); !reflect.DeepEqual(before, want) {
		t.Errorf("AppendRead at level %d: before = %v, want %v", s.levelOf(app[0].Num), before, want)
	}
	re, err := s.Reappend(ctx, []index.Write{{ID: "d006", Keys: []index.Key{passageKey(1006)}}})
	if err != nil {
		t.Fatal(err)
	}
	before = nil
	for _, e := range re[0].Before[0] {
		before = append(before, e.ID)
	}
	slices.Sort(before)
	// Level 0's postings before d006's own (none: d006 is the first
	// there), and levels 1 and 2 whole: d258 to d895 but the deleted
	// d300, and "late".
	want = [][]string{append(slices.DeleteFunc(every7(6, "d300"), func(id string) bool { return id < "d255" }), "late")}
	if !reflect.DeepEqual(before, want[0]) {
		t.Errorf("Reappend at level 0: before = %v, want %v", before, want[0])
	}
}

// An archive created before the passage levels (no 'M' "passages")
// keeps its flat buckets: its postings, at the literal keys the earlier
// version wrote, are found, and new ones go there too.
func TestPassagesFlatArchive(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	s, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.New(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ctx, index.Doc{ID: "old", Fingerprint: 1, ContentHash: 1}); err != nil {
		t.Fatal(err)
	}
	num, err := s.c.GetRange(ctx, s.recordKey("old"), 0, numBytes-1).Result()
	if err != nil {
		t.Fatal(err)
	}
	// What the earlier version wrote for "old" under p:deadbeef:
	// bucket 0x0de5 of table 32, match 0xc6a9, the number.
	name := s.prefix
	flatKey := name + "p\x20\x0d\xe5"
	if err := s.c.Append(ctx, flatKey, "\xc6\xa9"+num).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.c.Del(ctx, s.storeKey("passages")).Err(); err != nil {
		t.Fatal(err)
	}
	x.Close()
	s.Close()

	s, err = Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.levels {
		t.Fatal("an archive without the passages setting opened with passage levels")
	}
	x, err = index.New(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Add(ctx, index.Doc{ID: "new", Fingerprint: 2, ContentHash: 2, Passages: []uint64{0xdeadbeef}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Postings(ctx, []index.Key{passageKey(0xdeadbeef)})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"old", "new"}}; !reflect.DeepEqual(listIDs(got), want) {
		t.Errorf("Postings = %v, want %v", listIDs(got), want)
	}
	if n, err := s.c.StrLen(ctx, flatKey).Result(); err != nil || n != 14 {
		t.Errorf("the flat bucket holds %d bytes, %v; want 14 (two postings)", n, err)
	}
	if n, err := s.c.Exists(ctx, s.passageBucket(passageKey(0xdeadbeef), 0).key).Result(); err != nil || n != 0 {
		t.Errorf("level 0's bucket exists (%d, %v) in a flat archive", n, err)
	}
	if v, err := s.c.Get(ctx, s.storeKey("passages")).Result(); err != redis.Nil {
		t.Errorf("opening a flat archive recorded passages %q, %v", v, err)
	}
}
