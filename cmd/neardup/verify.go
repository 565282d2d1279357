package main

import (
	"fmt"
	"strings"

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

// verifyJSON is verify --json.
type verifyJSON struct {
	Index    string   `json:"index"`
	Tables   int      `json:"tables"`
	Entries  int64    `json:"entries"`
	Records  int64    `json:"records"`
	Damage   []string `json:"damage"`
	Salvaged *int     `json:"salvaged,omitempty"`
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
	var salvaged *int
	if out := c.String("salvage"); out != "" {
		var n int
		r, n, err = badgerstore.Salvage(c.Context, dir, out, nil)
		if err != nil {
			return err
		}
		salvaged = &n
	} else if r, err = badgerstore.Verify(c.Context, dir); err != nil {
		return err
	}
	j := verifyJSON{Index: dir, Tables: r.Tables, Entries: r.Entries, Records: r.Records, Damage: []string{}, Salvaged: salvaged}
	for _, d := range r.Damage {
		j.Damage = append(j.Damage, d.String())
	}
	if c.Bool("json") {
		if err := writeJSON(c.App.Writer, j); err != nil {
			return err
		}
	} else {
		var b strings.Builder
		records := plural(r.Records, "record", "records")
		if len(r.Damage) > 0 && salvaged == nil {
			records = "records not decoded"
		}
		fmt.Fprintf(&b, "%s: %s, %s, %s\n", dir, plural(int64(r.Tables), "table", "tables"), plural(r.Entries, "entry", "entries"), records)
		for _, d := range j.Damage {
			fmt.Fprintf(&b, "  damaged: %s\n", d)
		}
		switch {
		case salvaged != nil:
			fmt.Fprintf(&b, "salvaged %s into %s\n", plural(int64(*salvaged), "document", "documents"), c.String("salvage"))
		case len(j.Damage) == 0:
			fmt.Fprintf(&b, "no damage found\n")
		default:
			fmt.Fprintf(&b, "%s damaged; copy what is readable with: neardup verify --index %s --salvage NEWDIR\n", dir, dir)
		}
		if _, err := fmt.Fprint(c.App.Writer, b.String()); err != nil {
			return err
		}
	}
	if len(r.Damage) > 0 {
		return &exitStatus{code: exitError}
	}
	return nil
}
