//go:build !cgo

package neardup

import (
	"testing"

	"github.com/neardup/neardup/simhash"
)

// gosimhashFunc is nil without cgo: gosimhash's method needs gojieba.
func gosimhashFunc(b *testing.B) func(text string) simhash.Fingerprint { return nil }
