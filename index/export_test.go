package index

// The record format, for the benchmarks of the external test package.
var (
	EncodeDoc = encodeDoc
	DecodeDoc = decodeDoc
)

// OverlayOf returns the protocol x runs its Ingests through.
func OverlayOf(x *Index) Shared { return x.sh }
