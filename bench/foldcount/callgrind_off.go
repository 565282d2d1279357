//go:build !callgrind || !cgo

package main

// Without the callgrind build tag (or cgo) nothing marks the counted
// analyses; bench/foldcount.sh builds with -tags callgrind.
func callgrindZero() {}
func callgrindDump() {}
