package neardup

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/neardup/neardup/internal/cputime"
	"github.com/neardup/neardup/internal/testfixtures/corpora"
	"github.com/neardup/neardup/segment"
)

// BenchmarkFold measures what the fold of traditional Chinese costs, in
// alternating passes over the same 300 zh_news articles: the analysis
// without the fold (Options.KeepTraditional: the analysis of before)
// and with it (the default), on the articles as they are ("zh"), on
// those of them without a character of segment.TradChars
// ("zh-simplified": the fold's cost is then its scan alone), and on a
// traditional version made at bench time with OpenCC's s2twp by Debian's
// opencc command ("zh-trad"; never stored; skipped without the command:
// apt-get install opencc). Reported: MB/s of each (median of the passes)
// and the ratio fold/keep of the medians of wall and CPU time, so that a
// ratio of 1.03 on "zh-simplified" is a 3% slowdown of simplified text.
// On a loaded machine the ratios vary by several percent from run to run;
// bench/foldcount.sh counts instructions instead.
func BenchmarkFold(b *testing.B) {
	texts, size := benchArticles(b, "zh_news", 300)
	trad := corpora.OpenCC(b, "s2twp", texts)
	var tsize int64
	for _, t := range trad {
		tsize += int64(len(t))
	}
	// The articles without a character of segment.TradChars, which the
	// fold leaves as they are after its scan (most; the others have a
	// character such as 著 that simplified Chinese uses too, and are
	// converted).
	var simp []string
	var ssize int64
	for _, t := range texts {
		if !segment.HasTradChar(segment.Normalize(t)) {
			simp = append(simp, t)
			ssize += int64(len(t))
		}
	}
	for _, be := range segment.Backends() {
		fold := testAnalyzer(b, be)
		keep, err := NewAnalyzer(&Options{Segmenter: be, KeepTraditional: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { keep.Close() })
		for _, c := range []struct {
			name  string
			texts []string
			size  int64
		}{{"zh", texts, size}, {"zh-simplified", simp, ssize}, {"zh-trad", trad, tsize}} {
			b.Run(be+"/"+c.name, func(b *testing.B) {
				pass := func(a *Analyzer) (float64, float64) {
					runtime.GC()
					c0, t0 := cputime.Self(), time.Now()
					for _, text := range c.texts {
						if _, err := a.Analyze(text); err != nil && !errors.Is(err, ErrTooShort) {
							b.Fatal(err)
						}
					}
					return time.Since(t0).Seconds(), (cputime.Self() - c0).Seconds()
				}
				pass(fold) // the tables are parsed by the first traditional text
				var wk, wf, ck, cf []float64
				for n := 0; n < b.N; n++ {
					w, c := pass(keep)
					wk, ck = append(wk, w), append(ck, c)
					w, c = pass(fold)
					wf, cf = append(wf, w), append(cf, c)
				}
				b.ReportMetric(float64(c.size)/median(wk)/1e6, "keep-MB/s")
				b.ReportMetric(float64(c.size)/median(wf)/1e6, "fold-MB/s")
				b.ReportMetric(median(wf)/median(wk), "fold/keep")
				if median(ck) > 0 {
					b.ReportMetric(median(cf)/median(ck), "fold/keep-cpu")
				}
			})
		}
	}
}
