package main

import (
	"bufio"
	"bytes"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
)

// A run's soft memory limit. The archive a batch run builds is live
// until its end (about 600 bytes an archived document in memory, about
// 1 kB with --index on Badger), and the Go collector lets the heap grow
// to twice what is live before it collects: at 10^7 articles on Badger
// that took the peak RSS to 26 GiB on a 24 GB machine (docs/capacity.md).
// Unless GOMEMLIMIT is set (GOMEMLIMIT=off turns the limit off), neardup
// asks the collector to keep the Go heap within memLimitShare of the
// memory the process may use: the least of the machine's (MemTotal in
// /proc/meminfo) and its control group's (memory.max, cgroup v2, or
// memory.limit_in_bytes, v1), as a container sets it.

// memLimitShare is the share of the process's memory the collector
// keeps the heap within, leaving room for what is outside the Go heap:
// Badger's mapped tables, the page cache, and gojieba's C++ segmenter in
// a build with it.
const memLimitShare = 0.8

// memFiles are the files a run's memory comes from, each with its
// parser.
var memFiles = []struct {
	name  string
	parse func([]byte) (int64, bool)
}{
	{"/sys/fs/cgroup/memory.max", cgroupLimit},                   // cgroup v2
	{"/sys/fs/cgroup/memory/memory.limit_in_bytes", cgroupLimit}, // cgroup v1
	{"/proc/meminfo", memTotal},
}

// setMemoryLimit sets the collector's soft memory limit (see above) and
// returns it, 0 when GOMEMLIMIT is set or no file says how much memory
// there is.
func setMemoryLimit(lookupEnv func(string) (string, bool), readFile func(string) ([]byte, error)) int64 {
	if _, ok := lookupEnv("GOMEMLIMIT"); ok {
		return 0
	}
	limit := memoryLimit(readFile)
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return limit
}

// memoryLimit returns memLimitShare of the least memory memFiles give,
// 0 when none of them can be read or says.
func memoryLimit(readFile func(string) ([]byte, error)) int64 {
	least := int64(math.MaxInt64)
	for _, f := range memFiles {
		b, err := readFile(f.name)
		if err != nil {
			continue
		}
		if n, ok := f.parse(b); ok && n < least {
			least = n
		}
	}
	if least == math.MaxInt64 {
		return 0
	}
	return int64(float64(least) * memLimitShare)
}

// cgroupLimit reads a control group's memory limit file: a number of
// bytes, or "max" (no limit, as is v1's 2^63 rounded down to a page).
func cgroupLimit(b []byte) (int64, bool) {
	s := string(bytes.TrimSpace(b))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= math.MaxInt64/2 {
		return 0, false // "max", unreadable, or v1's "no limit"
	}
	return n, true
}

// memTotal reads the machine's memory from /proc/meminfo ("MemTotal:
// 24558428 kB").
func memTotal(b []byte) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || f[0] != "MemTotal:" || f[2] != "kB" {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || n <= 0 || n > math.MaxInt64/1024 {
			return 0, false
		}
		return n * 1024, true
	}
	return 0, false
}
