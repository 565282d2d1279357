//go:build !unix

package dict

import (
	"fmt"
	"os"
)

// checkPrivateDir reports an error unless path is a directory. Ownership is
// not checked on this platform.
func checkPrivateDir(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", path)
	}
	return nil
}
