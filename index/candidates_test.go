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
