package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/reuse"
	"github.com/neardup/neardup/simhash"
)

// checkJSON is a line of check --json: the report, and with --reuse the
// archived articles that share passages with it.
type checkJSON struct {
	report.Check
	Reuse *reuse.Answer `json:"reuse,omitempty"`
}

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:        "check",
		Usage:       "have we published this before? look an article up in the archive index",
		ArgsUsage:   "[FILE...|-]",
		Description: description("check"),
		Flags: flags([]cli.Flag{
			indexFlag("archive `DIR|URL` to check against (a Badger directory, or redis://HOST:PORT[,HOST:PORT...]/NAME on a Redis Cluster; --add creates it when missing)"),
			&cli.BoolFlag{DisableDefaultText: true, Name: "add", Category: catIndex, Usage: "add each article without a near-duplicate to the index"},
			leanFlag(false),
			&cli.StringFlag{Name: "id", Category: catInput,
				Usage: "`ID` of the article (default: its JSONL id, else the file name); for a single article"},
			&cli.StringFlag{Name: "fingerprint", Category: catInput,
				Usage: "look up the precomputed fingerprint `HEX` (16 hex digits) instead of an article: SimHash only, no content check"},
			strictFlag(),
			progressFlag(),
			jsonFlag(),
			&cli.IntFlag{Name: "keywords", Value: 10, Category: catOutput,
				Usage: "shared keywords to list per match in text output (0: all)"},
			reuseFlag("also list the archived articles that share passages with it (partial reuse: the archive needs a reuse index; with --add, texts are kept)"),
		}, analyzerFlags(), inputFlags(), matchFlags(), reuseFlags()),
		Action: runCheck,
	}
}

func runCheck(c *cli.Context) error {
	s := newSetup(c)
	defer s.close()
	dir, k, minJ := s.index(), s.indexDistance(), s.minContent()
	hex := c.String("fingerprint")
	if hex != "" && (c.NArg() > 0 || c.Bool("add") || c.IsSet("id")) {
		s.fail("--fingerprint checks a fingerprint alone: no FILE, --add or --id")
	}
	if hex != "" {
		return checkFingerprint(s, dir, hex, k)
	}
	add := c.Bool("add")
	inOpts, a := s.input(), s.analyzer()
	x := s.open(dir, a, k, minJ, !add)
	var ri *reuse.Index
	if withReuse := c.Bool("reuse"); withReuse || add {
		ri = s.openReuse(dir, x, a, withReuse)
	}
	if s.err != nil {
		return s.err
	}

	st, err := x.Stats(c.Context)
	if err != nil {
		return err
	}
	ck := &checker{c: c, x: x, ri: ri, k: k, add: add, id: c.String("id"), asJSON: c.Bool("json"), keywords: c.Int("keywords"),
		archive: archive.Redact(dir), lean: st.Lean}
	r := input.NewReader(inputArgs(c), c.App.Reader, inOpts)
	defer r.Close()
	defer noteSkipped(c, "neardup check: ", r)
	sk := newSkips(c)
	sk.onSkip = ck.skipped
	if err := analyzeEach(c, r, a, sk, ck.check); err != nil {
		return err
	}
	sum := &ck.sum
	if sum.Unchecked = sk.records + sk.inputs; !ck.asJSON {
		if err := sum.WriteText(c.App.Writer, ck.archive); err != nil {
			return err
		}
	}
	if err := x.Close(); err != nil {
		return err
	}
	if err := sk.status(fmt.Sprintf("%s of the articles read had near-duplicates", formatCount(sum.Found))); err != nil {
		return err
	}
	switch {
	case sum.NotAdded > 0:
		return &exitStatus{code: exitError, err: fmt.Errorf("%s could not be added", plural(sum.NotAdded, "article", "articles"))}
	case sum.Found > 0:
		return &exitStatus{code: exitFound}
	}
	return nil
}

// checker checks the articles of a neardup check run against the
// archive x, one at a time, and writes their reports.
type checker struct {
	c        *cli.Context
	x        *index.Index
	ri       *reuse.Index // nil without --reuse or --add on an archive without one
	k        int
	add      bool
	id       string // --id
	asJSON   bool
	keywords int    // --keywords
	archive  string // the archive's name, redacted
	lean     bool   // the archive is lean (index.Stats.Lean)
	sum      report.CheckSummary
}

// skipped writes the report of an article that was not checked.
func (ck *checker) skipped(rec *input.Record, err error) error {
	rep := report.Unchecked(rec, err)
	if ck.asJSON {
		return writeJSON(ck.c.App.Writer, rep)
	}
	return rep.WriteText(ck.c.App.Writer, ck.archive, ck.keywords)
}

// check checks the nth article read, rec, analysed as an.
func (ck *checker) check(n int64, rec *input.Record, an *neardup.Analysis) error {
	if ck.id != "" {
		if n > 0 {
			return usagef(ck.c, "--id names a single article, but the input holds more than one")
		}
		rec.ID = ck.id
	}
	doc := dedup.DocOf(an, rec.ID, rec.Title, storedKeywords)
	doc.Added = time.Now().UTC()
	reused, err := ck.passages(&doc, rec)
	if err != nil {
		return err
	}
	res, err := dedup.Check(ck.c.Context, ck.x, &doc, ck.k, ck.add && rec.ID != "-")
	if err != nil {
		return err
	}
	if ck.add && rec.ID == "-" && len(res.Matches) == 0 {
		res.NotAdded = errors.New("an article from standard input needs an id: give --id ID")
	}
	if res.NotAdded != nil {
		fmt.Fprintf(ck.c.App.ErrWriter, "neardup: %s: not added: %v\n", rec.Name(), res.NotAdded)
	}
	res.Tally(&ck.sum)
	rep := res.Report(rec.ID, an)
	rep.Title, rep.Source, rep.Line, rep.Lean = rec.Title, rec.Source, rec.Line, ck.lean
	w := ck.c.App.Writer
	if ck.asJSON {
		return writeJSON(w, checkJSON{rep, reused})
	}
	if err := rep.WriteText(w, ck.archive, ck.keywords); err != nil || reused == nil {
		return err
	}
	return reused.WriteText(w, rec.Name())
}

// passages finds the archived articles that share passages with rec
// when the archive has a reuse index, filing rec's passages and text
// in doc; it returns the answer for --reuse, nil otherwise.
func (ck *checker) passages(doc *index.Doc, rec *input.Record) (*reuse.Answer, error) {
	if ck.ri == nil {
		return nil, nil
	}
	ans, err := ck.ri.Find(ck.c.Context, rec.Text, rec.ID)
	if err != nil {
		return nil, err
	}
	doc.Passages, doc.Text = ans.File, rec.Text
	if ck.c.Bool("reuse") {
		return &ans, nil
	}
	return nil, nil
}

// checkFingerprint looks up a precomputed fingerprint.
func checkFingerprint(s *setup, dir, hex string, k int) error {
	fp, err := simhash.Parse(hex)
	if err != nil {
		s.fail("--fingerprint: %v", err)
	}
	x := s.open(dir, nil, k, 0, true)
	if s.err != nil {
		return s.err
	}
	c := s.c
	ms, err := dedup.CheckFingerprint(c.Context, x, fp, k)
	if err != nil {
		return err
	}
	rep := report.NewFingerprint(fp, k, ms)
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, rep)
	} else {
		err = rep.WriteText(c.App.Writer, archive.Redact(dir))
	}
	if err != nil {
		return err
	}
	if len(ms) > 0 {
		return &exitStatus{code: exitFound}
	}
	return nil
}
