package memlimit

import (
	"errors"
	"io/fs"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// This machine's: cgroup v1 hierarchies with a v2 one beside them, the
// process in a v1 memory group two below the root.
const (
	hybridMounts = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	hybridGroups = "9:name=systemd:/\n4:memory:/process_api/2a09\n1:cpu:/\n"
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

		// The process's own group, from mountinfo and /proc/self/cgroup.
		{"v1, a limit on the process's group", map[string]string{"/proc/meminfo": meminfo, mountinfoFile: hybridMounts, cgroupFile: hybridGroups,
			"/sys/fs/cgroup/memory/memory.limit_in_bytes":                  "9223372036854771712\n",
			"/sys/fs/cgroup/memory/process_api/2a09/memory.limit_in_bytes": "1073741824\n"}, 858993459}, // 0.8 × 1 GiB
		{"v1, a limit on the group above it", map[string]string{"/proc/meminfo": meminfo, mountinfoFile: hybridMounts, cgroupFile: hybridGroups,
			"/sys/fs/cgroup/memory/process_api/2a09/memory.limit_in_bytes": "9223372036854771712\n",
			"/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes":      "2147483648\n"}, 1717986918}, // 0.8 × 2 GiB
		{"v1 and v2 both limit it", map[string]string{"/proc/meminfo": meminfo, mountinfoFile: hybridMounts, cgroupFile: hybridGroups + "0::/batch\n",
			"/sys/fs/cgroup/memory/process_api/2a09/memory.limit_in_bytes": "2147483648\n",
			"/sys/fs/cgroup/unified/batch/memory.max":                      "1073741824\n"}, 858993459},
		{"v2, a systemd unit's MemoryMax", map[string]string{"/proc/meminfo": meminfo,
			mountinfoFile:                            "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n",
			cgroupFile:                               "0::/system.slice/neardup.service\n",
			"/sys/fs/cgroup/memory.max":              "max\n",
			"/sys/fs/cgroup/system.slice/memory.max": "max\n",
			"/sys/fs/cgroup/system.slice/neardup.service/memory.max": "4294967296\n"}, 3435973836}, // 0.8 × 4 GiB
		{"v2 container, its own namespace", map[string]string{"/proc/meminfo": meminfo,
			mountinfoFile:               "1101 1090 0:29 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw\n",
			cgroupFile:                  "0::/\n",
			"/sys/fs/cgroup/memory.max": "8589934592\n"}, 6871947673},
		{"v1 container, its group mounted as the root", map[string]string{"/proc/meminfo": meminfo,
			mountinfoFile: "1201 1195 0:32 /docker/0123abcd /sys/fs/cgroup/memory ro,nosuid,nodev,noexec,relatime master:15 - cgroup cgroup rw,memory\n",
			cgroupFile:    "10:memory:/docker/0123abcd\n",
			"/sys/fs/cgroup/memory/memory.limit_in_bytes": "2147483648\n"}, 1717986918},
		{"v1 container, a group outside the mount", map[string]string{"/proc/meminfo": meminfo,
			mountinfoFile: "1201 1195 0:32 /docker/0123abcd /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n",
			cgroupFile:    "10:memory:/kubepods/pod1/c1\n",
			"/sys/fs/cgroup/memory/memory.limit_in_bytes":                  "2147483648\n",
			"/sys/fs/cgroup/memory/kubepods/pod1/c1/memory.limit_in_bytes": "1073741824\n"}, 1717986918},
		{"a mount point with a space", map[string]string{"/proc/meminfo": meminfo,
			mountinfoFile:               `40 31 0:38 / /mnt/my\040groups rw - cgroup2 cgroup2 rw` + "\n",
			cgroupFile:                  "0::/\n",
			"/mnt/my groups/memory.max": "1000\n"}, 800},
		{"no cgroup mount: the machine's memory", map[string]string{"/proc/meminfo": meminfo,
			mountinfoFile:               "22 1 253:0 / / rw,relatime - ext4 /dev/vda rw\n",
			cgroupFile:                  "0::/\n",
			"/sys/fs/cgroup/memory.max": "1000\n"}, 20118264217},
		{"v1 memory controller not mounted", map[string]string{"/proc/meminfo": meminfo, mountinfoFile: hybridMounts, cgroupFile: "3:cpuset:/\n"}, 20118264217},
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

func TestGroupDirs(t *testing.T) {
	tests := []struct {
		root, point, group string
		want               []string
	}{
		{"/", "/sys/fs/cgroup", "/a/b", []string{"/sys/fs/cgroup/a/b", "/sys/fs/cgroup/a", "/sys/fs/cgroup"}},
		{"/", "/sys/fs/cgroup", "/", []string{"/sys/fs/cgroup"}},
		{"/docker/x", "/m", "/docker/x", []string{"/m"}},
		{"/docker/x", "/m", "/docker/x/sub", []string{"/m/sub", "/m"}},
		{"/docker/x", "/m", "/docker/xy", []string{"/m"}},
		{"/docker/x", "/m", "/other", []string{"/m"}},
		{"/", "/m", "/../..", []string{"/m"}},
		{"/", "/m", "/a/../../b", []string{"/m/b", "/m"}},
	}
	for _, tt := range tests {
		if got := groupDirs(tt.root, tt.point, tt.group); !slices.Equal(got, tt.want) {
			t.Errorf("groupDirs(%q, %q, %q) = %q, want %q", tt.root, tt.point, tt.group, got, tt.want)
		}
	}
}

// GOMEMLIMIT, set to anything (off too), leaves the limit to the runtime.
func TestSetRespectsGOMEMLIMIT(t *testing.T) {
	read := func(string) ([]byte, error) { return nil, errors.New("must not be read") }
	env := func(k string) (string, bool) { return "off", k == "GOMEMLIMIT" }
	if got := Set(env, read); got != 0 {
		t.Errorf("with GOMEMLIMIT set: limit %d, want 0", got)
	}
}

func FuzzMemoryLimitFiles(f *testing.F) {
	f.Add([]byte("MemTotal:       24558428 kB\n"), []byte("max\n"), []byte(hybridMounts), []byte(hybridGroups))
	f.Add([]byte("MemTotal: 9223372036854775807 kB"), []byte("9223372036854771712"), []byte(""), []byte(""))
	f.Add([]byte(""), []byte("-5"), []byte(`1 2 0:3 /a\04 /b\1x - cgroup2 c rw`), []byte("0::/a/../..\n0::x"))
	f.Fuzz(func(t *testing.T, meminfo, cgroup, mountinfo, groups []byte) {
		if n, ok := memTotal(meminfo); ok && n <= 0 {
			t.Fatalf("memTotal(%q) = %d", meminfo, n)
		}
		if n, ok := cgroupLimit(cgroup); ok && n <= 0 {
			t.Fatalf("cgroupLimit(%q) = %d", cgroup, n)
		}
		read := func(name string) ([]byte, error) {
			switch name {
			case meminfoFile:
				return meminfo, nil
			case mountinfoFile:
				return mountinfo, nil
			case cgroupFile:
				return groups, nil
			}
			if strings.HasSuffix(name, "/memory.max") || strings.HasSuffix(name, "/memory.limit_in_bytes") {
				return cgroup, nil
			}
			return nil, fs.ErrNotExist
		}
		if got := memoryLimit(read); got < 0 {
			t.Fatalf("memoryLimit = %d", got)
		}
		// Every file read is in a cgroup mount, at or below its point.
		mounts := cgroupMounts(mountinfo)
		for _, name := range cgroupLimitFiles(read) {
			dir := path.Dir(name)
			if !slices.ContainsFunc(mounts, func(m cgroupMount) bool {
				return dir == m.point || strings.HasPrefix(dir, strings.TrimSuffix(m.point, "/")+"/")
			}) {
				t.Fatalf("limit file %q is in no cgroup mount of %q", name, mountinfo)
			}
		}
	})
}

// Without GOMEMLIMIT the runtime gets the limit the files give.
func TestSet(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	read := func(name string) ([]byte, error) {
		if name == "/sys/fs/cgroup/memory.max" {
			return []byte("68719476736\n"), nil // 64 GiB
		}
		return nil, fs.ErrNotExist
	}
	env := func(string) (string, bool) { return "", false }
	if got := Set(env, read); got != 54975581388 {
		t.Errorf("Set = %d, want 54975581388 (0.8 × 64 GiB)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 54975581388 {
		t.Errorf("the runtime's limit is %d, want 54975581388", got)
	}
}
