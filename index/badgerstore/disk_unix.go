//go:build unix

package badgerstore

import (
	"io/fs"
	"syscall"
)

// diskSize returns the bytes fi takes on disk: its allocated blocks, so
// that Badger's preallocated, sparse log files count for what they hold.
func diskSize(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}

// freeSpace returns the bytes available to unprivileged writers in the
// file system holding dir, or -1 when it cannot tell.
func freeSpace(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
