// Package cputime owns the process CPU time the benchmarks report beside
// wall time: on a shared machine it measures work more steadily than
// wall time does.
package cputime
