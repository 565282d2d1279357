//go:build unix

package dict

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivateDir reports an error unless path is a directory (not a
// symbolic link) owned by the current user and not writable by group or
// others.
func checkPrivateDir(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, not by the current user (uid %d)", path, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by other users (mode %v)", path, fi.Mode().Perm())
	}
	return nil
}
