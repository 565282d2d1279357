package memstore

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// adviseHuge gets an array of 16 MiB huge pages where the kernel has
// transparent huge pages for madvise (the default of Debian's kernels).
func TestAdviseHuge(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") && !strings.Contains(string(mode), "[always]") {
		t.Skipf("transparent huge pages are not available here (%q, %v): nothing to advise", mode, err)
	}
	b := adviseHuge(make([]byte, 16<<20))
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	const page = 2 << 20
	start := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + page - 1) &^ (page - 1)
	kb, err := anonHugeKB(start)
	if err != nil {
		t.Fatal(err)
	}
	if kb == 0 {
		t.Errorf("the mapping at %#x has no huge pages after adviseHuge", start)
	}
	// Under hugeMin: left alone (and nothing fails).
	small := adviseHuge(make([]byte, 1<<20))
	small[0] = 1
}

// anonHugeKB returns the AnonHugePages of the mapping holding addr,
// from /proc/self/smaps.
func anonHugeKB(addr uintptr) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// A mapping's first line: "lo-hi perms offset dev inode [path]".
		if f := strings.Fields(line); len(f) >= 5 && strings.Contains(f[0], "-") {
			var lo, hi uintptr
			if n, _ := fmt.Sscanf(f[0], "%x-%x", &lo, &hi); n == 2 {
				in = lo <= addr && addr < hi
				continue
			}
		}
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			var kb int
			fmt.Sscanf(strings.TrimPrefix(line, "AnonHugePages:"), "%d", &kb)
			return kb, nil
		}
	}
	return 0, fmt.Errorf("no mapping holds %#x in /proc/self/smaps", addr)
}
