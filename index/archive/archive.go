// Package archive opens the archive an --index names, whatever store
// keeps it: redis://HOST:PORT[,HOST:PORT...]/NAME (or rediss://) is an
// archive NAME on a Redis Cluster (redisstore), anything else a Badger
// directory (badgerstore).
package archive

import (
	"context"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
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
	// Logf, if not nil, receives the store's warnings.
	Logf func(format string, args ...any)
}

// Open opens the archive named by name, a Redis URL or a directory,
// creating it unless opts.ReadOnly.
func Open(ctx context.Context, name string, opts *Options) (*index.Index, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	var s index.Store
	var err error
	if o.MustExist && !o.ReadOnly {
		ro := o
		ro.ReadOnly, ro.MustExist = true, false
		x, err := Open(ctx, name, &ro)
		if err != nil {
			return nil, err
		}
		x.Close()
	}
	if redisstore.IsURL(name) {
		s, err = redisstore.Open(ctx, name, &redisstore.Options{ReadOnly: o.ReadOnly})
	} else {
		s, err = badgerstore.Open(name, &badgerstore.Options{ReadOnly: o.ReadOnly, Logf: o.Logf})
	}
	if err != nil {
		return nil, err
	}
	return index.New(ctx, s, &index.Options{AnalyzerID: o.AnalyzerID, Distance: o.Distance, MinContent: o.MinContent})
}
