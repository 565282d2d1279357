package main

import (
	"errors"
	"io/fs"
	"runtime/debug"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	const meminfo = "MemTotal:       24558428 kB\nMemFree:         1000000 kB\n"
	tests := []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"machine only", map[string]string{"/proc/meminfo": meminfo}, 20118264217}, // 0.8 × 24,558,428 KiB
		{"cgroup v2 below it", map[string]string{"/proc/meminfo": meminfo, "/sys/fs/cgroup/memory.max": "8589934592\n"}, 6871947673},
		{"cgroup v2 without a limit", map[string]string{"/proc/meminfo": meminfo, "/sys/fs/cgroup/memory.max": "max\n"}, 20118264217},
		{"cgroup v2 above it", map[string]string{"/proc/meminfo": meminfo, "/sys/fs/cgroup/memory.max": "107374182400\n"}, 20118264217},
		{"cgroup v1 without a limit", map[string]string{"/proc/meminfo": meminfo, "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}, 20118264217},
		{"cgroup v1 below it", map[string]string{"/proc/meminfo": meminfo, "/sys/fs/cgroup/memory/memory.limit_in_bytes": "4294967296\n"}, 3435973836},
		{"no MemTotal line", map[string]string{"/proc/meminfo": "MemFree: 1 kB\n"}, 0},
		{"MemTotal not in kB", map[string]string{"/proc/meminfo": "MemTotal: 24558428 MB\n"}, 0},
		{"nothing readable", map[string]string{}, 0},
		{"a cgroup limit alone", map[string]string{"/sys/fs/cgroup/memory.max": "1000"}, 800},
		{"a cgroup limit of 0", map[string]string{"/sys/fs/cgroup/memory.max": "0", "/proc/meminfo": meminfo}, 20118264217},
	}
	for _, tt := range tests {
		read := func(name string) ([]byte, error) {
			if s, ok := tt.files[name]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		}
		if got := memoryLimit(read); got != tt.want {
			t.Errorf("%s: memoryLimit = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// GOMEMLIMIT, set to anything (off too), leaves the limit to the runtime.
func TestSetMemoryLimitRespectsGOMEMLIMIT(t *testing.T) {
	read := func(string) ([]byte, error) { return nil, errors.New("must not be read") }
	env := func(k string) (string, bool) { return "off", k == "GOMEMLIMIT" }
	if got := setMemoryLimit(env, read); got != 0 {
		t.Errorf("with GOMEMLIMIT set: limit %d, want 0", got)
	}
}

func FuzzMemoryLimitFiles(f *testing.F) {
	f.Add([]byte("MemTotal:       24558428 kB\n"), []byte("max\n"))
	f.Add([]byte("MemTotal: 9223372036854775807 kB"), []byte("9223372036854771712"))
	f.Add([]byte(""), []byte("-5"))
	f.Fuzz(func(t *testing.T, meminfo, cgroup []byte) {
		if n, ok := memTotal(meminfo); ok && n <= 0 {
			t.Fatalf("memTotal(%q) = %d", meminfo, n)
		}
		if n, ok := cgroupLimit(cgroup); ok && n <= 0 {
			t.Fatalf("cgroupLimit(%q) = %d", cgroup, n)
		}
		got := memoryLimit(func(name string) ([]byte, error) {
			if name == "/proc/meminfo" {
				return meminfo, nil
			}
			if name == "/sys/fs/cgroup/memory.max" {
				return cgroup, nil
			}
			return nil, fs.ErrNotExist
		})
		if got < 0 {
			t.Fatalf("memoryLimit = %d", got)
		}
	})
}

// Without GOMEMLIMIT the runtime gets the limit the files give.
func TestSetMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	read := func(name string) ([]byte, error) {
		if name == "/sys/fs/cgroup/memory.max" {
			return []byte("68719476736\n"), nil // 64 GiB
		}
		return nil, fs.ErrNotExist
	}
	env := func(string) (string, bool) { return "", false }
	if got := setMemoryLimit(env, read); got != 54975581388 {
		t.Errorf("setMemoryLimit = %d, want 54975581388 (0.8 × 64 GiB)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 54975581388 {
		t.Errorf("the runtime's limit is %d, want 54975581388", got)
	}
}
