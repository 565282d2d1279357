//go:build !unix

package cputime

import "time"

// Self returns 0: this system has no getrusage.
func Self() time.Duration { return 0 }
