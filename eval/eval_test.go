package eval

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/testfixtures"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// Texts of the tiny evaluation corpus: t1b is t1 with one word changed
// (estimated content similarity 0.97), t5b likewise t5 (0.80); the
// others share nothing (at most 0.03).
const (
	evalT1  = "the quick brown fox jumps over the lazy dog while the farmer watches from the porch of his old wooden house"
	evalT1b = "the quick brown fox jumps over the lazy dog while the farmer watches from the porch of his old wooden home"
	evalT2  = "stock markets fell sharply on monday as investors worried about rising interest rates and slowing growth"
	evalT3  = "a new species of orchid was discovered in the rainforest by a team of botanists from the university"
	evalT4  = "the city council approved the budget for next year after a long debate about road repairs and schools"
	evalT5  = "heavy snow closed the mountain pass for three days and stranded hundreds of travellers in small villages"
	evalT5b = "heavy snow closed the mountain pass for three days and stranded hundreds of travellers in small towns"
)

// evalCorpus is a corpus with made-up fingerprints, so that every
// pair's distance is known:
//
//	a–b  1 bit, similar text       duplicate
//	a–c  2 bits, different text    distinct
//	b–c  3 bits, different text    distinct
//	c–f  4 bits, different text    ignored (J 0.6)
//	a–f  6 bits, b–f 7 bits        distinct
//	d1–d2 32 bits, same content    duplicate (exact)
//	e1–e2 64 bits, similar text    duplicate: only the MinHash bands find it
//	a–s  s too short               duplicate, never found
//
// and every other pair is more than 10 bits apart.
func evalCorpus() *Corpus {
	doc := func(id string, fp uint64, ch uint64, text string) index.Doc {
		return index.Doc{ID: id, Fingerprint: simhash.Fingerprint(fp), ContentHash: ch, Sketch: minhash.New(text)}
	}
	return &Corpus{
		Docs: []index.Doc{
			doc("a", 0x0000000000000000, 1, evalT1),
			doc("b", 0x0000000000000001, 2, evalT1b),
			doc("c", 0x0000000000000006, 3, evalT2),
			doc("f", 0x00000000000000f6, 4, evalT3),
			doc("d1", 0xffff000000000000, 77, evalT4),
			doc("d2", 0x0000ffff00000000, 77, evalT4),
			doc("e1", 0xf0f0f0f0f0f0f0f0, 5, evalT5),
			doc("e2", 0x0f0f0f0f0f0f0f0f, 6, evalT5b),
		},
		TooShort: []string{"s"},
	}
}

const evalReference = `{"a": "a", "b": "b", "jaccard_char5": 0.9}
{"a": "d2", "b": "d1", "jaccard_char5": 1}
{"a": "e1", "b": "e2", "jaccard_char5": 0.81}
{"a": "s", "b": "a", "jaccard_char5": 0.85}
{"a": "c", "b": "f", "jaccard_char5": 0.6}
{"a": "a", "b": "zz", "jaccard_char5": 0.95}
`

func mustParsePairs(t *testing.T, s string) *Labels {
	t.Helper()
	l, err := ParsePairs(strings.NewReader(s), "pairs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// conf is a Confusion's counts.
type conf struct{ tp, fp, fn, ign int }

func (c conf) check(t *testing.T, what string, got Confusion) {
	t.Helper()
	if g := (conf{got.TP, got.FP, got.FN, got.Ignored}); g != c {
		t.Errorf("%s: TP, FP, FN, ignored = %v, want %v", what, g, c)
	}
	want := newConfusion(c.tp, c.fp, c.ign, c.tp+c.fn)
	if got != want {
		t.Errorf("%s: %+v, want %+v", what, got, want)
	}
}

func TestEvaluateReference(t *testing.T) {
	rep, err := Evaluate(evalCorpus(), mustParsePairs(t, evalReference), newStore, &Options{Sweep: []float64{0.5, 0.99}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Docs != 8 || rep.TooShort != 1 || rep.Positives != 4 || rep.PositivesTooShort != 1 ||
		rep.IgnoredPairs != 1 || rep.MissingPairs != 1 || !reflect.DeepEqual(rep.MissingIDs, []string{"zz"}) ||
		rep.Negatives != 36-4-1 || !rep.Reference || rep.MinContent != index.DefaultMinContent {
		t.Errorf("report header %+v", rep)
	}
	simhashWant := []conf{
		{1, 0, 3, 0}, // d1–d2 (exact)
		{2, 0, 2, 0}, // + a–b
		{2, 1, 2, 0}, // + a–c
		{2, 2, 2, 0}, // + b–c
		{2, 2, 2, 1}, // + c–f (ignored)
		{2, 2, 2, 1},
		{2, 3, 2, 1}, // + a–f
		{2, 4, 2, 1}, // + b–f
		{2, 4, 2, 1},
		{2, 4, 2, 1},
		{2, 4, 2, 1},
	}
	if len(rep.Thresholds) != len(simhashWant) {
		t.Fatalf("%d thresholds, want %d", len(rep.Thresholds), len(simhashWant))
	}
	for k, w := range simhashWant {
		r := rep.Thresholds[k]
		if r.Distance != k {
			t.Errorf("threshold %d: distance %d", k, r.Distance)
		}
		w.check(t, fmt.Sprintf("simhash k=%d", k), r.SimHash)
		v := conf{2, 0, 2, 0} // only a–b passes verification
		if k == 0 {
			v = conf{1, 0, 3, 0}
		}
		v.check(t, fmt.Sprintf("verified k=%d", k), r.Verified)
	}
	cur := rep.Current
	if cur.Blocks != 4 || cur.MaxDistance != 3 || cur.MinContent != index.DefaultMinContent || cur.Pairs != 3 {
		t.Errorf("current settings %+v", cur)
	}
	conf{3, 0, 1, 0}.check(t, "current", cur.Confusion)
	wantMissed := []PairDetail{{A: "a", B: "s", Label: LabelDuplicate, Jaccard: 0.85, Distance: -1, Content: -1, TooShort: true}}
	if !reflect.DeepEqual(cur.Missed, wantMissed) || cur.False != nil {
		t.Errorf("missed %+v, false %+v; want %+v and none", cur.Missed, cur.False, wantMissed)
	}
	if len(rep.Sweep) != 2 || rep.Sweep[0].MinContent != 0.5 || rep.Sweep[1].MinContent != 0.99 {
		t.Fatalf("sweep %+v", rep.Sweep)
	}
	conf{3, 0, 1, 0}.check(t, "content >= 0.5", rep.Sweep[0].Confusion)
	conf{1, 0, 3, 0}.check(t, "content >= 0.99", rep.Sweep[1].Confusion) // d1–d2 only: exact matches need no sketch
	if rep.Sweep[0].Missed != nil {
		t.Errorf("sweep has details: %+v", rep.Sweep[0].Missed)
	}
	// Distances: a–b 1 bit, d1–d2 32, e1–e2 64 (a–s has a too-short
	// article); every one of the 24 distinct pairs is in the sample:
	// a–c 2, b–c 3, a–f 6, b–f 7, the others 16 or more.
	dup := make([]int, 65)
	dup[1], dup[32], dup[64] = 1, 1, 1
	if !reflect.DeepEqual(rep.Distances.Duplicate, dup) {
		t.Errorf("duplicate distances %v, want %v", rep.Distances.Duplicate, dup)
	}
	n := 0
	for d, c := range rep.Distances.Distinct {
		n += c
		if want := map[int]int{2: 1, 3: 1, 6: 1, 7: 1}[d]; d < 16 && c != want {
			t.Errorf("%d distinct pairs at distance %d, want %d", c, d, want)
		}
	}
	if n != 24 {
		t.Errorf("%d distinct pairs sampled, want all 24", n)
	}
}

func TestEvaluateLabels(t *testing.T) {
	labels := mustParsePairs(t, `{"a": "a", "b": "b", "label": true}
{"a": "a", "b": "c", "label": "distinct"}
{"a": "d1", "b": "d2", "label": 1}
{"a": "e1", "b": "e2", "label": "dup"}
{"a": "c", "b": "f", "label": 0}
`)
	rep, err := Evaluate(evalCorpus(), labels, newStore, &Options{MaxThreshold: 7})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reference || rep.Positives != 3 || rep.Negatives != 2 || rep.MissingPairs != 0 || len(rep.Thresholds) != 8 {
		t.Errorf("report header %+v", rep)
	}
	// Unlabelled predicted pairs (b–c, a–f, b–f) are ignored.
	conf{2, 1, 1, 1}.check(t, "simhash k=3", rep.Thresholds[3].SimHash)
	conf{2, 2, 1, 3}.check(t, "simhash k=7", rep.Thresholds[7].SimHash)
	conf{2, 0, 1, 0}.check(t, "verified k=7", rep.Thresholds[7].Verified)
	conf{3, 0, 0, 0}.check(t, "current", rep.Current.Confusion)
}

func TestEvaluateOptions(t *testing.T) {
	labels := mustParsePairs(t, evalReference)
	// A wider screen: k=4 needs more blocks.
	rep, err := Evaluate(evalCorpus(), labels, newStore, &Options{Index: index.Options{Blocks: 6, MaxDistance: 4, MinContent: 0.5}, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Current; c.Blocks != 6 || c.MaxDistance != 4 || c.MinContent != 0.5 || rep.MinContent != 0.5 {
		t.Errorf("current settings %+v, min content %v", c, rep.MinContent)
	}
	conf{3, 0, 1, 0}.check(t, "current k=4", rep.Current.Confusion)

	// MaxDistance lays the index out and is the distance queried: a
	// negative value is 0 (before, 0 meant the index's default, 3).
	for _, tt := range []struct{ k, blocks, want int }{{-1, 4, 0}, {1, 4, 1}, {5, 7, 5}, {0, 4, 3}} {
		rep, err := Evaluate(evalCorpus(), labels, newStore, &Options{MaxDistance: tt.k})
		if err != nil {
			t.Fatal(err)
		}
		if c := rep.Current; c.Blocks != tt.blocks || c.MaxDistance != tt.want {
			t.Errorf("MaxDistance %d: current settings %d blocks, k=%d; want %d, %d", tt.k, c.Blocks, c.MaxDistance, tt.blocks, tt.want)
		}
	}

	for _, tt := range []struct {
		opts *Options
		c    *Corpus
		want string
	}{
		{&Options{Index: index.Options{Blocks: 4, MaxDistance: 4}}, evalCorpus(), "invalid index layout"},
		{&Options{MaxThreshold: 65}, evalCorpus(), "MaxThreshold 65"},
		{&Options{Index: index.Options{MinContent: 1.5}}, evalCorpus(), "MinContent 1.5"},
		{nil, &Corpus{Docs: evalCorpus().Docs, TooShort: []string{"a"}}, `duplicate document id "a"`},
		{nil, &Corpus{Docs: append(evalCorpus().Docs, evalCorpus().Docs[1])}, `duplicate document id "b"`},
	} {
		_, err := Evaluate(tt.c, labels, newStore, tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.opts, err, tt.want)
		}
	}
}

func TestEvaluateEmpty(t *testing.T) {
	rep, err := Evaluate(&Corpus{}, nil, newStore, nil)
	if err != nil {
		t.Fatal(err)
	}
	conf{}.check(t, "current", rep.Current.Confusion)
	if c := rep.Current.Confusion; c.Precision != 1 || c.Recall != 1 || c.F1 != 1 {
		t.Errorf("empty: %+v, want precision and recall 1", c)
	}
	if len(rep.Thresholds) != DefaultThresholds+1 {
		t.Errorf("%d thresholds", len(rep.Thresholds))
	}
}

func TestConfusionRates(t *testing.T) {
	for _, tt := range []struct {
		tp, fp, ign, pos int
		p, r, f1         float64
	}{
		{3, 1, 5, 6, 0.75, 0.5, 0.6},
		{0, 0, 2, 4, 1, 0, 0},
		{0, 2, 0, 0, 0, 1, 0},
		{0, 3, 0, 5, 0, 0, 0},
		{4, 0, 0, 4, 1, 1, 1},
	} {
		c := newConfusion(tt.tp, tt.fp, tt.ign, tt.pos)
		if c.FN != tt.pos-tt.tp || c.Ignored != tt.ign || c.Precision != tt.p || c.Recall != tt.r || c.F1 != tt.f1 {
			t.Errorf("newConfusion(%d, %d, %d, %d) = %+v, want P %v R %v F1 %v", tt.tp, tt.fp, tt.ign, tt.pos, c, tt.p, tt.r, tt.f1)
		}
	}
}

func TestEvalReportTable(t *testing.T) {
	rep, err := Evaluate(evalCorpus(), mustParsePairs(t, evalReference), newStore, &Options{MaxThreshold: 3, Sweep: []float64{0.5}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `records   8 fingerprinted, 1 too short, 0 rejected
labels    4 duplicate pairs (1 with a too-short article), 1 ignored, 31 distinct (unlisted pairs count as distinct; duplicate J >= 0.8, ignored 0.5 <= J < 0.8)
missing   1 labelled pairs name ids not in the corpus, e.g. "zz"

     simhash                                       simhash+verify (content >= 0.70)
  k       P      R     F1    TP      FP    FN           P      R     F1    TP      FP    FN
  0  1.0000 0.2500 0.4000     1       0     3      1.0000 0.2500 0.4000     1       0     3
  1  1.0000 0.5000 0.6667     2       0     2      1.0000 0.5000 0.6667     2       0     2
  2  0.6667 0.5000 0.5714     2       1     2      1.0000 0.5000 0.6667     2       0     2
  3  0.5000 0.5000 0.5000     2       2     2      1.0000 0.5000 0.6667     2       0     2

fingerprint distances         0      1      2      3      4      5      6      7      8      9     10  11-15  16-20  21-25  26-31  32-64
  duplicate pairs 3           0      1      0      0      0      0      0      0      0      0      0      0      0      0      0      2
  distinct sample 24          0      0      1      1      0      0      1      1      0      0      0      0      6      2      3      9
  (distinct pairs: median distance 22)

current settings (4 blocks, k=3, content >= 0.70): P 1.0000  R 0.7500  F1 0.8571  TP 3  FP 0  FN 1  (3 pairs found, 0 ignored)
  with content >= 0.50: P 1.0000  R 0.7500  F1 0.8571  TP 3  FP 0  FN 1  (3 pairs found, 0 ignored)
`
	if got := b.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestPairDetailString(t *testing.T) {
	for _, tt := range []struct {
		d    PairDetail
		want string
	}{
		{PairDetail{A: "a", B: "b", Label: LabelDuplicate, Jaccard: 0.8346, Distance: 9, Content: 0.78125}, "a b: duplicate J=0.8346, distance 9, content 0.7812"},
		{PairDetail{A: "a", B: "s", Label: LabelDuplicate, Jaccard: -1, Distance: -1, Content: -1, TooShort: true}, "a s: duplicate, too short to fingerprint"},
		{PairDetail{A: "x", B: "y", Label: LabelDistinct, Jaccard: -1, Distance: 12, Content: 1, Exact: true}, "x y: distinct, exact, distance 12"},
	} {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestParsePairs(t *testing.T) {
	p := func(a, b string, l PairLabel, j float64, line int) LabeledPair {
		return LabeledPair{A: a, B: b, Label: l, Jaccard: j, Line: line}
	}
	for _, tt := range []struct {
		name, in  string
		pairs     []LabeledPair
		reference bool
	}{
		{"empty", "", nil, false},
		{"blank lines", "\n  \r\n\n", nil, false},
		{"labels", "\xEF\xBB\xBF" + `{"a":"x","b":"y","label":true}` + "\r\n" +
			`{"a":"x","b":"z","label":false}` + "\n\n" +
			`{"a":"p","b":"q","label":1,"note":"extra fields are fine"}` + "\n" +
			`{"a":"p","b":"r","label":0}` + "\n" +
			`{"b":"s","a":"p","label":" Dup "}` + "\n" +
			`{"a":"p","b":"t","label":"DISTINCT"}` + "\n" +
			`{"a":"p","b":"u","label":"duplicate"}` + "\n" +
			`{"a":17,"b":-2.5e3,"label":"true"}`,
			[]LabeledPair{p("x", "y", LabelDuplicate, -1, 1), p("x", "z", LabelDistinct, -1, 2), p("p", "q", LabelDuplicate, -1, 4),
				p("p", "r", LabelDistinct, -1, 5), p("p", "s", LabelDuplicate, -1, 6), p("p", "t", LabelDistinct, -1, 7),
				p("p", "u", LabelDuplicate, -1, 8), p("17", "-2.5e3", LabelDuplicate, -1, 9)},
			false},
		{"reference", `{"a":"x","b":"y","jaccard_char5":0.8}
{"a":"x","b":"z","jaccard_char5":0.7999}
{"a":"y","b":"z","jaccard_char5":0.5}
{"a":"y","b":"w","jaccard_char5":0.4999}
{"a":"w","b":"v","jaccard_char5":1}
{"a":"v","b":"u","jaccard_char5":0}
{"a":"y","b":"x","jaccard_char5":0.8}`,
			[]LabeledPair{p("x", "y", LabelDuplicate, 0.8, 1), p("x", "z", LabelIgnored, 0.7999, 2), p("y", "z", LabelIgnored, 0.5, 3),
				p("y", "w", LabelDistinct, 0.4999, 4), p("w", "v", LabelDuplicate, 1, 5), p("v", "u", LabelDistinct, 0, 6)},
			true},
		{"null label is no label", `{"a":"x","b":"y","label":null,"jaccard_char5":0.9}`,
			[]LabeledPair{p("x", "y", LabelDuplicate, 0.9, 1)}, true},
		{"escaped ids", `{"a":"\u4e2d\/1","b":"\u4e2d/2","label":true}`,
			[]LabeledPair{p("中/1", "中/2", LabelDuplicate, -1, 1)}, false},
		{"kinds", `{"a":"x","b":"y","label":true,"kind":"truncate-70"}` + "\n" + `{"a":"x","b":"z","label":true,"kind":null}`,
			[]LabeledPair{{A: "x", B: "y", Label: LabelDuplicate, Jaccard: -1, Line: 1, Kind: "truncate-70"}, p("x", "z", LabelDuplicate, -1, 2)}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := mustParsePairs(t, tt.in)
			if !reflect.DeepEqual(l.Pairs, tt.pairs) || l.Reference != tt.reference {
				t.Errorf("got %+v reference %t\nwant %+v reference %t", l.Pairs, l.Reference, tt.pairs, tt.reference)
			}
		})
	}
}

func TestParsePairsErrors(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
	}{
		{`{"a":"x","b":"y"}`, `pairs.jsonl:1: no "label" or "jaccard_char5"`},
		{"\n" + `{"a":"x","b":"y",}`, "pairs.jsonl:2: malformed JSON: invalid character '}'"},
		{`["x","y",true]`, "pairs.jsonl:1: not a JSON object"},
		{`"x"`, "pairs.jsonl:1: not a JSON object"},
		{`{"b":"y","label":true}`, `pairs.jsonl:1: field "a": missing`},
		{`{"a":"x","b":"","label":true}`, `pairs.jsonl:1: field "b": empty id`},
		{`{"a":"x","b":true,"label":true}`, `pairs.jsonl:1: field "b": not a string or number (boolean)`},
		{`{"a":["x"],"b":"y","label":true}`, `pairs.jsonl:1: field "a": not a string or number (array)`},
		{`{"a":"x","b":"x","label":true}`, `pairs.jsonl:1: field "b": the pair names "x" twice`},
		{`{"a":"x","b":"y","label":2}`, `pairs.jsonl:1: field "label": number 2: want 1 (duplicate) or 0 (distinct)`},
		{`{"a":"x","b":"y","label":"maybe"}`, `pairs.jsonl:1: field "label": "maybe": want "dup" or "distinct"`},
		{`{"a":"x","b":"y","label":{}}`, `pairs.jsonl:1: field "label": not a boolean, number or string (object)`},
		{`{"a":"x","b":"y","jaccard_char5":1.2}`, `pairs.jsonl:1: field "jaccard_char5": 1.2: want a value in [0, 1]`},
		{`{"a":"x","b":"y","jaccard_char5":-0.1}`, `pairs.jsonl:1: field "jaccard_char5": -0.1: want a value in [0, 1]`},
		{`{"a":"x","b":"y","jaccard_char5":"0.9"}`, `pairs.jsonl:1: field "jaccard_char5": not a number (string "0.9")`},
		{`{"a":"x","b":"y","label":true,"jaccard_char5":0.9}`, `pairs.jsonl:1: both "label" and "jaccard_char5": give one`},
		{`{"a":"x","b":"y","label":true,"kind":3}`, `pairs.jsonl:1: field "kind": not a string (number)`},
		{`{"a":"x","b":"y","label":true}` + "\n" + `{"a":"x","b":"z","jaccard_char5":0.9}`,
			`pairs.jsonl:2: field "jaccard_char5": "jaccard_char5" in a file of "label" lines (line 1): a file is one format or the other`},
		{`{"a":"x","b":"y","label":true}` + "\n" + `{"a":"y","b":"x","label":"distinct"}`,
			`pairs.jsonl:2: pair ("y", "x") is distinct here but duplicate at line 1`},
		{`{"a":"x","b":"y","jaccard_char5":0.9}` + "\n" + `{"a":"y","b":"x","jaccard_char5":0.6}`,
			`pairs.jsonl:2: pair ("y", "x") is ignored here but duplicate at line 1`},
		{`{"a":"x","b":"y","label":true}` + "\n" + strings.Repeat(" ", maxPairLine+1), "pairs.jsonl:2: line longer than 1048576 bytes"},
	} {
		_, err := ParsePairs(strings.NewReader(tt.in), "pairs.jsonl")
		var re *input.RecordError
		if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%.60q: error %v, want a *input.RecordError starting %q", tt.in, err, tt.want)
		}
	}
}

func TestReadPairs(t *testing.T) {
	dir := t.TempDir()
	const text = `{"a":"x","b":"y","jaccard_char5":0.9}` + "\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	plain, packed, bad := filepath.Join(dir, "p.jsonl"), filepath.Join(dir, "p.jsonl.gz"), filepath.Join(dir, "bad.gz")
	for name, b := range map[string][]byte{plain: []byte(text), packed: gz.Bytes(), bad: gz.Bytes()[:gz.Len()-6]} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []LabeledPair{{A: "x", B: "y", Label: LabelDuplicate, Jaccard: 0.9, Line: 1}}
	for _, name := range []string{plain, packed} {
		l, err := ReadPairs(name)
		if err != nil || !reflect.DeepEqual(l.Pairs, want) || !l.Reference {
			t.Errorf("%s: %+v, %v", name, l, err)
		}
	}
	_, err := ReadPairs(bad)
	var ie *input.Error
	if !errors.As(err, &ie) || ie.Source != bad || !strings.Contains(err.Error(), "bad.gz: line 2") {
		t.Errorf("truncated gzip: %v, want an *input.Error naming the file and line", err)
	}
	if _, err := ReadPairs(filepath.Join(dir, "none.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestAnalyzeCorpus(t *testing.T) {
	a := testfixtures.Analyzer(t, "")
	const in = `{"id":"a","text":"` + evalT1 + `"}
{"id":"short","text":"hello"}
{"id":"b","text":"` + evalT1b + `"}
{"id":"bad","text":17}
{"id":"c","text":"` + evalT2 + `"}
`
	var first *Corpus
	for _, workers := range []int{1, 3, 0} {
		var seen []string
		each := func(rec *input.Record, err error) {
			seen = append(seen, fmt.Sprintf("%d:%s:%t", rec.Line, rec.ID, err != nil))
		}
		c, err := AnalyzeCorpus(context.Background(), input.NewReader([]string{"-"}, strings.NewReader(in), nil), a, workers, each)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"1:a:false", "2:short:true", "3:b:false", "0::true", "5:c:false"}; !reflect.DeepEqual(seen, want) {
			t.Errorf("workers %d: each saw %q, want %q", workers, seen, want)
		}
		var ids []string
		for _, d := range c.Docs {
			ids = append(ids, d.ID)
		}
		if !reflect.DeepEqual(ids, []string{"a", "b", "c"}) || !reflect.DeepEqual(c.TooShort, []string{"short"}) ||
			len(c.Rejected) != 1 || !strings.Contains(c.Rejected[0].Error(), `stdin:4: field "text"`) {
			t.Fatalf("workers %d: docs %q, too short %q, rejected %v", workers, ids, c.TooShort, c.Rejected)
		}
		an, err := a.Analyze(evalT1b)
		if err != nil {
			t.Fatal(err)
		}
		if d := c.Docs[1]; d.Fingerprint != an.Fingerprint || d.ContentHash != an.ContentHash || d.Sketch != an.Sketch {
			t.Errorf("workers %d: doc b %+v differs from Analyze", workers, d)
		}
		if first == nil {
			first = c
		} else if !reflect.DeepEqual(c.Docs, first.Docs) {
			t.Errorf("workers %d: docs differ from workers 1", workers)
		}
	}

	_, err := AnalyzeCorpus(context.Background(), input.NewReader([]string{"-"}, strings.NewReader(in+`{"id":"b","text":"again"}`), nil), a, 2, nil)
	if err == nil || !strings.Contains(err.Error(), `stdin:6: duplicate id "b" (first at stdin:3)`) {
		t.Errorf("duplicate id: %v", err)
	}
	_, err = AnalyzeCorpus(context.Background(), input.NewReader([]string{filepath.Join(t.TempDir(), "none.jsonl")}, nil, nil), a, 2, nil)
	var ie *input.Error
	if !errors.As(err, &ie) {
		t.Errorf("missing input: %v, want an *input.Error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := AnalyzeCorpus(ctx, input.NewReader([]string{"-"}, strings.NewReader(in), nil), a, 2, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// FuzzParsePairs checks that ParsePairs never panics, fails only with a
// *input.RecordError or *input.Error naming a line, and that what it accepts
// is well formed and survives writing out and reading back.
func FuzzParsePairs(f *testing.F) {
	for _, s := range []string{
		`{"a":"x","b":"y","label":true}` + "\n" + `{"a":"y","b":"x","label":1}`,
		`{"a":"x","b":"y","jaccard_char5":0.5}` + "\r\n\n" + `{"a":1,"b":2e1,"jaccard_char5":0.8}`,
		`{"a":"x","b":"y","label":"dup"}` + "\n" + `{"a":"x","b":"z","jaccard_char5":0.9}`,
		`{"a":"\u0000","b":"\ud800","label":"Distinct"}`,
		"\xEF\xBB\xBF{\"a\":\"\xff\",\"b\":\"y\",\"label\":false}",
		`{"a":"x","b":"y","label":null,"jaccard_char5":null}`,
		`[1,2]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParsePairs(bytes.NewReader(data), "f")
		if err != nil {
			var re *input.RecordError
			var ie *input.Error
			if !(errors.As(err, &re) && re.Line >= 1) && !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want a *input.RecordError with a line or an *input.Error", err, err)
			}
			return
		}
		seen := map[pairKey]bool{}
		var out bytes.Buffer
		for _, p := range l.Pairs {
			if p.A == "" || p.B == "" || p.A == p.B || p.Line < 1 || p.Label > LabelIgnored {
				t.Fatalf("bad pair %+v", p)
			}
			if l.Reference != (p.Jaccard >= 0) || p.Jaccard > 1 {
				t.Fatalf("pair %+v in a file with Reference %t", p, l.Reference)
			}
			if !l.Reference && p.Label == LabelIgnored {
				t.Fatalf("label line gave %v", p.Label)
			}
			if !utf8.ValidString(p.A) || !utf8.ValidString(p.B) {
				t.Fatalf("ids %q, %q not valid UTF-8", p.A, p.B)
			}
			if seen[keyOf(p.A, p.B)] {
				t.Fatalf("pair %+v listed twice", p)
			}
			seen[keyOf(p.A, p.B)] = true
			line := map[string]any{"a": p.A, "b": p.B, "label": p.Label == LabelDuplicate}
			if l.Reference {
				line = map[string]any{"a": p.A, "b": p.B, "jaccard_char5": p.Jaccard}
			}
			b, err := json.Marshal(line)
			if err != nil {
				t.Fatal(err)
			}
			out.Write(b)
			out.WriteByte('\n')
		}
		back, err := ParsePairs(&out, "back")
		if err != nil {
			t.Fatalf("reading back %q: %v", out.String(), err)
		}
		if len(back.Pairs) != len(l.Pairs) || (len(l.Pairs) > 0 && back.Reference != l.Reference) {
			t.Fatalf("read back %+v, want %+v", back, l)
		}
		for i, p := range back.Pairs {
			q := l.Pairs[i]
			if p.A != q.A || p.B != q.B || p.Label != q.Label || p.Jaccard != q.Jaccard {
				t.Fatalf("pair %d read back as %+v, want %+v", i, p, q)
			}
		}
	})
}

func ExampleEvaluate() {
	docs := []index.Doc{
		{ID: "a", Fingerprint: 0x0, ContentHash: 1, Sketch: minhash.New(evalT1)},
		{ID: "b", Fingerprint: 0x1, ContentHash: 2, Sketch: minhash.New(evalT1b)},
		{ID: "c", Fingerprint: 0x6, ContentHash: 3, Sketch: minhash.New(evalT2)},
	}
	labels, _ := ParsePairs(strings.NewReader(`{"a":"a","b":"b","jaccard_char5":0.93}`), "pairs.jsonl")
	rep, err := Evaluate(&Corpus{Docs: docs}, labels, func() index.Store { return memstore.New() }, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range []int{1, 2} {
		s, v := rep.Thresholds[k].SimHash, rep.Thresholds[k].Verified
		fmt.Printf("k=%d simhash P %.2f R %.2f, verified P %.2f R %.2f\n", k, s.Precision, s.Recall, v.Precision, v.Recall)
	}
	c := rep.Current.Confusion
	fmt.Printf("current: TP %d FP %d FN %d\n", c.TP, c.FP, c.FN)
	// Output:
	// k=1 simhash P 1.00 R 1.00, verified P 1.00 R 1.00
	// k=2 simhash P 0.50 R 1.00, verified P 1.00 R 1.00
	// current: TP 1 FP 0 FN 0
}

// TestEvaluateByKind: the current detector's recall per "kind" of the
// labels, in the order the kinds appear, and its table.
func TestEvaluateByKind(t *testing.T) {
	labels := mustParsePairs(t, `{"a": "a", "b": "b", "label": true, "kind": "rewrite"}
{"a": "d1", "b": "d2", "label": true, "kind": "exact"}
{"a": "e1", "b": "e2", "label": true, "kind": "rewrite"}
{"a": "a", "b": "s", "label": true, "kind": "too short"}
{"a": "a", "b": "c", "label": false, "kind": "other"}
`)
	rep, err := Evaluate(evalCorpus(), labels, newStore, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []KindRecall{{"rewrite", 2, 2, 1}, {"exact", 1, 1, 1}, {"too short", 1, 0, 0}}
	if !reflect.DeepEqual(rep.Current.ByKind, want) {
		t.Errorf("ByKind %+v, want %+v", rep.Current.ByKind, want)
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	wantTable := "\nrecall by kind, current settings\n" +
		"  kind        pairs   found       R\n" +
		"  rewrite         2       2  1.0000\n" +
		"  exact           1       1  1.0000\n" +
		"  too short       1       0  0.0000\n"
	if !strings.HasSuffix(b.String(), wantTable) {
		t.Errorf("table ends\n%s\nwant\n%s", b.String()[max(0, b.Len()-len(wantTable)-40):], wantTable)
	}
}

func TestEvalReportList(t *testing.T) {
	r := &Report{Current: DetectorResult{
		Missed: []PairDetail{{A: "a", B: "b", Label: LabelDuplicate, Jaccard: -1, TooShort: true}},
	}}
	var b strings.Builder
	if err := r.WriteList(&b); err != nil {
		t.Fatal(err)
	}
	want := "missed by the current settings (1):\n  a b: duplicate, too short to fingerprint\nfound by the current settings but distinct (0):\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestEvalReportText: the header, the table and, with list, the list;
// Evaluate names the analyzer.
func TestEvalReportText(t *testing.T) {
	labels := mustParsePairs(t, `{"a": "a", "b": "b", "label": true}`)
	rep, err := Evaluate(evalCorpus(), labels, newStore, &Options{Index: index.Options{AnalyzerID: "nd2-test"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Analyzer != "nd2-test" {
		t.Errorf("Analyzer %q, want nd2-test", rep.Analyzer)
	}
	rep.Inputs, rep.Pairs = []string{"c1.jsonl", "c2.jsonl"}, "p.jsonl"
	var table, text, list strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteList(&list); err != nil {
		t.Fatal(err)
	}
	head := "corpus    c1.jsonl c2.jsonl\npairs     p.jsonl\nanalyzer  nd2-test\n\n"
	for _, withList := range []bool{false, true} {
		want := head + table.String()
		if withList {
			want += "\n" + list.String()
		}
		text.Reset()
		if err := rep.WriteText(&text, withList); err != nil || text.String() != want {
			t.Errorf("list %t: %v\n%s\nwant\n%s", withList, err, text.String(), want)
		}
	}
}

// newStore is the store of the detector's archive in these tests.
func newStore() index.Store { return memstore.New() }
