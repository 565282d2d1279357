package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/redisstore"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:        "verify",
		Usage:       "check every table and record of an index; salvage what is readable",
		Description: description("verify"),
		Flags: []cli.Flag{
			indexFlag("Badger index `DIR` to verify (it must exist)"),
			&cli.StringFlag{Name: "salvage", Usage: "copy the readable records into a new index in `NEWDIR`"},
			jsonFlag(),
		},
		Action: runVerify,
	}
}

func runVerify(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef(c, "unexpected argument %q", c.Args().First())
	}
	s := newSetup(c)
	defer s.close()
	dir := s.index()
	if s.err != nil {
		return s.err
	}
	if redisstore.IsURL(dir) {
		return usagef(c, "--index %s: verify reads Badger directories only", archive.Redact(dir))
	}
	var r *badgerstore.Report
	var err error
	if out := c.String("salvage"); out != "" {
		r, _, err = badgerstore.Salvage(c.Context, dir, out, nil)
	} else {
		r, err = badgerstore.Verify(c.Context, dir)
	}
	if err != nil {
		return err
	}
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, r)
	} else if err = writeVerify(c.App.Writer, r); err == nil && len(r.Damage) > 0 && r.Salvaged == nil {
		_, err = fmt.Fprintf(c.App.Writer, "%s damaged; copy what is readable with: neardup verify --index %s --salvage NEWDIR\n", dir, dir)
	}
	if err == nil && len(r.Damage) > 0 {
		return &exitStatus{code: exitError}
	}
	return err
}

// writeVerify writes r for people: what was read, each damage, and
// what was salvaged into where, or "no damage found".
func writeVerify(w io.Writer, r *badgerstore.Report) error {
	var b strings.Builder
	records := plural(r.Records, "record", "records")
	if len(r.Damage) > 0 && r.Salvaged == nil {
		records = "records not decoded"
	}
	fmt.Fprintf(&b, "%s: %s, %s, %s\n", r.Dir, plural(int64(r.Tables), "table", "tables"), plural(r.Entries, "entry", "entries"), records)
	for _, d := range r.Damage {
		fmt.Fprintf(&b, "  damaged: %s\n", d)
	}
	switch {
	case r.Salvaged != nil:
		fmt.Fprintf(&b, "salvaged %s into %s\n", plural(int64(*r.Salvaged), "document", "documents"), r.Into)
	case len(r.Damage) == 0:
		b.WriteString("no damage found\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
