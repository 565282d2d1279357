package reuse

import (
	"fmt"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/segment"
)

func benchTexts(b *testing.B) (en, zh []article) {
	return readArticlesB(b, "en_docs_reprints/articles.jsonl"), readArticlesB(b, "zh_docs_reprints/articles.jsonl")
}

func readArticlesB(b *testing.B, name string) []article {
	t := &testing.T{}
	as := readArticles(t, name)
	if t.Failed() || len(as) == 0 {
		b.Fatalf("reading %s failed", name)
	}
	return as
}

// BenchmarkPrints: NewText and winnowing of one article (the
// committed fixtures: English help pages of about 2,000 bytes, Chinese
// ones of about 800 characters), with the fold.
func BenchmarkPrints(b *testing.B) {
	en, zh := benchTexts(b)
	fold, _ := segment.NewTradFold()
	for _, c := range []struct {
		name string
		as   []article
	}{{"en", en}, {"zh", zh}} {
		b.Run(c.name, func(b *testing.B) {
			var n int64
			for _, a := range c.as {
				n += int64(len(a.Text))
			}
			b.SetBytes(n / int64(len(c.as)))
			i := 0
			for b.Loop() {
				t, err := NewText(c.as[i%len(c.as)].Text, fold)
				if err != nil {
					b.Fatal(err)
				}
				DefaultParams.Prints(t)
				i++
			}
		})
	}
}

// BenchmarkCompare: the passages and shares of an article and a copy of
// half of it.
func BenchmarkCompare(b *testing.B) {
	en, _ := benchTexts(b)
	a := mustText(b, en[0].Text)
	h := mustText(b, en[0].Text[:len(en[0].Text)/2]+en[1].Text)
	for b.Loop() {
		Compare(h, a, DefaultParams, DefaultMinPassage, nil)
	}
}

// BenchmarkFind: an article made of half of an archived one and half
// of another, against an archive of the fixtures (texts kept), in
// memory.
func BenchmarkFind(b *testing.B) {
	en, zh := benchTexts(b)
	all := append(en, zh...)
	x, err := memstore.Open(b.Context(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	r, err := Open(b.Context(), x, nil, Params{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i, a := range all {
		d := index.Doc{ID: fmt.Sprint(i), Text: a.Text}
		if err := r.Prepare(b.Context(), &d, a.Text); err != nil {
			b.Fatal(err)
		}
		if err := x.Add(b.Context(), d); err != nil {
			b.Fatal(err)
		}
	}
	q := en[3].Text[:len(en[3].Text)/2] + en[7].Text[len(en[7].Text)/2:]
	for b.Loop() {
		if a, err := r.Find(b.Context(), q, ""); err != nil || len(a.Matches) == 0 {
			b.Fatal(a, err)
		}
	}
}

// BenchmarkBatchAdd: Batch.Add of the fixtures one after another (each
// compared with those before it).
func BenchmarkBatchAdd(b *testing.B) {
	en, zh := benchTexts(b)
	all := append(en, zh...)
	for b.Loop() {
		bt, err := NewBatch(b.Context(), nil, Params{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i, a := range all {
			if _, err := bt.Add(b.Context(), fmt.Sprint(i), a.Text); err != nil {
				b.Fatal(err)
			}
		}
		bt.Close()
	}
}
