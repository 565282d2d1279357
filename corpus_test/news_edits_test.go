package corpus_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/eval"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/testfixtures"
	sharedcorpora "github.com/neardup/neardup/internal/testfixtures/corpora"
	"github.com/neardup/neardup/segment"
)

// News-edit quality: the generator's edits applied to held-out news of
// the shared corpora (zh_news, en_reuters), which may not be committed,
// so the golden files (testdata/shared/news_edits_*.golden) hold counts
// only.
//
// The originals are the articles the reference pairs do not name (so no
// two of them are duplicates) with at least newsMinSentences long
// sentences and two long paragraphs, every newsStride-th of them, up to
// newsOriginals; newsBackground other unnamed articles come first in the
// input, as the archive they are checked against. Each original gets a
// copy of every kind of newsKinds and the copies of scnEditor.derived.
// dedup.Run runs over background, originals and copies in that order with
// the default options. A copy is found when dedup.Run puts it in the cluster
// of its own original (a duplicate's cluster is the cluster of the record
// it matched, an original's its own); a false match is a matched pair of
// records with different originals (a background article being its own).
const (
	newsOriginals    = 150
	newsStride       = 3
	newsBackground   = 1500
	newsMinSentences = 6
)

// newsKinds are the kinds every original gets a copy of, in this order,
// before the derived copies.
var newsKinds = append(append([]string(nil), scnKinds...), scnTruncateMore, scnHeaderTruncate)

// newsAllKinds are the rows of the golden table.
var newsAllKinds = append(append([]string(nil), newsKinds...), scnCopyOfCopy, scnChain1, scnChain2, scnChain3)

func TestNewsEdits(t *testing.T) {
	if testing.Short() {
		t.Skip("news-edit quality test is long: skipped under -short")
	}
	names := []string{"zh_news", "en_reuters"}
	var files []string
	for _, n := range names {
		files = append(files, n+".jsonl.gz", n+".pairs.jsonl.gz")
	}
	dir := sharedcorpora.Require(t, files...)
	a, err := testfixtures.Analyzers.Get(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			docs, kindOf, rootOf := newsInput(t, dir, name)
			path := filepath.Join(t.TempDir(), "in.jsonl")
			if err := os.WriteFile(path, scnJSONL(docs), 0o644); err != nil {
				t.Fatal(err)
			}
			store, err := memstore.Open(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			r := input.NewReader([]string{path}, nil, nil)
			defer r.Close()

			clusterOf := make(map[string]string, len(docs))
			type row struct{ n, found, other, missed int }
			rows := make(map[string]*row)
			for _, k := range newsAllKinds {
				rows[k] = &row{}
			}
			falsePairs, falseDocs, background := 0, 0, 0
			var missed []string
			_, err = dedup.Run(context.Background(), r, a, store, nil, func(o *dedup.Outcome) error {
				id := o.Record.ID
				switch o.Verdict {
				case dedup.Unique:
					clusterOf[id] = id
				case dedup.Duplicate:
					clusterOf[id] = clusterOf[o.Matches[0].ID]
					bad := false
					for _, m := range o.Matches {
						if rootOf[m.ID] != rootOf[id] {
							falsePairs++
							bad = true
						}
					}
					if bad {
						falseDocs++
					}
				default:
					t.Errorf("%s: %v: %v", id, o.Verdict, o.Err)
				}
				k := kindOf[id]
				if k == "" {
					if rootOf[id] == id && !strings.Contains(id, "#") {
						background++
					}
					return nil
				}
				rw := rows[k]
				rw.n++
				switch {
				case o.Verdict == dedup.Duplicate && clusterOf[id] == rootOf[id]:
					rw.found++
				case o.Verdict == dedup.Duplicate:
					rw.other++
				default:
					rw.missed++
					missed = append(missed, id)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range missed {
				t.Logf("missed %s", id)
			}

			var b strings.Builder
			fmt.Fprintf(&b, "%s: generated edits of %d held-out articles after %d background articles, default analyzer (segmenter %s), dedup with the default options\n\n",
				name, rows[scnReprint].n, newsBackground, segment.DefaultBackend)
			fmt.Fprintf(&b, "%-16s %5s %6s %7s %6s %7s\n", "kind", "copies", "found", "recall", "other", "missed")
			tot := row{}
			for _, k := range newsAllKinds {
				rw := rows[k]
				fmt.Fprintf(&b, "%-16s %6d %6d %7.4f %6d %7d\n", k, rw.n, rw.found, float64(rw.found)/float64(max(rw.n, 1)), rw.other, rw.missed)
				tot.n, tot.found, tot.other, tot.missed = tot.n+rw.n, tot.found+rw.found, tot.other+rw.other, tot.missed+rw.missed
			}
			fmt.Fprintf(&b, "%-16s %6d %6d %7.4f %6d %7d\n", "all", tot.n, tot.found, float64(tot.found)/float64(max(tot.n, 1)), tot.other, tot.missed)
			fmt.Fprintf(&b, "\nfalse matches: %d pairs of records with different originals, in %d records\n", falsePairs, falseDocs)
			compareGolden(t, "news_edits_"+name, b.String())
		})
	}
}

// newsInput makes the input of TestNewsEdits for one corpus: the
// records in order, the kind of every copy, and every record's original
// (itself for background articles and originals).
func newsInput(t *testing.T, dir, name string) (docs []scnDoc, kindOf, rootOf map[string]string) {
	t.Helper()
	labels, err := eval.ReadPairs(filepath.Join(dir, name+".pairs.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	named := make(map[string]bool)
	for _, p := range labels.Pairs {
		named[p.A], named[p.B] = true, true
	}
	r := input.NewReader([]string{filepath.Join(dir, name+".jsonl.gz")}, nil, nil)
	defer r.Close()
	var originals, background []scnDoc
	eligible := 0
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if named[rec.ID] {
			continue
		}
		d := scnDoc{ID: rec.ID, Title: rec.Title, Text: rec.Text}
		lang := scnLang(d.ID)
		if len(originals) < newsOriginals &&
			len(scnEligible(scnPieces(d.Text), scnMinRunes(lang))) >= newsMinSentences &&
			len(scnEligible(scnParagraphs(d.Text), scnMinRunes(lang))) >= 2 {
			eligible++
			if eligible%newsStride == 0 {
				originals = append(originals, d)
				continue
			}
		}
		if len(background) < newsBackground {
			background = append(background, d)
		}
		if len(originals) == newsOriginals && len(background) == newsBackground {
			break
		}
	}
	if len(originals) < newsOriginals {
		t.Fatalf("%s: %d originals, want %d", name, len(originals), newsOriginals)
	}
	e := &scnEditor{r: scnRand("news/" + name), articles: originals}
	kindOf, rootOf = make(map[string]string), make(map[string]string)
	docs = append(docs, background...)
	docs = append(docs, originals...)
	for _, d := range docs {
		rootOf[d.ID] = d.ID
	}
	for i := range originals {
		a := &originals[i]
		var cs []scnDoc
		for _, k := range newsKinds {
			text, err := e.edit(a, k)
			if err != nil {
				t.Fatalf("%s of %s: %v", k, a.ID, err)
			}
			cs = append(cs, scnDoc{ID: a.ID + "#" + k, Title: a.Title, Text: text, Kind: k, Original: a.ID})
		}
		more, err := e.derived(a, cs)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, more...)
		for _, c := range cs {
			kindOf[c.ID], rootOf[c.ID] = c.Kind, a.ID
		}
		docs = append(docs, cs...)
	}
	return docs, kindOf, rootOf
}
