package input

import (
	"bytes"
	"encoding/binary"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// textLast is a row whose text column is the file's last column chunk:
// a page header of it can be rewritten to another length without moving
// the chunks the footer locates.
type textLast struct {
	ID   string `parquet:"id"`
	Text string `parquet:"text"`
}

// rewriteLastPage rewrites the first page header of the file's last
// column chunk with edit, and the footer with the chunk's new size.
func rewriteLastPage(t *testing.T, data []byte, edit func(*format.PageHeader)) []byte {
	t.Helper()
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	groups := pf.Metadata().RowGroups
	cols := groups[len(groups)-1].Columns
	md := cols[len(cols)-1].MetaData
	off := md.DataPageOffset
	if md.DictionaryPageOffset != 0 {
		off = md.DictionaryPageOffset
	}
	var proto thrift.CompactProtocol
	var h format.PageHeader
	r := proto.NewReaderFromBytes(data[off:])
	if err := thrift.NewDecoder(r).Decode(&h); err != nil {
		t.Fatal(err)
	}
	n := r.BytesRead()
	edit(&h)
	b, err := thrift.Marshal(&proto, &h)
	if err != nil {
		t.Fatal(err)
	}
	meta := pf.Metadata()
	footer := int64(len(data)) - 8 - int64(binary.LittleEndian.Uint32(data[len(data)-8:]))
	meta.RowGroups[len(groups)-1].Columns[len(cols)-1].MetaData.TotalCompressedSize += int64(len(b) - n)
	fb, err := thrift.Marshal(&proto, meta)
	if err != nil {
		t.Fatal(err)
	}
	out := append(append(append([]byte(nil), data[:off]...), b...), data[off+int64(n):footer]...)
	out = binary.LittleEndian.AppendUint32(append(out, fb...), uint32(len(fb)))
	return append(out, parquetMagic...)
}

// TestParquetPageHeaderGuard: a page header that claims more than the
// file or its codec can hold gives an *Error naming the file, row group
// and column, and the rows of the row groups before it are read; no
// allocation of what the header claims is attempted.
func TestParquetPageHeaderGuard(t *testing.T) {
	rows := []textLast{{"a", "first text"}, {"b", "second text"}, {"c", "third text"}}
	// The rewriting alone keeps the file readable.
	t.Run("unchanged", func(t *testing.T) {
		t.Chdir(t.TempDir())
		writeInputFiles(t, ".", map[string]string{"f.parquet": string(rewriteLastPage(t, writeParquet(t, rows, 2, &parquet.Snappy), func(*format.PageHeader) {}))})
		got := readAllInputs(t, NewReader([]string{"f.parquet"}, nil, nil))
		if len(got) != 3 || got[2].Rec.ID != "c" || got[2].Rec.Text != "third text" {
			t.Fatalf("%+v, want rows a, b and c", got)
		}
	})
	for _, tt := range []struct {
		name  string
		codec compress.Codec
		edit  func(*format.PageHeader)
		want  string // after "f.parquet: row group 2 of 2, column "text": page 1 (byte N): "
	}{
		{"compressed", &parquet.Snappy, func(h *format.PageHeader) { h.CompressedPageSize = math.MaxInt32 },
			`a page of 2147483647 bytes where the column chunk has \d+ left`},
		{"uncompressed-snappy", &parquet.Snappy, func(h *format.PageHeader) { h.UncompressedPageSize = math.MaxInt32 },
			`a page of \d+ bytes that claims 2147483647 uncompressed \(SNAPPY: at most \d+\)`},
		{"uncompressed-zstd", &parquet.Zstd, func(h *format.PageHeader) { h.UncompressedPageSize = maxPageBytes + 1 },
			`a page of \d+ bytes that claims 1073741825 uncompressed \(ZSTD: at most 1073741824\)`},
		{"snappy-length", &parquet.Snappy, func(h *format.PageHeader) { h.UncompressedPageSize += 7 },
			`a snappy block that claims \d+ bytes, its page header \d+`},
		{"values", &parquet.Uncompressed, func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumValues = 1 << 30 },
			`a page of 1073741824 values in a row group of 1 rows \(at most 67108864 a page\)`},
		{"negative", &parquet.Gzip, func(h *format.PageHeader) { h.CompressedPageSize = -5 },
			`a page of -5 bytes \(\d+ uncompressed\)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeInputFiles(t, ".", map[string]string{"f.parquet": string(rewriteLastPage(t, writeParquet(t, rows, 2, tt.codec), tt.edit))})
			got := readAllInputs(t, NewReader([]string{"f.parquet"}, nil, nil))
			if len(got) != 3 || got[0].Rec.ID != "a" || got[1].Rec.ID != "b" {
				t.Fatalf("%+v, want rows a and b and an error", got)
			}
			want := `^f\.parquet: row group 2 of 2, column "text": page 1 \(byte \d+\): ` + tt.want + `$`
			if !regexp.MustCompile(want).MatchString(got[2].Err) {
				t.Errorf("error %q, want it to match %s", got[2].Err, want)
			}
		})
	}
}

// TestParquetInflateBomb: a zstd or brotli page that inflates to more
// than its header claims (a row of 1 MiB whose page header was rewritten
// to claim 100 bytes) gives an *Error naming the file, row group, column
// and page, after the rows of the row groups before it; nothing beyond
// the claim is inflated.
func TestParquetInflateBomb(t *testing.T) {
	rows := []textLast{{"a", "first text"}, {"b", "second text"}, {"c", strings.Repeat("bomb ", 1<<18)}}
	for _, tt := range []struct {
		name  string
		codec compress.Codec
		want  string
	}{
		{"zstd", &parquet.Zstd, `a zstd page whose frames declare \d{7} bytes, its page header 100`},
		{"brotli", &parquet.Brotli, `a BROTLI page that inflates to more than the 100 bytes its page header claims`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			data := rewriteLastPage(t, writeParquet(t, rows, 2, tt.codec), func(h *format.PageHeader) {
				levels := int32(0)
				if v := h.DataPageHeaderV2; v.Valid {
					levels = v.V.DefinitionLevelsByteLength + v.V.RepetitionLevelsByteLength
				}
				h.UncompressedPageSize = levels + 100
			})
			writeInputFiles(t, ".", map[string]string{"f.parquet": string(data)})
			got := readAllInputs(t, NewReader([]string{"f.parquet"}, nil, nil))
			if len(got) != 3 || got[0].Rec.ID != "a" || got[1].Rec.ID != "b" {
				t.Fatalf("%+v, want rows a and b and an error", got)
			}
			want := `^f\.parquet: row group 2 of 2, column "text": page 1 \(byte \d+\): ` + tt.want + `$`
			if !regexp.MustCompile(want).MatchString(got[2].Err) {
				t.Errorf("error %q, want it to match %s", got[2].Err, want)
			}
		})
	}
}

// TestZstdPageSize: the sizes zstd frames declare are added up (a
// skippable frame skipped); a frame that declares none (a streaming
// encoder's) is inflated, up to a byte over the claim.
func TestZstdPageSize(t *testing.T) {
	text := []byte(strings.Repeat("zstd page ", 10000)) // 100,000 bytes
	enc, _ := zstd.NewWriter(nil)
	one := enc.EncodeAll(text, nil)
	skippable := []byte{0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'x', 'y', 'z'}
	var stream bytes.Buffer
	sw, _ := zstd.NewWriter(&stream)
	sw.Write(text[:50000])
	sw.Flush() // the frame's header goes out before its size is known
	sw.Write(text[50000:])
	sw.Close()
	for _, tt := range []struct {
		name     string
		page     []byte
		size     int64
		declared bool
	}{
		{"one frame", one, 100000, true},
		{"two frames and a skippable one", append(append(append([]byte(nil), one...), skippable...), one...), 200000, true},
		{"streamed", stream.Bytes(), 0, false},
		{"cut", one[:len(one)-3], 0, false},
		{"not zstd", []byte("not a zstd frame"), 0, false},
	} {
		if size, all := zstdDeclaredSize(tt.page); size != tt.size || all != tt.declared {
			t.Errorf("%s: zstdDeclaredSize = %d, %v; want %d, %v", tt.name, size, all, tt.size, tt.declared)
		}
	}
	check := func(page []byte, claim int32) error {
		h := &format.PageHeader{CompressedPageSize: int32(len(page)), UncompressedPageSize: claim}
		var buf []byte
		return checkInflatedSize(bytes.NewReader(page), h, 0, format.Zstd, &buf)
	}
	for _, page := range [][]byte{one, stream.Bytes()} {
		if err := check(page, 100000); err != nil {
			t.Errorf("a page of its size: %v", err)
		}
	}
	if err := check(stream.Bytes(), 99999); err == nil || err.Error() != "a ZSTD page that inflates to more than the 99999 bytes its page header claims" {
		t.Errorf("a streamed page over its claim: %v", err)
	}
	if err := check(one, 99999); err == nil || err.Error() != "a zstd page whose frames declare 100000 bytes, its page header 99999" {
		t.Errorf("a page over its claim: %v", err)
	}
}
