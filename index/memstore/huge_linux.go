package memstore

import (
	"syscall"
	"unsafe"
)

// Linux's madvise advice values (golang.org/x/sys/unix names them;
// syscall does not have MADV_COLLAPSE).
const (
	madvHugePage = 14 // MADV_HUGEPAGE
	madvCollapse = 25 // MADV_COLLAPSE, Linux 6.1 and later
)

// adviseHuge asks the kernel to back the 2 MiB pages wholly inside
// s's array with transparent huge pages: MADV_HUGEPAGE for the pages
// touched from now on, MADV_COLLAPSE for those the Go runtime touched
// already (memory it reused, which it zeroes). At 10^7 documents the
// store's tables and records are 5 GB read at random, a TLB miss or
// two for each posting an article sees with 4 KiB pages; with huge
// pages the 10^7-article dedup took 11% less CPU (bench/README.md).
// It is a hint: where the kernel refuses (THP disabled, an older
// kernel, no huge page free) the pages stay as they are, and nothing
// else changes. Arrays under hugeMin are left alone, so that a small
// store takes no more memory than its arrays.
func adviseHuge[T any](s []T) []T {
	const hugeMin = 8 << 20
	s2 := s[:cap(s)]
	if len(s2) == 0 {
		return s
	}
	size := uintptr(len(s2)) * unsafe.Sizeof(s2[0])
	if size < hugeMin {
		return s
	}
	const page = 2 << 20
	base := unsafe.Pointer(unsafe.SliceData(s2))
	p := uintptr(base)
	start, end := (p+page-1)&^(page-1), (p+size)&^(page-1)
	if start < end {
		b := unsafe.Slice((*byte)(unsafe.Add(base, start-p)), end-start)
		_ = syscall.Madvise(b, madvHugePage)
		_ = syscall.Madvise(b, madvCollapse)
	}
	return s
}
