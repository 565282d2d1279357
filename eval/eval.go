package eval

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
)

// DefaultThresholds is the largest SimHash distance Evaluate tabulates
// when Options.MaxThreshold is zero.
const DefaultThresholds = 10

// Options configure Evaluate. The zero value (or nil) means the
// defaults.
type Options struct {
	// Index configures the archive of the "current settings" detector. Its MinContent (0: index.DefaultMinContent)
	// also confirms the candidates of the verified SimHash rows.
	Index index.Options
	// MaxDistance is the SimHash distance the detector queries with
	// index.Similar, as dedup.Options.MaxDistance: a negative value means
	// 0; the index is laid out for it (index.LayoutFor) unless Index
	// sets a layout. 0 queries at the index's MaxDistance.
	MaxDistance int
	// MaxThreshold is the largest SimHash distance tabulated; 0 means
	// DefaultThresholds.
	MaxThreshold int
	// Sweep lists more MinContent values to run the detector with.
	Sweep []float64
	// Workers query the index in parallel; 0 means GOMAXPROCS. The
	// result does not depend on it.
	Workers int
}

// Confusion counts a detector's pairs against the labels. Precision is
// TP/(TP+FP), 1 when no labelled pair was predicted; Recall is
// TP/(TP+FN), 1 when there are no duplicates; F1 is their harmonic mean,
// 0 when both are 0.
type Confusion struct {
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	Ignored   int     `json:"ignored"` // predicted pairs labelled ignored, or unlabelled
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

func newConfusion(tp, fp, ignored, positives int) Confusion {
	c := Confusion{TP: tp, FP: fp, FN: positives - tp, Ignored: ignored, Precision: 1, Recall: 1}
	if tp+fp > 0 {
		c.Precision = float64(tp) / float64(tp+fp)
	}
	if positives > 0 {
		c.Recall = float64(tp) / float64(positives)
	}
	if s := c.Precision + c.Recall; s > 0 {
		c.F1 = 2 * c.Precision * c.Recall / s
	}
	return c
}

// ThresholdResult is the SimHash screen at one distance: a pair is
// predicted when the content hashes are equal or the fingerprints are
// within Distance bits; Verified also requires the candidates at a
// distance to have an estimated content similarity of at least
// MinContent (as index.Similar confirms them).
type ThresholdResult struct {
	Distance int       `json:"distance"`
	SimHash  Confusion `json:"simhash"`
	Verified Confusion `json:"verified"`
}

// DetectorResult is the real detector (index.Similar) at some settings.
type DetectorResult struct {
	Blocks      int       `json:"blocks"`
	MaxDistance int       `json:"max_distance"`
	MinContent  float64   `json:"min_content"`
	Pairs       int       `json:"pairs"` // pairs found
	Confusion   Confusion `json:"confusion"`
	// Missed and False are the duplicates not found and the distinct
	// pairs found, ordered by ID; Evaluate fills them for the current
	// settings only.
	Missed []PairDetail `json:"missed,omitempty"`
	False  []PairDetail `json:"false,omitempty"`
	// ByKind is the recall of the duplicate pairs of each Kind, in the
	// order the kinds first appear in the labels (current settings, when
	// some pair has a kind).
	ByKind []KindRecall `json:"by_kind,omitempty"`
}

// KindRecall is the recall of the duplicate pairs of one kind.
type KindRecall struct {
	Kind   string  `json:"kind"`
	Pairs  int     `json:"pairs"`
	Found  int     `json:"found"`
	Recall float64 `json:"recall"`
}

// PairDetail describes a pair, for explaining a miss or a false match.
type PairDetail struct {
	A     string    `json:"a"`
	B     string    `json:"b"`
	Label PairLabel `json:"label"`
	// Jaccard is the reference similarity, -1 when not given.
	Jaccard float64 `json:"jaccard"`
	// Distance is the Hamming distance of the fingerprints and Content
	// the estimated content similarity of the sketches; both -1 when
	// either article is too short to fingerprint.
	Distance int     `json:"distance"`
	Content  float64 `json:"content"`
	Exact    bool    `json:"exact"`     // equal content hashes
	TooShort bool    `json:"too_short"` // either article is too short
}

// Report is what Evaluate measured. Its JSON is the object of neardup
// eval --json.
type Report struct {
	// Inputs and Pairs name the corpus and the labels, for the caller
	// to set; Analyzer is Options.Index.AnalyzerID.
	Inputs   []string `json:"inputs,omitempty"`
	Pairs    string   `json:"pairs,omitempty"`
	Analyzer string   `json:"analyzer"`
	Docs     int      `json:"docs"`      // fingerprinted records
	TooShort int      `json:"too_short"` // records too short to fingerprint
	Rejected int      `json:"rejected"`  // bad records
	// Reference: the labels are reference Jaccard values, so every pair
	// not listed counts as distinct.
	Reference bool `json:"reference"`
	// Positives are the duplicate pairs whose articles are both in the
	// corpus; PositivesTooShort of them have an article too short to
	// fingerprint (every detector misses those).
	Positives         int `json:"positives"`
	PositivesTooShort int `json:"positives_too_short"`
	// Negatives are the distinct pairs: listed ones, or with Reference
	// every pair of the corpus neither listed as duplicate nor ignored.
	Negatives int64 `json:"negatives"`
	// IgnoredPairs are the pairs labelled ignored in the corpus.
	IgnoredPairs int `json:"ignored_pairs"`
	// MissingPairs are the labelled pairs naming an ID not in the corpus
	// (not even as a too-short or rejected record); MissingIDs are up to
	// 10 of those IDs, sorted.
	MissingPairs int      `json:"missing_pairs"`
	MissingIDs   []string `json:"missing_ids,omitempty"`
	// MinContent confirms the candidates of the verified rows.
	MinContent float64 `json:"min_content"`
	// Thresholds are the SimHash screen at distances 0 … MaxThreshold.
	Thresholds []ThresholdResult `json:"thresholds"`
	// Current is the detector with Options.Index; Sweep the same
	// with each of Options.Sweep as MinContent.
	Current DetectorResult   `json:"current"`
	Sweep   []DetectorResult `json:"sweep,omitempty"`
	// Distances are the distributions of the fingerprints' Hamming
	// distance over the duplicate pairs and over a sample of the
	// distinct ones.
	Distances Distances `json:"distances"`
}

// Distances are histograms of Hamming distances: Duplicate[d] duplicate
// pairs and Distinct[d] sampled distinct pairs lie at distance d (0 …
// 64). Pairs with a too-short article are left out. The distinct pairs
// are a random sample (fixed seed) of DistinctSampleSize pairs, drawn
// from all pairs of the corpus that are not labelled duplicate or
// ignored when the labels are reference Jaccard values, else from the
// listed distinct pairs.
type Distances struct {
	Duplicate []int `json:"duplicate"`
	Distinct  []int `json:"distinct"`
}

// DistinctSampleSize is the most distinct pairs Distances samples.
const DistinctSampleSize = 10000

// distances tabulates the distance histograms.
func (s *evalSet) distances(listedDistinct []LabeledPair) Distances {
	h := Distances{Duplicate: make([]int, 65), Distinct: make([]int, 65)}
	dist := func(a, b string) (int, bool) {
		i, j := s.ids[a], s.ids[b]
		if i < 0 || j < 0 {
			return 0, false
		}
		return s.docs[i].Fingerprint.Distance(s.docs[j].Fingerprint), true
	}
	for _, p := range s.positives {
		if d, ok := dist(p.A, p.B); ok {
			h.Duplicate[d]++
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	if !s.reference {
		for _, k := range r.Perm(len(listedDistinct))[:min(len(listedDistinct), DistinctSampleSize)] {
			if d, ok := dist(listedDistinct[k].A, listedDistinct[k].B); ok {
				h.Distinct[d]++
			}
		}
		return h
	}
	n := len(s.docs)
	if n < 2 {
		return h
	}
	seen := make(map[pairKey]bool)
	for tries := 0; len(seen) < DistinctSampleSize && tries < 4*DistinctSampleSize; tries++ {
		i, j := r.IntN(n), r.IntN(n)
		if i == j {
			continue
		}
		key := keyOf(s.docs[i].ID, s.docs[j].ID)
		if seen[key] {
			continue
		}
		if p, _ := s.label(s.docs[i].ID, s.docs[j].ID); p.Label != LabelDistinct {
			continue
		}
		seen[key] = true
		h.Distinct[s.docs[i].Fingerprint.Distance(s.docs[j].Fingerprint)]++
	}
	return h
}

// evalSet is a corpus with its labels resolved to document numbers.
type evalSet struct {
	docs      []index.Doc
	ids       map[string]int // → doc number; too-short records have -1
	labels    map[pairKey]LabeledPair
	reference bool
	positives []LabeledPair // both IDs in the corpus
}

// label returns the label of the pair of IDs a and b, and whether it is
// labelled at all.
func (s *evalSet) label(a, b string) (LabeledPair, bool) {
	if p, ok := s.labels[keyOf(a, b)]; ok {
		return p, true
	}
	if s.reference {
		return LabeledPair{A: a, B: b, Label: LabelDistinct, Jaccard: -1}, true
	}
	return LabeledPair{}, false
}

// Evaluate measures the detector on the corpus c against the labels l:
// the SimHash screen alone at each distance 0 … MaxThreshold (over all
// pairs of fingerprinted documents, exact content matches counting at
// every distance), the same with content verification, and the real
// detector: an archive in a store newStore makes (memstore.New, say; a
// new one for each run of the detector) queried with Similar for each
// document. Pairs are unordered. Only fingerprinted and too-short records are in
// the corpus: labelled pairs naming any other ID (a rejected record's,
// say) are counted as missing and otherwise left out.
func Evaluate(c *Corpus, l *Labels, newStore func() index.Store, opts *Options) (*Report, error) {
	if newStore == nil {
		return nil, errors.New("evaluate: no store for the detector's archive (newStore is nil)")
	}
	o, minContent, k, err := evalOptions(opts)
	if err != nil {
		return nil, err
	}
	if l == nil {
		l = &Labels{}
	}
	s, err := newEvalSet(c, l)
	if err != nil {
		return nil, err
	}
	rep := &Report{Analyzer: o.Index.AnalyzerID, Docs: len(c.Docs), TooShort: len(c.TooShort), Rejected: len(c.Rejected),
		Reference: l.Reference, MinContent: minContent}
	distinct := s.fileLabels(l, rep)
	rep.Thresholds = s.screen(o.MaxThreshold, minContent)
	rep.Distances = s.distances(distinct)

	if rep.Current, err = s.detect(newStore(), o.Index, k, o.Workers, true); err != nil {
		return nil, err
	}
	for _, mc := range o.Sweep {
		so := o.Index
		so.MinContent = mc
		r, err := s.detect(newStore(), so, k, o.Workers, false)
		if err != nil {
			return nil, err
		}
		rep.Sweep = append(rep.Sweep, r)
	}
	return rep, nil
}

// evalOptions fills in and checks opts: the options, the MinContent that
// confirms candidates, and the distance the detector queries at (−1:
// the index's MaxDistance).
func evalOptions(opts *Options) (o Options, minContent float64, k int, err error) {
	if opts != nil {
		o = *opts
	}
	if o.MaxThreshold == 0 {
		o.MaxThreshold = DefaultThresholds
	}
	if o.MaxThreshold < 0 || o.MaxThreshold > 64 {
		return o, 0, 0, fmt.Errorf("evaluate: MaxThreshold %d: want 0 to 64", o.MaxThreshold)
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	minContent = o.Index.MinContent
	if minContent == 0 {
		minContent = index.DefaultMinContent
	}
	if !(minContent > 0 && minContent <= 1) {
		return o, 0, 0, fmt.Errorf("evaluate: MinContent %v: want a value in (0, 1]", minContent)
	}
	k = -1
	if o.MaxDistance != 0 {
		k = max(o.MaxDistance, 0)
		if o.Index.Blocks == 0 && o.Index.MaxDistance == 0 {
			o.Index.Blocks, o.Index.MaxDistance = index.LayoutFor(k)
		}
	}
	return o, minContent, k, nil
}

// newEvalSet numbers the corpus's documents (too-short ones −1),
// refusing an ID that is there twice.
func newEvalSet(c *Corpus, l *Labels) (*evalSet, error) {
	s := &evalSet{docs: c.Docs, ids: make(map[string]int, len(c.Docs)+len(c.TooShort)),
		labels: make(map[pairKey]LabeledPair, len(l.Pairs)), reference: l.Reference}
	for i := range c.Docs {
		id := c.Docs[i].ID
		if _, dup := s.ids[id]; dup {
			return nil, fmt.Errorf("evaluate: duplicate document id %q", input.ShortID(id))
		}
		s.ids[id] = i
	}
	for _, id := range c.TooShort {
		if _, dup := s.ids[id]; dup {
			return nil, fmt.Errorf("evaluate: duplicate document id %q", input.ShortID(id))
		}
		s.ids[id] = -1
	}
	return s, nil
}

// fileLabels files the labelled pairs of l whose documents are both in the
// corpus, counts them (and those that name a missing document) in rep,
// and returns the pairs labelled distinct.
func (s *evalSet) fileLabels(l *Labels, rep *Report) (distinct []LabeledPair) {
	missing := make(map[string]bool)
	var listedDistinct int64
	for _, p := range l.Pairs {
		_, okA := s.ids[p.A]
		_, okB := s.ids[p.B]
		if !okA || !okB {
			rep.MissingPairs++
			if !okA {
				missing[p.A] = true
			}
			if !okB {
				missing[p.B] = true
			}
			continue
		}
		key := keyOf(p.A, p.B)
		if _, dup := s.labels[key]; dup {
			continue // ParsePairs dedupes; a hand-made Labels may not
		}
		s.labels[key] = p
		switch p.Label {
		case LabelDuplicate:
			s.positives = append(s.positives, p)
			if s.ids[p.A] < 0 || s.ids[p.B] < 0 {
				rep.PositivesTooShort++
			}
		case LabelIgnored:
			rep.IgnoredPairs++
		case LabelDistinct:
			listedDistinct++
			distinct = append(distinct, p)
		}
	}
	rep.Positives = len(s.positives)
	rep.Negatives = listedDistinct
	if l.Reference {
		n := int64(len(s.ids))
		rep.Negatives = n*(n-1)/2 - int64(rep.Positives) - int64(rep.IgnoredPairs)
	}
	for id := range missing {
		rep.MissingIDs = append(rep.MissingIDs, id)
	}
	slices.Sort(rep.MissingIDs)
	rep.MissingIDs = rep.MissingIDs[:min(len(rep.MissingIDs), 10)]
	return distinct
}

// screen tabulates the SimHash screen by brute force over all pairs.
func (s *evalSet) screen(maxK int, minContent float64) []ThresholdResult {
	n := maxK + 1
	tp, fp, ign := make([]int, n), make([]int, n), make([]int, n)
	vtp, vfp, vign := make([]int, n), make([]int, n), make([]int, n)
	count := func(lab PairLabel, labelled bool, from int, tp, fp, ign []int) {
		for k := from; k < n; k++ {
			switch {
			case !labelled || lab == LabelIgnored:
				ign[k]++
			case lab == LabelDuplicate:
				tp[k]++
			default:
				fp[k]++
			}
		}
	}
	docs := s.docs
	for i := range docs {
		fi, hi := uint64(docs[i].Fingerprint), docs[i].ContentHash
		for j := i + 1; j < len(docs); j++ {
			d := bits.OnesCount64(fi ^ uint64(docs[j].Fingerprint))
			exact := hi == docs[j].ContentHash
			if d > maxK && !exact {
				continue
			}
			p, labelled := s.label(docs[i].ID, docs[j].ID)
			if exact {
				count(p.Label, labelled, 0, tp, fp, ign)
				count(p.Label, labelled, 0, vtp, vfp, vign)
				continue
			}
			count(p.Label, labelled, d, tp, fp, ign)
			if index.Confirmed(&docs[i], &docs[j], minContent) {
				count(p.Label, labelled, d, vtp, vfp, vign)
			}
		}
	}
	out := make([]ThresholdResult, n)
	for k := range out {
		out[k] = ThresholdResult{Distance: k,
			SimHash:  newConfusion(tp[k], fp[k], ign[k], len(s.positives)),
			Verified: newConfusion(vtp[k], vfp[k], vign[k], len(s.positives))}
	}
	return out
}

// detect runs the real detector with opts, querying at distance k
// (negative: the index's MaxDistance).
func (s *evalSet) detect(store index.Store, opts index.Options, k, workers int, details bool) (DetectorResult, error) {
	ctx := context.Background()
	m, err := index.New(ctx, store, &opts)
	if err != nil {
		return DetectorResult{}, fmt.Errorf("evaluate: %w", err)
	}
	defer m.Close()
	if err := m.Add(ctx, s.docs...); err != nil {
		return DetectorResult{}, fmt.Errorf("evaluate: %w", err)
	}
	st, err := m.Stats(ctx)
	if err != nil {
		return DetectorResult{}, err
	}
	mc := opts.MinContent
	if mc == 0 {
		mc = index.DefaultMinContent
	}
	if k < 0 {
		k = st.MaxDistance
	}
	res := DetectorResult{Blocks: st.Blocks, MaxDistance: k, MinContent: mc}
	all, err := s.findPairs(ctx, m, k, workers)
	if err != nil {
		return res, err
	}
	res.Pairs = len(all)
	hit := s.score(&res, all, details)
	if details {
		s.missed(&res, hit)
	}
	return res, nil
}

// docPair is a pair of documents, by their positions in the set, a < b.
type docPair struct{ a, b int }

// findPairs searches m at distance k for the near-duplicates of every
// document, on workers goroutines, and returns the pairs found, sorted,
// each once.
func (s *evalSet) findPairs(ctx context.Context, m *index.Index, k, workers int) ([]docPair, error) {
	found := make([][]docPair, workers)
	errs := make([]error, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(s.docs) {
					return
				}
				ms, err := m.Similar(ctx, &s.docs[i], k)
				if err != nil {
					errs[w] = fmt.Errorf("evaluate: %s: %w", s.docs[i].ID, err)
					return
				}
				for _, x := range ms {
					j, ok := s.ids[x.ID]
					if !ok || j < 0 {
						errs[w] = fmt.Errorf("evaluate: %s matches %q, not in the corpus", s.docs[i].ID, x.ID)
						return
					}
					found[w] = append(found[w], docPair{min(i, j), max(i, j)})
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var all []docPair
	for _, f := range found {
		all = append(all, f...)
	}
	slices.SortFunc(all, func(x, y docPair) int {
		if x.a != y.a {
			return x.a - y.a
		}
		return x.b - y.b
	})
	return slices.Compact(all), nil
}

// score counts the pairs found against the labels in res.Confusion
// (and, with details, lists the false ones) and returns the labelled
// duplicates found.
func (s *evalSet) score(res *DetectorResult, all []docPair, details bool) map[pairKey]bool {
	var tp, fp, ign int
	hit := make(map[pairKey]bool, len(all))
	for _, p := range all {
		a, b := &s.docs[p.a], &s.docs[p.b]
		lp, labelled := s.label(a.ID, b.ID)
		switch {
		case !labelled || lp.Label == LabelIgnored:
			ign++
		case lp.Label == LabelDuplicate:
			tp++
			hit[keyOf(a.ID, b.ID)] = true
		default:
			fp++
			if details {
				res.False = append(res.False, s.detail(lp))
			}
		}
	}
	res.Confusion = newConfusion(tp, fp, ign, len(s.positives))
	return hit
}

// missed lists in res the labelled duplicates not found (not in hit)
// and the recall of each kind of duplicate, and sorts the details.
func (s *evalSet) missed(res *DetectorResult, hit map[pairKey]bool) {
	kinds := make(map[string]int) // → index in res.ByKind
	for _, p := range s.positives {
		found := hit[keyOf(p.A, p.B)]
		if !found {
			res.Missed = append(res.Missed, s.detail(p))
		}
		if p.Kind == "" {
			continue
		}
		i, ok := kinds[p.Kind]
		if !ok {
			i = len(res.ByKind)
			kinds[p.Kind] = i
			res.ByKind = append(res.ByKind, KindRecall{Kind: p.Kind})
		}
		k := &res.ByKind[i]
		k.Pairs++
		if found {
			k.Found++
		}
		k.Recall = float64(k.Found) / float64(k.Pairs)
	}
	sortDetails(res.Missed)
	sortDetails(res.False)
}

// detail describes the labelled pair p, whose IDs are in the corpus.
func (s *evalSet) detail(p LabeledPair) PairDetail {
	a, b := p.A, p.B
	if b < a {
		a, b = b, a
	}
	d := PairDetail{A: a, B: b, Label: p.Label, Jaccard: p.Jaccard, Distance: -1, Content: -1}
	i, j := s.ids[a], s.ids[b]
	if i < 0 || j < 0 {
		d.TooShort = true
		return d
	}
	x, y := &s.docs[i], &s.docs[j]
	d.Distance = x.Fingerprint.Distance(y.Fingerprint)
	d.Exact = x.ContentHash == y.ContentHash
	if !x.Sketch.IsZero() && !y.Sketch.IsZero() {
		d.Content = index.Content(x, y)
	}
	return d
}

func sortDetails(ds []PairDetail) {
	slices.SortFunc(ds, func(x, y PairDetail) int {
		if c := strings.Compare(x.A, y.A); c != 0 {
			return c
		}
		return strings.Compare(x.B, y.B)
	})
}

// String formats d as "a b: J=0.9123 distance 5 content 0.7812".
func (d PairDetail) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s", d.A, d.B, d.Label)
	if d.Jaccard >= 0 {
		fmt.Fprintf(&b, " J=%s", strconv.FormatFloat(d.Jaccard, 'f', -1, 64))
	}
	switch {
	case d.TooShort:
		b.WriteString(", too short to fingerprint")
	case d.Exact:
		fmt.Fprintf(&b, ", exact, distance %d", d.Distance)
	default:
		fmt.Fprintf(&b, ", distance %d, content %.4f", d.Distance, d.Content)
	}
	return b.String()
}
