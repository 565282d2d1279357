package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dict"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/input"
)

// setup reads and checks the flags of a command and makes what the
// flags describe: its analyzer and its archive. Like a bufio.Scanner it
// keeps its first error, err, so that a command reads and makes what it
// needs and then checks once; after an error every call returns the
// zero value and does nothing. close gives back the analyzer and closes
// the archive.
type setup struct {
	c         *cli.Context
	err       error
	analyzers []*neardup.Analyzer
	indexes   []*index.Index
}

func newSetup(c *cli.Context) *setup { return &setup{c: c} }

// close hands the analyzers back to the run's pool and closes the
// archives (a command that reports the archive's Close error closes it
// itself first: closing twice is a no-op).
func (s *setup) close() {
	for _, x := range s.indexes {
		x.Close()
	}
	for _, a := range s.analyzers {
		envOf(s.c).analyzers.Put(a)
	}
}

// fail records a usage error, unless there is an error already.
func (s *setup) fail(format string, args ...any) {
	if s.err == nil {
		s.err = usagef(s.c, format, args...)
	}
}

// input reads the input flags.
func (s *setup) input() *input.Options {
	c := s.c
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
		s.fail("%v", err)
	}
	return o
}

// atLeast1 reads the int flag name (--workers, --min-df), which must be
// at least 1.
func (s *setup) atLeast1(name string) int {
	n := s.c.Int(name)
	if n < 1 {
		s.fail("--%s %d: want at least 1", name, n)
	}
	return n
}

// distance reads --max-distance for a query.
func (s *setup) distance() int {
	k := s.c.Int("max-distance")
	if k < 0 || k > 64 {
		s.fail("--max-distance %d: want 0 to 64", k)
	}
	return k
}

// indexDistance reads --max-distance for a command that uses an index.
func (s *setup) indexDistance() int {
	k := s.distance()
	if k > index.MaxLayoutDistance {
		s.fail("--max-distance %d: an index answers distances up to %d (pairs further apart are still found by their content bands)", k, index.MaxLayoutDistance)
	}
	return k
}

// minContent reads --min-content.
func (s *setup) minContent() float64 {
	j := s.c.Float64("min-content")
	if !(j > 0 && j <= 1) {
		s.fail("--min-content %v: want a value in (0, 1]", j)
	}
	return j
}

// index reads --index, or else the run's NEARDUP_INDEX.
func (s *setup) index() string {
	dir := s.c.String("index")
	if lookup := envOf(s.c).lookupEnv; !s.c.IsSet("index") && lookup != nil {
		dir, _ = lookup("NEARDUP_INDEX")
	}
	if dir == "" {
		s.fail("no index: give --index DIR or set NEARDUP_INDEX")
	}
	return dir
}

// analyzer builds the analyzer the flags describe, or takes it from the
// run's pool. A flag the command does not have is its zero value: idf
// build's analyzer has only a segmenter and the fold.
func (s *setup) analyzer() *neardup.Analyzer {
	c := s.c
	o := &neardup.Options{
		Segmenter:       c.String("segmenter"),
		IDFFile:         c.String("idf"),
		StopWordsFile:   c.String("stopwords"),
		UserDictFile:    c.String("user-dict"),
		TopN:            c.Int("top-n"),
		Compat:          c.Bool("compat"),
		KeepTraditional: c.Bool("keep-traditional"),
	}
	switch {
	case o.TopN < 0:
		s.fail("--top-n %d: want 0 (all candidate words, up to 256) or more", o.TopN)
	case o.Compat && o.TopN == 0:
		s.fail("--compat needs --top-n N (gosimhash's topN)")
	case o.Compat && (o.IDFFile != "" || o.StopWordsFile != ""):
		s.fail("--compat uses cppjieba's own IDF table and stop words: --idf and --stopwords do not apply")
	}
	if s.err != nil {
		return nil
	}
	a, err := envOf(c).analyzers.Get(o)
	if errors.Is(err, dict.ErrNoCache) {
		err = fmt.Errorf("%w\n(or use the pure-Go segmenter, which needs no files: --segmenter gse)", err)
	}
	if err != nil {
		s.err = err
		return nil
	}
	s.analyzers = append(s.analyzers, a)
	return a
}

// open opens (or, unless readOnly, creates) the archive dir for queries
// up to distance k with the analyzer a (nil accepts any), explaining its
// refusals in the words of the flags. An empty dir is a new archive in
// memory.
func (s *setup) open(dir string, a *neardup.Analyzer, k int, minContent float64, readOnly bool) *index.Index {
	if s.err != nil {
		return nil
	}
	o := &archive.Options{Distance: k, MinContent: minContent, ReadOnly: readOnly}
	if a != nil {
		o.AnalyzerID = a.ID()
	}
	var x *index.Index
	var err error
	if dir == "" {
		o.Lean = true // only dedup archives in memory: a batch run, which explains no match
		x, err = archive.Memory(s.c.Context, o)
	} else {
		// A new archive is lean when the command's --lean says so (on
		// by default for dedup; see leanFlag).
		o.Lean = s.c.Bool("lean")
		o.Compress = o.Lean
		// dedup is a batch run that owns the archive: its lookups are
		// served from memory.
		o.MemPostings = s.c.Command.Name == "dedup" && !readOnly
		if o.Lean && s.c.IsSet("keep-text") && s.c.Bool("keep-text") {
			s.fail("--keep-text keeps texts that a lean archive (--lean) does not: give one of them")
			return nil
		}
		x, err = archive.Open(s.c.Context, dir, o)
	}
	var me *archive.MismatchError
	var de *index.DistanceError
	switch {
	case err == nil:
		s.indexes = append(s.indexes, x)
		return x
	case errors.Is(err, index.ErrNotFound):
		err = fmt.Errorf("no index in %s (create one with 'neardup add --index %s FILE...')", archive.Redact(dir), archive.Redact(dir))
	case errors.As(err, &me):
		err = fmt.Errorf("%w\n%s", err, mismatchHint(me))
	case errors.As(err, &de):
		err = fmt.Errorf("index %s answers distances up to %d, not --max-distance %d (its layout is fixed when it is created: create a new index with --max-distance %d)",
			archive.Redact(dir), de.Max, k, k)
	}
	s.err = err
	return nil
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
