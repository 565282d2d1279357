package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/report"
)

func deleteCommand() *cli.Command {
	return &cli.Command{
		Name:        "delete",
		Aliases:     []string{"rm"},
		Usage:       "delete documents from an index",
		ArgsUsage:   "ID...",
		Description: description("delete"),
		Flags:       []cli.Flag{indexFlag("archive `DIR|URL` (a Badger directory, or redis://HOST:PORT[,HOST:PORT...]/NAME on a Redis Cluster; it must exist)"), jsonFlag()},
		Action:      runDelete,
	}
}

func runDelete(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef(c, "no ids to delete")
	}
	s := newSetup(c)
	defer s.close()
	dir := s.index()
	if s.err != nil {
		return s.err
	}
	x, err := archive.Open(c.Context, dir, &archive.Options{MustExist: true})
	if errors.Is(err, index.ErrNotFound) {
		return fmt.Errorf("no index in %s", archive.Redact(dir))
	}
	if err != nil {
		return err
	}
	defer x.Close()
	d, err := x.DeleteFound(c.Context, c.Args().Slice()...)
	if err == nil {
		err = x.Close()
	}
	if err != nil {
		return err
	}
	for _, id := range d.Missing {
		fmt.Fprintf(c.App.ErrWriter, "neardup: delete %s: no such document in %s\n", input.QuoteID(id), archive.Redact(dir))
	}
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, d)
	} else {
		err = report.WriteDeletion(c.App.Writer, &d, archive.Redact(dir))
	}
	if err == nil && len(d.Missing) > 0 {
		return &exitStatus{code: exitError, err: fmt.Errorf("%s not found", plural(int64(len(d.Missing)), "id", "ids"))}
	}
	return err
}
