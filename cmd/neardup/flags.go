package main

import (
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/index"
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
// --add store with it (to explain later matches), as dedup.Run does.
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
			Usage: "Chinese segmenter `NAME`: jieba (cppjieba's cut in Go), gse, or gojieba (-tags gojieba)"},
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

// indexFlag is the --index flag; setup.index reads NEARDUP_INDEX
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

// leanFlag is --lean, on by default for dedup (lean), off for the
// commands whose archives explain their matches to people.
func leanFlag(lean bool) cli.Flag {
	usage := "create a lean archive: records without titles, keywords or texts, in compressed tables (a Badger directory), " +
		"at about 40% of the bytes a document; check and serve then show a match's ID and figures only. " +
		"An existing archive keeps what it was created with"
	if lean {
		usage += "; --lean=false keeps what check and serve show of a match"
	}
	return &cli.BoolFlag{Name: "lean", Value: lean, DisableDefaultText: !lean, Category: catIndex, Usage: usage}
}

func jsonFlag() cli.Flag {
	return &cli.BoolFlag{DisableDefaultText: true, Name: "json", Category: catOutput, Usage: "print JSON (one object a line) instead of text"}
}

func workersFlag() cli.Flag {
	return &cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Value: runtime.GOMAXPROCS(0), DefaultText: "the number of CPUs", Category: catInput,
		Usage: "analyse `N` articles in parallel (the results do not depend on it)"}
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

// inputArgs returns the command's input arguments, "-" (standard input)
// when there are none.
func inputArgs(c *cli.Context) []string {
	if c.NArg() == 0 {
		return []string{"-"}
	}
	return c.Args().Slice()
}
