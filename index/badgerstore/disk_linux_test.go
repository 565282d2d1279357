//go:build linux

package badgerstore

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenFullDisk opens an index on a 4 MiB tmpfs: Open must refuse with
// ErrNoSpace instead of letting Badger's memory-mapped log writes kill the
// process with SIGBUS. Mounting needs root (CI runs as root).
func TestOpenFullDisk(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v); needs root on Linux", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, 0) })
	dir := filepath.Join(mnt, "idx")
	x, err := Open(dir, nil)
	if err == nil {
		x.Close()
		t.Fatal("Open on a 4 MiB file system succeeded, want ErrNoSpace")
	}
	if !errors.Is(err, ErrNoSpace) {
		t.Fatalf("Open: %v, want ErrNoSpace", err)
	}
}
