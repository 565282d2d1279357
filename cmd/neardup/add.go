package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/pipeline"
	"github.com/neardup/neardup/simhash"
)

func addCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "add articles (or precomputed fingerprints) to a persistent index",
		ArgsUsage: "INPUT...",
		Description: `Fingerprints the articles of the inputs (files, directories, or - for standard input) and adds
them to the index in --index DIR (or $NEARDUP_INDEX), creating it when the directory is missing or
empty. An article's id is its JSONL id field, or the file's path; adding an id the index holds
already replaces that document. add does not look for duplicates: use check --add or dedup --index
for that.

--fingerprints FILE (- for standard input) bulk-loads lines "id<TAB>fingerprint" (16 hex digits)
made by the same analyzer settings, without texts: such documents have no keywords or content sketch,
so their matches cannot be confirmed by content. Into an index that holds no documents they are
loaded in sorted passes that write the index's tables directly (several times faster than adding
them one batch at a time; an interrupted load is completed by running the same command again).

Articles that cannot be added (bad records, or too short to fingerprint) and bad fingerprint lines
are reported on stderr with their file and line and counted; the others are added.

` + exitRule,
		Flags: flags([]cli.Flag{
			indexFlag("archive `DIR|URL` (a Badger directory, or redis://HOST:PORT[,HOST:PORT...]/NAME on a Redis Cluster; created when missing)"),
			&cli.StringFlag{Name: "fingerprints", Category: catIndex, TakesFile: true,
				Usage: "bulk-load \"id<TAB>hex fingerprint\" lines from `FILE`"},
			&cli.BoolFlag{DisableDefaultText: true, Name: "keep-text", Category: catIndex,
				Usage: "keep each article's text in the archive (compressed), for neardup serve's shared-passage view"},
			workersFlag(),
			strictFlag(),
			progressFlag(),
			jsonFlag(),
		}, analyzerFlags(), inputFlags(), []cli.Flag{maxDistanceFlag()}),
		Action: runAdd,
	}
}

// Batch sizes: analysed articles are added in batches of addBatch, bulk
// fingerprints in batches of fingerprintBatch.
const (
	addBatch         = 1000
	fingerprintBatch = 10000
)

// addJSON is add's --json summary.
type addJSON struct {
	Index    string `json:"index"`
	Added    int64  `json:"added"`
	Replaced int64  `json:"replaced"`
	Failed   int64  `json:"failed"`
	Docs     int64  `json:"docs"`
}

func runAdd(c *cli.Context) error {
	dir, err := indexDir(c)
	if err != nil {
		return err
	}
	fpFile := c.String("fingerprints")
	if c.NArg() == 0 && fpFile == "" {
		return usagef(c, "nothing to add: give INPUT... or --fingerprints FILE")
	}
	if c.NArg() > 0 && c.Args().First() == "-" && fpFile == "-" {
		return usagef(c, "only one of INPUT and --fingerprints can be standard input")
	}
	k, err := indexDistance(c)
	if err != nil {
		return err
	}
	nw, err := workers(c)
	if err != nil {
		return err
	}
	inOpts, err := inputOptions(c)
	if err != nil {
		return err
	}
	a, err := newAnalyzer(c)
	if err != nil {
		return err
	}
	defer closeAnalyzer(c, a)
	x, err := openIndex(c.Context, dir, a.ID(), k, 0, false)
	if err != nil {
		return err
	}
	defer x.Close()

	before, err := x.Stats(c.Context)
	if err != nil {
		return err
	}
	ad := &adder{ctx: c.Context, x: x, sk: newSkips(c), now: time.Now}
	if fpFile != "" {
		if err := ad.addFingerprints(c, fpFile); err != nil {
			return err
		}
	}
	if c.NArg() > 0 {
		r := input.NewReader(c.Args().Slice(), c.App.Reader, inOpts)
		defer r.Close()
		if err := ad.addArticles(c, r, a, nw); err != nil {
			return err
		}
	}
	st, err := x.Stats(c.Context)
	if err != nil {
		return err
	}
	if err := x.Close(); err != nil {
		return err
	}
	// add is the archive's only writer (it holds it open alone): what
	// it added beyond the growth replaced documents with the same ids.
	ad.replaced = ad.added - (st.Docs - before.Docs)
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, addJSON{Index: dir, Added: ad.added, Replaced: ad.replaced, Failed: ad.failed, Docs: st.Docs})
	} else {
		msg := fmt.Sprintf("added %s to %s", plural(ad.added, "document", "documents"), dir)
		if ad.replaced > 0 {
			msg += fmt.Sprintf(" (%s replaced a document with the same id)", formatCount(ad.replaced))
		}
		_, err = fmt.Fprintf(c.App.Writer, "%s; the index holds %s\n", msg, plural(st.Docs, "document", "documents"))
	}
	if err != nil {
		return err
	}
	if ad.failed > 0 {
		fmt.Fprintf(c.App.ErrWriter, "neardup: %s not added (see above)\n", plural(ad.failed, "record", "records"))
	}
	return ad.sk.status("the records read were added")
}

// adder adds documents to an index and counts them.
type adder struct {
	ctx                     context.Context
	x                       *index.Index
	sk                      *skips
	now                     func() time.Time
	added, replaced, failed int64
}

// fail reports a record that was not added (see skips.note).
func (ad *adder) fail(where string, err error) error {
	if !isInputErr(err) {
		ad.failed++
	}
	return ad.sk.note(where, err)
}

// add adds a batch, counting the documents it replaces (an id already in
// the index, or repeated in the batch) from the index's size before and
// after.
func (ad *adder) add(docs []index.Doc) error {
	if err := ad.x.Add(ad.ctx, docs...); err != nil {
		return err
	}
	ad.added += int64(len(docs))
	return nil
}

// addArticles analyses the records of r with nw workers and adds them
// in batches of addBatch, reporting the records that fail in input
// order.
func (ad *adder) addArticles(c *cli.Context, r *input.Reader, a *neardup.Analyzer, nw int) error {
	batch := make([]index.Doc, 0, addBatch)
	check := func(rec *input.Record) error {
		if err := index.CheckID(rec.ID); err != nil {
			return fmt.Errorf("%s: %w", recordName(rec), err)
		}
		return nil
	}
	bar := progressBar(c, c.Args().Slice())
	defer bar.Finish()
	keepText := c.Bool("keep-text")
	err := pipeline.Run(c.Context, r, a, &pipeline.Options{Workers: nw, Check: check}, func(it *pipeline.Item) error {
		bar.AddRecord(&it.Record, it.Err)
		switch {
		case it.Err != nil && (pipeline.IsRecordErr(it.Err) || errors.Is(it.Err, index.ErrID)):
			return ad.fail("", it.Err)
		case it.Err != nil:
			return ad.fail(recordName(&it.Record), it.Err)
		}
		d := it.Analysis.Doc(it.Record.ID, it.Record.Title, storedKeywords)
		d.Added = ad.now().UTC()
		if keepText {
			d.Text = it.Record.Text
		}
		if batch = append(batch, d); len(batch) == addBatch {
			err := ad.add(batch)
			batch = batch[:0]
			return err
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = ad.add(batch)
	}
	return err
}

// addFingerprints bulk-loads "id<TAB>hex" lines from path ("-": stdin):
// with index.Load into an index that holds no documents, in batches of
// fingerprintBatch with Add otherwise.
func (ad *adder) addFingerprints(c *cli.Context, path string) error {
	var in io.Reader = c.App.Reader
	name := "stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in, name = f, path
	}
	docs, readErr := ad.fingerprintDocs(c, in, name)
	st, err := ad.x.Stats(c.Context)
	if err != nil {
		return err
	}
	if st.Docs == 0 {
		var read int64
		_, err := ad.x.Load(c.Context, func(yield func(index.Doc) bool) {
			for d := range docs {
				read++
				if !yield(d) {
					return
				}
			}
		})
		if err != nil {
			return err
		}
		ad.added += read
		return readErr()
	}
	batch := make([]index.Doc, 0, fingerprintBatch)
	for d := range docs {
		batch = append(batch, d)
		if len(batch) == fingerprintBatch {
			if err := ad.add(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := readErr(); err != nil {
		return err
	}
	if len(batch) > 0 {
		return ad.add(batch)
	}
	return nil
}

// fingerprintDocs returns the documents of the "id<TAB>hex" lines of in,
// reporting bad lines as it goes, and a function that returns the error
// that ended the sequence early, if any (a read error or an interrupt).
func (ad *adder) fingerprintDocs(c *cli.Context, in io.Reader, name string) (iter.Seq[index.Doc], func() error) {
	var readErr error
	errStop := errors.New("stop")
	seq := func(yield func(index.Doc) bool) {
		added := ad.now().UTC()
		err := input.ReadFingerprints(c.Context, in, name, func(line int, id string, fp simhash.Fingerprint, err error) error {
			if err != nil {
				return ad.fail(fmt.Sprintf("%s:%d", name, line), err)
			}
			if !yield(index.Doc{ID: id, Fingerprint: fp, Added: added}) {
				return errStop
			}
			return nil
		})
		if err != nil && err != errStop {
			readErr = err
		}
	}
	return seq, func() error { return readErr }
}
