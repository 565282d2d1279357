package index

// The record format, for the benchmarks of the external test package.
var (
	EncodeDoc = encodeDoc
	DecodeDoc = decodeDoc
)

// The number formatting of the statistics' text, for TestFormat.
var (
	FormatCount  = count
	FormatSize   = size
	FormatPlural = plural
)
