// Package archive opens the archive an --index names, whatever store
// keeps it: a directory is a Badger archive (badgerstore). It owns the
// policy of laying a new archive out for the distance its users will
// query, and of refusing an archive that cannot answer it.
package archive

import (
	"context"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
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
	// Logf, if not nil, receives the store's warnings.
	Logf func(format string, args ...any)
}

// Open opens the archive named by name, a directory, creating it unless
// opts.ReadOnly.
func Open(ctx context.Context, name string, opts *Options) (*index.Index, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	s, err := badgerstore.Open(name, &badgerstore.Options{ReadOnly: o.ReadOnly, Logf: o.Logf})
	if err != nil {
		return nil, err
	}
	return index.New(ctx, s, &index.Options{AnalyzerID: o.AnalyzerID, Distance: o.Distance, MinContent: o.MinContent})
}
