package input

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

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
		if md.Codec == format.Snappy {
			if err := checkSnappyLength(f, &h, data); err != nil {
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
