// Package urlhash finds near-duplicate URLs: it normalises a URL and
// makes a 64-bit SimHash of its structure.
//
// # Features
//
// A normalised URL (see Normalize) is turned into weighted features
// whose weights always total 10:
//
//	scheme    0.5  "s:" + scheme
//	host      4    "h:" + host + ":" + port (port empty when default)
//	path      3    "p:" + index + "/" + segment for each segment, sharing 3
//	               equally; "p:/" for the root
//	query     2    "q:" + "name=value" for each parameter, sharing 2
//	               equally; "q:" for none
//	fragment  0.5  "f:" + fragment, "f:" for none
//
// Each feature is hashed with simhash.HashWord and the fingerprint is
// simhash.Sum of them; the similarity of two URLs is 1 - d/64 for a
// Hamming distance d. A different port counts as a different host (a
// different service). Path segments carry their position, so /a/b and
// /b/a differ and inserting a segment changes all those after it;
// query parameters do not, as they are sorted.
//
// Missing parts are features too ("p:/", "q:", "f:"), so that adding a
// query or a fragment moves the fingerprint like changing one.
//
// # Thresholds
//
// The host weighs 4 of 10, so it decides most bits: URLs on one host
// are always fairly close, URLs on different hosts far apart. Measured
// on 21,544 distinct real URLs (found in /usr/share/doc, the Go module
// cache and Python and Perl libraries, at most 300 per host and first
// three path segments; see TestClusterURLs), single edits move a
// fingerprint by, on average (share within distance 3 / 6 / 12):
//
//	fragment added or changed     1.6 bits  (92% / 100% / 100%)
//	http <-> https                1.9 bits  (87% / 100% / 100%)
//	trailing slash added          3.2 bits  (66% /  87% / 100%)
//	one path segment changed      5.5 bits  (45% /  71% /  88%)
//	query added                   5.8 bits  (35% /  69% /  90%)
//	one query value changed       9.9 bits  (13% /  33% /  66%)
//	host changed                 25.1 bits  ( 0% /   0% /   1%)
//
// while unrelated URLs on the same host are within 3 / 6 / 12 bits in
// 30% / 67% / 92% of pairs, and URLs on different hosts in 0% / 0% /
// 0.03%. Hence:
//
//   - Similarity >= 0.95 (distance <= 3), very close: most cosmetic
//     variants of one page (fragment, scheme, trailing slash), but also
//     many siblings (another bug number, another release) and some
//     unrelated pages of the same site. Not a same-page test by itself.
//   - >= 0.90 (distance <= 6), close: virtually all cosmetic variants
//     and most URLs differing in one path segment or parameter.
//   - >= 0.80 (distance <= 12), same pattern: mostly "same site"; it
//     almost never joins different hosts, except bare site roots
//     (https://host/), which differ in the host alone: the roots of 425
//     distinct hosts of that list are 18.5 bits apart on average and
//     2.4% of their pairs within 12. Deduplicating the whole list
//     (neardup url dedup) paired URLs of different hosts in 2,608 of
//     38,892 pairs at 0.80, 2,341 of them root with root, and in 22 of
//     53,584 at 0.90, all root with root (none at 0.95).
//
// Judged by eye on a second list gathered the same way (21,214 URLs,
// TestClusterURLs and neardup url dedup), few of the pairs each
// threshold joins are the same page: of random samples of 10, 2 at 0.95
// (both differing in the fragment alone) and none at 0.90 or 0.80; by
// which parts differ, at most 12%, 7% and 2% of the duplicates are the
// same page. The rest are other pages of one site (other commits, bugs,
// list messages, repositories of github.com), some at distance 0: with
// the host weighing 4 of 10, deep paths that differ in several segments
// can leave every bit as the host sets it.
//
// For "same page", compare the normalised URLs (Parts.Equal or
// Parts.String); the fingerprint is for grouping and for finding
// candidates with simhash block indexes.
//
// Fingerprints made with different Options (or another Version) do not
// compare; Options.ID names them, for instance as the AnalyzerID of an
// index that stores them, so that they are never mixed with each other
// or with article fingerprints.
//
// Compare compares two URLs; its Comparison's Verdict names how close
// they are, and its Report is what neardup url prints (JSON and text).
package urlhash

import (
	"slices"
	"strconv"

	"github.com/neardup/neardup/simhash"
)

// Part weights; they total 10.
const (
	SchemeWeight   = 0.5
	HostWeight     = 4
	PathWeight     = 3
	QueryWeight    = 2
	FragmentWeight = 0.5
)

// Features returns the weighted features of p, hashed with
// simhash.HashWord, as described in the package documentation.
func (p Parts) Features() []simhash.Feature {
	fs := make([]simhash.Feature, 0, 3+max(len(p.Path), 1)+max(len(p.Query), 1))
	add := func(key string, w float64) {
		fs = append(fs, simhash.Feature{Hash: simhash.HashWord(key), Weight: w})
	}
	add("s:"+p.Scheme, SchemeWeight)
	add("h:"+p.Host+":"+p.Port, HostWeight)
	if len(p.Path) == 0 {
		add("p:/", PathWeight)
	}
	for i, seg := range p.Path {
		add("p:"+strconv.Itoa(i)+"/"+seg, PathWeight/float64(len(p.Path)))
	}
	if len(p.Query) == 0 {
		add("q:", QueryWeight)
	}
	for _, q := range p.Query {
		add("q:"+q, QueryWeight/float64(len(p.Query)))
	}
	add("f:"+p.Fragment, FragmentWeight)
	return fs
}

// Fingerprint returns the SimHash of p's features.
func (p Parts) Fingerprint() simhash.Fingerprint {
	return simhash.Sum(p.Features())
}

// Sum normalises raw and returns its fingerprint. A nil opts means the
// defaults. The error wraps ErrInvalid.
func Sum(raw string, opts *Options) (simhash.Fingerprint, error) {
	p, err := Normalize(raw, opts)
	if err != nil {
		return 0, err
	}
	return p.Fingerprint(), nil
}

// Comparison is the result of Compare.
type Comparison struct {
	A, B                       Parts
	FingerprintA, FingerprintB simhash.Fingerprint
	// Distance is the Hamming distance of the fingerprints, Similarity
	// 1 - Distance/64.
	Distance   int
	Similarity float64
	// Differ names the parts that differ, in the order "scheme",
	// "host", "port", "path", "query", "fragment"; it is empty when the
	// normalised URLs are equal.
	Differ []string
}

// Compare normalises the URLs a and b and compares them. The error
// wraps ErrInvalid and names the URL at fault.
func Compare(a, b string, opts *Options) (Comparison, error) {
	pa, err := Normalize(a, opts)
	if err != nil {
		return Comparison{}, err
	}
	pb, err := Normalize(b, opts)
	if err != nil {
		return Comparison{}, err
	}
	c := Comparison{A: pa, B: pb, FingerprintA: pa.Fingerprint(), FingerprintB: pb.Fingerprint()}
	c.Distance = c.FingerprintA.Distance(c.FingerprintB)
	c.Similarity = c.FingerprintA.Similarity(c.FingerprintB)
	c.Differ = diffParts(pa, pb)
	return c, nil
}

// diffParts names the parts in which a and b differ.
func diffParts(a, b Parts) []string {
	var d []string
	add := func(name string, differ bool) {
		if differ {
			d = append(d, name)
		}
	}
	add("scheme", a.Scheme != b.Scheme)
	add("host", a.Host != b.Host)
	add("port", a.Port != b.Port)
	add("path", !slices.Equal(a.Path, b.Path))
	add("query", !slices.Equal(a.Query, b.Query))
	add("fragment", a.Fragment != b.Fragment)
	return d
}
