package reuse

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/segment"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// article is a line of the committed fixtures.
type article struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// fixtures are the committed texts of corpus_test's scenarios, from the
// clean-licence corpora (provenance: corpus_test/testdata/README.md).
const fixtures = "../corpus_test/testdata"

func readArticles(t *testing.T, names ...string) []article {
	t.Helper()
	var out []article
	for _, name := range names {
		f, err := os.Open(filepath.Join(fixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<22)
		for line := 1; sc.Scan(); line++ {
			var a article
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Fatalf("%s:%d: %v", name, line, err)
			}
			out = append(out, a)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// sentences cuts text after each sentence end (.!?。！？ followed by
// white space or end, or a line break), keeping every byte.
func sentences(text string) []string {
	var out []string
	start := 0
	rs := []rune(text)
	pos := 0
	for i, r := range rs {
		pos += utf8.RuneLen(r)
		end := r == '\n' || strings.ContainsRune("。！？", r) ||
			strings.ContainsRune(".!?", r) && (i+1 == len(rs) || unicode.IsSpace(rs[i+1]))
		if end {
			out = append(out, text[start:pos])
			start = pos
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// passage takes consecutive sentences of text from a random one until
// at least n characters, wrapping around to the start.
func passage(r *rand.Rand, text string, n int) string {
	ss := sentences(text)
	i := r.IntN(len(ss))
	var b strings.Builder
	for taken := 0; taken < len(ss) && utf8.RuneCountInString(b.String()) < n; taken++ {
		b.WriteString(ss[(i+taken)%len(ss)])
	}
	return b.String()
}

// edit makes light edits inside a copied passage: about one every
// every characters, a word dropped or inserted in English, a character
// replaced or inserted in Chinese.
func edit(r *rand.Rand, text string, zh bool, every int) string {
	rs := []rune(text)
	n := len(rs) / every
	for range n {
		i := r.IntN(len(rs))
		switch {
		case zh && r.IntN(2) == 0:
			if unicode.Is(unicode.Han, rs[i]) {
				rs[i] = '的'
			}
		case zh:
			rs = slices.Insert(rs, i, '了')
		case r.IntN(2) == 0: // drop the word that starts after the next space
			j := slices.Index(rs[i:], ' ')
			if j < 0 {
				continue
			}
			k := slices.Index(rs[i+j+1:], ' ')
			if k < 0 {
				continue
			}
			rs = slices.Delete(rs, i+j, i+j+1+k)
		default:
			j := slices.Index(rs[i:], ' ')
			if j < 0 {
				continue
			}
			rs = slices.Insert(rs, i+j, []rune(" indeed")...)
		}
	}
	return string(rs)
}

// query is one article of the labelled set: what it is made of.
type labelledQuery struct {
	id         string
	text       string
	proportion float64 // nominal share of it copied from sources
	sources    []string
	filler     string // the held-out article its other passages come from
	kind       string // "reuse", "unrelated", "traditional reprint"
}

// labelledSet builds the queries of one language: for each proportion
// and number of sources, articles made of passages of archived ones
// (lightly edited) and of a held-out article on the same topics
// (filler), interleaved; the held-out articles alone; and, for Chinese,
// traditional reprints of archived articles.
func labelledSet(r *rand.Rand, archive, heldOut []article, length int, zh bool) []labelledQuery {
	var qs []labelledQuery
	for _, p := range []float64{0.1, 0.3, 0.5, 0.7, 0.9} {
		for nsrc := 1; nsrc <= 3; nsrc++ {
			for rep := range 8 {
				per := int(p * float64(length) / float64(nsrc))
				var srcs []article
				for _, i := range r.Perm(len(archive)) {
					if len(srcs) < nsrc && utf8.RuneCountInString(archive[i].Text) >= per+per/4 {
						srcs = append(srcs, archive[i])
					}
				}
				fa := heldOut[r.IntN(len(heldOut))]
				filler := sentences(passage(r, fa.Text, int((1-p)*float64(length))))
				// The filler's sentences in nsrc+1 runs, a copied
				// passage after each of the first nsrc.
				var b strings.Builder
				q := labelledQuery{id: fmt.Sprintf("p%.1f-s%d-%d", p, nsrc, rep), proportion: p, kind: "reuse", filler: fa.ID}
				at := 0
				for k, s := range srcs {
					next := (k + 1) * len(filler) / (nsrc + 1)
					b.WriteString(strings.Join(filler[at:next], ""))
					at = next
					b.WriteString("\n")
					b.WriteString(edit(r, passage(r, s.Text, per), zh, 120))
					b.WriteString("\n")
					q.sources = append(q.sources, s.ID)
				}
				b.WriteString(strings.Join(filler[at:], ""))
				q.text = b.String()
				qs = append(qs, q)
			}
		}
	}
	for _, h := range heldOut {
		qs = append(qs, labelledQuery{id: "unrelated:" + h.ID, text: h.Text, kind: "unrelated", filler: h.ID})
	}
	return qs
}

// TestLabelledReuse measures precision and recall of reuse links at
// the default thresholds on the labelled set, by proportion copied and
// number of sources, in both languages; testdata/labelled.golden holds
// the result (go test ./reuse -run Labelled -update rewrites it).
func TestLabelledReuse(t *testing.T) {
	fold, err := segment.NewTradFold()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	o := Options{}.resolveValue()
	fmt.Fprintf(&out, "Reuse links on the labelled set (reuse/labelled_test.go), default thresholds:\n")
	fmt.Fprintf(&out, "the larger share >= %.2f, passages >= %d characters, k-grams %d, windows %d, stop rule %d documents.\n",
		o.MinShare, o.MinPassage, DefaultGram, DefaultWindow, o.MaxDocs)
	fmt.Fprintf(&out, "A link is an archived source of a query; a found link is a match naming it; a false link, any other match.\n")
	fmt.Fprintf(&out, "Recall (R), explained and false links at the default share (0.5) and at two lower ones; an\n")
	fmt.Fprintf(&out, "explained link names an archived article that shares passages with a source or the filler.\n")
	langs := []struct {
		name             string
		archive, heldOut []string
		length           int
		zh               bool
		traditional      string
	}{
		{"en", []string{"en_docs_reprints/articles.jsonl", "brown_fiction/articles.jsonl", "speeches_long/articles.jsonl"},
			[]string{"en_docs_reprints/negatives.jsonl", "brown_fiction/negatives.jsonl"}, 1500, false, ""},
		{"zh", []string{"zh_docs_reprints/articles.jsonl"},
			[]string{"zh_docs_reprints/negatives.jsonl"}, 600, true, "zh_docs_traditional/copies.jsonl"},
	}
	for li, lang := range langs {
		archive := readArticles(t, lang.archive...)
		heldOut := readArticles(t, lang.heldOut...)
		x, err := memstore.Open(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		ri, err := Open(t.Context(), x, fold, Params{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The same index, reporting every match of share 0.1 or more.
		all := *ri
		all.o.MinShare = 0.1
		for _, a := range archive {
			d := index.Doc{ID: a.ID, Title: a.Title, Text: a.Text}
			if err := ri.Prepare(t.Context(), &d, a.Text); err != nil {
				t.Fatal(err)
			}
			if err := x.Add(t.Context(), d); err != nil {
				t.Fatal(err)
			}
		}
		qs := labelledSet(rand.New(rand.NewPCG(uint64(li)+1, 30)), archive, heldOut, lang.length, lang.zh)
		if lang.traditional != "" {
			for _, c := range readArticles(t, lang.traditional) {
				orig, _, _ := strings.Cut(c.ID, "#")
				qs = append(qs, labelledQuery{id: c.ID, text: c.Text, proportion: 1, sources: []string{orig}, kind: "traditional reprint"})
			}
		}
		fmt.Fprintf(&out, "\n%s: %d archived articles, %d queries of about %d characters\n", lang.name, len(archive), len(qs), lang.length)
		fmt.Fprintf(&out, "%-22s %7s %5s  %-21s %-21s %-21s\n", "kind", "queries", "links", "share>=0.5 R/expl/fal", "share>=0.2 R/expl/fal", "share>=0.1 R/expl/fal")
		levels := []float64{0.5, 0.2, 0.1}
		type row struct {
			queries, links           int
			found, false_, explained [3]int
		}
		rows := map[string]*row{}
		var keys []string
		var falses, explained []string
		// explain says why an archived article that is not a source of
		// q shares passages with it: it shares one with a source or
		// with the held-out article q's other text comes from.
		byID := map[string]string{}
		for _, a := range archive {
			byID[a.ID] = a.Text
		}
		for _, a := range heldOut {
			byID[a.ID] = a.Text
		}
		explain := func(id string, q labelledQuery) string {
			tx := mustText(t, byID[id])
			for _, other := range append(slices.Clone(q.sources), q.filler) {
				if other == "" {
					continue
				}
				if o := Compare(tx, mustText(t, byID[other]), DefaultParams, DefaultMinPassage, nil); len(o.Passages) > 0 {
					return fmt.Sprintf("it shares %.2f of itself with %s", o.Here, other)
				}
			}
			return ""
		}
		for _, q := range qs {
			a, err := all.Find(t.Context(), q.text, "")
			if err != nil {
				t.Fatal(err)
			}
			key := q.kind
			if q.kind == "reuse" {
				key = fmt.Sprintf("reuse %.0f%% from %d", 100*q.proportion, len(q.sources))
			}
			rw := rows[key]
			if rw == nil {
				rw = &row{}
				rows[key] = rw
				keys = append(keys, key)
			}
			rw.queries++
			rw.links += len(q.sources)
			for _, m := range a.Matches {
				for l, level := range levels {
					if max(m.Here, m.There) < level {
						continue
					}
					if slices.Contains(q.sources, m.ID) {
						rw.found[l]++
					} else if why := explain(m.ID, q); why != "" {
						rw.explained[l]++
						if l == 1 {
							explained = append(explained, fmt.Sprintf("  %s -> %s (here %.2f, there %.2f): %s", q.id, m.ID, m.Here, m.There, why))
						}
					} else {
						rw.false_[l]++
						if l == 1 {
							falses = append(falses, fmt.Sprintf("  %s -> %s (here %.2f, there %.2f)", q.id, m.ID, m.Here, m.There))
						}
					}
				}
			}
		}
		total := row{}
		line := func(k string, rw *row) {
			fmt.Fprintf(&out, "%-22s %7d %5d ", k, rw.queries, rw.links)
			for l := range levels {
				fmt.Fprintf(&out, " %-21s", fmt.Sprintf("%s/%d/%d", ratio(rw.found[l], rw.links), rw.explained[l], rw.false_[l]))
			}
			fmt.Fprintln(&out)
		}
		for _, k := range keys {
			rw := rows[k]
			total.queries += rw.queries
			total.links += rw.links
			for l := range levels {
				total.found[l] += rw.found[l]
				total.false_[l] += rw.false_[l]
				total.explained[l] += rw.explained[l]
			}
			line(k, rw)
		}
		line("all", &total)
		fmt.Fprintf(&out, "precision (explained links true):%12s", "")
		for l := range levels {
			ok := total.found[l] + total.explained[l]
			fmt.Fprintf(&out, " %-21s", ratio(ok, ok+total.false_[l]))
		}
		fmt.Fprintln(&out)
		if len(falses) > 0 {
			fmt.Fprintf(&out, "false links at share >= 0.2:\n%s\n", strings.Join(falses, "\n"))
		}
		if len(explained) > 0 {
			fmt.Fprintf(&out, "explained links at share >= 0.2 (archived articles that share passages with a source or the filler):\n%s\n", strings.Join(explained, "\n"))
		}
	}
	compareGolden(t, "testdata/labelled.golden", out.String())
}

func ratio(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(n)/float64(d))
}

func (o Options) resolveValue() Options { return o.resolve() }

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./reuse -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs; got:\n%s", path, got)
	}
}
