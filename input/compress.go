package input

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"github.com/klauspost/compress/gzip"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Compression formats recognised by their magic bytes.
var (
	gzipMagic  = []byte{0x1F, 0x8B}
	zstdMagic  = []byte{0x28, 0xB5, 0x2F, 0xFD}
	xzMagic    = []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}
	bzip2Magic = []byte("BZh")
)

// compressedExts are the file name endings of compressed files, dropped
// before the format is chosen on the name.
var compressedExts = []string{".gz", ".zst", ".zstd", ".bz2", ".xz"}

// trimCompressedExt drops a compressed file's ending from name.
func trimCompressedExt(name string) string {
	for _, ext := range compressedExts {
		if strings.HasSuffix(name, ext) {
			return strings.TrimSuffix(name, ext)
		}
	}
	return name
}

// compression returns the name of the compression format head starts
// with ("gzip", "zstd", "xz", "bzip2"), or "".
func compression(head []byte) string {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return "gzip"
	case bytes.HasPrefix(head, zstdMagic):
		return "zstd"
	case bytes.HasPrefix(head, xzMagic):
		return "xz"
	case len(head) >= 10 && bytes.HasPrefix(head, bzip2Magic) && head[3] >= '1' && head[3] <= '9' &&
		(string(head[4:10]) == "\x31\x41\x59\x26\x53\x59" || string(head[4:10]) == "\x17\x72\x45\x38\x50\x90"):
		// "BZh", the block size and the magic of a block or of the end
		// of the stream: text starting "BZh" is not taken for bzip2.
		return "bzip2"
	}
	return ""
}

// Decompress returns br, or, when br's data starts with the magic bytes
// of gzip, zstd, xz or bzip2, a reader of size bytes of the decompressed
// data, with compressed set: compressed data is recognised as the Reader
// recognises it, whatever the file is named. Concatenated streams (gzip
// members, zstd frames, xz and bzip2 streams) are read one after
// another. The read errors of the decompressed data name a truncated
// stream as such ("truncated zstd data: unexpected EOF") and, for gzip
// data of several members, the byte offset in the compressed data of
// the member at fault ("gzip member at byte 5678: flate: corrupt input
// …"); err is the error of a header that cannot be read.
func Decompress(br *bufio.Reader, size int) (r *bufio.Reader, compressed bool, err error) {
	head, _ := br.Peek(10)
	var dr io.Reader
	switch kind := compression(head); kind {
	case "":
		return br, false, nil
	case "gzip":
		dr, err = newGzipMembers(br)
	case "zstd":
		// One goroutine: decoding is synchronous, so nothing is left
		// running when the input is dropped unread.
		var zr *zstd.Decoder
		zr, err = zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err == nil {
			dr = namedErrReader{r: zr, kind: kind}
		}
	case "xz":
		var xr *xz.Reader
		if xr, err = xz.NewReader(br); err == nil {
			dr = namedErrReader{r: xr, kind: kind}
		} else {
			err = truncatedErr(kind, err)
		}
	case "bzip2":
		dr = namedErrReader{r: bzip2.NewReader(br), kind: kind}
	}
	if err != nil {
		return nil, false, err
	}
	return bufio.NewReaderSize(&stickyReader{r: dr}, size), true, nil
}

// truncatedErr names a truncated stream of kind as such.
func truncatedErr(kind string, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		return fmt.Errorf("truncated %s data: %w", kind, io.ErrUnexpectedEOF)
	}
	return err
}

// namedErrReader describes the read errors of a decompressor of kind
// with truncatedErr.
type namedErrReader struct {
	r    io.Reader
	kind string
}

func (n namedErrReader) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if err != nil && err != io.EOF {
		err = truncatedErr(n.kind, err)
	}
	return k, err
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// gzipMembers reads the members of a gzip stream one after another, as
// gzip.Reader's multistream mode does, knowing where each starts in the
// compressed data: Common Crawl's WARC files are one member a record,
// and an error names the member at fault.
type gzipMembers struct {
	src    *bufio.Reader   // the compressed data, counted by cnt
	cnt    *countingReader // reads the data Decompress was given
	zr     *gzip.Reader
	member int64 // offset of the current member in the compressed data
	index  int   // 0 for the first member
}

// newGzipMembers starts reading the first member of br's data.
func newGzipMembers(br *bufio.Reader) (*gzipMembers, error) {
	cnt := &countingReader{r: br}
	// gzip.Reader reads a bufio.Reader byte by byte as it needs them
	// (flate.Reader), so cnt.n-src.Buffered() is where it stands.
	g := &gzipMembers{cnt: cnt, src: bufio.NewReaderSize(cnt, 32<<10)}
	zr, err := gzip.NewReader(g.src)
	if err != nil {
		return nil, truncatedErr("gzip", err)
	}
	zr.Multistream(false)
	g.zr = zr
	return g, nil
}

// pos returns the offset in the compressed data that the gzip reader
// has reached.
func (g *gzipMembers) pos() int64 { return g.cnt.n - int64(g.src.Buffered()) }

func (g *gzipMembers) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if err == nil {
			return n, nil
		}
		if err != io.EOF {
			return n, g.err(err)
		}
		// The member ended: start the next one, if any.
		start := g.pos()
		if _, perr := g.src.Peek(1); perr == io.EOF {
			return n, io.EOF
		}
		g.member, g.index = start, g.index+1
		if err := g.zr.Reset(g.src); err != nil {
			return n, g.err(err)
		}
		g.zr.Multistream(false)
		if n > 0 {
			return n, nil
		}
	}
}

// err describes err, an error of the current member.
func (g *gzipMembers) err(err error) error {
	err = truncatedErr("gzip", err)
	if g.index > 0 {
		return fmt.Errorf("gzip member at byte %d: %w", g.member, err)
	}
	return err
}
