package segment

import "testing"

// BenchmarkGseVariants compares Gse.Cut with gse's own Cut on the whole
// text (no pre-split) over the same dictionary.
func BenchmarkGseVariants(b *testing.B) {
	g, err := newGse()
	if err != nil {
		b.Fatal(err)
	}
	raw, err := newGseSegmenter(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range benchCorpora {
		b.Run(c.lang, func(b *testing.B) {
			texts := articles(b, c.corpus, 200)
			b.Run("split", func(b *testing.B) { benchCutTexts(b, g.Cut, texts) })
			b.Run("raw", func(b *testing.B) { benchCutTexts(b, func(s string) []string { return raw.Cut(s) }, texts) })
		})
	}
}
