package index

import (
	"slices"
	"testing"
)

// ids returns the IDs of the documents of p, in its order.
func (p llist) ids() []string {
	var out []string
	for d := range p.docs {
		out = append(out, d.id)
	}
	return out
}

func TestListTable(t *testing.T) {
	a, b, c := &ldoc{num: 1, id: "a"}, &ldoc{num: 2, id: "b"}, &ldoc{num: 3, id: "c"}
	band := lkeyOf(Key{Kind: KindBand, Table: 3, Value: 0x1234})
	table := lkeyOf(Key{Kind: KindTable, Table: 3, Bits: 16, Value: 0x1234}) // the same value, another kind
	content := lkeyOf(Key{Kind: KindContent, Value: 7})
	var lt listTable
	if got := lt.get(band).ids(); got != nil {
		t.Fatalf("empty table: get = %q, want nothing", got)
	}
	for _, f := range []struct {
		k lkey
		d *ldoc
	}{{band, a}, {table, b}, {band, b}, {content, c}, {band, c}} {
		p := lt.at(f.k)
		*p = p.with(f.d)
	}
	for _, tc := range []struct {
		name string
		k    lkey
		want []string
	}{
		{"band", band, []string{"a", "b", "c"}},
		{"table", table, []string{"b"}},
		{"content", content, []string{"c"}},
		{"none", lkeyOf(Key{Kind: KindContent, Value: 8}), nil},
	} {
		if got := lt.get(tc.k).ids(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: get = %q, want %q", tc.name, got, tc.want)
		}
	}
	lt.reset()
	for _, k := range []lkey{band, table, content} {
		if got := lt.get(k).ids(); got != nil {
			t.Errorf("after reset: get(%v) = %q, want nothing", k, got)
		}
	}
	p := lt.at(content)
	*p = p.with(a)
	if got := lt.get(content).ids(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("after reset, content filed again: get = %q, want [a]", got)
	}
}

// unhash returns the band key whose hash is h: hash inverted.
func unhash(h uint64) lkey {
	h ^= h >> 33
	h *= 0x9cb4b2f8129337db // the inverse of 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	h *= 0x4f74430c22a54005 // the inverse of 0xff51afd7ed558ccd
	h ^= h >> 33
	k := lkeyOf(Key{Kind: KindBand})
	k[1] = h ^ k[0]*0x9e3779b97f4a7c15
	return k
}

// Many keys make the table grow from 1,024 slots to 8,192, keys whose
// probes start at one slot follow each other, and two keys whose
// hashes share their top 32 bits (the slots' tags) and their probes'
// first slot keep their own lists.
func TestListTableGrowsAndTags(t *testing.T) {
	same := [2]lkey{unhash(0xfeedbeef<<32 | 5), unhash(0xfeedbeef<<32 | 1<<20 | 5)}
	for j, h := range []uint64{0xfeedbeef<<32 | 5, 0xfeedbeef<<32 | 1<<20 | 5} {
		if got := same[j].hash(); got != h {
			t.Fatalf("unhash(%#x) hashes to %#x", h, got)
		}
	}
	var lt listTable
	const n = 3000
	docs := make([]ldoc, n+2)
	key := func(i int) lkey { return lkeyOf(Key{Kind: KindContent, Value: uint64(i) << 40}) }
	for i := range n {
		docs[i] = ldoc{num: uint64(i + 1), id: string(rune('A' + i%26))}
		p := lt.at(key(i))
		*p = p.with(&docs[i])
	}
	docs[n], docs[n+1] = ldoc{id: "same-0"}, ldoc{id: "same-1"}
	for j, k := range same {
		p := lt.at(k)
		*p = p.with(&docs[n+j])
	}
	if len(lt.slots) != 8192 {
		t.Errorf("%d lists in %d slots, want 8192", len(lt.ls), len(lt.slots))
	}
	for i := range n {
		if got := lt.get(key(i)); got.first != &docs[i] || got.more != nil {
			t.Fatalf("key %d: get = %q, want [%s]", i, got.ids(), docs[i].id)
		}
	}
	for j, k := range same {
		if got, want := lt.get(k).ids(), []string{docs[n+j].id}; !slices.Equal(got, want) {
			t.Errorf("key %v of a shared tag: get = %q, want %q", k, got, want)
		}
	}
	if got := lt.get(key(n)).ids(); got != nil {
		t.Errorf("a key not filed: get = %q, want nothing", got)
	}
}
