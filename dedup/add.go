package dedup

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/pipeline"
	"github.com/neardup/neardup/simhash"
)

// DefaultAddBatch is AddOptions.Batch's default.
const DefaultAddBatch = 1000

// AddOptions configure Add. The zero value (or nil) means the defaults.
type AddOptions struct {
	// Workers analyse records in parallel; 0 means GOMAXPROCS.
	Workers int
	// Keywords is how many of an article's keywords are stored with it;
	// 0 means 32, as Run stores.
	Keywords int
	// KeepText keeps each article's text in the archive (index.Doc.Text).
	KeepText bool
	// Batch is how many documents go to the archive in one Add; 0 means
	// DefaultAddBatch.
	Batch int
	// Now stamps the documents; nil means time.Now.
	Now func() time.Time
	// Prepare, when not nil, is called in input order with each
	// document before it is added, and its text: package reuse sets its
	// passage fingerprints (reuse.Index.Prepare). An error stops Add.
	Prepare func(d *index.Doc, text string) error
}

// Add analyses the records of r with a and adds them to x, in input
// order and in batches, without looking for duplicates (neardup add):
// a document whose ID x holds already replaces it. each, if not nil, is
// called in input order with every record read and why it is not added:
// nil for a record that is (by the time Add returns); a bad record
// (*input.RecordError), an input not read to its end (*input.Error), an
// invalid ID (wrapping index.ErrID) or an analysis error
// (neardup.ErrTooShort among them) for one that is not. An error from
// each, or from x, stops Add. Add returns how many records it added.
func Add(ctx context.Context, r *input.Reader, a *neardup.Analyzer, x *index.Index, opts *AddOptions, each func(rec *input.Record, err error) error) (int64, error) {
	var o AddOptions
	if opts != nil {
		o = *opts
	}
	if o.Keywords <= 0 {
		o.Keywords = 32
	}
	if o.Batch <= 0 {
		o.Batch = DefaultAddBatch
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if each == nil {
		each = func(*input.Record, error) error { return nil }
	}
	var added int64
	batch := make([]index.Doc, 0, o.Batch)
	flush := func() error {
		if err := x.Add(ctx, batch...); err != nil {
			return err
		}
		added += int64(len(batch))
		batch = batch[:0]
		return nil
	}
	check := func(rec *input.Record) error { return index.CheckID(rec.ID) }
	err := pipeline.Run(ctx, r, a, &pipeline.Options{Workers: o.Workers, Check: check}, func(it *pipeline.Item) error {
		if err := each(&it.Record, it.Err); err != nil || it.Err != nil {
			return err
		}
		d := DocOf(it.Analysis, it.Record.ID, it.Record.Title, o.Keywords)
		d.Added = o.Now().UTC()
		if o.KeepText {
			d.Text = it.Record.Text
		}
		if o.Prepare != nil {
			if err := o.Prepare(&d, it.Record.Text); err != nil {
				return err
			}
		}
		if batch = append(batch, d); len(batch) == o.Batch {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	return added, err
}

// AddAll adds docs to x: by index.Load when x holds no documents (a
// Badger archive then writes its tables directly, several times faster),
// and by Add in batches of DefaultAddBatch × 10 otherwise. It returns
// how many documents it added (replacing those with the same IDs).
func AddAll(ctx context.Context, x *index.Index, docs iter.Seq[index.Doc]) (int64, error) {
	st, err := x.Stats(ctx)
	if err != nil {
		return 0, err
	}
	var added int64
	if st.Docs == 0 {
		_, err := x.Load(ctx, func(yield func(index.Doc) bool) {
			for d := range docs {
				added++
				if !yield(d) {
					return
				}
			}
		})
		return added, err
	}
	const n = 10 * DefaultAddBatch
	batch := make([]index.Doc, 0, n)
	for d := range docs {
		if batch = append(batch, d); len(batch) == n {
			if err := x.Add(ctx, batch...); err != nil {
				return added, err
			}
			added += int64(len(batch))
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		if err := x.Add(ctx, batch...); err != nil {
			return added, err
		}
		added += int64(len(batch))
	}
	return added, nil
}

// AddFingerprints bulk-loads the fingerprint file r (named name in
// errors; lines "id<TAB>hex fingerprint", input.ReadFingerprints) into x
// through AddAll, the documents stamped now. A bad line goes to bad with
// its number and is skipped, unless bad returns an error, which stops
// the load and is returned. It returns how many documents it added.
func AddFingerprints(ctx context.Context, x *index.Index, r io.Reader, name string, now time.Time, bad func(line int, err error) error) (int64, error) {
	var readErr error
	errStop := errors.New("stop")
	n, err := AddAll(ctx, x, func(yield func(index.Doc) bool) {
		err := input.ReadFingerprints(ctx, r, name, func(line int, id string, fp simhash.Fingerprint, err error) error {
			if err != nil {
				return bad(line, err)
			}
			if !yield(index.Doc{ID: id, Fingerprint: fp, Added: now}) {
				return errStop
			}
			return nil
		})
		if err != errStop {
			readErr = err
		}
	})
	if err != nil {
		return n, err
	}
	return n, readErr
}
