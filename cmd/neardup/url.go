package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/urlhash"
)

// catNormalise is the help category of the URL normalisation flags.
const catNormalise = "Normalisation"

// URL similarity levels, in percent, from the measurements in the
// urlhash package documentation.
const (
	urlVeryClose   = 95 // distance ≤ 3
	urlClose       = 90 // distance ≤ 6
	urlSamePattern = 80 // distance ≤ 12
)

// urlIndexMaxDistance is the largest distance an index layout covers
// (layoutBlocks(9) = 11 blocks, C(11,9) = 55 tables of 10-bit keys; 10
// would need 66 tables or keys shorter than 8 bits). TestURLLayouts
// checks it against the index package.
const urlIndexMaxDistance = 9

// layoutBlocks is the number of blocks index.LayoutFor gives k.
func layoutBlocks(k int) int {
	b, _ := index.LayoutFor(k)
	return b
}

// urlBatch is how many kept URLs url dedup --index writes per
// transaction.
const urlBatch = 1000

// maxURLLine is the longest input line url dedup reads; longer lines
// are rejected.
const maxURLLine = 16 << 20

// urlCommand is "neardup url A B" and "neardup url dedup".
func urlCommand() *cli.Command {
	return &cli.Command{
		Name:      "url",
		Usage:     "compare two URLs, or find near-duplicate URLs in a list (url dedup)",
		ArgsUsage: "A B",
		Description: `Compares the URLs A and B: prints both normalised, the Hamming distance of their 64-bit
fingerprints, their similarity (1 - distance/64) as a percentage, the parts that differ (scheme,
host, port, path, query, fragment) and how close that is:

   same URL      the normalised URLs are equal: the same page, as far as a URL can tell
   very close    ≥ 95% (distance ≤ 3): cosmetic variants of one page (a fragment, http or https,
                 a trailing slash), but also many siblings (another bug number, another release)
   close         ≥ 90% (distance ≤ 6): virtually all cosmetic variants, and most URLs one path
                 segment or query parameter apart
   same pattern  ≥ 80% (distance ≤ 12): mostly "the same site"; different hosts almost never
                 come this close, except bare site roots (https://host/), which differ in
                 the host alone
   different     below 80%

(Measured on 21,544 real URLs; see the documentation of the Go package
github.com/neardup/neardup/urlhash.) The host weighs most: URLs on one host are always fairly
close, URLs on different hosts far apart.

Normalisation: scheme and host in lower case, international host names in punycode, default
ports, user information and a leading "www." dropped, percent-encoding normalised, "." and ".."
resolved, query parameters sorted, tracking parameters (utm_*, fbclid, ...) and a last index page
(index.html, ...) removed; see the Normalisation flags. A URL without a scheme is taken as http.

Give the flags before A and B. The exit status is 0 whatever the similarity, 2 on an error (such
as a URL that cannot be parsed). See "neardup url dedup --help" for lists of URLs.`,
		Flags:       flags(urlNormFlags(), []cli.Flag{jsonFlag()}),
		Action:      runURLCompare,
		Subcommands: []*cli.Command{urlDedupCommand()},
	}
}

func urlDedupCommand() *cli.Command {
	return &cli.Command{
		Name:      "dedup",
		Usage:     "find the near-duplicate URLs in a list",
		ArgsUsage: "[INPUT...]",
		Description: `Reads URLs, one a line (or with --url-field NAME JSON objects, one a line, with the URL in field
NAME), from the inputs in order (files, gzip-compressed when named *.gz, or - for standard input;
none: standard input) and decides for each whether it duplicates an earlier one. A URL is kept
(an original) unless it is within the distance of --min-similarity of a URL kept before it; then
it is a duplicate of every such kept URL. Duplicates are not kept: later URLs are compared with the
originals only.

--min-similarity P, in percent, allows fingerprints at most floor(64 × (1 − P/100)) bits apart:
   95  distance ≤ 3   very close: cosmetic variants of one page (a fragment, http or https, a
                      trailing slash), but also many siblings (another bug number, another release)
   90  distance ≤ 6   close, the default: virtually all cosmetic variants, and most URLs one path
                      segment or query parameter apart
   80  distance ≤ 12  same pattern: mostly "the same site"; different hosts almost never,
                      except bare site roots (https://a.org/, https://b.net/): in the list
                      measured, 2,341 of 38,892 pairs at 80% were roots of different sites
(measured on 21,544 real URLs; see the documentation of the Go package
github.com/neardup/neardup/urlhash). The host weighs most, so a duplicate is seldom the same page:
judged on samples of a list of 21,214 real URLs, about 10% of the duplicates at 95, 6% at 90 and
2% at 80 were the same page (nearly all of them differing in the fragment alone), the rest other
pages of the same site. "exact" in the outputs marks pairs whose normalised URLs are equal: the
same page as far as the URL tells (see "neardup url --help" for the normalisation); to skip
fetching a page twice, skip the exact duplicates, and use the similarity to group URLs.
P goes from 50 (fingerprints of unrelated URLs are 32 bits apart on average) to 100.

Above 84.375 (distance ≤ 9) the kept URLs are looked up in an in-memory block index (pigeonhole:
4 to 11 blocks of the 64 bits, one table per combination). At 84.375 and below no block layout
covers the distance (more than 64 tables, or table keys under 8 bits), and each URL is compared
with every kept URL instead: the same result, in time proportional to URLs × kept URLs. (The
21,544 URLs took 0.15 s of CPU at 95, 0.4 s at 90 and 0.13 s at 80 by the scan; ten times as
many on ten times as many hosts 2.1 s, 5.1 s and 3.4 s.)

Outputs (each written to a temporary file and renamed into place at the end, so an interrupted
run never leaves a partial file; - writes to standard output):
   --pairs FILE     a JSON line per (kept URL, duplicate) pair, in input order of the duplicates:
                    {"a": kept URL, "b": duplicate, "distance", "similarity" (0 to 1), "exact"}
                    This is the default, on standard output, when no output flag is given.
   --clusters FILE  a JSON line per kept URL that has duplicates, in input order (those an
                    earlier run stored in --index first, in the order of their first duplicates):
                    {"id": kept URL, "members": [{"id", "distance", "similarity", "exact"}, ...]}
                    (a duplicate joins the cluster of its closest kept URL, the earliest on ties)
   --unique FILE    the lines of the kept URLs, verbatim
   --rejects FILE   a JSON line per bad line or unreadable input:
                    {"source", "line", "field", "reason", "raw"}
URLs are written as given (trimmed of spaces), not normalised. Blank lines are skipped. A bad line
(a URL that cannot be parsed; with --url-field, malformed JSON or no string in the field) is
reported on stderr with its file and line (the first 10), listed in --rejects, counted in the
summary, and skipped.

With --index DIR the kept URLs are also stored in a persistent index, and every URL is compared
with the URLs earlier runs stored there as well. Its document IDs are the normalised URLs. The
index is marked with the URL fingerprint scheme and the normalisation flags ("urlhash/1-" and a
digest), so it can never be mixed with an article index or with URLs normalised differently. A
new index is laid out for the distance of --min-similarity; an existing one must cover it (no
index covers more than distance 9, --min-similarity 84.375 or below). Re-running an interrupted
run on the same, unchanged files resumes it, with the outputs an uninterrupted run gives.

A summary goes to stderr, and with --json to standard output too, as one object (after any pairs
written there). Exit status: 0 on success, also when lines were rejected; 2 on an error, or when
an input could not be read to its end (the outputs are written and cover what was read).`,
		Flags: flags([]cli.Flag{
			&cli.Float64Flag{Name: "min-similarity", Aliases: []string{"m"}, Value: urlClose, Category: catMatch,
				Usage: "duplicates are at least `P` percent similar (95 very close, 90 close, 80 same pattern; see above)"},
			&cli.StringFlag{Name: "url-field", Category: catInput,
				Usage: "the lines are JSON objects with the URL in field `NAME`"},
			&cli.StringFlag{Name: "pairs", Category: catOutput, TakesFile: true, Usage: "write (kept, duplicate) pairs to `FILE`"},
			&cli.StringFlag{Name: "clusters", Category: catOutput, TakesFile: true, Usage: "write clusters to `FILE`"},
			&cli.StringFlag{Name: "unique", Category: catOutput, TakesFile: true, Usage: "write the lines of the kept URLs to `FILE`"},
			&cli.StringFlag{Name: "rejects", Category: catOutput, TakesFile: true, Usage: "write bad lines to `FILE`"},
			&cli.StringFlag{Name: "index", Aliases: []string{"i"}, Category: catIndex, TakesFile: true,
				Usage: "also keep the URLs in the persistent URL index `DIR` and compare with those stored there (NEARDUP_INDEX is not used)"},
			&cli.BoolFlag{Name: "json", Category: catOutput, Usage: "also print the summary on standard output, as a JSON object"},
		}, urlNormFlags()),
		Action: runURLDedup,
	}
}

// urlNormFlags map onto urlhash.Options.
func urlNormFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "drop-param", Category: catNormalise,
			Usage: "also remove the query parameter `NAME` (case-insensitive; NAME* is a prefix; repeat the flag or separate with commas)"},
		&cli.BoolFlag{DisableDefaultText: true, Name: "keep-tracking", Category: catNormalise,
			Usage: "keep the tracking parameters, otherwise removed: " + strings.Join(urlhash.TrackingParams(), " ")},
		&cli.BoolFlag{DisableDefaultText: true, Name: "keep-www", Category: catNormalise,
			Usage: `keep a leading "www." of the host, otherwise removed (www.example.com is example.com)`},
		&cli.BoolFlag{DisableDefaultText: true, Name: "keep-index", Category: catNormalise,
			Usage: "keep a last path segment naming an index page, otherwise removed (/a/index.html is /a/): " + strings.Join(urlhash.IndexPages(), " ")},
	}
}

// urlOptions reads the normalisation flags.
func urlOptions(c *cli.Context) *urlhash.Options {
	return &urlhash.Options{
		DropParams:   c.StringSlice("drop-param"),
		KeepTracking: c.Bool("keep-tracking"),
		KeepWWW:      c.Bool("keep-www"),
		KeepIndex:    c.Bool("keep-index"),
	}
}

// urlMaxDistance returns the largest distance at a similarity of at
// least pct percent: floor(64 × (1 − pct/100)), so that 1 − d/64 ≥
// pct/100. The small tolerance keeps exact values such as 87.5 (d = 8)
// from rounding down.
func urlMaxDistance(pct float64) int {
	return int(math.Floor(64*(100-pct)/100 + 1e-9))
}

// urlVerdict names how close a comparison is: the verdict, the
// similarity bound it stands for ("" for the same URL) and why it
// matters ("" when it does not).
func urlVerdict(cmp *urlhash.Comparison) (verdict, bound, why string) {
	d := cmp.Distance
	switch {
	case len(cmp.Differ) == 0:
		return "same URL", "", "the normalised URLs are equal"
	case d <= urlMaxDistance(urlVeryClose):
		return "very close", "≥ 95%", "a cosmetic variant of one page, or a close sibling"
	case d <= urlMaxDistance(urlClose):
		return "close", "≥ 90%", "like most URLs one path segment or query parameter apart"
	case d <= urlMaxDistance(urlSamePattern):
		return "same pattern", "≥ 80%", "mostly the same site"
	}
	return "different", "< 80%", ""
}

// urlCompareJSON is url --json.
type urlCompareJSON struct {
	A            string   `json:"a"`
	B            string   `json:"b"`
	InputA       string   `json:"input_a"`
	InputB       string   `json:"input_b"`
	FingerprintA string   `json:"fingerprint_a"`
	FingerprintB string   `json:"fingerprint_b"`
	Distance     int      `json:"distance"`
	Similarity   float64  `json:"similarity"`
	Differ       []string `json:"differ"`
	Same         bool     `json:"same"`
	Verdict      string   `json:"verdict"`
	Normalizer   string   `json:"normalizer"`
}

func runURLCompare(c *cli.Context) error {
	if c.NArg() != 2 {
		for _, a := range c.Args().Slice() {
			if len(a) > 1 && a[0] == '-' {
				return usagef(c, "want two URLs A B, got %d arguments (give the flags before the URLs: neardup url %s A B)", c.NArg(), a)
			}
		}
		return usagef(c, "want two URLs A B, got %d arguments (or 'neardup url dedup' for a list)", c.NArg())
	}
	opts := urlOptions(c)
	a, b := c.Args().Get(0), c.Args().Get(1)
	cmp, err := urlhash.Compare(a, b, opts)
	if err != nil {
		return err
	}
	verdict, bound, why := urlVerdict(&cmp)
	w := c.App.Writer
	if c.Bool("json") {
		differ := cmp.Differ
		if differ == nil {
			differ = []string{}
		}
		return writeURLJSON(w, urlCompareJSON{
			A: cmp.A.String(), B: cmp.B.String(), InputA: a, InputB: b,
			FingerprintA: cmp.FingerprintA.String(), FingerprintB: cmp.FingerprintB.String(),
			Distance: cmp.Distance, Similarity: cmp.Similarity, Differ: differ, Same: len(cmp.Differ) == 0,
			Verdict: verdict, Normalizer: opts.ID(),
		})
	}
	differ := strings.Join(cmp.Differ, ", ")
	if differ == "" {
		differ = "nothing"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-13s %s\n", "A", cmp.A)
	fmt.Fprintf(&sb, "%-13s %s\n", "B", cmp.B)
	fmt.Fprintf(&sb, "%-13s %s %s\n", "fingerprints", cmp.FingerprintA, cmp.FingerprintB)
	fmt.Fprintf(&sb, "%-13s %d of 64 bits\n", "distance", cmp.Distance)
	fmt.Fprintf(&sb, "%-13s %s\n", "similarity", percent(cmp.Similarity))
	fmt.Fprintf(&sb, "%-13s %s\n", "differ", differ)
	fmt.Fprintf(&sb, "%-13s %s", "verdict", verdict)
	if bound != "" {
		fmt.Fprintf(&sb, " (%s)", bound)
	}
	if why != "" {
		fmt.Fprintf(&sb, ": %s", why)
	}
	sb.WriteByte('\n')
	_, err = io.WriteString(w, sb.String())
	return err
}

// percent formats a similarity as "96.9%".
func percent(s float64) string {
	return strconv.FormatFloat(100*s, 'f', 1, 64) + "%"
}

// writeURLJSON writes v as one line, without escaping &, < and >, which
// are common in URLs.
func writeURLJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// urlPairJSON is a line of url dedup --pairs.
type urlPairJSON struct {
	A          string  `json:"a"`
	B          string  `json:"b"`
	Distance   int     `json:"distance"`
	Similarity float64 `json:"similarity"`
	Exact      bool    `json:"exact"`
}

// urlMemberJSON is a duplicate in a cluster.
type urlMemberJSON struct {
	ID         string  `json:"id"`
	Distance   int     `json:"distance"`
	Similarity float64 `json:"similarity"`
	Exact      bool    `json:"exact"`
}

// urlClusterJSON is a line of url dedup --clusters.
type urlClusterJSON struct {
	ID      string          `json:"id"`
	Members []urlMemberJSON `json:"members"`
}

// urlSummaryJSON is url dedup's --json summary.
type urlSummaryJSON struct {
	Lines         int64   `json:"lines"`
	URLs          int64   `json:"urls"`
	Unique        int64   `json:"unique"`
	Duplicates    int64   `json:"duplicates"`
	Exact         int64   `json:"exact"`
	Near          int64   `json:"near"`
	Blank         int64   `json:"blank"`
	Rejected      int64   `json:"rejected"`
	InputErrors   int64   `json:"input_errors"`
	Resumed       int64   `json:"resumed"`
	Pairs         int64   `json:"pairs"`
	Clusters      int64   `json:"clusters"`
	MinSimilarity float64 `json:"min_similarity"`
	MaxDistance   int     `json:"max_distance"`
	Search        string  `json:"search"`
	Normalizer    string  `json:"normalizer"`
	Seconds       float64 `json:"seconds"`
}

// keptURL is an original: a URL of this run that duplicates no earlier
// one, or (seq < 0) one stored in --index by an earlier run.
type keptURL struct {
	url  string // as given; for an earlier run's, as that run gave it
	norm string // normalised
	seq  int64  // position in this run's input; -1 for an earlier run's
}

// urlHit is a kept URL within the distance of a URL.
type urlHit struct {
	kept *keptURL
	dist int
}

// urlSearch finds this run's kept URLs near a fingerprint.
type urlSearch interface {
	near(fp simhash.Fingerprint) ([]urlHit, error)
	add(fp simhash.Fingerprint, u *keptURL) error
	describe() string
}

// memSearch looks kept URLs up in an in-memory block index; document
// IDs are positions in kept.
type memSearch struct {
	m    *index.Index
	k    int
	kept []*keptURL
	desc string
}

func (s *memSearch) near(fp simhash.Fingerprint) ([]urlHit, error) {
	ms, err := s.m.Near(context.Background(), fp, s.k)
	if err != nil {
		return nil, err
	}
	hits := make([]urlHit, len(ms))
	for i, m := range ms {
		j, err := strconv.Atoi(m.ID)
		if err != nil || j < 0 || j >= len(s.kept) {
			return nil, fmt.Errorf("url dedup: in-memory index returned unknown id %q", m.ID)
		}
		hits[i] = urlHit{kept: s.kept[j], dist: m.Distance}
	}
	return hits, nil
}

func (s *memSearch) add(fp simhash.Fingerprint, u *keptURL) error {
	if err := s.m.Add(context.Background(), index.Doc{ID: strconv.Itoa(len(s.kept)), Fingerprint: fp}); err != nil {
		return err
	}
	s.kept = append(s.kept, u)
	return nil
}

func (s *memSearch) describe() string { return s.desc }

// scanSearch compares with every kept URL, for distances no block
// layout covers.
type scanSearch struct {
	k    int
	fps  []simhash.Fingerprint
	kept []*keptURL
}

func (s *scanSearch) near(fp simhash.Fingerprint) ([]urlHit, error) {
	var hits []urlHit
	for i, c := range s.fps {
		if d := fp.Distance(c); d <= s.k {
			hits = append(hits, urlHit{kept: s.kept[i], dist: d})
		}
	}
	return hits, nil
}

func (s *scanSearch) add(fp simhash.Fingerprint, u *keptURL) error {
	s.fps = append(s.fps, fp)
	s.kept = append(s.kept, u)
	return nil
}

func (s *scanSearch) describe() string { return "every kept URL (no block layout covers the distance)" }

// newURLSearch returns an in-memory block index for distance k, or a
// scan when no layout covers k.
func newURLSearch(k int) (urlSearch, error) {
	if k > urlIndexMaxDistance {
		return &scanSearch{k: k}, nil
	}
	m, err := memstore.Open(context.Background(), &index.Options{Blocks: layoutBlocks(k), MaxDistance: k})
	if err != nil {
		return nil, err
	}
	st, err := m.Stats(context.Background())
	if err != nil {
		return nil, err
	}
	return &memSearch{m: m, k: k, desc: fmt.Sprintf("in-memory block index (%d blocks, %d tables)", st.Blocks, st.Tables)}, nil
}

// urlStore is url dedup's --index: the URLs earlier runs kept, and this
// run's kept URLs, written in batches.
type urlStore struct {
	x       *index.Index
	k       int
	job     string
	pending []index.Doc
}

// openURLIndex opens or creates the URL index in dir for distance k.
func openURLIndex(dir string, opts *urlhash.Options, k int) (*urlStore, error) {
	if k > urlIndexMaxDistance {
		return nil, fmt.Errorf("--index %s: an index answers distances up to %d (--min-similarity above 84.375), not %d; use a higher --min-similarity or no --index",
			dir, urlIndexMaxDistance, k)
	}
	o := &index.Options{AnalyzerID: opts.ID()}
	if !indexExists(dir) && k > index.DefaultMaxDistance {
		o.Blocks, o.MaxDistance = layoutBlocks(k), k
	}
	x, err := badgerstore.OpenIndex(context.Background(), dir, nil, o)
	if errors.Is(err, index.ErrMismatch) {
		return nil, urlIndexMismatch(dir, opts, err)
	}
	if err != nil {
		return nil, err
	}
	st, err := x.Stats(context.Background())
	if err != nil {
		x.Close()
		return nil, err
	}
	if k > st.MaxDistance {
		x.Close()
		return nil, fmt.Errorf("index %s answers distances up to %d (similarity ≥ %s), not %d (--min-similarity): its layout is fixed when it is created; create a new index for this --min-similarity",
			dir, st.MaxDistance, percent(1-float64(st.MaxDistance)/64), k)
	}
	return &urlStore{x: x, k: k}, nil
}

// urlIndexMismatch explains an index made for something else.
func urlIndexMismatch(dir string, opts *urlhash.Options, err error) error {
	x, rerr := badgerstore.OpenIndex(context.Background(), dir, &badgerstore.Options{ReadOnly: true}, nil)
	if rerr != nil {
		return err
	}
	st, rerr := x.Stats(context.Background())
	x.Close()
	switch {
	case rerr != nil || st.AnalyzerID == opts.ID():
		return err // not the fingerprints: the format
	case strings.HasPrefix(st.AnalyzerID, urlhash.IDPrefix[:len("urlhash/")]):
		return fmt.Errorf("index %s holds URL fingerprints made by %s, not %s (these normalisation flags): use the --drop-param and --keep-* flags it was created with, or another index: %w",
			dir, st.AnalyzerID, opts.ID(), index.ErrMismatch)
	}
	return fmt.Errorf("index %s holds article fingerprints (analyzer %q), not URL fingerprints (%s): URL and article fingerprints cannot share an index; give url dedup an index of its own: %w",
		dir, st.AnalyzerID, opts.ID(), index.ErrMismatch)
}

// near returns the stored URLs near fp, except this job's (this run's
// kept URLs are in memory); resumed reports that an interrupted run of
// this job stored this very URL (raw at position seq).
func (s *urlStore) near(fp simhash.Fingerprint, raw string, seq int64) (hits []urlHit, resumed bool, err error) {
	ms, err := s.x.Near(context.Background(), fp, s.k)
	if err != nil {
		return nil, false, err
	}
	for _, m := range ms {
		d, err := s.x.Get(context.Background(), m.ID)
		if err != nil {
			return nil, false, err
		}
		if d.Job == s.job {
			resumed = resumed || (d.Seq == seq && d.Title == raw)
			continue
		}
		u := d.Title
		if u == "" {
			u = d.ID
		}
		hits = append(hits, urlHit{kept: &keptURL{url: u, norm: d.ID, seq: -1}, dist: m.Distance})
	}
	return hits, resumed, nil
}

// add queues a kept URL, writing a batch when enough are queued.
func (s *urlStore) add(fp simhash.Fingerprint, u *keptURL) error {
	s.pending = append(s.pending, index.Doc{
		ID: u.norm, Fingerprint: fp, ContentHash: simhash.HashWord(u.norm), Title: u.url,
		Added: time.Now(), Job: s.job, Seq: u.seq,
	})
	if len(s.pending) >= urlBatch {
		return s.flush()
	}
	return nil
}

func (s *urlStore) flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	err := s.x.Add(context.Background(), s.pending...)
	s.pending = s.pending[:0]
	return err
}

// close writes what is queued and closes the index.
func (s *urlStore) close() error {
	return errors.Join(s.flush(), s.x.Close())
}

// urlJob names a url dedup --index run for resuming: the normaliser,
// the distance, the input format and the inputs (absolute paths, sizes
// and modification times). Standard input is never resumed: its job is
// unique to the run.
func urlJob(normID string, k int, field string, inputs []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "neardup url dedup job v1\nnormalizer %s\nk %d\nurl-field %q\n", normID, k, field)
	for _, in := range inputs {
		if in == "-" {
			fmt.Fprintf(h, "stdin %d %d\n", os.Getpid(), time.Now().UnixNano())
			continue
		}
		if abs, err := filepath.Abs(in); err == nil {
			in = abs
		}
		fmt.Fprintf(h, "input %q", in)
		if fi, err := os.Stat(in); err == nil {
			fmt.Fprintf(h, " %d %d", fi.Size(), fi.ModTime().UnixNano())
		}
		h.Write([]byte{'\n'})
	}
	return "url-" + hex.EncodeToString(h.Sum(nil)[:16])
}

// urlCluster collects the duplicates of one kept URL.
type urlCluster struct {
	kept    *keptURL
	first   int64 // position of the first member
	members []urlMemberJSON
}

// urlDeduper holds url dedup's state.
type urlDeduper struct {
	opts     *urlhash.Options
	field    string
	search   urlSearch
	store    *urlStore // nil without --index
	pairs    *outFile
	unique   *outFile
	rejects  *outFile
	clusters map[*keptURL]*urlCluster // nil without --clusters
	earlier  map[string]*keptURL      // an earlier run's kept URLs, by normalised URL, so clusters gather
	seen     map[uint64]struct{}      // hashes of the normalised URLs read, to count exact duplicates
	ew       io.Writer
	seq      int64
	sum      urlSummaryJSON
}

// maxShownURLRejects is how many bad lines url dedup reports on stderr.
const maxShownURLRejects = 10

func runURLDedup(c *cli.Context) (err error) {
	start := time.Now()
	pct := c.Float64("min-similarity")
	if !(pct >= 50 && pct <= 100) {
		hint := ""
		if pct > 0 && pct <= 1 {
			hint = fmt.Sprintf(" (it is in percent: %g for %g%%?)", 100*pct, 100*pct)
		}
		return usagef(c, "--min-similarity %g: want a percentage from 50 to 100%s", pct, hint)
	}
	k := urlMaxDistance(pct)
	opts := urlOptions(c)
	inputs := c.Args().Slice()
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	if n := countStdin(inputs); n > 1 {
		return usagef(c, "standard input (-) given %d times", n)
	}
	d := &urlDeduper{opts: opts, field: c.String("url-field"), ew: c.App.ErrWriter,
		earlier: make(map[string]*keptURL), seen: make(map[uint64]struct{})}
	d.sum.MinSimilarity, d.sum.MaxDistance, d.sum.Normalizer = pct, k, opts.ID()
	if d.search, err = newURLSearch(k); err != nil {
		return err
	}
	if ms, ok := d.search.(*memSearch); ok {
		defer ms.m.Close()
	}
	d.sum.Search = d.search.describe()
	if dir := c.String("index"); dir != "" {
		if d.store, err = openURLIndex(dir, opts, k); err != nil {
			return err
		}
		d.store.job = urlJob(opts.ID(), k, d.field, inputs)
		st, err := d.store.x.Stats(context.Background())
		if err != nil {
			d.store.close()
			return err
		}
		d.sum.Search += fmt.Sprintf(" and index %s (%d blocks, %d tables, %s)", dir, st.Blocks, st.Tables, plural(st.Docs, "URL", "URLs"))
		defer func() {
			if cerr := d.store.close(); err == nil {
				err = cerr
			}
		}()
	}

	outs := &outputs{c: c}
	open := outs.open
	defer outs.abort()
	if d.pairs, err = open("pairs"); err != nil {
		return err
	}
	var clusters *outFile
	if clusters, err = open("clusters"); err != nil {
		return err
	}
	if d.unique, err = open("unique"); err != nil {
		return err
	}
	if d.rejects, err = open("rejects"); err != nil {
		return err
	}
	if d.pairs == nil && clusters == nil && d.unique == nil {
		if d.pairs, err = outs.create("-"); err != nil {
			return err
		}
	}
	if clusters != nil {
		d.clusters = make(map[*keptURL]*urlCluster)
	}

	for _, in := range inputs {
		if err := d.readInput(c.Context, in, c.App.Reader); err != nil {
			return err
		}
	}
	if clusters != nil {
		if err := d.writeClusters(clusters); err != nil {
			return err
		}
	}
	if d.store != nil {
		// Store the last kept URLs before the outputs say they are kept.
		if err := d.store.flush(); err != nil {
			return err
		}
	}
	if err := outs.commit(); err != nil {
		return err
	}
	d.sum.Seconds = time.Since(start).Seconds()
	if err := d.report(c); err != nil {
		return err
	}
	if d.sum.InputErrors > 0 {
		return &exitStatus{code: exitError, err: fmt.Errorf("%s could not be read to the end; the outputs cover the lines read",
			plural(d.sum.InputErrors, "input", "inputs"))}
	}
	return nil
}

func countStdin(inputs []string) int {
	n := 0
	for _, in := range inputs {
		if in == "-" {
			n++
		}
	}
	return n
}

// readInput processes the lines of one input. Only errors that stop the
// run are returned; unreadable inputs are reported and counted.
func (d *urlDeduper) readInput(ctx context.Context, name string, stdin io.Reader) error {
	source := name
	var r io.Reader
	if name == "-" {
		source, r = "stdin", stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return d.inputError(source, 0, err)
		}
		defer f.Close()
		r = f
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return d.inputError(source, 0, err)
		}
		defer zr.Close()
		r = zr
	}
	lines := input.NewLineReader(bufio.NewReaderSize(r, 64<<10), maxURLLine)
	for line := 1; ; line++ {
		if line%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		buf, tooLong, err := lines.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return d.inputError(source, line, err)
		}
		d.sum.Lines++
		d.seq++
		if line == 1 {
			buf = bytes.TrimPrefix(buf, []byte("\xef\xbb\xbf"))
		}
		if tooLong {
			if err := d.reject(rejectJSON{Source: source, Line: line, Reason: fmt.Sprintf("line longer than %d bytes", maxURLLine)}, buf[:min(len(buf), 200)]); err != nil {
				return err
			}
			continue
		}
		// Lines end in "\n" or "\r\n": drop the "\r".
		if err := d.process(source, line, bytes.TrimSuffix(buf, []byte("\r"))); err != nil {
			return err
		}
	}
}

// inputError reports an input that could not be read (to its end).
func (d *urlDeduper) inputError(source string, line int, err error) error {
	d.sum.InputErrors++
	j := rejectJSON{Source: source, Line: line, Reason: err.Error()}
	if d.rejects != nil {
		if werr := writeURLJSON(d.rejects, j); werr != nil {
			return werr
		}
	}
	where := source
	if line > 0 {
		where += ":" + strconv.Itoa(line)
	}
	fmt.Fprintf(d.ew, "neardup url dedup: input error: %s: %v\n", where, err)
	return nil
}

// reject reports a bad line.
func (d *urlDeduper) reject(j rejectJSON, raw []byte) error {
	d.sum.Rejected++
	j.setRaw(raw)
	if d.sum.Rejected <= maxShownURLRejects {
		fmt.Fprintf(d.ew, "neardup url dedup: %s:%d: %s\n", j.Source, j.Line, j.Reason)
	}
	if d.rejects != nil {
		return writeURLJSON(d.rejects, j)
	}
	return nil
}

// process decides one line.
func (d *urlDeduper) process(source string, line int, raw []byte) error {
	text := strings.TrimSpace(string(raw))
	if text == "" {
		d.sum.Blank++
		return nil
	}
	u := text
	if d.field != "" {
		var err error
		if u, err = urlField(raw, d.field); err != nil {
			return d.reject(rejectJSON{Source: source, Line: line, Field: d.field, Reason: err.Error()}, raw)
		}
	}
	p, err := urlhash.Normalize(u, d.opts)
	if err != nil {
		reason := strings.TrimPrefix(err.Error(), "urlhash: ")
		if d.field == "" && strings.HasPrefix(text, "{") {
			reason += " (for lines of JSON give --url-field NAME)"
		}
		return d.reject(rejectJSON{Source: source, Line: line, Field: d.field, Reason: reason}, raw)
	}
	u = strings.TrimSpace(u)
	norm := p.String()
	if d.store != nil && len(norm) > index.MaxIDLen {
		return d.reject(rejectJSON{Source: source, Line: line, Field: d.field,
			Reason: fmt.Sprintf("normalised URL of %d bytes: an index takes at most %d", len(norm), index.MaxIDLen)}, raw)
	}
	d.sum.URLs++
	fp := p.Fingerprint()
	h := simhash.HashWord(norm)
	// A URL normalised like an earlier one is a duplicate: it has that
	// URL's fingerprint, so it is within k of the same kept URLs.
	_, exact := d.seen[h]
	d.seen[h] = struct{}{}
	hits, err := d.search.near(fp)
	if err != nil {
		return err
	}
	resumed := false
	if d.store != nil {
		more, r, err := d.store.near(fp, u, d.seq)
		if err != nil {
			return err
		}
		resumed = r
		for _, h := range more {
			if k, ok := d.earlier[h.kept.norm]; ok {
				h.kept = k
			} else {
				d.earlier[h.kept.norm] = h.kept
			}
			hits = append(hits, h)
		}
	}
	if len(hits) == 0 {
		k := &keptURL{url: u, norm: norm, seq: d.seq}
		d.sum.Unique++
		if err := d.search.add(fp, k); err != nil {
			return err
		}
		if d.store != nil {
			if resumed {
				d.sum.Resumed++
			} else if err := d.store.add(fp, k); err != nil {
				return err
			}
		}
		if d.unique != nil {
			if _, err := d.unique.Write(raw); err != nil {
				return err
			}
			_, err := d.unique.Write([]byte{'\n'})
			return err
		}
		return nil
	}
	slices.SortFunc(hits, func(a, b urlHit) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		if a.kept.seq != b.kept.seq {
			return int(a.kept.seq - b.kept.seq) // an earlier run's (-1) first
		}
		return strings.Compare(a.kept.norm, b.kept.norm)
	})
	d.sum.Duplicates++
	if exact || slices.ContainsFunc(hits, func(h urlHit) bool { return h.kept.norm == norm }) {
		d.sum.Exact++
	} else {
		d.sum.Near++
	}
	if d.pairs != nil {
		for _, h := range hits {
			d.sum.Pairs++
			p := urlPairJSON{A: h.kept.url, B: u, Distance: h.dist, Similarity: 1 - float64(h.dist)/64, Exact: h.kept.norm == norm}
			if err := writeURLJSON(d.pairs, p); err != nil {
				return err
			}
		}
	}
	if d.clusters != nil {
		best := hits[0]
		cl := d.clusters[best.kept]
		if cl == nil {
			cl = &urlCluster{kept: best.kept, first: d.seq}
			d.clusters[best.kept] = cl
		}
		cl.members = append(cl.members, urlMemberJSON{ID: u, Distance: best.dist, Similarity: 1 - float64(best.dist)/64, Exact: best.kept.norm == norm})
	}
	return nil
}

// urlField returns the string in field name of the JSON object line.
func urlField(line []byte, name string) (string, error) {
	if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
		return "", errors.New("not a JSON object")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return "", fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, err)
		}
		return "", fmt.Errorf("malformed JSON: %v", err)
	}
	v, ok := obj[name]
	if !ok {
		return "", fmt.Errorf("no field %q", name)
	}
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", fmt.Errorf("field %q is not a string: %s", name, shorten(string(v), 60))
	}
	return s, nil
}

// shorten cuts s to at most n bytes, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// writeClusters writes the clusters: first those of URLs stored by
// earlier runs, in the order of their first duplicates, then those of
// this run's kept URLs, in input order.
func (d *urlDeduper) writeClusters(w io.Writer) error {
	cls := make([]*urlCluster, 0, len(d.clusters))
	for _, cl := range d.clusters {
		cls = append(cls, cl)
	}
	slices.SortFunc(cls, func(a, b *urlCluster) int {
		ka, kb := a.kept.seq, b.kept.seq
		if ka < 0 {
			ka = a.first - (1 << 62) // before every kept URL of this run
		}
		if kb < 0 {
			kb = b.first - (1 << 62)
		}
		if ka != kb {
			if ka < kb {
				return -1
			}
			return 1
		}
		return strings.Compare(a.kept.norm, b.kept.norm)
	})
	for _, cl := range cls {
		d.sum.Clusters++
		if err := writeURLJSON(w, urlClusterJSON{ID: cl.kept.url, Members: cl.members}); err != nil {
			return err
		}
	}
	return nil
}

// report prints the summary: text on stderr, and with --json an object
// on stdout.
func (d *urlDeduper) report(c *cli.Context) error {
	s := &d.sum
	ew := c.App.ErrWriter
	fmt.Fprintf(ew, "neardup url dedup: %s: %s, %s kept, %s (%s exact: the same normalised URL as an earlier one), %s, %s, %s\n",
		plural(s.Lines, "line", "lines"), plural(s.URLs, "URL", "URLs"), formatCount(s.Unique),
		plural(s.Duplicates, "duplicate", "duplicates"), formatCount(s.Exact),
		plural(s.Blank, "blank", "blank"), plural(s.Rejected, "rejected", "rejected"), plural(s.InputErrors, "input error", "input errors"))
	rate := ""
	if s.Seconds > 0 {
		rate = fmt.Sprintf(", %s URLs/s", formatCount(int64(float64(s.URLs)/s.Seconds)))
	}
	fmt.Fprintf(ew, "neardup url dedup: min similarity %g%% (distance ≤ %d of 64 bits), searched %s; %s%s\n",
		s.MinSimilarity, s.MaxDistance, s.Search, time.Duration(s.Seconds*float64(time.Second)).Round(time.Millisecond), rate)
	if s.Resumed > 0 {
		fmt.Fprintf(ew, "neardup url dedup: resumed an interrupted run: %s already in the index\n", plural(s.Resumed, "kept URL was", "kept URLs were"))
	}
	if n := s.Rejected + s.InputErrors; n > 0 {
		switch {
		case d.rejects != nil:
			fmt.Fprintf(ew, "neardup url dedup: %s written to %s\n", plural(n, "bad line or input", "bad lines or inputs"), d.rejects.path)
		case s.Rejected > maxShownURLRejects:
			fmt.Fprintf(ew, "neardup url dedup: %d more bad lines not shown (write them all with --rejects FILE)\n", s.Rejected-maxShownURLRejects)
		}
	}
	if !c.Bool("json") {
		return nil
	}
	return writeURLJSON(c.App.Writer, s)
}
