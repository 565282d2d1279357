//go:build callgrind && cgo

package main

// #include <valgrind/callgrind.h>
// static void cgZero(void) { CALLGRIND_ZERO_STATS; }
// static void cgDump(void) { CALLGRIND_DUMP_STATS_AT("analyzeAll"); }
import "C"

// callgrindZero and callgrindDump bracket the counted analyses: callgrind
// writes a dump of what ran between them (a no-op outside valgrind).
func callgrindZero() { C.cgZero() }
func callgrindDump() { C.cgDump() }
