package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// Record is one article read from an input.
type Record struct {
	// ID identifies the article: the JSONL id field (a number is kept as
	// its literal text), or "<source>:<line>" when a JSONL line has none;
	// for a whole file, its path relative to the directory that was walked
	// (with forward slashes), the path as given for a file named directly,
	// or "-" for standard input.
	ID string
	// Title is the JSONL title field; for a whole HTML file read with
	// Options.HTML, the text of its title element. Empty if none.
	Title string
	// Text is the article decoded to UTF-8, HTML-stripped when
	// Options.HTML is set. It is never empty or only white space.
	Text string
	// Source names the input: the path of the file as given or as found
	// under a walked directory, or "stdin".
	Source string
	// Line is the 1-based line number of a JSONL record; 0 for whole files.
	Line int
	// Raw is the verbatim JSONL line, in the input's own encoding, without
	// its "\n" (a "\r" before it is kept, a UTF-8 byte-order mark at the
	// start of the stream is not): writing Raw and "\n" reproduces the
	// line. Nil for whole files.
	Raw []byte
	// Offset is the byte offset of the start of the line in the
	// (decompressed) input stream; 0 for whole files.
	Offset int64
	// Row is the whole row of a Parquet record, every column, and
	// Schema its file's schema, with Options.ParquetRows; else nil.
	Row    parquet.Row
	Schema *parquet.Schema
}

// ShortID returns id cut to 80 bytes for messages: the first 77 and
// "...".
func ShortID(id string) string {
	if len(id) > 80 {
		return id[:77] + "..."
	}
	return id
}

// RecordBytes estimates the bytes the record rec (read with the error
// err) took in its input, so that they add up to the input's size: a
// JSONL line and its newline, or a whole file's text (a progress line
// counts them).
func RecordBytes(rec *Record, err error) int64 {
	var re *RecordError
	switch {
	case errors.As(err, &re):
		return int64(len(re.Raw)) + 1
	case rec.Raw == nil:
		return int64(len(rec.Text))
	}
	return int64(len(rec.Raw)) + 1
}

// QuoteID returns id for text output: quoted (strconv.Quote) when it is
// empty or has spaces, control characters, quotes or invalid UTF-8, and
// cut to 120 bytes (the first 117 and "...").
func QuoteID(id string) string {
	if len(id) > 120 {
		id = id[:117] + "..."
	}
	if id == "" || strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r == '"' || r == 0x7f || r == utf8.RuneError }) {
		return strconv.Quote(id)
	}
	return id
}

// Name names r in messages: "file.jsonl:17 (id x)" for a JSONL record
// (the id quoted by QuoteID), the source alone for a whole file.
func (r *Record) Name() string {
	if r.Line > 0 && r.ID != "" {
		return r.Location() + " (id " + QuoteID(r.ID) + ")"
	}
	return r.Location()
}

// Location names where r came from: "source:line" for a JSONL record,
// the source alone for a whole file.
func (r *Record) Location() string {
	if r.Line > 0 {
		return r.Source + ":" + strconv.Itoa(r.Line)
	}
	return r.Source
}

// RecordError is a bad record: it names the input, the line and the field,
// and why the record was rejected. Reading goes on with the next record.
type RecordError struct {
	Source string
	Line   int // 1-based JSONL line, Parquet row or WARC record; 0 for whole files
	// Pos, when set, says where the record is in the format's own terms
	// ("row 1235 (row group 3 of 4, row 18)", "record 7 (byte 10240)")
	// and is named in place of Line.
	Pos    string
	Field  string // the offending JSONL field, or "" when the whole line or file is bad
	Reason string
	Raw    []byte // the verbatim JSONL line; nil for whole files and lines over MaxLine
}

// Error formats the error as "data.jsonl:17: field "text": not a string
// (number)", or "dir/a.png: binary data (PNG image)" for a whole file.
func (e *RecordError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	switch {
	case e.Pos != "":
		b.WriteString(": " + e.Pos)
	case e.Line > 0:
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Error means an input could not be read to its end: it cannot be
// opened, a directory cannot be listed, or reading fails (for example
// truncated or corrupt gzip data). The records before the failure have
// been returned already; the rest of that input is skipped. Next goes on
// with the next input, so a caller can report the error and continue, but
// since data was lost it should finally fail (exit non-zero).
type Error struct {
	Source string
	Line   int   // JSONL: the line being read when reading failed; else 0
	Offset int64 // bytes of (decompressed) data read before the failure
	// Pos, when set, says where reading failed in the format's own terms
	// ("row group 3 of 4, column "text"", "record 7 (byte 10240)") and
	// is named in place of Line and Offset.
	Pos string
	Err error
}

// Error formats the error as "news.jsonl.gz: line 1235 (byte 5678901):
// truncated gzip data: unexpected EOF".
func (e *Error) Error() string {
	switch {
	case e.Pos != "":
		return fmt.Sprintf("%s: %s: %v", e.Source, e.Pos, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s: line %d (byte %d): %v", e.Source, e.Line, e.Offset, e.Err)
	case e.Offset > 0:
		return fmt.Sprintf("%s: byte %d: %v", e.Source, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Source, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// ReadOne reads the single article of path ("-": stdin); none, or more
// than one, is an error naming path.
func ReadOne(path string, stdin io.Reader, opts *Options) (Record, error) {
	r := NewReader([]string{path}, stdin, opts)
	defer r.Close()
	rec, err := r.Next()
	if err == io.EOF {
		return rec, fmt.Errorf("%s: no article", path)
	}
	if err != nil {
		return rec, err
	}
	if _, err := r.Next(); err != io.EOF {
		return rec, fmt.Errorf("%s: holds more than one article; want one", path)
	}
	return rec, nil
}

// Options tell a Reader how to read its inputs. The zero value (or a
// nil *Options) reads the fields "id", "title" and "text", detects
// format and encoding, and limits articles to 16 MiB.
type Options struct {
	// IDField, TextField and TitleField name the JSONL fields; defaults
	// "id", "text" and "title".
	IDField, TextField, TitleField string
	// Format is "auto" (or ""), "jsonl" or "text". With "auto" data
	// starting with the magic bytes of Parquet is Parquet, whatever its
	// name; a file whose name ends in .jsonl, .ndjson or .json (before
	// any .gz, .zst, .xz or .bz2) is JSONL, one ending in .txt, .text,
	// .md, .html, .htm or .xhtml is text, and any other file or standard
	// input is JSONL if its first non-blank byte is '{'. Text is one
	// whole-file article. "jsonl" and "text" read every input so.
	Format string
	// Encoding is "auto" (or ""), "utf-8", "gbk" or "gb18030"; see
	// DecodeText. For JSONL it applies line by line.
	Encoding string
	// HTML strips markup from the text (see StripHTML) and, for whole
	// files, takes the title from the title element.
	HTML bool
	// MaxBytes limits an article: the decoded JSONL text field, or a whole
	// file before decoding. Default 16 MiB. The error of a larger one
	// names the limit and the command-line flag that sets it (--max-bytes).
	MaxBytes int
	// MaxLine limits a JSONL line (without its "\n"). A longer line is a
	// RecordError and is skipped without being held in memory. Default
	// MaxBytes + 1 MiB.
	MaxLine int
	// ParquetRows makes the records of Parquet files carry their whole
	// row, every column (Record.Row, Record.Schema), for outputs that
	// keep them; the columns neardup does not use are then read too.
	ParquetRows bool
}

const (
	defaultMaxBytes = 16 << 20
	readBufferSize  = 64 << 10
)

// resolved returns the options with defaults filled in, or an error naming
// the first invalid option.
func (o *Options) resolved() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	if r.IDField == "" {
		r.IDField = "id"
	}
	if r.TextField == "" {
		r.TextField = "text"
	}
	if r.TitleField == "" {
		r.TitleField = "title"
	}
	switch f := strings.ToLower(r.Format); f {
	case "", "auto":
		r.Format = "auto"
	case "jsonl", "text":
		r.Format = f
	default:
		return r, fmt.Errorf("input format %q: want auto, jsonl or text", r.Format)
	}
	enc, err := canonicalEncoding(r.Encoding)
	if err != nil {
		return r, fmt.Errorf("input encoding: %w", err)
	}
	r.Encoding = enc
	switch {
	case r.MaxBytes < 0:
		return r, fmt.Errorf("maximum article size %d: must not be negative", r.MaxBytes)
	case r.MaxBytes == 0:
		r.MaxBytes = defaultMaxBytes
	}
	switch {
	case r.MaxLine < 0:
		return r, fmt.Errorf("maximum line length %d: must not be negative", r.MaxLine)
	case r.MaxLine == 0:
		r.MaxLine = r.MaxBytes + 1<<20
	}
	return r, nil
}

// Validate reports the first invalid option, if any: an unknown Format or
// Encoding, or a negative limit. NewReader's Reader returns the same error
// from every call to Next.
func (o *Options) Validate() error {
	_, err := o.resolved()
	return err
}

// Reader reads articles from files, directories and standard input. It is
// not safe for concurrent use.
//
// Inputs are read in the order given. A directory is walked depth first,
// each directory's entries in lexical order (like filepath.WalkDir);
// entries whose names start with "." are skipped, symbolic links to files
// are read and symbolic links to directories are not followed, and
// special files (devices, pipes, sockets) found in a walk are skipped.
// Files named directly are read whatever they are. Gzip, zstd, xz and
// bzip2 data is decompressed transparently, recognised by its magic bytes
// (.gz files that are not gzip are read as they are; see Decompress); the
// format is chosen on the name without ".gz", ".zst", ".zstd", ".xz" or
// ".bz2".
//
// A JSONL input yields one Record per non-blank line; blank lines (only
// spaces, tabs, "\r") are skipped and not reported, though they count in
// line numbers. A Parquet file (recognised by its magic bytes "PAR1"
// when Options.Format is auto) yields one Record per row. Any other
// input is one whole-file Record.
type Reader struct {
	opts   Options
	err    error // invalid options: returned by every Next
	stdin  io.Reader
	stack  []pendingInput // inputs still to read, the next one last
	cur    recordInput    // the input of many records being read
	closed bool
	// skipped counts the WARC records skipped, by kind.
	skipped map[string]int64
	// Progress: the bytes of the files read to their end, the reader of
	// the current file (counting what was read of it) and its size, and
	// what Done returns.
	finished int64
	curFile  *countingReader
	curSize  int64
	done     atomic.Int64
}

// recordInput is an input of many records: JSONL, Parquet or WARC.
type recordInput interface {
	// next returns the next record, a *RecordError, an *Error or io.EOF.
	next() (Record, error)
	close() error
}

// pendingInput is a path still to read.
type pendingInput struct {
	path   string // path to open; "-" for stdin
	id     string // ID of a whole-file record; for dir, the ID prefix of its entries
	walked bool   // found by walking a directory
	dir    bool   // a directory found by walking
}

// NewReader returns a Reader of the given paths of files and directories;
// "-" reads stdin. opts may be nil for the defaults. Invalid options are
// reported by Next (and by Options.Validate).
func NewReader(paths []string, stdin io.Reader, opts *Options) *Reader {
	r := &Reader{stdin: stdin}
	r.opts, r.err = opts.resolved()
	for i := len(paths) - 1; i >= 0; i-- {
		r.stack = append(r.stack, pendingInput{path: paths[i], id: paths[i]})
	}
	return r
}

// Next returns the next article. At the end of the inputs it returns
// io.EOF. The errors are:
//   - *RecordError: a bad line or file (malformed JSON, a missing or
//     non-string text, undecodable bytes, binary data, too large, empty…);
//     the Record is zero; call Next again to go on.
//   - *Error: an input could not be opened or read to its end (the
//     records read before were returned); call Next again to go on with
//     the next input.
//   - any other error: invalid options; the Reader is unusable.
func (r *Reader) Next() (Record, error) {
	rec, err := r.next()
	r.noteProgress()
	return rec, err
}

// Done returns how many bytes of the input files (as they are on disk,
// compressed or not) have been read, for a progress line: those of the
// files read to their end and the part of the current one read so far
// (of a Parquet file, the share of its rows read). It may be called
// from any goroutine while another calls Next. Size gives the total.
func (r *Reader) Done() int64 { return r.done.Load() }

// noteProgress updates what Done returns.
func (r *Reader) noteProgress() {
	n := r.finished
	switch cur := r.cur.(type) {
	case *parquetInput:
		n += cur.consumed(r.curSize)
	default:
		if r.curFile != nil {
			n += min(r.curFile.n, max(r.curSize, 0))
		}
	}
	r.done.Store(n)
}

// fileDone notes that the current file was read to its end, or given up.
func (r *Reader) fileDone() {
	if r.curFile != nil && r.curSize > 0 {
		r.finished += r.curSize
	}
	r.curFile, r.curSize = nil, 0
}

// Size returns the total size of the files that paths name and the
// directories among them hold (walked as a Reader walks them), as they
// are on disk, for a progress line with Done; -1 when standard input
// ("-") is among them. Paths that cannot be read count 0.
func Size(paths []string) int64 {
	var total int64
	for _, p := range paths {
		if p == "-" {
			return -1
		}
		info, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !info.IsDir() {
			total += info.Size()
			continue
		}
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if path != p && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
				total += info.Size()
			}
			return nil
		})
	}
	return total
}

func (r *Reader) next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	for !r.closed {
		if r.cur != nil {
			rec, err := r.cur.next()
			if err == nil {
				return rec, nil
			}
			if _, ok := err.(*RecordError); ok {
				return Record{}, err
			}
			r.closeCurrent()
			if err == io.EOF {
				continue
			}
			return Record{}, err
		}
		if len(r.stack) == 0 {
			return Record{}, io.EOF
		}
		p := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		if rec, done, err := r.start(p); done {
			return rec, err
		}
	}
	return Record{}, io.EOF
}

// Close releases the input being read. Next returns io.EOF afterwards.
func (r *Reader) Close() error {
	r.closed = true
	r.stack = nil
	return r.closeCurrent()
}

func (r *Reader) closeCurrent() error {
	if r.cur == nil {
		return nil
	}
	err := r.cur.close()
	r.cur = nil
	r.fileDone()
	return err
}

// start begins reading p. It returns done with a record or an error for
// Next to return, or !done when Next should go on (a JSONL input was
// opened, or a directory was listed).
func (r *Reader) start(p pendingInput) (rec Record, done bool, err error) {
	if p.path == "-" {
		if r.stdin == nil {
			return Record{}, true, &Error{Source: "stdin", Err: errors.New("no standard input")}
		}
		return r.startStream("stdin", "-", "", r.stdin, nil, -1)
	}
	dir, prefix := p.dir, p.id
	if !p.walked {
		info, err := os.Stat(p.path)
		if err != nil {
			return Record{}, true, &Error{Source: p.path, Err: pathErr(err)}
		}
		dir, prefix = info.IsDir(), ""
	}
	if dir {
		if err := r.pushDir(p.path, prefix); err != nil {
			return Record{}, true, err
		}
		return Record{}, false, nil
	}
	f, err := os.Open(p.path)
	if err != nil {
		return Record{}, true, &Error{Source: p.path, Err: pathErr(err)}
	}
	size := int64(-1)
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		size = info.Size()
	}
	r.curFile, r.curSize = &countingReader{r: f}, size
	rec, done, err = r.startStream(p.path, p.id, p.path, r.curFile, f, size)
	if done {
		r.fileDone()
	}
	return rec, done, err
}

// pushDir lists dir and pushes its entries; idPrefix is dir's path
// relative to the walked root, with a trailing slash.
func (r *Reader) pushDir(dir, idPrefix string) error {
	entries, err := os.ReadDir(dir)
	// os.ReadDir returns the entries read before an error: walk them too.
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			info, err := os.Stat(path)
			if err == nil && info.IsDir() {
				continue // not followed: no cycles
			}
			if err == nil {
				typ = info.Mode().Type()
			} else {
				typ = 0 // broken link: let opening it report the error
			}
		}
		switch {
		case typ.IsDir():
			// Listed when popped: keep the order depth first.
			r.stack = append(r.stack, pendingInput{path: path, id: idPrefix + name + "/", walked: true, dir: true})
		case typ.IsRegular():
			r.stack = append(r.stack, pendingInput{path: path, id: idPrefix + name, walked: true})
		}
	}
	if err != nil {
		return &Error{Source: dir, Err: pathErr(err)}
	}
	return nil
}

// pathErr drops the path from an *fs.PathError, which the *Error names
// already, keeping the operation: "open: permission denied".
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &opError{op: pe.Op, err: err}
	}
	return err
}

// opError prints an *fs.PathError without its path and unwraps to it.
type opError struct {
	op  string
	err error // an *fs.PathError
}

func (e *opError) Error() string {
	var pe *fs.PathError
	errors.As(e.err, &pe)
	return e.op + ": " + pe.Err.Error()
}

func (e *opError) Unwrap() error { return e.err }

// stickyReader remembers the first error of r and keeps returning it, so
// that an error seen while peeking is not lost.
type stickyReader struct {
	r   io.Reader
	err error
}

func (s *stickyReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	s.err = err
	return n, err
}

// startStream reads an opened input: source names it in errors, id is the
// ID of a whole-file record, name is the file name for format detection
// ("" for stdin), closer is closed at the end (nil for stdin) and size is
// the file size if known, else -1.
func (r *Reader) startStream(source, id, name string, f io.Reader, closer io.Closer, size int64) (Record, bool, error) {
	done := func(rec Record, err error) (Record, bool, error) {
		if closer != nil {
			closer.Close()
		}
		return rec, true, err
	}
	br, gz, err := Decompress(bufio.NewReaderSize(&stickyReader{r: f}, readBufferSize), readBufferSize)
	if err != nil {
		return done(Record{}, &Error{Source: source, Err: err})
	}
	if gz {
		size = -1
	}
	if r.opts.Format == "auto" {
		magic, _ := br.Peek(len(parquetMagic))
		if string(magic) == parquetMagic {
			file, _ := closer.(*os.File)
			in, err := startParquet(&r.opts, source, br, file, size, gz)
			if err != nil {
				return Record{}, true, err
			}
			r.cur = in
			return Record{}, false, nil
		}
	}
	if r.opts.Format == "auto" {
		if magic, _ := br.Peek(len(warcMagic)); string(magic) == warcMagic {
			if r.skipped == nil {
				r.skipped = make(map[string]int64)
			}
			r.cur = &warcInput{opts: &r.opts, source: source, br: br, closer: closer, seen: make(map[string]bool), skipped: r.skipped}
			return Record{}, false, nil
		}
	}
	lower := trimCompressedExt(strings.ToLower(name))
	jsonl := false
	switch r.opts.Format {
	case "jsonl":
		jsonl = true
	case "auto":
		switch ext := filepath.Ext(lower); {
		case ext == ".jsonl" || ext == ".ndjson" || ext == ".json":
			jsonl = true
		case !knownTextExt(ext):
			jsonl = looksLikeJSONL(br)
		}
	}
	if jsonl {
		in := &jsonlInput{opts: &r.opts, source: source, br: br, closer: closer}
		if err := in.start(); err != nil {
			return done(Record{}, err)
		}
		r.cur = in
		return Record{}, false, nil
	}
	return done(r.readWhole(source, id, br, size))
}

// knownTextExt reports whether ext (lower case) names a plain text or HTML
// file, which is never sniffed for JSONL.
func knownTextExt(ext string) bool {
	switch ext {
	case ".txt", ".text", ".md", ".html", ".htm", ".xhtml":
		return true
	}
	return false
}

// looksLikeJSONL reports whether the first byte that is not white space
// (after a UTF-8 byte-order mark) is '{'.
func looksLikeJSONL(br *bufio.Reader) bool {
	head, _ := br.Peek(4096)
	head, _ = trimUTF8BOM(head)
	head = bytes.TrimLeft(head, " \t\r\n")
	return len(head) > 0 && head[0] == '{'
}

// readWhole reads a whole-file article.
func (r *Reader) readWhole(source, id string, br *bufio.Reader, size int64) (Record, error) {
	max := r.opts.MaxBytes
	if size > int64(max) {
		return Record{}, &RecordError{Source: source, Reason: fmt.Sprintf("too large: %d bytes (maximum %d, --max-bytes)", size, max)}
	}
	// Known binary formats are rejected before reading them.
	if head, _ := br.Peek(32); binarySignature(head) != "" {
		return Record{}, &RecordError{Source: source, Reason: binaryReason(head)}
	}
	data, err := io.ReadAll(io.LimitReader(br, int64(max)+1))
	if err != nil {
		return Record{}, &Error{Source: source, Offset: int64(len(data)), Err: err}
	}
	if len(data) > max {
		return Record{}, &RecordError{Source: source, Reason: fmt.Sprintf("too large: more than %d bytes (the maximum, --max-bytes)", max)}
	}
	if reason := binaryReason(data); reason != "" {
		return Record{}, &RecordError{Source: source, Reason: reason}
	}
	text, _, err := DecodeText(data, r.opts.Encoding)
	if err != nil {
		return Record{}, &RecordError{Source: source, Reason: err.Error()}
	}
	if n := countControls(text); n > 0 && n*100 > len(text) {
		return Record{}, &RecordError{Source: source, Reason: fmt.Sprintf("binary data (%d control characters)", n)}
	}
	var title string
	if r.opts.HTML {
		text, title = stripHTML(text)
	}
	if isBlankText(text) {
		reason := "empty file"
		if len(data) > 0 {
			reason = "no text"
		}
		return Record{}, &RecordError{Source: source, Reason: reason}
	}
	return Record{ID: id, Title: title, Text: text, Source: source}, nil
}

// binarySignatures are the magic bytes of common binary formats.
var binarySignatures = []struct{ magic, name string }{
	{"\x89PNG\r\n\x1a\n", "PNG image"},
	{"\xff\xd8\xff", "JPEG image"},
	{"GIF87a", "GIF image"},
	{"GIF89a", "GIF image"},
	{"PK\x03\x04", "ZIP archive"},
	{"PK\x05\x06", "ZIP archive"},
	{"%PDF-", "PDF document"},
	{"\x1f\x8b", "gzip data"},
	{"\xfd7zXZ\x00", "xz data"},
	{"7z\xbc\xaf\x27\x1c", "7z archive"},
	{"\x28\xb5\x2f\xfd", "zstd data"},
	{"\x7fELF", "ELF executable"},
	{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "OLE2 document (.doc/.xls)"},
	{"SQLite format 3\x00", "SQLite database"},
}

// binarySignature returns the name of the binary format data starts
// with, or "".
func binarySignature(data []byte) string {
	for _, s := range binarySignatures {
		if bytes.HasPrefix(data, []byte(s.magic)) {
			return s.name
		}
	}
	return ""
}

// binaryReason returns why data is not text ("binary data (…)"), or "".
// Control characters are checked after decoding (see countControls).
func binaryReason(data []byte) string {
	if name := binarySignature(data); name != "" {
		return "binary data (" + name + ")"
	}
	if len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		return "" // UTF-16 text has NUL bytes
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Sprintf("binary data (NUL byte at byte %d)", i)
	}
	return ""
}

// countControls counts the C0 control characters of s other than white
// space (\t \n \v \f \r). Text has few if any: more than 1% of the bytes
// means binary data.
func countControls(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' {
			n++
		}
	}
	return n
}

// isBlankText reports whether s is only white space.
func isBlankText(s string) bool { return strings.TrimSpace(s) == "" }
