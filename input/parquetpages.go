package input

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Checking page headers
//
// parquet-go allocates what a page header claims before it reads the
// page: its compressed size (up to 2 GiB), its uncompressed size, and
// buffers of its count of values. So before a column chunk is read, its
// page headers are read here, each decoded from bytes of the chunk (a
// header's own strings cannot claim more than the chunk holds), and a
// chunk is refused, with an *Error naming the row group and column, when
//   - its byte range is not inside the file;
//   - a page claims more compressed bytes than the chunk has left;
//   - a page claims more uncompressed bytes than its codec can make of
//     its compressed ones (uncompressed: as many; snappy: 32 times;
//     lz4: 255 times; gzip: 1032 times) or, for zstd and brotli, whose
//     ratio has no useful bound, more than maxPageBytes;
//   - a snappy page's own length header disagrees with the page header;
//   - a zstd or brotli page inflates to more than its header claims: for
//     zstd, the content sizes its frames declare (which the decoder
//     holds them to) are added up, and only a page with a frame that
//     declares none is inflated here, up to one byte over the claim;
//     a brotli page is always inflated so (brotli declares no sizes);
//   - a page claims more values than its row group has rows (the
//     columns read are neither lists nor nested in them), more than
//     maxPageValues, or, for a dictionary, more than 4-byte values fit
//     in its size.
// The pages are read up to those holding the row group's values.

// maxPageBytes bounds the uncompressed size of a zstd or brotli page;
// maxPageValues bounds the values of a page.
const (
	maxPageBytes  = 1 << 30
	maxPageValues = 1 << 26
)

// pageCheckWindow is the first read of a page header; a longer header
// (large statistics) is read again with more, up to the chunk's end.
const pageCheckWindow = 4 << 10

// checkChunk checks the page headers of the column chunk c of a row
// group of rows rows, in the file f of size bytes, and returns why it
// cannot be read, or nil. A repeated column (a list's, read for
// Options.ParquetRows) may hold more values than rows: its pages are
// checked to the chunk's end, their values bounded by maxPageValues.
func checkChunk(f io.ReaderAt, size int64, c *format.ColumnChunk, rows int64, repeated bool, buf *[]byte) error {
	md := &c.MetaData
	start := md.DataPageOffset
	if md.DictionaryPageOffset != 0 {
		start = md.DictionaryPageOffset
	}
	if start < 4 || md.TotalCompressedSize < 0 || md.TotalCompressedSize > size-start {
		return fmt.Errorf("damaged Parquet column chunk: bytes %d to %d+%d of a file of %d", start, start, md.TotalCompressedSize, size)
	}
	end := start + md.TotalCompressedSize
	var proto thrift.CompactProtocol
	values := int64(0) // of the data pages checked
	if repeated {
		values = math.MinInt64
	}
	for page, off := 1, start; off < end && values < rows; page++ {
		var h format.PageHeader
		n, err := decodePageHeader(f, off, end, &proto, &h, buf)
		if err != nil {
			return fmt.Errorf("page %d (byte %d): unreadable page header: %w", page, off, err)
		}
		data := off + int64(n)
		if err := checkPage(&h, md.Codec, end-data, rows, repeated); err != nil {
			return fmt.Errorf("page %d (byte %d): %w", page, off, err)
		}
		switch md.Codec {
		case format.Snappy:
			if err := checkSnappyLength(f, &h, data); err != nil {
				return fmt.Errorf("page %d (byte %d): %w", page, off, err)
			}
		case format.Zstd, format.Brotli:
			if err := checkInflatedSize(f, &h, data, md.Codec, buf); err != nil {
				return fmt.Errorf("page %d (byte %d): %w", page, off, err)
			}
		}
		switch {
		case h.DataPageHeader.Valid:
			values += int64(h.DataPageHeader.V.NumValues)
		case h.DataPageHeaderV2.Valid:
			values += int64(h.DataPageHeaderV2.V.NumValues)
		}
		off = data + int64(h.CompressedPageSize)
	}
	return nil
}

// decodePageHeader decodes the page header at off (before end) into h
// and returns its length.
func decodePageHeader(f io.ReaderAt, off, end int64, proto *thrift.CompactProtocol, h *format.PageHeader, buf *[]byte) (int, error) {
	for window := int64(pageCheckWindow); ; window *= 4 {
		window = min(window, end-off)
		if int64(cap(*buf)) < window {
			*buf = make([]byte, window)
		}
		b := (*buf)[:window]
		if k, err := f.ReadAt(b, off); k < len(b) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		*h = format.PageHeader{}
		r := proto.NewReaderFromBytes(b)
		err := thrift.NewDecoder(r).Decode(h)
		if err == nil {
			return r.BytesRead(), nil
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) || window == end-off {
			return 0, err
		}
	}
}

// checkPage checks the sizes and counts of the page header h, whose page
// has left bytes of its chunk to be in, in a row group of rows rows (a
// repeated column's pages may hold more values than that).
func checkPage(h *format.PageHeader, codec format.CompressionCodec, left int64, rows int64, repeated bool) error {
	comp, uncomp := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	if comp < 0 || uncomp < 0 {
		return fmt.Errorf("a page of %d bytes (%d uncompressed)", comp, uncomp)
	}
	if comp > left {
		return fmt.Errorf("a page of %d bytes where the column chunk has %d left", comp, left)
	}
	limit := maxPageBytes
	ratio := map[format.CompressionCodec]int64{format.Uncompressed: 1, format.Snappy: 32, format.Lz4: 255, format.Lz4Raw: 255, format.Gzip: 1032}
	if r, ok := ratio[codec]; ok {
		limit = int(min(int64(limit), comp*r+64))
	}
	if uncomp > int64(limit) {
		return fmt.Errorf("a page of %d bytes that claims %d uncompressed (%s: at most %d)", comp, uncomp, codec, limit)
	}
	var n int64
	switch {
	case h.DataPageHeader.Valid:
		n = int64(h.DataPageHeader.V.NumValues)
	case h.DataPageHeaderV2.Valid:
		v := &h.DataPageHeaderV2.V
		n = int64(v.NumValues)
		if v.NumNulls < 0 || v.NumRows < 0 || v.NumNulls > v.NumValues ||
			v.DefinitionLevelsByteLength < 0 || v.RepetitionLevelsByteLength < 0 ||
			int64(v.DefinitionLevelsByteLength)+int64(v.RepetitionLevelsByteLength) > min(comp, uncomp) {
			return fmt.Errorf("a data page header (v2) of %d values, %d nulls, %d rows, levels of %d and %d bytes in a page of %d (%d uncompressed)",
				v.NumValues, v.NumNulls, v.NumRows, v.RepetitionLevelsByteLength, v.DefinitionLevelsByteLength, comp, uncomp)
		}
	case h.DictionaryPageHeader.Valid:
		n = int64(h.DictionaryPageHeader.V.NumValues)
		if n < 0 || n > uncomp/4 {
			return fmt.Errorf("a dictionary of %d values in %d bytes", n, uncomp)
		}
		return nil
	default:
		return nil // parquet-go refuses it, or skips an index page
	}
	if repeated && n >= 0 && n <= maxPageValues {
		return nil
	}
	if n < 0 || n > rows || n > maxPageValues {
		return fmt.Errorf("a page of %d values in a row group of %d rows (at most %d a page)", n, rows, maxPageValues)
	}
	return nil
}

// checkSnappyLength checks that the length a snappy block at data (after
// a v2 page's levels) claims is the page header's.
func checkSnappyLength(f io.ReaderAt, h *format.PageHeader, data int64) error {
	want := int64(h.UncompressedPageSize)
	if v := h.DataPageHeaderV2; v.Valid {
		if v.V.IsCompressed.Valid && !v.V.IsCompressed.V {
			return nil
		}
		levels := int64(v.V.DefinitionLevelsByteLength) + int64(v.V.RepetitionLevelsByteLength)
		data += levels
		want -= levels
	}
	var b [binary.MaxVarintLen64]byte
	k, _ := f.ReadAt(b[:], data)
	n, m := binary.Uvarint(b[:k])
	if m <= 0 || n != uint64(want) {
		return fmt.Errorf("a snappy block that claims %d bytes, its page header %d", n, want)
	}
	return nil
}

// pageBody returns the compressed bytes of the page whose header is h
// and whose data starts at data, after a v2 page's levels, read into
// buf, and the uncompressed size it claims for them; ok is false for a
// v2 page that is not compressed.
func pageBody(f io.ReaderAt, h *format.PageHeader, data int64, buf *[]byte) (body []byte, claim int64, ok bool, err error) {
	comp, claim := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	if v := h.DataPageHeaderV2; v.Valid {
		if v.V.IsCompressed.Valid && !v.V.IsCompressed.V {
			return nil, 0, false, nil
		}
		levels := int64(v.V.DefinitionLevelsByteLength) + int64(v.V.RepetitionLevelsByteLength)
		data, comp, claim = data+levels, comp-levels, claim-levels
	}
	if int64(cap(*buf)) < comp {
		*buf = make([]byte, comp)
	}
	body = (*buf)[:comp]
	if k, err := f.ReadAt(body, data); k < len(body) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, false, err
	}
	return body, claim, true, nil
}

// checkInflatedSize checks that the zstd or brotli page whose header is h
// and whose data starts at data inflates to no more than its header
// claims.
func checkInflatedSize(f io.ReaderAt, h *format.PageHeader, data int64, codec format.CompressionCodec, buf *[]byte) error {
	body, claim, ok, err := pageBody(f, h, data, buf)
	if err != nil || !ok {
		return err
	}
	var r io.Reader
	if codec == format.Zstd {
		declared, all := zstdDeclaredSize(body)
		if all {
			if declared > claim {
				return fmt.Errorf("a zstd page whose frames declare %d bytes, its page header %d", declared, claim)
			}
			return nil
		}
		zr, err := zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil // parquet-go reports the page as it is
		}
		defer zr.Close()
		r = zr
	} else {
		r = brotli.NewReader(bytes.NewReader(body))
	}
	// A damaged stream is parquet-go's to report; only its size is
	// checked here.
	if n, _ := io.CopyN(io.Discard, r, claim+1); n > claim {
		return fmt.Errorf("a %s page that inflates to more than the %d bytes its page header claims", codec, claim)
	}
	return nil
}

// zstdDeclaredSize adds up the content sizes that the zstd frames of p
// declare, skippable frames skipped; all is false when a frame declares
// none, or p cannot be walked frame by frame (parquet-go's decoder
// reports it).
func zstdDeclaredSize(p []byte) (size int64, all bool) {
	for len(p) > 0 {
		if len(p) < 8 {
			return 0, false
		}
		magic := binary.LittleEndian.Uint32(p)
		if magic&0xFFFFFFF0 == 0x184D2A50 { // a skippable frame
			n := int64(binary.LittleEndian.Uint32(p[4:]))
			if n > int64(len(p)-8) {
				return 0, false
			}
			p = p[8+n:]
			continue
		}
		if magic != 0xFD2FB528 {
			return 0, false
		}
		fhd := p[4]
		single := fhd>>5&1 == 1
		pos := 5
		if !single {
			pos++ // the window descriptor
		}
		pos += [4]int{0, 1, 2, 4}[fhd&3] // the dictionary ID
		fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
		if fcsLen == 0 && single {
			fcsLen = 1
		}
		if fcsLen == 0 || pos+fcsLen > len(p) {
			return 0, false
		}
		var fcs uint64
		for i := fcsLen - 1; i >= 0; i-- {
			fcs = fcs<<8 | uint64(p[pos+i])
		}
		if fcsLen == 2 {
			fcs += 256
		}
		if fcs > math.MaxInt64-uint64(size) {
			return 0, false
		}
		size += int64(fcs)
		pos += fcsLen
		// The blocks, to the frame's end.
		for {
			if pos+3 > len(p) {
				return 0, false
			}
			bh := int(p[pos]) | int(p[pos+1])<<8 | int(p[pos+2])<<16
			pos += 3
			switch n := bh >> 3; bh >> 1 & 3 {
			case 1: // RLE: one byte
				pos++
			case 3:
				return 0, false
			default:
				pos += n
			}
			if bh&1 == 1 {
				break
			}
		}
		if fhd>>2&1 == 1 {
			pos += 4 // the checksum
		}
		if pos > len(p) {
			return 0, false
		}
		p = p[pos:]
	}
	return size, true
}
