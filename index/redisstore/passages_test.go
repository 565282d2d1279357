package redisstore

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/neardup/neardup/index"
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
	b, err := s.bucketOf(passageKey(0x42))
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
