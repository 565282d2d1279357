package input

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// parquetMagic starts (and ends) every Parquet file.
const parquetMagic = "PAR1"

// Reading Parquet
//
// A Parquet file is read row group by row group and, in each, page by
// page of the three columns named by Options.IDField, TextField and
// TitleField alone: the other columns are never read, and memory holds a
// page of each of the three, not the file. Its footer, which says where
// the row groups are, is at its end, so it is read by offset: a file
// named directly is read in place; a Parquet file read from standard
// input or inside gzip/zstd/xz/bzip2 data is first copied to a temporary
// file (in os.TempDir, removed when the input is done), since neither
// can be read by offset.
//
// Row numbers (Record.Line, RecordError.Line) count the rows of the file
// from 1; RecordError.Pos and Error.Pos also name the row group, as
// "row 1235 (row group 3 of 4, row 18)", row groups and rows in them
// counted from 1 too.
//
// The text column must hold strings (BYTE_ARRAY); the id column strings
// or integers (an integer is its decimal text, as a JSONL number is its
// literal); the title column strings or integers. A column of another
// type, or a repeated (list) one, rejects the whole file with a
// *RecordError naming the column; a missing text column too. A null
// text rejects its row; a null or missing id makes the ID
// "source:row", as a JSONL line without one is "source:line"; a null
// title is no title.

// parquetField is a column read for a field of the records.
type parquetField struct {
	name  string // the column's name, as Options names it
	index int    // its leaf column index; -1 when the file has none
	kind  parquet.Kind
}

// parquetInput reads the records of a Parquet file.
type parquetInput struct {
	opts    *Options
	source  string
	f       *os.File // the file, or its temporary copy
	tmp     string   // the temporary copy's path, removed by close
	groups  []parquet.RowGroup
	fields  [3]parquetField // id, text, title
	cursors [3]*valueCursor
	g       int               // the row group being read
	inGroup int64             // rows of it read
	row     int64             // rows of the file read
	failed  bool              // reading failed: the rest of the file is skipped
	rows    int64             // of the file
	size    int64             // of the file
	meta    []format.RowGroup // the footer's row groups, for checkChunk
	buf     []byte            // checkChunk's
	// With Options.ParquetRows: the rows of the row group being read.
	schema  *parquet.Schema
	rowRead parquet.Rows
	rowBuf  [1]parquet.Row
}

// consumed returns the share of size, the file's, that the rows read so
// far make up, for Reader.Done: a Parquet file is read by offset, not
// through the Reader's count.
func (in *parquetInput) consumed(size int64) int64 {
	if in.rows <= 0 || size <= 0 {
		return max(size, 0)
	}
	return size * min(in.row, in.rows) / in.rows
}

// openParquet opens the Parquet file f of size bytes (tmp: the path of a
// temporary copy to remove at the end, or ""). It returns an *Error when
// the file's footer cannot be read, and a *RecordError when its columns
// are not what opts name.
func openParquet(opts *Options, source string, f *os.File, size int64, tmp string) (in *parquetInput, err error) {
	pin := &parquetInput{opts: opts, source: source, f: f, tmp: tmp}
	defer func() {
		if p := recover(); p != nil {
			err = &Error{Source: source, Err: fmt.Errorf("malformed Parquet footer: %v", p)}
		}
		if err != nil {
			pin.close()
			in = nil
		}
	}()
	in = pin
	// The footer's length and magic: checked here, since the library
	// allocates whatever length the file claims.
	var tail [8]byte
	if size < 12 {
		return nil, &Error{Source: source, Err: fmt.Errorf("truncated Parquet file: %d bytes, too short for a footer", size)}
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil, &Error{Source: source, Err: err}
	}
	if string(tail[4:]) != parquetMagic {
		return nil, &Error{Source: source, Err: fmt.Errorf("truncated Parquet file: its %d bytes do not end with a footer (PAR1)", size)}
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return nil, &Error{Source: source, Err: fmt.Errorf("damaged Parquet file: a footer of %d bytes in a file of %d", n, size)}
	}
	pf, err := parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &Error{Source: source, Err: fmt.Errorf("not a readable Parquet file (%d bytes; truncated or damaged?): %w", size, err)}
	}
	schema := pf.Schema()
	names := [3]string{opts.IDField, opts.TextField, opts.TitleField}
	for i, name := range names {
		fd := parquetField{name: name, index: -1}
		leaf, ok := lookupColumn(schema, name)
		switch {
		case !ok && isGroupColumn(schema, name):
			return nil, &RecordError{Source: source, Field: name, Reason: "a nested (group or list) column: want one string a row"}
		case !ok && i == 1:
			return nil, &RecordError{Source: source, Field: name,
				Reason: "no such column (the file has " + strings.Join(columnNames(schema), ", ") + ")"}
		case !ok:
		case leaf.MaxRepetitionLevel > 0:
			return nil, &RecordError{Source: source, Field: name, Reason: "a repeated (list) column: want one string a row"}
		default:
			fd.index, fd.kind = leaf.ColumnIndex, leaf.Node.Type().Kind()
			if !fieldKindOK(i, fd.kind) {
				want := "a string (BYTE_ARRAY) column"
				if i != 1 {
					want = "a string or integer column"
				}
				return nil, &RecordError{Source: source, Field: name,
					Reason: fmt.Sprintf("column of type %s: want %s", fd.kind, want)}
			}
		}
		in.fields[i] = fd
	}
	in.groups = pf.RowGroups()
	in.meta = pf.Metadata().RowGroups
	if len(in.meta) != len(in.groups) {
		return nil, &Error{Source: source, Err: fmt.Errorf("damaged Parquet footer: %d row groups, %d described", len(in.groups), len(in.meta))}
	}
	in.size = size
	in.schema = schema
	in.g = -1
	in.rows = pf.NumRows()
	return in, nil
}

// fieldKindOK reports whether a column of kind may hold field i (0 id,
// 1 text, 2 title).
func fieldKindOK(i int, kind parquet.Kind) bool {
	switch kind {
	case parquet.ByteArray:
		return true
	case parquet.Int32, parquet.Int64:
		return i != 1
	}
	return false
}

// lookupColumn finds the leaf column name: a top-level column, or a
// nested one by its dotted path ("meta.title").
func lookupColumn(schema *parquet.Schema, name string) (parquet.LeafColumn, bool) {
	if leaf, ok := schema.Lookup(name); ok {
		return leaf, true
	}
	if strings.Contains(name, ".") {
		return schema.Lookup(strings.Split(name, ".")...)
	}
	return parquet.LeafColumn{}, false
}

// isGroupColumn reports whether name (dotted) is a group of columns,
// such as a list, rather than a leaf.
func isGroupColumn(schema *parquet.Schema, name string) bool {
	prefix := strings.Split(name, ".")
	for _, path := range schema.Columns() {
		if len(path) > len(prefix) && slices.Equal(path[:len(prefix)], prefix) {
			return true
		}
	}
	return false
}

// columnNames lists the leaf columns of schema by their dotted paths.
func columnNames(schema *parquet.Schema) []string {
	var names []string
	for _, path := range schema.Columns() {
		names = append(names, strings.Join(path, "."))
	}
	return names
}

func (in *parquetInput) close() error {
	in.closeCursors()
	var err error
	if in.f != nil {
		err = in.f.Close()
		in.f = nil
	}
	if in.tmp != "" {
		os.Remove(in.tmp)
		in.tmp = ""
	}
	return err
}

func (in *parquetInput) closeCursors() {
	if in.rowRead != nil {
		in.rowRead.Close()
		in.rowRead = nil
	}
	for i, c := range in.cursors {
		if c != nil {
			c.pages.Close()
			in.cursors[i] = nil
		}
	}
}

// pos names the row being read.
func (in *parquetInput) pos() string {
	return fmt.Sprintf("row %d (row group %d of %d, row %d)", in.row, in.g+1, len(in.groups), in.inGroup)
}

// next returns the next record, a *RecordError, an *Error or io.EOF.
func (in *parquetInput) next() (rec Record, err error) {
	if in.failed {
		return Record{}, io.EOF
	}
	defer func() {
		// The library may panic on malformed pages: the file's rows end
		// there, as with any other read error.
		if p := recover(); p != nil {
			rec, err = Record{}, in.readErr(fmt.Errorf("malformed Parquet data: %v", p))
		}
	}()
	for in.g < 0 || in.inGroup >= in.groups[in.g].NumRows() {
		in.closeCursors()
		if in.g+1 >= len(in.groups) {
			return Record{}, io.EOF
		}
		in.g++
		in.inGroup = 0
		chunks := in.groups[in.g].ColumnChunks()
		for i, fd := range in.fields {
			if fd.index < 0 {
				continue
			}
			// The page headers are checked before parquet-go allocates
			// what they claim.
			if err := in.checkColumn(fd.index, len(chunks)); err != nil {
				return Record{}, in.chunkErr(strconv.Quote(fd.name), err)
			}
			in.cursors[i] = &valueCursor{pages: chunks[fd.index].Pages()}
		}
		if in.opts.ParquetRows {
			for c := range chunks {
				if err := in.checkColumn(c, len(chunks)); err != nil {
					return Record{}, in.chunkErr(strconv.Itoa(c+1), err)
				}
			}
			in.rowRead = in.groups[in.g].Rows()
		}
	}
	in.inGroup++
	in.row++
	var vals [3]parquet.Value
	for i, c := range in.cursors {
		if c == nil {
			continue
		}
		if vals[i], err = c.next(); err != nil {
			return Record{}, in.readErr(fmt.Errorf("column %q: %w", in.fields[i].name, err))
		}
	}
	rec = Record{Source: in.source, Line: int(in.row)}
	if in.rowRead != nil {
		if n, err := in.rowRead.ReadRows(in.rowBuf[:]); n != 1 {
			if err == nil || err == io.EOF {
				err = fmt.Errorf("the row group ends before its %d rows: %w", in.groups[in.g].NumRows(), io.ErrUnexpectedEOF)
			}
			return Record{}, in.readErr(err)
		}
		rec.Row, rec.Schema = in.rowBuf[0].Clone(), in.schema
	}
	reject := func(field, reason string) (Record, error) {
		return Record{}, &RecordError{Source: in.source, Line: int(in.row), Pos: in.pos(), Field: field, Reason: reason}
	}
	text := vals[1]
	if text.IsNull() {
		return reject(in.opts.TextField, "null")
	}
	s, reason := in.decode(text.ByteArray())
	if reason == "" {
		s, reason = checkFieldText(s, in.opts)
	}
	if reason != "" {
		return reject(in.opts.TextField, reason)
	}
	rec.Text = s
	if id := vals[0]; in.cursors[0] == nil || id.IsNull() {
		rec.ID = in.source + ":" + strconv.FormatInt(in.row, 10)
	} else if rec.ID, reason = in.valueText(id); reason != "" {
		return reject(in.opts.IDField, reason)
	} else if rec.ID == "" {
		return reject(in.opts.IDField, "empty string")
	}
	if title := vals[2]; in.cursors[2] != nil && !title.IsNull() {
		if rec.Title, reason = in.valueText(title); reason != "" {
			return reject(in.opts.TitleField, reason)
		}
		if in.opts.HTML {
			rec.Title = StripHTML(rec.Title)
		}
	}
	return rec, nil
}

// readErr ends the file's rows with err, naming the row group.
func (in *parquetInput) readErr(err error) error {
	in.failed = true
	if errors.Is(err, io.EOF) {
		err = fmt.Errorf("%w (truncated?)", io.ErrUnexpectedEOF)
	}
	return &Error{Source: in.source, Line: int(in.row), Pos: in.pos(), Err: err}
}

// checkColumn checks the chunk of column c (of n) in the row group about
// to be read (checkChunk).
func (in *parquetInput) checkColumn(c, n int) error {
	cols := in.meta[in.g].Columns
	if c >= len(cols) || c >= n {
		return errors.New("damaged Parquet footer: the row group lacks the column")
	}
	repeated := false
	if paths := in.schema.Columns(); c < len(paths) {
		leaf, _ := in.schema.Lookup(paths[c]...)
		repeated = leaf.MaxRepetitionLevel > 0
	}
	return checkChunk(in.f, in.size, &cols[c], in.groups[in.g].NumRows(), repeated, &in.buf)
}

// chunkErr ends the file's rows with err, an error of the chunk of column
// (its name quoted, or its number) in the row group about to be read.
func (in *parquetInput) chunkErr(column string, err error) error {
	in.failed = true
	in.closeCursors()
	return &Error{Source: in.source, Line: int(in.row), Err: err,
		Pos: fmt.Sprintf("row group %d of %d, column %s", in.g+1, len(in.groups), column)}
}

// valueText returns the text of an id or title value: a string decoded,
// or an integer's decimal digits.
func (in *parquetInput) valueText(v parquet.Value) (string, string) {
	switch v.Kind() {
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10), ""
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10), ""
	}
	return in.decode(v.ByteArray())
}

// decode returns b as UTF-8 text: Parquet strings are UTF-8, but a
// BYTE_ARRAY column without a logical type may hold GBK, decoded as
// Options.Encoding says (see DecodeText).
func (in *parquetInput) decode(b []byte) (string, string) {
	if enc := in.opts.Encoding; (enc == encAuto || enc == encUTF8) && utf8.Valid(b) {
		return string(b), ""
	}
	s, _, err := DecodeText(b, in.opts.Encoding)
	if err != nil {
		return "", err.Error()
	}
	return s, ""
}

// valueCursor reads the values of a column chunk one at a time, a page
// at a time, and of a page up to cursorBatch at a time: a page header's
// count of values is not trusted for an allocation.
type valueCursor struct {
	pages  parquet.Pages
	values parquet.ValueReader // of the page being read; nil between pages
	buf    []parquet.Value
	n, i   int // values in buf, values of it returned
}

const cursorBatch = 256

// next returns the next value; a chunk that ends before its row group
// does is io.ErrUnexpectedEOF.
func (c *valueCursor) next() (parquet.Value, error) {
	for c.i >= c.n {
		if c.values == nil {
			page, err := c.pages.ReadPage()
			if err == io.EOF {
				return parquet.Value{}, fmt.Errorf("the column ends before its row group: %w", io.ErrUnexpectedEOF)
			}
			if err != nil {
				return parquet.Value{}, err
			}
			c.values = page.Values()
		}
		if c.buf == nil {
			c.buf = make([]parquet.Value, cursorBatch)
		}
		k, err := c.values.ReadValues(c.buf)
		c.n, c.i = k, 0
		switch {
		case err == io.EOF || (err == nil && k == 0):
			c.values = nil // the page's end
		case err != nil:
			return parquet.Value{}, err
		}
	}
	v := c.buf[c.i]
	c.i++
	return v, nil
}

// startParquet reads the Parquet data of br: the file f in place when it
// is the file itself (not compressed, of known size), else a temporary
// copy of br.
func startParquet(opts *Options, source string, br *bufio.Reader, f *os.File, size int64, compressed bool) (recordInput, error) {
	if f != nil && !compressed && size > 0 {
		return openParquet(opts, source, f, size, "")
	}
	tmp, err := os.CreateTemp("", "neardup-*.parquet")
	if err != nil {
		return nil, &Error{Source: source, Err: fmt.Errorf("copying Parquet data to a temporary file (it is read by offset): %w", err)}
	}
	n, err := io.Copy(tmp, br)
	if f != nil {
		f.Close()
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("copying Parquet data to a temporary file (it is read by offset): %w", err)
		}
		return nil, &Error{Source: source, Offset: n, Err: err}
	}
	return openParquet(opts, source, tmp, n, tmp.Name())
}
