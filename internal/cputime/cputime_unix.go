//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Self returns the CPU time (user + system) this process has used.
func Self() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
