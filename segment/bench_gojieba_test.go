//go:build gojieba && cgo

package segment

import "testing"

// BenchmarkGojiebaVariants measures the choices behind Gojieba.Cut on the same
// articles as BenchmarkCut: HMM on (what Cut does) or off, and cppjieba on
// the whole text instead of on the joined Han runs ("raw": no pre-split, so
// Latin words, spaces and punctuation go through cppjieba too).
func BenchmarkGojiebaVariants(b *testing.B) {
	j, err := NewGojieba(&Options{CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	variants := []struct {
		name string
		cut  func(string) []string
	}{
		{"split-hmm", j.Cut},
		{"split-nohmm", func(s string) []string {
			return cutRuns(s, func(h string) []string { return j.x.Cut(h, false) })
		}},
		{"raw-hmm", func(s string) []string { return j.x.Cut(s, true) }},
		{"raw-nohmm", func(s string) []string { return j.x.Cut(s, false) }},
	}
	for _, c := range benchCorpora {
		b.Run(c.lang, func(b *testing.B) {
			texts := articles(b, c.corpus, 200)
			for _, v := range variants {
				b.Run(v.name, func(b *testing.B) { benchCutTexts(b, v.cut, texts) })
			}
		})
	}
}
