package main

import (
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/report"
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
	s := newSetup(c)
	defer s.close()
	dir := s.index()
	x := s.open(dir, nil, 0, 0, true)
	if s.err != nil {
		return s.err
	}
	st, err := x.Describe(c.Context, c.Bool("text"))
	if err != nil {
		return err
	}
	if set, ok := neardup.ParseID(st.AnalyzerID); ok {
		st.Settings = set
	}
	if c.Bool("json") {
		return writeJSON(c.App.Writer, struct {
			Index string `json:"index"`
			*index.Stats
		}{archive.Redact(dir), &st})
	}
	return report.WriteStats(c.App.Writer, &st, archive.Redact(dir))
}
