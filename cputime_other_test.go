//go:build !unix

package neardup

import "time"

// cpuTime is not measured on this platform.
func cpuTime() time.Duration { return 0 }
