package urlhash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Version is the version of the fingerprint scheme: the features and
// weights in the package documentation and the normalisation rules of
// Normalize. It changes whenever a change to either moves fingerprints.
const Version = 1

// IDPrefix begins every ID: "urlhash/" and Version.
const IDPrefix = "urlhash/1"

// ID names the fingerprints that Sum makes with these options, for
// stores that must not mix fingerprints made differently, such as
// index.Options.AnalyzerID: IDPrefix, "-" and 16 hex digits of a
// SHA-256 digest of Version, the part weights and every option that
// changes normalisation (the lists TrackingParams and IndexPages
// included, when they apply). A nil *Options and the zero Options have
// the same ID, and so do DropParams lists that differ only in order,
// letter case or repeats.
func (o *Options) ID() string {
	if o == nil {
		o = &Options{}
	}
	h := sha256.New()
	fmt.Fprintf(h, "urlhash fingerprints v%d\nweights %v %v %v %v %v\n",
		Version, SchemeWeight, HostWeight, PathWeight, QueryWeight, FragmentWeight)
	drop := make([]string, len(o.DropParams))
	for i, d := range o.DropParams {
		drop[i] = strings.ToLower(d)
	}
	slices.Sort(drop)
	drop = slices.Compact(drop)
	fmt.Fprintf(h, "drop %q\n", drop)
	if o.KeepTracking {
		fmt.Fprintf(h, "keep tracking\n")
	} else {
		fmt.Fprintf(h, "tracking %q\n", TrackingParams())
	}
	if o.KeepWWW {
		fmt.Fprintf(h, "keep www\n")
	}
	if o.KeepIndex {
		fmt.Fprintf(h, "keep index\n")
	} else {
		fmt.Fprintf(h, "index pages %q\n", IndexPages())
	}
	return IDPrefix + "-" + hex.EncodeToString(h.Sum(nil)[:8])
}
