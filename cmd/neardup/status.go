package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/input"
)

// strictFlag makes a bad record an error that stops the command.
func strictFlag() cli.Flag {
	return &cli.BoolFlag{DisableDefaultText: true, Name: "strict", Category: catInput,
		Usage: "stop with exit status 2 at the first bad record (rejected or too short)"}
}

// skips counts what a command skipped: bad records, and inputs that
// could not be read to their end. It applies the exit status rule.
type skips struct {
	ew     io.Writer
	strict bool
	// onSkip, if not nil, is called with each record skipped (not
	// stopped at), after it is reported on stderr: check reports it with
	// the articles.
	onSkip  func(rec *input.Record, err error) error
	records int64 // bad records: rejected, too short; not errors unless strict
	inputs  int64 // inputs not read to their end: errors
}

func newSkips(c *cli.Context) *skips {
	return &skips{ew: c.App.ErrWriter, strict: c.IsSet("strict") && c.Bool("strict")}
}

// note reports err (prefixed with where, if not empty) on stderr and
// counts it. With --strict a bad record is returned, to stop the
// command.
func (s *skips) note(where string, err error) error {
	return s.noteRecord(where, nil, err)
}

// noteRecord is note for the record rec (nil if unknown), which it
// passes to onSkip.
func (s *skips) noteRecord(where string, rec *input.Record, err error) error {
	if isInputErr(err) {
		s.inputs++
	} else {
		s.records++
		if s.strict {
			if where != "" {
				err = fmt.Errorf("%s: %w", where, err)
			}
			return &exitStatus{code: exitError, err: fmt.Errorf("--strict: %w", err)}
		}
	}
	if where != "" {
		fmt.Fprintf(s.ew, "neardup: %s: %v\n", where, err)
	} else {
		fmt.Fprintf(s.ew, "neardup: %v\n", err)
	}
	if s.onSkip != nil {
		return s.onSkip(rec, err)
	}
	return nil
}

// isInputErr reports whether err is an input that could not be read to
// its end.
func isInputErr(err error) bool {
	var ie *input.Error
	return errors.As(err, &ie)
}

// status returns nil, or the exit status 2 when an input could not be
// read to its end; what says what the output covers.
func (s *skips) status(what string) error {
	if s.inputs > 0 {
		return &exitStatus{code: exitError, err: fmt.Errorf("%s could not be read to the end; %s",
			plural(s.inputs, "input", "inputs"), what)}
	}
	return nil
}

// maxShown is how many bad records (or lines) dedup and url dedup show
// on stderr.
const maxShown = 10

// badEnd writes the last word on the bad records (or lines: noun) and
// unreadable inputs of a run, bad of them: the rejects file they were
// written to, or how many of the shown bad records were not shown.
func badEnd(w io.Writer, prefix, noun string, bad int64, rejects string, shown int64) {
	switch {
	case bad == 0:
	case rejects != "":
		fmt.Fprintf(w, "%s%s written to %s\n", prefix, plural(bad, "bad "+noun+" or input", "bad "+noun+"s or inputs"), rejects)
	case shown > maxShown:
		fmt.Fprintf(w, "%s%d more bad %ss not shown (write them all with --rejects FILE)\n", prefix, shown-maxShown, noun)
	}
}
