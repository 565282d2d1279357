package main

import (
	"fmt"

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
	} else if err = r.WriteText(c.App.Writer); err == nil && len(r.Damage) > 0 && r.Salvaged == nil {
		_, err = fmt.Fprintf(c.App.Writer, "%s damaged; copy what is readable with: neardup verify --index %s --salvage NEWDIR\n", dir, dir)
	}
	if err == nil && len(r.Damage) > 0 {
		return &exitStatus{code: exitError}
	}
	return err
}
