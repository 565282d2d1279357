package main

import (
	"fmt"

	"github.com/neardup/neardup/input"
	prog "github.com/neardup/neardup/internal/progress"
	"github.com/urfave/cli/v2"
)

// progressBar returns the progress line of a command reading paths
// with r, on stderr: with --progress auto (the default) when stderr is
// a terminal and the command's output is not (the line would be drawn
// over its lines); always; or never (nil draws nothing). Its percent
// and ETA are of the input files' bytes read (input.Size, r.Done),
// compressed or not, directories walked.
func progressBar(c *cli.Context, r *input.Reader, paths []string) *prog.Bar {
	var bar *prog.Bar
	switch c.String("progress") {
	case "always":
		bar = prog.Start(c.App.ErrWriter, input.Size(paths))
	case "never":
		return nil
	default:
		if prog.IsTerminal(c.App.Writer) {
			return nil
		}
		bar = prog.ForSize(c.App.ErrWriter, input.Size(paths))
	}
	bar.Follow(r.Done)
	return bar
}

// progressFlag is the hidden --progress of the commands that draw one.
func progressFlag() cli.Flag {
	return &cli.StringFlag{Name: "progress", Value: "auto", Category: catOutput, Hidden: true,
		Usage: "progress line on stderr: auto (when a terminal), always or never",
		Action: func(c *cli.Context, p string) error {
			if p != "auto" && p != "always" && p != "never" {
				return usagef(c, "--progress %q: want auto, always or never", p)
			}
			return nil
		}}
}

// countRecord counts on bar (nil: none) a record read with err.
func countRecord(bar *prog.Bar, rec *input.Record, err error) {
	bar.Add(input.RecordBytes(rec, err))
}

// noteSkipped says on stderr, after prefix, how many WARC records r
// skipped as not pages, if any.
func noteSkipped(c *cli.Context, prefix string, r *input.Reader) {
	if s := input.SkippedText(r.Skipped()); s != "" {
		fmt.Fprintln(c.App.ErrWriter, prefix+s)
	}
}
