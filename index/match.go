package index

import (
	"sort"
)

// similar combines the exact-hash IDs, the SimHash candidates and the
// MinHash band candidates of d into Similar's result, with the records
// in docs; a candidate without one is skipped. SimHash candidates are
// confirmed by content when both sketches are known; band candidates
// always have both and are always confirmed.
func similar(d *Doc, exact []string, near []Match, banded []string, docs map[string]*Doc, minContent float64) []Match {
	var out []Match
	seen := make(map[string]bool, len(exact)+len(near))
	for _, id := range exact {
		if id == d.ID || seen[id] {
			continue
		}
		seen[id] = true
		r := docs[id]
		if r == nil {
			continue
		}
		dist := d.Fingerprint.Distance(r.Fingerprint)
		out = append(out, Match{ID: id, Title: r.Title, Distance: dist, Similarity: d.Fingerprint.Similarity(r.Fingerprint),
			Content: 1, Exact: true, Keywords: r.Keywords, Job: r.Job, Seq: r.Seq})
	}
	for _, m := range near {
		if m.ID == d.ID || seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		r := docs[m.ID]
		if r == nil {
			continue
		}
		m.Title, m.Keywords, m.Job, m.Seq = r.Title, r.Keywords, r.Job, r.Seq
		if !Confirmed(d, r, minContent) {
			continue
		}
		if !d.Sketch.IsZero() && !r.Sketch.IsZero() {
			m.Content = d.Sketch.Jaccard(r.Sketch)
		} else {
			m.Unverified = true
		}
		out = append(out, m)
	}
	for _, id := range banded {
		if id == d.ID || seen[id] {
			continue
		}
		seen[id] = true
		r := docs[id]
		if r == nil {
			continue
		}
		c := d.Sketch.Jaccard(r.Sketch)
		if r.Sketch.IsZero() || c < minContent {
			continue
		}
		out = append(out, Match{ID: id, Title: r.Title, Distance: d.Fingerprint.Distance(r.Fingerprint),
			Similarity: d.Fingerprint.Similarity(r.Fingerprint), Content: c, Keywords: r.Keywords, Job: r.Job, Seq: r.Seq})
	}
	SortMatches(out)
	return out
}

// Confirmed reports whether Similar confirms a SimHash candidate b of
// a: their sketches' estimated Jaccard similarity reaches minContent, or
// either sketch is missing (a document loaded from a bare fingerprint),
// which leaves the candidate unconfirmed but kept.
func Confirmed(a, b *Doc, minContent float64) bool {
	if a.Sketch.IsZero() || b.Sketch.IsZero() {
		return true
	}
	return a.Sketch.Jaccard(b.Sketch) >= minContent
}

// SortMatches sorts matches as Similar does: exact matches first, then by
// distance, then by ID.
func SortMatches(ms []Match) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := &ms[i], &ms[j]
		if a.Exact != b.Exact {
			return a.Exact
		}
		if a.Distance != b.Distance {
			return a.Distance < b.Distance
		}
		return a.ID < b.ID
	})
}
