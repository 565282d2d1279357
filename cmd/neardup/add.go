package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/pipeline"
	"github.com/neardup/neardup/report"
)

func addCommand() *cli.Command {
	return &cli.Command{
		Name:        "add",
		Usage:       "add articles (or precomputed fingerprints) to a persistent index",
		ArgsUsage:   "INPUT...",
		Description: description("add") + description("exit-status"),
		Flags: flags([]cli.Flag{
			indexFlag("archive `DIR|URL` (a Badger directory, or redis://HOST:PORT[,HOST:PORT...]/NAME on a Redis Cluster; created when missing)"),
			&cli.StringFlag{Name: "fingerprints", Category: catIndex, TakesFile: true,
				Usage: "bulk-load \"id<TAB>hex fingerprint\" lines from `FILE`"},
			&cli.BoolFlag{DisableDefaultText: true, Name: "keep-text", Category: catIndex,
				Usage: "keep each article's text in the archive (compressed), for neardup serve's shared-passage view"},
			leanFlag(false),
			reuseFlag("file each article's passage fingerprints too (partial reuse: check --reuse); a reuse index is made only when the archive is created, and wants --keep-text for shares and passages measured on the texts"),
			workersFlag(),
			strictFlag(),
			progressFlag(),
			jsonFlag(),
		}, analyzerFlags(), inputFlags(), []cli.Flag{maxDistanceFlag()}, reuseFlags()),
		Action: runAdd,
	}
}

func runAdd(c *cli.Context) error {
	s := newSetup(c)
	defer s.close()
	dir := s.index()
	fpFile := c.String("fingerprints")
	switch {
	case c.NArg() == 0 && fpFile == "":
		s.fail("nothing to add: give INPUT... or --fingerprints FILE")
	case c.NArg() > 0 && c.Args().First() == "-" && fpFile == "-":
		s.fail("only one of INPUT and --fingerprints can be standard input")
	}
	k, nw, inOpts := s.indexDistance(), s.atLeast1("workers"), s.input()
	a := s.analyzer()
	x := s.open(dir, a, k, 0, false)
	opts := &dedup.AddOptions{Workers: nw, Keywords: storedKeywords, KeepText: c.Bool("keep-text")}
	if ri := s.openReuse(dir, x, a, c.Bool("reuse")); ri != nil {
		opts.Prepare = func(d *index.Doc, text string) error { return ri.Prepare(c.Context, d, text) }
		if fpFile != "" {
			s.fail("index %s has a reuse index, which bare fingerprints cannot fill (they carry no text): add the articles instead of --fingerprints", dir)
		}
	}
	if s.err != nil {
		return s.err
	}

	before, err := x.Stats(c.Context)
	if err != nil {
		return err
	}
	sk := newSkips(c)
	var added int64
	if fpFile != "" {
		n, err := addFingerprints(c, x, fpFile, sk)
		if added += n; err != nil {
			return err
		}
	}
	if c.NArg() > 0 {
		r := input.NewReader(c.Args().Slice(), c.App.Reader, inOpts)
		defer r.Close()
		defer noteSkipped(c, "neardup add: ", r)
		bar := progressBar(c, r, c.Args().Slice())
		n, err := dedup.Add(c.Context, r, a, x, opts,
			func(rec *input.Record, err error) error {
				countRecord(bar, rec, err)
				switch {
				case err == nil:
					return nil
				case pipeline.IsRecordErr(err):
					return sk.note("", err)
				}
				return sk.note(rec.Name(), err)
			})
		bar.Finish()
		if added += n; err != nil {
			return err
		}
	}
	return endAdd(c, x, archive.Redact(dir), before.Docs, added, sk)
}

// endAdd closes x, the archive named name that held before documents
// when add began and added added, and writes what add did: on stdout,
// as text or with --json; the records not added on stderr.
func endAdd(c *cli.Context, x *index.Index, name string, before, added int64, sk *skips) error {
	st, err := x.Stats(c.Context)
	if err != nil {
		return err
	}
	if err := x.Close(); err != nil {
		return err
	}
	// add is the archive's only writer (it holds it open alone): what
	// it added beyond the growth replaced documents with the same ids.
	sum := report.AddSummary{Index: name, Added: added, Replaced: added - (st.Docs - before), Failed: sk.records, Docs: st.Docs}
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, sum)
	} else {
		err = sum.WriteText(c.App.Writer)
	}
	if err != nil {
		return err
	}
	if sk.records > 0 {
		fmt.Fprintf(c.App.ErrWriter, "neardup: %s not added (see above)\n", plural(sk.records, "record", "records"))
	}
	return sk.status("the records read were added")
}

// addFingerprints bulk-loads the "id<TAB>hex" lines of path ("-":
// stdin) into x, noting the bad lines in sk.
func addFingerprints(c *cli.Context, x *index.Index, path string, sk *skips) (int64, error) {
	var in io.Reader = c.App.Reader
	name := "stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		in, name = f, path
	}
	return dedup.AddFingerprints(c.Context, x, in, name, time.Now().UTC(), func(line int, err error) error {
		return sk.note(fmt.Sprintf("%s:%d", name, line), err)
	})
}
