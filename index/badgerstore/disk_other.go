//go:build !unix

package badgerstore

import "io/fs"

// diskSize returns the size of fi.
func diskSize(fi fs.FileInfo) int64 { return fi.Size() }

// freeSpace cannot tell on this system.
func freeSpace(string) int64 { return -1 }
