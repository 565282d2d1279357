// Package memlimit owns a process's soft memory limit: the share of the
// memory the machine and the process's control groups allow that the Go
// collector keeps the heap within.
//
// The archive a batch run builds is live until its end (about 600 bytes
// an archived document in memory, about 1 kB with --index on Badger),
// and the Go collector lets the heap grow to twice what is live before
// it collects: at 10^7 articles on Badger that took the peak RSS to 26
// GiB on a 24 GB machine (docs/capacity.md). Unless GOMEMLIMIT is set
// (GOMEMLIMIT=off turns the limit off), Set asks the collector to keep
// the Go heap within memLimitShare of the memory the process may use:
// the least of the machine's (MemTotal in /proc/meminfo) and the limits
// of its control group and the groups above it (memory.max, cgroup v2,
// or memory.limit_in_bytes, v1), as a container, a systemd unit
// (MemoryMax=) or a batch scheduler sets them. The process's group is
// the one /proc/self/cgroup names, found under the hierarchy's mount in
// /proc/self/mountinfo; a container that mounts its own group as the
// hierarchy's root (most do) names a path its mount does not show, and
// the mount's own file is its limit.
package memlimit

import (
	"bytes"
	"math"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// memLimitShare is the share of the process's memory the collector
// keeps the heap within, leaving room for what is outside the Go heap:
// Badger's mapped tables, the page cache, and gojieba's C++ segmenter in
// a build with it.
const memLimitShare = 0.8

// The files the limit is read from.
const (
	meminfoFile   = "/proc/meminfo"
	mountinfoFile = "/proc/self/mountinfo"
	cgroupFile    = "/proc/self/cgroup"
)

// defaultLimitFiles are the cgroup limit files read when mountinfo or
// cgroup cannot be: those of the hierarchies' usual mounts.
var defaultLimitFiles = []string{
	"/sys/fs/cgroup/memory.max",                   // cgroup v2
	"/sys/fs/cgroup/memory/memory.limit_in_bytes", // cgroup v1
}

// Set sets the collector's soft memory limit (see the package comment)
// and returns it, 0 when GOMEMLIMIT is set or no file says how much memory
// there is.
func Set(lookupEnv func(string) (string, bool), readFile func(string) ([]byte, error)) int64 {
	if _, ok := lookupEnv("GOMEMLIMIT"); ok {
		return 0
	}
	limit := memoryLimit(readFile)
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return limit
}

// memoryLimit returns memLimitShare of the least memory the machine and
// the process's control groups give, 0 when none of them can be read
// or says.
func memoryLimit(readFile func(string) ([]byte, error)) int64 {
	least := int64(math.MaxInt64)
	if b, err := readFile(meminfoFile); err == nil {
		if n, ok := memTotal(b); ok {
			least = n
		}
	}
	for _, name := range cgroupLimitFiles(readFile) {
		b, err := readFile(name)
		if err != nil {
			continue
		}
		if n, ok := cgroupLimit(b); ok && n < least {
			least = n
		}
	}
	if least == math.MaxInt64 {
		return 0
	}
	return int64(float64(least) * memLimitShare)
}

// cgroupLimitFiles returns the memory limit files of the process's
// control group and of each group above it up to its hierarchy's mount,
// in the v2 hierarchy and in v1's memory one (a machine may have both),
// or defaultLimitFiles when mountinfo or cgroup cannot be read.
func cgroupLimitFiles(readFile func(string) ([]byte, error)) []string {
	mounts, err1 := readFile(mountinfoFile)
	groups, err2 := readFile(cgroupFile)
	if err1 != nil || err2 != nil {
		return defaultLimitFiles
	}
	var files []string
	for _, m := range cgroupMounts(mounts) {
		group, ok := cgroupOf(groups, m.v2)
		if !ok {
			continue
		}
		file := "memory.limit_in_bytes"
		if m.v2 {
			file = "memory.max"
		}
		for _, dir := range groupDirs(m.root, m.point, group) {
			files = append(files, path.Join(dir, file))
		}
	}
	return files
}

// A cgroupMount is a mount of a cgroup hierarchy: v2's, or v1's with
// the memory controller; root is the group the mount shows at point.
type cgroupMount struct {
	v2          bool
	root, point string
}

// cgroupMounts returns the cgroup v2 mounts and the v1 memory mounts of
// a mountinfo file: "36 25 0:32 / /sys/fs/cgroup/memory rw,relatime
// shared:15 - cgroup cgroup rw,memory" (proc(5): the mount's root is
// the fourth field, its point the fifth, and the file system type, its
// source and its options follow the "-"; spaces in paths are \040).
func cgroupMounts(b []byte) []cgroupMount {
	var out []cgroupMount
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		dash := slices.Index(f, "-")
		if dash < 5 || len(f) < dash+4 {
			continue
		}
		m := cgroupMount{root: unescapeMount(f[3]), point: path.Clean(unescapeMount(f[4]))}
		switch f[dash+1] {
		case "cgroup2":
			m.v2 = true
		case "cgroup":
			if !slices.Contains(strings.Split(f[dash+3], ","), "memory") {
				continue
			}
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cgroupOf returns the process's group in the v2 hierarchy (v2) or in
// v1's memory one, from a /proc/self/cgroup file: lines of
// "id:controllers:path", v2's "0::/path".
func cgroupOf(b []byte, v2 bool) (string, bool) {
	for line := range strings.Lines(string(b)) {
		id, rest, ok := strings.Cut(strings.TrimRight(line, "\n"), ":")
		if !ok {
			continue
		}
		ctrls, group, ok := strings.Cut(rest, ":")
		if !ok || !strings.HasPrefix(group, "/") {
			continue
		}
		if v2 && id == "0" && ctrls == "" || !v2 && slices.Contains(strings.Split(ctrls, ","), "memory") {
			return group, true
		}
	}
	return "", false
}

// groupDirs returns the directories of group and of the groups above it
// up to the mount's, which shows group root at point: the first is
// group's own, the last point. A group outside root (as a container's
// /proc/self/cgroup names its group in the host's hierarchy while the
// mount shows it as the root) gives point alone.
func groupDirs(root, point, group string) []string {
	root, group = path.Clean(root), path.Clean(group)
	var rel string
	switch {
	case root == "/":
		rel = group
	case group == root:
		rel = "/"
	case strings.HasPrefix(group, root+"/"):
		rel = group[len(root):]
	default:
		return []string{point}
	}
	var dirs []string
	for ; rel != "/"; rel = path.Dir(rel) {
		dirs = append(dirs, path.Join(point, rel))
	}
	return append(dirs, point)
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
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
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
