package main

import (
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/urfave/cli/v2"
)

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:        "stats",
		Usage:       "describe an index",
		Description: description("stats"),
		Flags: []cli.Flag{indexFlag("archive `DIR|URL` (a Badger directory, or redis://HOST:PORT[,HOST:PORT...]/NAME on a Redis Cluster; it must exist)"), jsonFlag(),
			&cli.BoolFlag{DisableDefaultText: true, Name: "text", Category: catOutput, Usage: "count the kept article texts and their compressed size (reads every record)"}},
		Action: runStats,
	}
}

func runStats(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef(c, "unexpected argument %q", c.Args().First())
	}
	f := &flagReader{c: c}
	dir := f.index()
	if f.err != nil {
		return f.err
	}
	x, err := openIndex(c.Context, dir, "", 0, 0, true)
	if err != nil {
		return err
	}
	defer x.Close()
	s, err := x.Describe(c.Context, c.Bool("text"))
	if err != nil {
		return err
	}
	if st, ok := neardup.ParseID(s.AnalyzerID); ok {
		s.Settings = st
	}
	if c.Bool("json") {
		return writeJSON(c.App.Writer, struct {
			Index string `json:"index"`
			*index.Stats
		}{dir, &s})
	}
	return s.WriteText(c.App.Writer, dir)
}
