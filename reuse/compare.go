package reuse

import (
	"slices"
	"unicode"
)

// Span is a passage of an original text: bytes Start to End (exclusive).
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Passage is one passage two texts share: where it is in this text and
// where in the other, with its length in compared characters here.
type Passage struct {
	Here  Span `json:"here"`
	There Span `json:"there"`
	Chars int  `json:"chars"`
}

// Overlap is what Compare finds between two texts.
type Overlap struct {
	Here     float64   // share of this text's characters in shared passages
	There    float64   // share of the other text's characters in shared passages
	Passages []Passage // in order in this text
}

// run is a passage of a Text in characters: i to j, exclusive.
type run struct{ i, j int }

// Compare returns the passages of at least minChars characters that a
// (this text) and b (the other) share, and the share of each text they
// cover. A character is shared when a k-gram of p.Gram characters
// covering it is in the other text; shared characters separated by at
// most p.Gram others, none a digit (a light edit: a word changed every
// dozen characters or more), make one passage, which counts whole in
// the shares. A passage of a is paired with the passage of b it shares the
// most k-grams with, and left out when there is none (its k-grams are
// scattered over b).
//
// stop, when not nil, holds the keys (p.Key) of fingerprints too common
// to count (boilerplate; see Options.MaxDocs): a passage of a is kept
// only when one of a's fingerprints (p.Prints) that b has too and whose
// key stop does not hold starts in it, and a passage of b only when it shares a k-gram
// with a kept passage of a.
func Compare(a, b *Text, p Params, minChars int, stop map[uint64]bool) Overlap {
	return newSide(a, p).compare(b, p, minChars, stop)
}

// side is a text Compare compares with others, its k-gram hashes and
// fingerprints computed once.
type side struct {
	t      *Text
	h      []uint64
	prints []Print
}

func newSide(t *Text, p Params) *side {
	h := gramHashes(t, p.Gram)
	return &side{t: t, h: h, prints: winnow(h, p.Window)}
}

func (sa *side) compare(b *Text, p Params, minChars int, stop map[uint64]bool) Overlap {
	k := p.Gram
	a, ha, hb := sa.t, sa.h, gramHashes(b, k)
	posB := make(map[uint64]int, len(hb))
	for i, h := range hb {
		if _, ok := posB[h]; !ok {
			posB[h] = i
		}
	}
	runsA := cover(a.runes, ha, k, minChars, func(h uint64) bool { _, ok := posB[h]; return ok })
	if stop != nil {
		var starts []int // a's shared fingerprints that count
		for _, pr := range sa.prints {
			if _, ok := posB[pr.Hash]; ok && !stop[p.Key(pr.Hash)] {
				starts = append(starts, pr.Pos)
			}
		}
		runsA = slices.DeleteFunc(runsA, func(r run) bool {
			i, _ := slices.BinarySearch(starts, r.i)
			return i == len(starts) || starts[i] >= r.j
		})
	}
	kept := make(map[uint64]struct{})
	for _, r := range runsA {
		for g := r.i; g+k <= r.j; g++ {
			if _, ok := posB[ha[g]]; ok {
				kept[ha[g]] = struct{}{}
			}
		}
	}
	runsB := cover(b.runes, hb, k, minChars, func(h uint64) bool { _, ok := kept[h]; return ok })

	var o Overlap
	for _, r := range runsA {
		// The passage of b with most of this passage's k-grams.
		votes := map[int]int{}
		for g := r.i; g+k <= r.j; g++ {
			if pb, ok := posB[ha[g]]; ok {
				if x, ok := slices.BinarySearchFunc(runsB, pb, func(r run, t int) int {
					switch {
					case r.j <= t:
						return -1
					case r.i > t:
						return 1
					}
					return 0
				}); ok {
					votes[x]++
				}
			}
		}
		best, n := -1, 0
		for x, v := range votes {
			if v > n || v == n && x < best {
				best, n = x, v
			}
		}
		if best < 0 {
			// Its k-grams are scattered over b (a list of short items
			// both texts have, in other orders): not a passage of b.
			continue
		}
		ps := Passage{Chars: r.j - r.i}
		ps.Here.Start, ps.Here.End = a.Span(r.i, r.j)
		ps.There.Start, ps.There.End = b.Span(runsB[best].i, runsB[best].j)
		o.Passages = append(o.Passages, ps)
		o.Here += float64(r.j - r.i)
	}
	for _, r := range runsB {
		o.There += float64(r.j - r.i)
	}
	if a.Len() > 0 {
		o.Here /= float64(a.Len())
	}
	if b.Len() > 0 {
		o.There /= float64(b.Len())
	}
	return o
}

// cover returns the passages of a text whose characters are runes and
// k-gram hashes h: the runs of characters covered by a k-gram shared
// reports, joined across gaps of at most k characters without a digit,
// of at least minChars characters. A gap with a digit ends a passage:
// texts made from one template (market reports, results tables) differ
// in their figures, and their shared text between figures is no copied
// passage.
func cover(runes []rune, h []uint64, k, minChars int, shared func(uint64) bool) []run {
	var out []run
	cur := run{-1, -1}
	flush := func() {
		if cur.i >= 0 && cur.j-cur.i >= max(minChars, 1) {
			out = append(out, cur)
		}
	}
	for g, v := range h {
		if !shared(v) {
			continue
		}
		switch {
		case cur.i < 0:
			cur = run{g, g + k}
		case g <= cur.j || g <= cur.j+k && !slices.ContainsFunc(runes[cur.j:g], unicode.IsDigit):
			cur.j = max(cur.j, g+k)
		default:
			flush()
			cur = run{g, g + k}
		}
	}
	flush()
	return out
}
