package index

// The record format, for the benchmarks of the external test package.
var (
	EncodeDoc = encodeDoc
	DecodeDoc = decodeDoc
)
