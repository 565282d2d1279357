package urlhash

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/simhash"
)

// TestClusterURLs measures how a real URL list clusters at similarity
// 0.95, 0.90 and 0.80. It needs a list of URLs, one a line, and runs
// only when given one:
//
//	URLHASH_URLS=/work/urls.txt go test -run TestClusterURLs -v ./urlhash
//
// The list measured for the package documentation held the distinct
// http, https and ftp URLs found (by a regular expression, in .gz files
// too) in /usr/share/doc, /root/go/pkg/mod, /usr/share/common-licenses,
// /usr/share/perl and /usr/lib/python3, at most 300 per host and first
// three path segments (otherwise 74,000 of 95,000 are nodejs commit
// and pull-request links).
//
// Clustering is greedy in list order: a URL joins the first earlier
// representative within the threshold, or becomes a representative. It
// logs the counts, which parts differ in the clustered pairs, and
// sample pairs (representative, member) for judging by eye.
func TestClusterURLs(t *testing.T) {
	path := os.Getenv("URLHASH_URLS")
	if path == "" {
		t.Skip("set URLHASH_URLS to a file of URLs, one a line")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var raws []string
	var parts []Parts
	var fps []simhash.Fingerprint
	bad := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		raw := sc.Text()
		p, err := Normalize(raw, nil)
		if err != nil {
			if bad < 10 {
				t.Logf("%s:%d: %v", path, line, err)
			}
			bad++
			continue
		}
		raws = append(raws, raw)
		parts = append(parts, p)
		fps = append(fps, p.Fingerprint())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	n := len(raws)
	if n == 0 {
		t.Fatalf("%s: no URLs", path)
	}
	seen := make(map[string]bool)
	exact := 0
	for _, p := range parts {
		s := p.String()
		if seen[s] {
			exact++
		}
		seen[s] = true
	}
	t.Logf("%s: %d URLs normalised, %d refused; %d are the same normalised URL as an earlier one", path, n, bad, exact)

	// How far single edits move the fingerprints of these URLs.
	edits := []struct {
		name string
		edit func(p Parts) (Parts, bool)
	}{
		{"fragment added or changed", func(p Parts) (Parts, bool) { p.Fragment = "x" + p.Fragment; return p, true }},
		{"http <-> https", func(p Parts) (Parts, bool) {
			switch p.Scheme {
			case "http":
				p.Scheme = "https"
			case "https":
				p.Scheme = "http"
			default:
				return p, false
			}
			return p, true
		}},
		{"trailing slash added", func(p Parts) (Parts, bool) {
			if len(p.Path) == 0 || p.Path[len(p.Path)-1] == "" {
				return p, false
			}
			p.Path = append(slices.Clip(p.Path), "")
			return p, true
		}},
		{"last path segment changed", func(p Parts) (Parts, bool) {
			if len(p.Path) == 0 {
				return p, false
			}
			p.Path = slices.Clone(p.Path)
			p.Path[len(p.Path)-1] += "x"
			return p, true
		}},
		{"first path segment changed", func(p Parts) (Parts, bool) {
			if len(p.Path) == 0 {
				return p, false
			}
			p.Path = slices.Clone(p.Path)
			p.Path[0] += "x"
			return p, true
		}},
		{"one query value changed", func(p Parts) (Parts, bool) {
			if len(p.Query) == 0 {
				return p, false
			}
			p.Query = slices.Clone(p.Query)
			p.Query[0] += "x"
			return p, true
		}},
		{"query added", func(p Parts) (Parts, bool) {
			if len(p.Query) != 0 {
				return p, false
			}
			p.Query = []string{"x=1"}
			return p, true
		}},
		{"host changed", func(p Parts) (Parts, bool) { p.Host = "x" + p.Host; return p, true }},
	}
	for _, e := range edits {
		var within [3]int
		count, sum := 0, 0
		for i, p := range parts {
			q, ok := e.edit(p)
			if !ok {
				continue
			}
			d := fps[i].Distance(q.Fingerprint())
			count++
			sum += d
			for k, m := range []int{3, 6, 12} {
				if d <= m {
					within[k]++
				}
			}
		}
		if count == 0 {
			continue
		}
		pc := func(k int) float64 { return 100 * float64(within[k]) / float64(count) }
		t.Logf("%-27s %6d URLs: mean distance %5.2f; within 3: %5.1f%%, 6: %5.1f%%, 12: %5.1f%%",
			e.name, count, float64(sum)/float64(count), pc(0), pc(1), pc(2))
	}

	// Distances between pairs of different URLs, on one host or two:
	// each URL against the next 400 in the list, every third one.
	var within [2][3]int // [same host, different hosts][within 3, 6, 12]
	var pairs [2]int
	for i := 0; i < n; i += 7 {
		for j := i + 1; j < n && j < i+400; j += 3 {
			if parts[i].Equal(parts[j]) {
				continue
			}
			k := 0
			if parts[i].Host != parts[j].Host {
				k = 1
			}
			pairs[k]++
			d := fps[i].Distance(fps[j])
			for m, limit := range []int{3, 6, 12} {
				if d <= limit {
					within[k][m]++
				}
			}
		}
	}
	for k, name := range []string{"same host", "different hosts"} {
		pc := func(m int) float64 { return 100 * float64(within[k][m]) / float64(max(pairs[k], 1)) }
		t.Logf("%-27s %6d pairs: within 3: %5.2f%%, 6: %5.2f%%, 12: %5.2f%%", name, pairs[k], pc(0), pc(1), pc(2))
	}

	minDist := 0
	for _, threshold := range []float64{0.95, 0.90, 0.80} {
		maxDist := int((1 - threshold) * 64) // 3, 6, 12
		var reps []int
		rep := make([]int, n)
		for i, fp := range fps {
			rep[i] = -1
			for _, r := range reps {
				if fp.Distance(fps[r]) <= maxDist {
					rep[i] = r
					break
				}
			}
			if rep[i] < 0 {
				rep[i] = i
				reps = append(reps, i)
			}
		}
		size := make(map[int]int)
		for _, r := range rep {
			size[r]++
		}
		multi := 0
		for _, s := range size {
			if s > 1 {
				multi++
			}
		}
		// Which parts differ between members and representatives.
		differs := make(map[string]int)
		nearCount := 0
		var band []int // members in this band, not the same normalised URL
		for i, r := range rep {
			if r == i {
				continue
			}
			c := diffParts(parts[r], parts[i])
			differs[strings.Join(c, "+")]++
			if len(c) > 0 {
				nearCount++
				if d := fps[i].Distance(fps[r]); d >= minDist {
					band = append(band, i)
				}
			}
		}
		t.Logf("similarity >= %.2f (distance <= %d): %d clusters, %d with more than one URL, %d URLs joined an earlier one (%d of them not the same normalised URL)",
			threshold, maxDist, len(reps), multi, n-len(reps), nearCount)
		keys := make([]string, 0, len(differs))
		for k := range differs {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return differs[b] - differs[a] })
		var b strings.Builder
		for _, k := range keys[:min(len(keys), 8)] {
			name := k
			if name == "" {
				name = "(none)"
			}
			fmt.Fprintf(&b, " %s:%d", name, differs[k])
		}
		t.Logf("  parts differing:%s", b.String())
		t.Logf("  samples at distance %d to %d:", minDist, maxDist)
		r := rand.New(rand.NewPCG(uint64(maxDist), 1))
		r.Shuffle(len(band), func(i, j int) { band[i], band[j] = band[j], band[i] })
		for _, i := range band[:min(len(band), 12)] {
			t.Logf("  %.3f %q\n        %q", fps[i].Similarity(fps[rep[i]]), raws[rep[i]], raws[i])
		}
		minDist = maxDist + 1
	}
}
