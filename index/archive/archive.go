// Package archive opens the archive an --index names, whatever store
// keeps it: redis://HOST:PORT[,HOST:PORT...]/NAME (or rediss://) is an
// archive NAME on a Redis Cluster (redisstore), anything else a Badger
// directory (badgerstore); Memory makes one in memory (memstore). It
// also owns the archive's side of explaining a refusal: no archive, or
// one built by another analyzer (MismatchError).
package archive

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/index/redisstore"
)

// Options configure Open. The zero value (or nil) means the defaults.
type Options struct {
	// AnalyzerID is recorded in a new archive; an existing one with
	// another is refused (index.ErrMismatch). "" accepts any.
	AnalyzerID string
	// Distance is the SimHash distance queries will use (see
	// index.Options.Distance).
	Distance int
	// MinContent is index.Options.MinContent.
	MinContent float64
	// ReadOnly opens an existing archive without writing to it.
	ReadOnly bool
	// MustExist opens an existing archive only (delete has nothing to
	// delete from a new one): none is index.ErrNotFound.
	MustExist bool
	// Lean keeps the records without titles, keywords and texts: for a
	// batch run, which explains no match, at about half the memory a
	// document in memory (memstore.NewLean), and 40% of a new Badger
	// directory's disk or of a new Redis archive's memory
	// (badgerstore.Options.Lean, redisstore.Options.Lean; an existing
	// archive keeps what it was created with).
	Lean bool
	// Compress has a new Badger directory write compressed tables
	// (badgerstore.Options.Compress: about 40% fewer bytes on disk,
	// reads slower; an existing one keeps what it was created with).
	// Other stores ignore it.
	Compress bool
	// MemPostings has a Badger directory opened for writing keep its
	// postings in memory while it is open (badgerstore.Options.MemPostings:
	// lookups that do not slow down as the archive grows, for memory
	// and a read of the postings at Open): for a batch run that owns
	// the archive. Other stores ignore it.
	MemPostings bool
	// Logf, if not nil, receives the store's warnings.
	Logf func(format string, args ...any)
}

// Open opens the archive named by name, a Redis URL or a directory,
// creating it unless opts.ReadOnly.
//
// The refusals a user can act on are told apart: no archive (when
// ReadOnly or MustExist) wraps index.ErrNotFound, also for a directory
// that does not exist; an archive whose fingerprints another analyzer
// (or URL normalisation) made is a *MismatchError naming both, even
// when its layout is refused as well; an archive laid out for smaller
// distances than opts.Distance is an *index.DistanceError.
func Open(ctx context.Context, name string, opts *Options) (*index.Index, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	x, err := open(ctx, name, o)
	if err != nil {
		return nil, explain(ctx, name, o, err)
	}
	return x, nil
}

// MismatchError is Open's error for an archive built by another
// analyzer than Options.AnalyzerID. It wraps index.ErrMismatch.
type MismatchError struct {
	Name   string // the archive (Redact-ed)
	Stored string // the analyzer ID the archive was built with
	Want   string // Options.AnalyzerID
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("index: %s: %v: the index was built with analyzer %q; the options ask for %q", e.Name, index.ErrMismatch, e.Stored, e.Want)
}

func (e *MismatchError) Unwrap() error { return index.ErrMismatch }

// explain turns the error of opening name with o into one of the
// errors Open documents.
func explain(ctx context.Context, name string, o Options, err error) error {
	if (o.ReadOnly || o.MustExist) && errors.Is(err, os.ErrNotExist) && !errors.Is(err, index.ErrNotFound) {
		return fmt.Errorf("archive: %s: %w: %w", Redact(name), index.ErrNotFound, err)
	}
	var de *index.DistanceError
	if o.AnalyzerID == "" || !(errors.As(err, &de) || errors.Is(err, index.ErrMismatch)) {
		return err
	}
	// The index checks the layout before the analyzer: read the
	// analyzer the archive was built with.
	ro, rerr := open(ctx, name, Options{ReadOnly: true, Logf: o.Logf})
	if rerr != nil {
		return err
	}
	stored := ro.AnalyzerID()
	ro.Close()
	if stored != o.AnalyzerID {
		return &MismatchError{Name: Redact(name), Stored: stored, Want: o.AnalyzerID}
	}
	return err
}

// Memory returns a new archive in memory (memstore) with the analyzer,
// distance and content threshold of opts (nil: the defaults), lean
// when opts ask for it.
func Memory(ctx context.Context, opts *Options) (*index.Index, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := memstore.New()
	if o.Lean {
		s = memstore.NewLean()
	}
	return index.New(ctx, s, &index.Options{AnalyzerID: o.AnalyzerID, Distance: o.Distance, MinContent: o.MinContent, Lean: o.Lean})
}

func open(ctx context.Context, name string, o Options) (*index.Index, error) {
	var s index.Store
	var err error
	if o.MustExist && !o.ReadOnly {
		ro := o
		ro.ReadOnly, ro.MustExist = true, false
		x, err := open(ctx, name, ro)
		if err != nil {
			return nil, err
		}
		x.Close()
	}
	if redisstore.IsURL(name) {
		s, err = redisstore.Open(ctx, name, &redisstore.Options{ReadOnly: o.ReadOnly, Lean: o.Lean})
	} else {
		s, err = badgerstore.Open(name, &badgerstore.Options{ReadOnly: o.ReadOnly, Logf: o.Logf, Lean: o.Lean, Compress: o.Compress, MemPostings: o.MemPostings})
	}
	if err != nil {
		return nil, err
	}
	return index.New(ctx, s, &index.Options{AnalyzerID: o.AnalyzerID, Distance: o.Distance, MinContent: o.MinContent})
}
