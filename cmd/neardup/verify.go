package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/redisstore"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check every table and record of an index; salvage what is readable",
		Description: `Reads every table file of the Badger index in --index DIR block by block (verifying each block's
checksum), then every key through Badger, and decodes every document record. It writes nothing and
exits 0 when the index is whole, 2 when something is damaged, naming each damaged file and block.

With --salvage NEWDIR, the document records that can still be read go into a new index in NEWDIR
(same layout and analyzer; filed again under all their keys). A record in a damaged block is lost,
and one deleted in a damaged block may come back. Replace the damaged index with the new one, then
re-add the lost documents (or re-run dedup --index on their inputs).`,
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
	dir, err := indexDir(c)
	if err != nil {
		return err
	}
	if redisstore.IsURL(dir) {
		return usagef(c, "--index %s: verify reads Badger directories only", dir)
	}
	var r *badgerstore.Report
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
