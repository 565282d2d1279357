package eval

import (
	"context"
	"errors"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/pipeline"
)

// Corpus is what AnalyzeCorpus found in a corpus: the documents to
// evaluate the detector on.
type Corpus struct {
	// Docs are the fingerprinted records in input order, with ID,
	// Fingerprint, ContentHash and Sketch set.
	Docs []index.Doc
	// TooShort are the IDs of the records with too few keywords to
	// fingerprint (neardup.ErrTooShort), in input order. The detector never
	// matches them.
	TooShort []string
	// Rejected are the bad records (*input.RecordError) and the records
	// Analyze failed on otherwise, in input order.
	Rejected []error
}

// AnalyzeCorpus reads every record of r and analyses them with a, with
// workers goroutines (0 means GOMAXPROCS); the result does not depend on
// workers. Bad records are collected in Corpus.Rejected; an input that
// cannot be read to its end (*input.Error), an invalid Reader or two
// records with the same ID are errors. each, when not nil, is called
// with every record read, in input order, and its error (nil, a bad
// record's, or neardup.ErrTooShort's): for a progress line. The record
// of a bad one is empty; its *input.RecordError says where it is.
func AnalyzeCorpus(ctx context.Context, r *input.Reader, a *neardup.Analyzer, workers int, each func(*input.Record, error)) (*Corpus, error) {
	c := &Corpus{}
	where := make(map[string]string) // id → record location
	err := pipeline.Run(ctx, r, a, &pipeline.Options{Workers: workers}, func(it *pipeline.Item) error {
		if each != nil {
			each(&it.Record, it.Err)
		}
		var re *input.RecordError
		rec := &it.Record
		switch {
		case errors.As(it.Err, &re):
			c.Rejected = append(c.Rejected, it.Err)
			return nil
		case it.Err != nil && pipeline.IsRecordErr(it.Err):
			return it.Err // an input not read to its end
		case it.Err != nil && !errors.Is(it.Err, neardup.ErrTooShort):
			c.Rejected = append(c.Rejected, fmt.Errorf("%s: %w", rec.Location(), it.Err))
			return nil
		}
		if prev, ok := where[rec.ID]; ok {
			return fmt.Errorf("%s: duplicate id %q (first at %s): pairs would be ambiguous", rec.Location(), input.ShortID(rec.ID), prev)
		}
		where[rec.ID] = rec.Location()
		if it.Err != nil {
			c.TooShort = append(c.TooShort, rec.ID)
			return nil
		}
		c.Docs = append(c.Docs, dedup.DocOf(it.Analysis, rec.ID, "", 0))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}
