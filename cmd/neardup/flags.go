package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dict"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/segment"
)

// Flag categories in the help output.
const (
	catAnalysis = "Analysis"
	catInput    = "Input"
	catMatch    = "Matching"
	catOutput   = "Output"
	catIndex    = "Index"
)

// storedKeywords is how many of an article's keywords add and check
// --add store with it (to explain later matches), as neardup.Dedup does.
const storedKeywords = 32

// flags concatenates flag groups.
func flags(groups ...[]cli.Flag) []cli.Flag {
	var all []cli.Flag
	for _, g := range groups {
		all = append(all, g...)
	}
	return all
}

// segmenterFlags choose the segmenter and its dictionary.
func segmenterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "segmenter", Value: segment.DefaultBackend, Category: catAnalysis,
			Usage: "Chinese segmenter `NAME`: jieba (gojieba, needs cgo) or gse (pure Go)"},
		&cli.StringFlag{Name: "user-dict", Category: catAnalysis, TakesFile: true,
			Usage: "extra segmenter dictionary `FILE` (jieba format: word [freq] [tag] a line)"},
	}
}

// analyzerFlags are the flags of every command that fingerprints text.
// They map onto neardup.Options; the defaults are the embedded
// dictionaries.
func analyzerFlags() []cli.Flag {
	return flags(segmenterFlags(), []cli.Flag{
		&cli.StringFlag{Name: "idf", Category: catAnalysis, TakesFile: true,
			Usage: "IDF table `FILE` (\"word idf\" lines, see 'neardup idf build') in place of the embedded one"},
		&cli.StringFlag{Name: "stopwords", Category: catAnalysis, TakesFile: true,
			Usage: "stop-word list `FILE` (a word a line) in place of the embedded one"},
		&cli.IntFlag{Name: "top-n", Category: catAnalysis, DefaultText: "0",
			Usage: "fingerprint the `N` heaviest keywords (0: all candidate words, up to 256)"},
		&cli.BoolFlag{DisableDefaultText: true, Name: "compat", Category: catAnalysis,
			Usage: "gosimhash/yanyiwu simhash compatibility: cppjieba keywords, lookup3 hash, no normalisation (needs --top-n and jieba)"},
		&cli.BoolFlag{DisableDefaultText: true, Name: "keep-traditional", Category: catAnalysis,
			Usage: "leave traditional Chinese as it is instead of folding it to simplified: the analysis (and analyzer ID) of neardup before the fold, for an index built then"},
	})
}

// inputFlags map onto input.Options.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "id-field", Value: "id", Category: catInput, Usage: "JSONL `FIELD` holding the article id"},
		&cli.StringFlag{Name: "text-field", Value: "text", Category: catInput, Usage: "JSONL `FIELD` holding the article text"},
		&cli.StringFlag{Name: "title-field", Value: "title", Category: catInput, Usage: "JSONL `FIELD` holding the title"},
		&cli.StringFlag{Name: "format", Value: "auto", Category: catInput,
			Usage: "input `FORMAT`: auto (by file name, else JSONL if it starts with '{'), jsonl or text (a whole file is one article)"},
		&cli.StringFlag{Name: "encoding", Value: "auto", Category: catInput, Usage: "text `ENCODING`: auto, utf-8, gbk or gb18030"},
		&cli.BoolFlag{DisableDefaultText: true, Name: "html", Category: catInput, Usage: "strip HTML markup (and take a whole file's title from <title>)"},
		&cli.IntFlag{Name: "max-bytes", Category: catInput, DefaultText: "16 MiB",
			Usage: "reject articles larger than `N` bytes"},
		&cli.IntFlag{Name: "max-line", Category: catInput, DefaultText: "max-bytes + 1 MiB",
			Usage: "reject JSONL lines longer than `N` bytes"},
	}
}

// matchFlags map onto index.Options and the distance of queries.
func matchFlags() []cli.Flag {
	return []cli.Flag{maxDistanceFlag(), minContentFlag()}
}

func maxDistanceFlag() cli.Flag {
	return &cli.IntFlag{Name: "max-distance", Aliases: []string{"k"}, Value: index.DefaultMaxDistance, Category: catMatch,
		Usage: "SimHash screen: articles whose fingerprints differ in at most `K` bits are candidates (besides those sharing a MinHash band); an index is laid out for its K when created"}
}

func minContentFlag() cli.Flag {
	return &cli.Float64Flag{Name: "min-content", Value: index.DefaultMinContent, Category: catMatch,
		Usage: "a candidate is a near duplicate when the estimated content similarity (Jaccard of character 5-grams) is at least `J`"}
}

// indexFlag is the --index flag; flagReader.index reads NEARDUP_INDEX
// when it is not given (not for dedup: see dedupIndexFlag).
func indexFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "index", Aliases: []string{"i"}, Category: catIndex, TakesFile: true, Usage: usage + " [$NEARDUP_INDEX]"}
}

// dedupIndexFlag is dedup's --index: NEARDUP_INDEX does not set it, so
// that a corpus is never added to the archive index by accident.
func dedupIndexFlag() cli.Flag {
	return &cli.StringFlag{Name: "index", Aliases: []string{"i"}, Category: catIndex, TakesFile: true,
		Usage: "keep the originals in the persistent archive `DIR|URL` (a Badger directory, or redis://HOST:PORT[,HOST:PORT...]/NAME, options ?wait_replicas=1 and ?retry_window=30s as in docs/redis.md; resumable; NEARDUP_INDEX is not used here) instead of memory"}
}

func jsonFlag() cli.Flag {
	return &cli.BoolFlag{DisableDefaultText: true, Name: "json", Category: catOutput, Usage: "print JSON (one object a line) instead of text"}
}

func workersFlag() cli.Flag {
	return &cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Value: runtime.GOMAXPROCS(0), DefaultText: "the number of CPUs", Category: catInput,
		Usage: "analyse `N` articles in parallel (the results do not depend on it)"}
}

// analyzerOptions reads the analyzer flags.
func analyzerOptions(c *cli.Context) (*neardup.Options, error) {
	o := &neardup.Options{
		Segmenter:       c.String("segmenter"),
		IDFFile:         c.String("idf"),
		StopWordsFile:   c.String("stopwords"),
		UserDictFile:    c.String("user-dict"),
		TopN:            c.Int("top-n"),
		Compat:          c.Bool("compat"),
		KeepTraditional: c.Bool("keep-traditional"),
	}
	if o.TopN < 0 {
		return nil, usagef(c, "--top-n %d: want 0 (all candidate words, up to 256) or more", o.TopN)
	}
	if o.Compat && o.TopN == 0 {
		return nil, usagef(c, "--compat needs --top-n N (gosimhash's topN)")
	}
	if o.Compat && (o.IDFFile != "" || o.StopWordsFile != "") {
		return nil, usagef(c, "--compat uses cppjieba's own IDF table and stop words: --idf and --stopwords do not apply")
	}
	return o, nil
}

// closeAnalyzer hands a back to the run's analyzer pool at the end of a
// command.
func closeAnalyzer(c *cli.Context, a *neardup.Analyzer) {
	envOf(c).analyzers.Put(a)
}

// newAnalyzer builds the analyzer the flags describe, or takes it from
// the run's pool.
func newAnalyzer(c *cli.Context) (*neardup.Analyzer, error) {
	o, err := analyzerOptions(c)
	if err != nil {
		return nil, err
	}
	a, err := envOf(c).analyzers.Get(o)
	if errors.Is(err, dict.ErrNoCache) {
		err = fmt.Errorf("%w\n(or use the pure-Go segmenter, which needs no files: --segmenter gse)", err)
	}
	return a, err
}

// inputArgs returns the command's input arguments, "-" (standard input)
// when there are none.
func inputArgs(c *cli.Context) []string {
	if c.NArg() == 0 {
		return []string{"-"}
	}
	return c.Args().Slice()
}

// flagReader reads and checks the flags of a command. Like a
// bufio.Scanner it keeps its first error, err, so that a command reads
// what it needs and then checks once; a read after an error returns the
// zero value.
type flagReader struct {
	c   *cli.Context
	err error
}

// fail records the usage error, unless there is one already.
func (f *flagReader) fail(format string, args ...any) {
	if f.err == nil {
		f.err = usagef(f.c, format, args...)
	}
}

// input reads the input flags.
func (f *flagReader) input() *input.Options {
	c := f.c
	o := &input.Options{
		IDField:    c.String("id-field"),
		TextField:  c.String("text-field"),
		TitleField: c.String("title-field"),
		Format:     c.String("format"),
		Encoding:   c.String("encoding"),
		HTML:       c.Bool("html"),
		MaxBytes:   c.Int("max-bytes"),
		MaxLine:    c.Int("max-line"),
	}
	if err := o.Validate(); err != nil {
		f.fail("%v", err)
	}
	return o
}

// atLeast1 reads the int flag name (--workers, --min-df), which must be
// at least 1.
func (f *flagReader) atLeast1(name string) int {
	n := f.c.Int(name)
	if n < 1 {
		f.fail("--%s %d: want at least 1", name, n)
	}
	return n
}

// distance reads --max-distance for a query.
func (f *flagReader) distance() int {
	k := f.c.Int("max-distance")
	if k < 0 || k > 64 {
		f.fail("--max-distance %d: want 0 to 64", k)
	}
	return k
}

// indexDistance reads --max-distance for a command that uses an index.
func (f *flagReader) indexDistance() int {
	k := f.distance()
	if k > index.MaxLayoutDistance {
		f.fail("--max-distance %d: an index answers distances up to %d (pairs further apart are still found by their content bands)", k, index.MaxLayoutDistance)
	}
	return k
}

// minContent reads --min-content.
func (f *flagReader) minContent() float64 {
	j := f.c.Float64("min-content")
	if !(j > 0 && j <= 1) {
		f.fail("--min-content %v: want a value in (0, 1]", j)
	}
	return j
}

// index reads --index, or else the run's NEARDUP_INDEX.
func (f *flagReader) index() string {
	dir := f.c.String("index")
	if lookup := envOf(f.c).lookupEnv; !f.c.IsSet("index") && lookup != nil {
		dir, _ = lookup("NEARDUP_INDEX")
	}
	if dir == "" {
		f.fail("no index: give --index DIR or set NEARDUP_INDEX")
	}
	return dir
}

// queryDistance maps --max-distance k onto the MaxDistance of
// dedup.Options and eval.Options, where 0 means the default and a
// negative value 0.
func queryDistance(k int) int {
	if k == 0 {
		return -1
	}
	return k
}

// openIndex opens (or, unless readOnly, creates) the archive dir for
// queries up to distance k with the given analyzer ID ("" accepts any),
// explaining its refusals in the words of the flags. An empty dir is a
// new archive in memory.
func openIndex(ctx context.Context, dir, analyzerID string, k int, minContent float64, readOnly bool) (*index.Index, error) {
	o := &archive.Options{AnalyzerID: analyzerID, Distance: k, MinContent: minContent, ReadOnly: readOnly}
	if dir == "" {
		return archive.Memory(ctx, o)
	}
	x, err := archive.Open(ctx, dir, o)
	var me *archive.MismatchError
	var de *index.DistanceError
	switch {
	case errors.Is(err, index.ErrNotFound):
		return nil, fmt.Errorf("no index in %s (create one with 'neardup add --index %s FILE...')", dir, dir)
	case errors.As(err, &me):
		return nil, fmt.Errorf("%w\n%s", err, mismatchHint(me))
	case errors.As(err, &de):
		return nil, fmt.Errorf("index %s answers distances up to %d, not --max-distance %d (its layout is fixed when it is created: create a new index with --max-distance %d)",
			dir, de.Max, k, k)
	}
	return x, err
}

// mismatchHint says which analyzer settings of an archive differ from
// those asked for, and what to do: use the same settings; and for an
// index built without the fold of traditional Chinese to simplified (by
// neardup before the fold, or with --keep-traditional) queried by an
// analyzer that folds, rebuild it, or query it with --keep-traditional.
func mismatchHint(me *archive.MismatchError) string {
	hint := "(an index answers only queries made with the analyzer settings it was built with: the same --segmenter, --idf, --stopwords, --user-dict, --top-n, --compat and --keep-traditional)"
	stored, want := me.Stored, me.Want
	if d := neardup.IDDiff(stored, want); len(d) > 0 {
		hint = "settings that differ: " + strings.Join(d, "; ") + "\n" + hint
	}
	if !strings.Contains(want, neardup.FoldSuffix+"-") || !strings.HasPrefix(stored, "nd") || strings.Contains(stored, neardup.FoldSuffix+"-") {
		return hint
	}
	return hint + "\n(this index was built without folding traditional Chinese to simplified, as neardup did before it folded by default: " +
		"to match traditional and simplified copies, build a new index from the same inputs with 'neardup add --index NEWDIR INPUT...' and use it instead; " +
		"to query this one as it was built, add --keep-traditional)"
}
