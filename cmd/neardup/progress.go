package main

import (
	"io"

	prog "github.com/neardup/neardup/internal/progress"
)

// progress is dedup's progress line (a prog.Bar; nil draws nothing).
type progress prog.Bar

func startProgress(w io.Writer, total int64) *progress { return (*progress)(prog.Start(w, total)) }
func (p *progress) add(n int64)                        { (*prog.Bar)(p).Add(n) }
func (p *progress) finish()                            { (*prog.Bar)(p).Finish() }
func isTerminal(w io.Writer) bool                      { return prog.IsTerminal(w) }
func inputSize(paths []string) int64                   { return prog.InputSize(paths) }
