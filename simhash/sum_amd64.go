//go:build amd64 && !purego

package simhash

import "golang.org/x/sys/cpu"

// hasAVX2 reports whether the processor runs sumAVX2. It is set when
// the package is initialised and only read after that.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// sumAVX2 is sumGeneric in AVX2 and FMA instructions (sum_amd64.s).
//
//go:noescape
func sumAVX2(features []Feature, v *[64]float64)

// addFeatures adds the features to the counters v, as sumGeneric does:
// with sumAVX2 when the processor has AVX2 and FMA, about ten times as
// fast (BenchmarkSum).
func addFeatures(features []Feature, v *[64]float64) {
	if hasAVX2 {
		sumAVX2(features, v)
		return
	}
	sumGeneric(features, v)
}
