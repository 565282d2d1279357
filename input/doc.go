// Package input reads articles. A Reader reads them from files,
// directories (walked in lexical order) and standard input: JSONL, one
// article a line with its id, title and text in named fields; Parquet,
// one article a row with its id, title and text in named columns (see
// parquet.go for how it is streamed); WARC and WET, one article an HTML
// response or text conversion record (see warc.go); or plain text and
// HTML, one article a file. Gzip, zstd, xz and bzip2 data is decompressed and
// Parquet recognised whatever the file's name, by their magic bytes. Text is decoded from UTF-8, GBK, GB18030 or
// UTF-16, detected or as told (DecodeText), and HTML markup can be
// stripped (StripHTML).
// It also reads precomputed fingerprint files, "id<TAB>fingerprint" a
// line (ReadFingerprints).
//
// Bad input never stops a Reader: a bad line or file is a *RecordError
// naming the file, the line and the field, and an input that cannot be
// read to its end is an *Error naming the file and, where known, the line
// and byte offset; the caller reports it and reads on.
//
// A LineReader reads the lines of a stream with a limit on their length;
// the JSONL reader uses it, and so can other line-oriented inputs such as
// lists of URLs.
package input
