package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/outfile"
	"github.com/neardup/neardup/reuse"
	"github.com/neardup/neardup/segment"
)

// reuseFlags turn on and tune partial reuse (package reuse): check's and
// add's --reuse, dedup's --reuse-pairs thresholds.
func reuseFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "min-share", Value: reuse.DefaultMinShare, Category: catMatch,
			Usage: "partial reuse: an archived article shares passages with this one when at least this `SHARE` of one of the two is in the other"},
		&cli.IntFlag{Name: "min-passage", Value: reuse.DefaultMinPassage, Category: catMatch,
			Usage: "partial reuse: the fewest `CHARACTERS` a shared passage counts with"},
		&cli.IntFlag{Name: "reuse-max-docs", Value: reuse.DefaultMaxDocs, Category: catMatch,
			Usage: "partial reuse: a passage fingerprint that `N` archived articles have is boilerplate and ignored"},
	}
}

func reuseFlag(usage string) cli.Flag {
	return &cli.BoolFlag{DisableDefaultText: true, Name: "reuse", Category: catIndex, Usage: usage}
}

// reuseOptions reads the reuse thresholds.
func (s *setup) reuseOptions() *reuse.Options {
	c := s.c
	o := &reuse.Options{MinShare: c.Float64("min-share"), MinPassage: c.Int("min-passage"), MaxDocs: c.Int("reuse-max-docs")}
	switch {
	case o.MinShare <= 0 || o.MinShare > 1:
		s.fail("--min-share %v: want above 0, at most 1", o.MinShare)
	case o.MinPassage < 1:
		s.fail("--min-passage %d: want at least 1", o.MinPassage)
	case o.MaxDocs < 1:
		s.fail("--reuse-max-docs %d: want at least 1", o.MaxDocs)
	}
	return o
}

// fold is the fold passages are compared with: the analyzer's.
func fold(a *neardup.Analyzer) segment.Folder {
	if a == nil || !a.Folds() {
		return nil
	}
	f, _ := segment.NewTradFold() // never fails
	return f
}

// openReuse opens the reuse index of x (dir names it): with want
// (--reuse), the one x has or, when x is empty, a new one; without, the
// one x has, or nil when it has none (a writer files its documents in
// the archive's reuse index when there is one).
func (s *setup) openReuse(dir string, x *index.Index, a *neardup.Analyzer, want bool) *reuse.Index {
	o := s.reuseOptions()
	if s.err != nil || x == nil {
		return nil
	}
	var r *reuse.Index
	var err error
	if want {
		r, err = reuse.Open(s.c.Context, x, fold(a), reuse.Params{}, o)
	} else {
		r, err = reuse.OpenExisting(s.c.Context, x, fold(a), o)
	}
	switch {
	case err == nil:
		return r
	case errors.Is(err, reuse.ErrNoIndex), errors.Is(err, index.ErrReadOnly):
		err = fmt.Errorf("index %s has no reuse index: one is made when an archive is created with --reuse ('neardup add --reuse --keep-text --index NEWDIR INPUT...')", dir)
	}
	s.err = err
	return nil
}

// reusePairs writes dedup's --reuse-pairs file: nothing when the flag
// is not given.
type reusePairs struct {
	c *cli.Context
	b *reuse.Batch
	f *outfile.File
}

func newReusePairs(s *setup, a *neardup.Analyzer) (*reusePairs, error) {
	path := s.c.String("reuse-pairs")
	if path == "" {
		return &reusePairs{}, nil
	}
	o := s.reuseOptions()
	if s.err != nil {
		return nil, s.err
	}
	b, err := reuse.NewBatch(s.c.Context, fold(a), reuse.Params{}, o)
	if err != nil {
		return nil, err
	}
	f, err := outfile.Create(path, s.c.App.Writer)
	if err != nil {
		b.Close()
		return nil, err
	}
	return &reusePairs{c: s.c, b: b, f: f}, nil
}

// add writes the pairs rec makes with the records before it.
func (r *reusePairs) add(rec *input.Record) error {
	if r.b == nil {
		return nil
	}
	ps, err := r.b.Add(r.c.Context, rec.ID, rec.Text)
	if err != nil {
		return err
	}
	return reuse.WritePairs(r.f, ps)
}

func (r *reusePairs) commit() error {
	if r.b == nil {
		return nil
	}
	r.b.Close()
	r.b = nil
	return r.f.Commit()
}

func (r *reusePairs) abort() {
	if r.b != nil {
		r.b.Close()
		r.f.Abort()
	}
}
