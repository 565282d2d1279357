//go:build !(gojieba && cgo)

package neardup

import (
	"testing"

	"github.com/neardup/neardup/simhash"
)

// gosimhashFunc is nil without the gojieba build tag: gosimhash's
// method is gojieba's (go test -tags gojieba measures it).
func gosimhashFunc(b *testing.B) func(text string) simhash.Fingerprint { return nil }
