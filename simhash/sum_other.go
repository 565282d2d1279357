//go:build !amd64 || purego

package simhash

// hasAVX2 is false: sumAVX2 is amd64's.
const hasAVX2 = false

// addFeatures adds the features to the counters v (sumGeneric).
func addFeatures(features []Feature, v *[64]float64) { sumGeneric(features, v) }

// sumAVX2 is not called on this architecture.
func sumAVX2(features []Feature, v *[64]float64) { sumGeneric(features, v) }
