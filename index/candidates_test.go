package index

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestCandsBuild: the candidate table has one entry an ID, whatever the
// number of shards, with the number last seen in the documents' order;
// each document gets its candidates once each; find finds every ID and
// add adds the ones not seen.
func TestCandsBuild(t *testing.T) {
	seen := [][]Earlier{
		{{Num: 7, ID: "x"}, {Num: 1 << 40, ID: "b0"}, {Num: 8, ID: "x"}}, // x under two keys, two stateless numbers
		nil, // not written
		{{Num: 9, ID: "y"}, {Num: 10, ID: "x"}},
		{{Num: 1<<40 + 2, ID: "b2"}, {Num: 1 << 40, ID: "b0"}, {Num: 11, ID: "y"}, {Num: 12, ID: "z"}},
		{}, // saw nothing
	}
	order := []int{3, 0, 2, 4} // x last seen in document 2, y in 2
	want := []string{
		"0: b0@1099511627776 x@10",
		"1:",
		"2: x@10 y@9",
		"3: b0@1099511627776 b2@1099511627778 y@9 z@12",
		"4:",
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3, 16, 100} {
		runtime.GOMAXPROCS(procs)
		var cs cands
		idx := cs.build(len(seen), order, seen)
		if len(cs.c) != 5 {
			t.Errorf("GOMAXPROCS %d: %d candidates; want 5 (b0, b2, x, y, z)", procs, len(cs.c))
		}
		var got []string
		for i, ks := range idx {
			var l []string
			for _, k := range ks {
				l = append(l, fmt.Sprintf("%s@%d", cs.c[k].id, cs.c[k].num))
			}
			slices.Sort(l)
			got = append(got, strings.TrimSpace(fmt.Sprintf("%d: %s", i, strings.Join(l, " "))))
		}
		if !slices.Equal(got, want) {
			t.Errorf("GOMAXPROCS %d: candidates\n%q\nwant\n%q", procs, got, want)
		}
		for _, id := range []string{"b0", "b2", "x", "y", "z"} {
			if k, ok := cs.find(id); !ok || cs.c[k].id != id {
				t.Errorf("GOMAXPROCS %d: find(%q) = %d, %v", procs, id, k, ok)
			}
		}
		if k, ok := cs.find("w"); ok {
			t.Errorf("GOMAXPROCS %d: find(w) = %d, true; want none", procs, k)
		}
		k := cs.add("w", 13)
		if k != 5 || cs.c[k].id != "w" || cs.c[k].num != 13 || cs.c[k].read {
			t.Errorf("GOMAXPROCS %d: add(w, 13) = %d: %+v; want 5, w@13 not read", procs, k, cs.c[k])
		}
		if got, _ := cs.find("w"); got != k || cs.add("w", 14) != k || cs.add("x", 0) >= 5 {
			t.Errorf("GOMAXPROCS %d: after add(w): find(w) %d, add(w) %d, add(x) %d; want 5, 5, below 5", procs, got, cs.add("w", 14), cs.add("x", 0))
		}
		if cs.anyChanged(idx[3]) {
			t.Errorf("GOMAXPROCS %d: a candidate changed before any set", procs)
		}
		z, _ := cs.find("z")
		cs.set(z, &Doc{ID: "z"})
		if !cs.anyChanged(idx[3]) || cs.anyChanged(idx[0]) || !cs.c[z].read {
			t.Errorf("GOMAXPROCS %d: after set(z): changed %v (3), %v (0), read %v; want true, false, true", procs,
				cs.anyChanged(idx[3]), cs.anyChanged(idx[0]), cs.c[z].read)
		}
		cs.forget(z)
		if cs.c[z].read || cs.c[z].doc != nil || cs.changed != 1 {
			t.Errorf("GOMAXPROCS %d: after forget(z): %+v, %d changed; want unread, no record, 1 changed", procs, cs.c[z], cs.changed)
		}
	}
}

// TestCandsByNum: with byNum, a document seen under the store's own
// number (storeNum) has one entry by that number, found by ID through
// resolve; the others (a written document's number, a number local
// handed out) by ID, as before.
func TestCandsByNum(t *testing.T) {
	const low, fresh = firstLow, firstFresh
	seen := [][]Earlier{
		{{Num: 5, ID: "s"}, {Num: fresh, ID: "b0"}, {Num: 5, ID: "s"}}, // s under two keys, its number both times
		{{Num: 6, ID: "t"}, {Num: low + 1, ID: "u"}, {Num: 5, ID: "s"}},
		{{Num: low + 2, ID: "u"}, {Num: fresh, ID: "b0"}, {Num: 6, ID: "t"}},
	}
	order := []int{0, 1, 2}
	want := []string{
		"0: b0@1099511627776 s@5",
		"1: s@5 t@6 u@8589934594",
		"2: b0@1099511627776 t@6 u@8589934594",
	}
	nums := map[string]uint64{"s": 5, "t": 6, "v": 7}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3, 16} {
		runtime.GOMAXPROCS(procs)
		resolved := 0
		cs := cands{byNum: storeNum, resolve: func(id string) uint64 { resolved++; return nums[id] }}
		idx := cs.build(len(seen), order, seen)
		if len(cs.c) != 4 {
			t.Errorf("GOMAXPROCS %d: %d candidates; want 4 (b0, s, t, u)", procs, len(cs.c))
		}
		var got []string
		for i, ks := range idx {
			var l []string
			for _, k := range ks {
				l = append(l, fmt.Sprintf("%s@%d", cs.c[k].id, cs.c[k].num))
			}
			slices.Sort(l)
			got = append(got, fmt.Sprintf("%d: %s", i, strings.Join(l, " ")))
		}
		if !slices.Equal(got, want) {
			t.Errorf("GOMAXPROCS %d: candidates\n%q\nwant\n%q", procs, got, want)
		}
		for _, id := range []string{"b0", "s", "t", "u"} {
			if k, ok := cs.find(id); !ok || cs.c[k].id != id {
				t.Errorf("GOMAXPROCS %d: find(%q) = %d, %v", procs, id, k, ok)
			}
		}
		if resolved != 2 {
			t.Errorf("GOMAXPROCS %d: resolve called %d times; want 2 (s, t: b0 and u are found by ID)", procs, resolved)
		}
		b0, _ := cs.find("b0")
		if k := cs.add("b0", fresh); k != b0 || resolved != 2 {
			t.Errorf("GOMAXPROCS %d: add(b0, its written number) = %d, %d resolved; want b0's %d, none more resolved", procs, k, resolved, b0)
		}
		if k := cs.add("n", fresh+5); k != 4 || resolved != 2 {
			t.Errorf("GOMAXPROCS %d: add(n, a written number) = %d, %d resolved; want 4, none more resolved", procs, k, resolved)
		}
		s, _ := cs.find("s")
		if k := cs.add("s", 5); k != s {
			t.Errorf("GOMAXPROCS %d: add(s, 5) = %d; want s's %d", procs, k, s)
		}
		if _, ok := cs.find("v"); ok {
			t.Errorf("GOMAXPROCS %d: find(v), a stored document no one saw: found", procs)
		}
		v := cs.add("v", 0)
		if v != 5 || cs.c[v].id != "v" {
			t.Errorf("GOMAXPROCS %d: add(v, 0) = %d: %+v; want 5, v", procs, v, cs.c[v])
		}
		if k, ok := cs.find("v"); !ok || k != v || cs.add("v", 7) != v {
			t.Errorf("GOMAXPROCS %d: after add(v): find(v) = %d, %v; add(v, 7) = %d; want %d", procs, k, ok, cs.add("v", 7), v)
		}
	}
}

func TestSameID(t *testing.T) {
	long := "news.example.com/zh/2026/03/03/a001670678.html"
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"", "", true},
		{"a", "a", true},
		{"a", "b", false},
		{"a", "ab", false},
		{long, long, true},
		{long, "news.example.com/zh/2026/03/03/a001670679.html", false},
		{long, "news.example.com/zh/2026/03/04/a001670678.html", false}, // differs before the last 16 bytes
		{long, "xews.example.com/zh/2026/03/03/a001670678.html", false},
		{long, long[:len(long)-1], false},
	} {
		if got := sameID(tc.a, tc.b); got != tc.want {
			t.Errorf("sameID(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
