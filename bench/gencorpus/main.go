// Command gencorpus writes a synthetic news corpus for the scale
// benchmark (bench/scale.sh) and scores a dedup run against it.
//
//	gencorpus -corpora DIR -n N [-seed S] [-size 2700] [-zh 0.7] -o corpus.jsonl -truth truth.jsonl
//	gencorpus -score -truth truth.jsonl pairs.jsonl
//
// The articles are built from the sentences of the shared corpora
// (../shared/corpora: zh_news, zh_thucnews and zh_docs for Chinese,
// en_reuters, en_docs and en_brown for English; they are read at run
// time and nothing of them is committed): each original is a title and
// random sentences of one language up to about -size bytes of text, 70%
// of them Chinese. Of the articles after the first 100, 5% are exact
// copies of an earlier original (under a new headline half the time)
// and 10% edited copies: one or two of a sentence deleted, inserted or
// substituted, the text truncated to 75–95% of its sentences, a header
// or a footer added. The truth file has a JSON line per planted copy:
// {"a": original, "b": copy, "kind": "exact"|"edited", "edits": [...],
// "jaccard": exact Jaccard similarity of their character 5-grams after
// lower-casing and collapsing white space}. The output depends only on
// the corpora, -seed, -n, -size and -zh: article i is made from a
// generator seeded with (seed, i), so that a copy regenerates its
// original instead of keeping it.
//
// -score reads dedup's --pairs output and prints, as one JSON line, the
// precision of its pairs (a pair is right when a and b are made from
// the same original: a copy with its original, or two copies of one
// original) and the recall of the planted copies (a copy is found when
// a right pair has it as b), all and those with Jaccard at least 0.8.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

func main() {
	var (
		corpora = flag.String("corpora", "../shared/corpora", "directory of the shared corpora")
		n       = flag.Int("n", 100000, "articles to write")
		seed    = flag.Uint64("seed", 1, "seed of the generator")
		size    = flag.Int("size", 2700, "bytes of text per original article, about")
		zh      = flag.Float64("zh", 0.7, "share of Chinese articles")
		out     = flag.String("o", "-", "corpus output (JSON lines)")
		truth   = flag.String("truth", "", "truth file: written, or read with -score")
		score   = flag.Bool("score", false, "score dedup --pairs files (arguments) against -truth")
	)
	flag.Parse()
	var err error
	if *score {
		err = scoreRun(*truth, flag.Args())
	} else {
		err = generate(*corpora, *n, *seed, *size, *zh, *out, *truth)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(2)
	}
}

// lang is one language's sentences.
type lang struct {
	name      string
	sentences []string
	sep       string // between sentences
	headers   []string
	footers   []string
}

var (
	zhFiles = []string{"zh_news", "zh_thucnews", "zh_docs"}
	enFiles = []string{"en_reuters", "en_docs", "en_brown"}
)

func generate(dir string, n int, seed uint64, size int, zhShare float64, out, truthPath string) error {
	if n < 1 || size < 200 || zhShare < 0 || zhShare > 1 {
		return fmt.Errorf("-n %d, -size %d, -zh %g: want n >= 1, size >= 200, zh in [0, 1]", n, size, zhShare)
	}
	zh, err := loadLang(dir, "zh", zhFiles)
	if err != nil {
		return err
	}
	zh.sep = ""
	zh.headers = []string{"来源：新华社 记者 王明 报道。", "本文转载自微信公众号，版权归原作者所有。", "【编者按】以下内容仅供参考。"}
	zh.footers = []string{"（责任编辑：李华）", "声明：本文仅代表作者观点，不代表本站立场。", "更多精彩内容请关注我们的公众号。"}
	en, err := loadLang(dir, "en", enFiles)
	if err != nil {
		return err
	}
	en.sep = " "
	en.headers = []string{"(Reuters) -", "By Staff Writer, Associated Press.", "This article first appeared on our partner site."}
	en.footers = []string{"Reporting by John Smith; editing by Jane Doe.", "All rights reserved. Reprinted with permission.", "Follow us for more news."}

	w, closeOut, err := create(out)
	if err != nil {
		return err
	}
	var tw *bufio.Writer
	var closeTruth func() error
	if truthPath != "" {
		if tw, closeTruth, err = create(truthPath); err != nil {
			return err
		}
	}
	g := &gen{seed: seed, size: size, zhShare: zhShare, zh: zh, en: en}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	tenc := json.NewEncoder(io.Discard)
	if tw != nil {
		tenc = json.NewEncoder(tw)
		tenc.SetEscapeHTML(false)
	}
	for i := range n {
		a, t := g.article(i)
		if err := enc.Encode(a); err != nil {
			return err
		}
		if t != nil {
			if err := tenc.Encode(t); err != nil {
				return err
			}
		}
	}
	if err := closeOut(); err != nil {
		return err
	}
	if closeTruth != nil {
		return closeTruth()
	}
	return nil
}

// create opens path for buffered writing ("-" is standard output).
func create(path string) (*bufio.Writer, func() error, error) {
	if path == "-" {
		w := bufio.NewWriterSize(os.Stdout, 1<<20)
		return w, w.Flush, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	return w, func() error {
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}, nil
}

// loadLang reads the sentences of the named corpora, each once, in file
// order.
func loadLang(dir, name string, files []string) (*lang, error) {
	l := &lang{name: name}
	seen := map[string]bool{}
	for _, f := range files {
		path := filepath.Join(dir, f+".jsonl.gz")
		if err := eachText(path, func(text string) {
			for _, s := range splitSentences(text, name == "zh") {
				if !seen[s] {
					seen[s] = true
					l.sentences = append(l.sentences, s)
				}
			}
		}); err != nil {
			return nil, err
		}
	}
	if len(l.sentences) < 1000 {
		return nil, fmt.Errorf("%s: %d sentences in %s: want at least 1000", name, len(l.sentences), strings.Join(files, ", "))
	}
	return l, nil
}

// eachText calls fn with the text of each line of a gzipped JSONL file.
func eachText(path string, fn func(string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		var r struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		fn(r.Text)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// splitSentences cuts text after sentence-ending punctuation, collapsing
// white space, and keeps the sentences of a useful length: 10 to 200
// characters in Chinese (with at least half Han characters), 40 to 400
// bytes in English.
func splitSentences(text string, zh bool) []string {
	text = strings.Join(strings.Fields(text), " ")
	var out []string
	start := 0
	for i, r := range text {
		end := false
		switch r {
		case '。', '！', '？', '；':
			end = zh
		case '.', '!', '?':
			end = !zh && (i+1 == len(text) || text[i+1] == ' ')
		}
		if !end {
			continue
		}
		j := i + utf8.RuneLen(r)
		if s := strings.TrimSpace(text[start:j]); keep(s, zh) {
			out = append(out, s)
		}
		start = j
	}
	return out
}

func keep(s string, zh bool) bool {
	if !zh {
		return len(s) >= 40 && len(s) <= 400
	}
	n, han := 0, 0
	for _, r := range s {
		n++
		if unicode.Is(unicode.Han, r) {
			han++
		}
	}
	return n >= 10 && n <= 200 && 2*han >= n
}

// gen makes the articles.
type gen struct {
	seed    uint64
	size    int
	zhShare float64
	zh, en  *lang
}

// Article is one line of the corpus.
type Article struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Truth is one planted copy.
type Truth struct {
	A       string   `json:"a"`
	B       string   `json:"b"`
	Kind    string   `json:"kind"`
	Edits   []string `json:"edits,omitempty"`
	Jaccard float64  `json:"jaccard"`
}

const (
	firstCopy   = 100 // articles before it are all originals
	exactShare  = 0.05
	editedShare = 0.10
)

// rng returns article i's generator and the kind it draws first: 0 an
// original, 1 an exact copy, 2 an edited copy.
func (g *gen) rng(i int) (*rand.Rand, int) {
	r := rand.New(rand.NewPCG(g.seed, uint64(i)))
	u := r.Float64()
	switch {
	case i < firstCopy:
		return r, 0
	case u < exactShare:
		return r, 1
	case u < exactShare+editedShare:
		return r, 2
	}
	return r, 0
}

// id is article i's ID: a path such as a news site's.
func id(i int, l *lang) string {
	return fmt.Sprintf("news.example.com/%s/2026/%02d/%02d/a%09d.html", l.name, 1+i%12, 1+i%28, i)
}

// original returns the sentences, title and language of original i.
func (g *gen) original(i int) (*lang, string, []string) {
	r, _ := g.rng(i)
	l := g.en
	if r.Float64() < g.zhShare {
		l = g.zh
	}
	title := g.title(r, l)
	var ss []string
	for n := 0; n < g.size; {
		s := l.sentences[r.IntN(len(l.sentences))]
		ss = append(ss, s)
		n += len(s) + len(l.sep)
	}
	return l, title, ss
}

// title makes a headline from a random sentence.
func (g *gen) title(r *rand.Rand, l *lang) string {
	s := l.sentences[r.IntN(len(l.sentences))]
	if l == g.zh {
		rs := []rune(strings.TrimRight(s, "。！？；"))
		return string(rs[:min(len(rs), 12+r.IntN(13))])
	}
	ws := strings.Fields(s)
	return strings.TrimRight(strings.Join(ws[:min(len(ws), 6+r.IntN(5))], " "), ".!?,;:")
}

// source returns the original that article i copies (following a copy
// back to its original), drawn with r.
func (g *gen) source(r *rand.Rand, i int) int {
	j := r.IntN(i)
	for {
		rj, kind := g.rng(j)
		if kind == 0 {
			return j
		}
		j = rj.IntN(j)
	}
}

func (g *gen) article(i int) (Article, *Truth) {
	r, kind := g.rng(i)
	if kind == 0 {
		l, title, ss := g.original(i)
		return Article{ID: id(i, l), Title: title, Text: strings.Join(ss, l.sep)}, nil
	}
	j := g.source(r, i)
	l, title, ss := g.original(j)
	orig := strings.Join(ss, l.sep)
	if r.IntN(2) == 0 {
		title = g.title(r, l)
	}
	a := Article{ID: id(i, l), Title: title}
	t := &Truth{A: id(j, l), B: a.ID, Kind: "exact", Jaccard: 1}
	if kind == 1 {
		a.Text = orig
		return a, t
	}
	t.Kind = "edited"
	ss = slices.Clone(ss)
	for range 1 + r.IntN(2) {
		var e string
		ss, e = edit(r, l, ss)
		t.Edits = append(t.Edits, e)
	}
	a.Text = strings.Join(ss, l.sep)
	t.Jaccard = jaccard(orig, a.Text)
	return a, t
}

// edit makes one random edit of ss and names it.
func edit(r *rand.Rand, l *lang, ss []string) ([]string, string) {
	switch r.IntN(6) {
	case 0:
		k := r.IntN(len(ss))
		return slices.Delete(ss, k, k+1), "delete"
	case 1:
		return slices.Insert(ss, r.IntN(len(ss)+1), l.sentences[r.IntN(len(l.sentences))]), "insert"
	case 2:
		ss[r.IntN(len(ss))] = l.sentences[r.IntN(len(l.sentences))]
		return ss, "substitute"
	case 3:
		keep := max(1, len(ss)*(75+r.IntN(21))/100)
		return ss[:keep], "truncate"
	case 4:
		return append([]string{l.headers[r.IntN(len(l.headers))]}, ss...), "header"
	}
	return append(ss, l.footers[r.IntN(len(l.footers))]), "footer"
}

// jaccard is the exact Jaccard similarity of the character 5-gram sets
// of a and b after lower-casing and collapsing white space.
func jaccard(a, b string) float64 {
	sa, sb := grams(a), grams(b)
	inter := 0
	for g := range sa {
		if sb[g] {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

func grams(s string) map[string]bool {
	rs := []rune(strings.Join(strings.Fields(strings.ToLower(s)), " "))
	m := make(map[string]bool, len(rs))
	for i := 0; i+5 <= len(rs); i++ {
		m[string(rs[i:i+5])] = true
	}
	if len(rs) > 0 && len(rs) < 5 {
		m[string(rs)] = true
	}
	return m
}

// Score is -score's output.
type Score struct {
	Pairs       int     `json:"pairs"`         // pairs dedup reported
	Right       int     `json:"right"`         // of them in the truth
	Planted     int     `json:"planted"`       // planted copies
	Found       int     `json:"found"`         // planted copies reported with their original
	Planted08   int     `json:"planted_j08"`   // planted copies with Jaccard >= 0.8
	Found08     int     `json:"found_j08"`     // of them found
	Precision   float64 `json:"precision"`     // Right / Pairs
	Recall      float64 `json:"recall"`        // Found / Planted
	Recall08    float64 `json:"recall_j08"`    // Found08 / Planted08
	FalseByKind string  `json:"false_example"` // one wrong pair, for a look
}

func scoreRun(truthPath string, pairFiles []string) error {
	if truthPath == "" || len(pairFiles) == 0 {
		return errors.New("-score needs -truth FILE and at least one pairs file")
	}
	truth := map[string]Truth{}
	if err := eachLine(truthPath, func(b []byte) error {
		var t Truth
		if err := json.Unmarshal(b, &t); err != nil {
			return err
		}
		truth[t.B] = t
		return nil
	}); err != nil {
		return err
	}
	// root is the original an article was made from: itself, or the
	// original it copies. Two copies of one original are a right pair.
	root := func(id string) string {
		if t, ok := truth[id]; ok {
			return t.A
		}
		return id
	}
	var s Score
	found := map[string]bool{}
	for _, p := range pairFiles {
		if err := eachLine(p, func(b []byte) error {
			var pr struct{ A, B string }
			if err := json.Unmarshal(b, &pr); err != nil {
				return err
			}
			s.Pairs++
			if root(pr.A) == root(pr.B) {
				s.Right++
				found[pr.B] = true
			} else if s.FalseByKind == "" {
				s.FalseByKind = pr.A + " ~ " + pr.B
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for b, t := range truth {
		s.Planted++
		if t.Jaccard >= 0.8 {
			s.Planted08++
		}
		if found[b] {
			s.Found++
			if t.Jaccard >= 0.8 {
				s.Found08++
			}
		}
	}
	s.Precision = ratio(s.Right, s.Pairs)
	s.Recall = ratio(s.Found, s.Planted)
	s.Recall08 = ratio(s.Found08, s.Planted08)
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// eachLine calls fn with each line of a file, naming the file and line
// in its error.
func eachLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}
