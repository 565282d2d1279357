//go:build unix

package outfile

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid exists (it may belong to
// another user: EPERM means it does).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
