package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
)

// Reading WARC and WET
//
// A WARC file (ISO 28500; WET files are WARC files of "conversion"
// records, as Common Crawl ships them) is recognised by its first bytes,
// "WARC/1.", after decompression: a Common Crawl .warc.gz of one gzip
// member a record is one gzip stream of members (see Decompress), whose
// damaged member is named by its offset in the compressed file.
//
// Records give articles so:
//   - conversion (WET): the block is the text, decoded as
//     Options.Encoding says;
//   - response with an HTTP response of status 2xx whose Content-Type is
//     HTML (text/html, application/xhtml+xml), and resource records of
//     HTML: the page's text and title through the HTML extraction of
//     StripHTML, its charset from the Content-Type when it names UTF-8,
//     GBK or GB18030, else detected; chunked transfer and gzip content
//     encoding are undone;
//   - every other record (warcinfo, request, metadata, revisit, a
//     response of another type or status, a conversion that is not
//     text/plain) is skipped without holding its block in memory, and
//     counted by kind (Reader.Skipped).
//
// The ID is the WARC-Target-URI; where a URI repeats in a file, the
// later records' IDs are the URI, a space and their WARC-Record-ID
// ("<urn:uuid:…>"); a record without a URI has its record ID, one
// without either "source:N", N its record number. Record.Line
// counts the file's WARC records from 1, skipped ones included, and
// RecordError.Pos and Error.Pos name it as "record 7 (byte 10240)", the
// byte offset of its start in the (decompressed) data.
//
// The reader is this package's own rather than a WARC library's: a
// record is a header block and a Content-Length body, which takes a
// hundred lines; decompression by magic bytes, gzip member offsets,
// encodings, HTML extraction and the limits of Options are this
// package's already; and skipped records, the bulk of a crawl's bytes,
// are passed over without being parsed.

// warcMagic starts every WARC record.
const warcMagic = "WARC/1."

// maxWARCHeader limits a record's header block.
const maxWARCHeader = 64 << 10

// warcInput reads the records of a WARC stream.
type warcInput struct {
	opts    *Options
	source  string
	br      *bufio.Reader
	closer  io.Closer // nil for stdin
	off     int64     // bytes of br read
	n       int       // records read
	start   int64     // offset of the record being read
	seen    map[string]bool
	skipped map[string]int64 // the Reader's counts, by kind
	failed  bool
	// block holds the block being read (readBlock): reused from record
	// to record, since what a record keeps of it is copied (DecodeText).
	block []byte
}

func (in *warcInput) close() error {
	if in.closer == nil {
		return nil
	}
	return in.closer.Close()
}

// pos names the record being read.
func (in *warcInput) pos() string { return fmt.Sprintf("record %d (byte %d)", in.n, in.start) }

// fail ends the file at the record being read with err.
func (in *warcInput) fail(err error) error {
	in.failed = true
	return &Error{Source: in.source, Line: in.n, Offset: in.off, Pos: in.pos(), Err: err}
}

// reject rejects the record being read.
func (in *warcInput) reject(reason string) error {
	return &RecordError{Source: in.source, Line: in.n, Pos: in.pos(), Reason: reason}
}

// skip counts a skipped record of kind.
func (in *warcInput) skip(kind string) { in.skipped[kind]++ }

// readLine reads a line of the header block, without its line end.
func (in *warcInput) readLine() ([]byte, error) {
	line, err := in.br.ReadSlice('\n')
	in.off += int64(len(line))
	if err == bufio.ErrBufferFull {
		return nil, errors.New("header line too long")
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// discard skips n bytes of the block.
func (in *warcInput) discard(n int64) error {
	for n > 0 {
		k, err := in.br.Discard(int(min(n, 1<<30)))
		in.off += int64(k)
		n -= int64(k)
		if err != nil {
			return err
		}
	}
	return nil
}

// warcHeader is a record's header block.
type warcHeader map[string]string

// get returns the value of the named field (case-insensitive).
func (h warcHeader) get(name string) string { return h[strings.ToLower(name)] }

// next returns the next record, a *RecordError, an *Error or io.EOF.
func (in *warcInput) next() (Record, error) {
	for !in.failed {
		h, length, err := in.nextHeader()
		if err != nil {
			return Record{}, err
		}
		rec, rerr, err := in.record(h, length)
		if err != nil {
			return Record{}, in.fail(truncated(err))
		}
		if rerr != nil {
			return Record{}, rerr
		}
		if rec != nil {
			return *rec, nil
		}
	}
	return Record{}, io.EOF
}

// nextHeader reads the header block of the next record and its
// Content-Length; its block is next. It returns io.EOF at the end, or an
// *Error.
func (in *warcInput) nextHeader() (warcHeader, int64, error) {
	// Records end in "\r\n\r\n" after the block: skip blank lines.
	var version []byte
	for {
		in.start = in.off
		line, err := in.readLine()
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			in.n++
			return nil, 0, in.fail(truncated(err))
		}
		if len(line) > 0 {
			version = line
			break
		}
	}
	in.n++
	if !bytes.HasPrefix(version, []byte("WARC/")) {
		return nil, 0, in.fail(fmt.Errorf("not a WARC record: it starts %q", cut(string(version), 40)))
	}
	h, length, err := in.readHeader()
	if err != nil {
		return nil, 0, in.fail(err)
	}
	return h, length, nil
}

// WARCTarget is the target of a WARC record that holds a page.
type WARCTarget struct {
	URI    string // its WARC-Target-URI, without angle brackets; "" when it has none
	Record int    // the record's number in the file, from 1, skipped ones included
	Pos    string // "record 7 (byte 10240)", as Error.Pos names records
}

// IsWARC reports whether head, the first bytes of (decompressed) data,
// starts a WARC file.
func IsWARC(head []byte) bool { return bytes.HasPrefix(head, []byte(warcMagic)) }

// ReadWARCTargets reads the WARC data of br (decompressed: see
// Decompress), named source, and calls emit with the target of each
// record that the Reader reads as a page (a response of an HTML page of
// status 2xx, a text/plain conversion, a resource of an HTML type), in
// order, without reading their blocks beyond a response's HTTP header
// (a record cut short is not emitted); the other records (warcinfo,
// request, metadata, revisit, a response of an image or of status 404,
// …) are skipped, and counted by kind, as Reader.Skipped counts them, in
// the map it returns. An error from emit is returned as it is; data that cannot be
// read to its end is an *Error naming the record, after the targets
// before it.
func ReadWARCTargets(br *bufio.Reader, source string, emit func(WARCTarget) error) (skipped map[string]int64, err error) {
	in := &warcInput{source: source, br: br, skipped: map[string]int64{}}
	for {
		h, length, err := in.nextHeader()
		if err == io.EOF {
			return in.skipped, nil
		}
		if err != nil {
			return in.skipped, err
		}
		// What the Reader skips is skipped, and counted alike: a
		// response's HTTP header is read from the buffer.
		typ, ctype := strings.ToLower(h.get("WARC-Type")), h.get("Content-Type")
		media, _, _ := mime.ParseMediaType(ctype)
		kind := ""
		switch {
		case typ == "conversion" && (media == "text/plain" || ctype == ""),
			typ == "resource" && isHTMLType(media):
		case typ == "response" && media == "application/http":
			_, _, kind = in.httpHead(length)
		default:
			kind = skipKind(typ, media)
		}
		if kind != "" {
			in.skip(kind)
		}
		if err := in.discard(length); err != nil {
			return in.skipped, in.fail(truncated(err))
		}
		if kind != "" {
			continue
		}
		t := WARCTarget{URI: strings.Trim(h.get("WARC-Target-URI"), "<>"), Record: in.n, Pos: in.pos()}
		if err := emit(t); err != nil {
			return in.skipped, err
		}
	}
}

// skipKind names the kind of a skipped record of WARC-Type typ (lower
// case) and block type media, as Reader.Skipped counts it.
func skipKind(typ, media string) string {
	switch typ {
	case "":
		return "untyped"
	case "response", "resource", "conversion":
		return typ + " (" + orNone(media) + ")"
	}
	return typ
}

// truncated names the end of the data inside a record as truncation.
func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("truncated WARC record: %w", io.ErrUnexpectedEOF)
	}
	return err
}

// cut cuts s to n bytes for messages.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// readHeader reads the named fields of a record up to the blank line,
// and its Content-Length.
func (in *warcInput) readHeader() (warcHeader, int64, error) {
	h := warcHeader{}
	size, last := 0, ""
	for {
		line, err := in.readLine()
		if err != nil {
			return nil, 0, truncated(err)
		}
		if len(line) == 0 {
			break
		}
		if size += len(line); size > maxWARCHeader {
			return nil, 0, fmt.Errorf("WARC header longer than %d bytes", maxWARCHeader)
		}
		if (line[0] == ' ' || line[0] == '\t') && last != "" {
			h[last] += " " + string(bytes.TrimSpace(line)) // a continuation line
			continue
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, 0, fmt.Errorf("malformed WARC header line %q", cut(string(line), 60))
		}
		last = strings.ToLower(string(bytes.TrimSpace(name)))
		h[last] = string(bytes.TrimSpace(value))
	}
	cl := h.get("Content-Length")
	length, err := strconv.ParseInt(cl, 10, 64)
	if err != nil || length < 0 {
		return nil, 0, fmt.Errorf("WARC Content-Length %q: not a length", cl)
	}
	return h, length, nil
}

// record makes an article of the record whose header is h and whose
// block of length bytes is next: it returns the record, nil when the
// record is skipped, or a rejection; err is a read error, which ends the
// file.
func (in *warcInput) record(h warcHeader, length int64) (rec *Record, reject error, err error) {
	typ := strings.ToLower(h.get("WARC-Type"))
	ctype := h.get("Content-Type")
	media, _, _ := mime.ParseMediaType(ctype)
	var text, title string
	switch {
	case typ == "conversion" && (media == "text/plain" || ctype == ""):
		block, reason, err := in.readBlock(length, in.opts.MaxBytes)
		if err != nil || reason != "" {
			return nil, in.rejectIf(reason), err
		}
		s, _, derr := DecodeText(block, in.opts.Encoding)
		if derr != nil {
			return nil, in.reject(derr.Error()), nil
		}
		text = s
	case typ == "response" && media == "application/http":
		var reason string
		text, title, reason, err = in.httpResponse(length)
		if err != nil || reason != "" {
			return nil, in.rejectIf(reason), err
		}
		if text == "" && title == "" {
			return nil, nil, nil // skipped and counted
		}
	case typ == "resource" && isHTMLType(media):
		block, reason, err := in.readBlock(length, in.opts.MaxBytes)
		if err != nil || reason != "" {
			return nil, in.rejectIf(reason), err
		}
		var why string
		if text, title, why = in.html(block, ctype); why != "" {
			return nil, in.reject(why), nil
		}
	default:
		in.skip(skipKind(typ, media))
		return nil, nil, in.discard(length)
	}
	if isBlankText(text) {
		return nil, in.reject("no text"), nil
	}
	return &Record{ID: in.id(h), Title: title, Text: text, Source: in.source, Line: in.n, Offset: in.start}, nil, nil
}

// rejectIf returns a rejection for reason, or nil.
func (in *warcInput) rejectIf(reason string) error {
	if reason == "" {
		return nil
	}
	return in.reject(reason)
}

func orNone(media string) string {
	if media == "" {
		return "no content type"
	}
	return media
}

// id returns the ID of the record whose header is h.
func (in *warcInput) id(h warcHeader) string {
	uri, rid := strings.Trim(h.get("WARC-Target-URI"), "<>"), h.get("WARC-Record-ID")
	switch {
	case uri == "" && rid == "":
		return in.source + ":" + strconv.Itoa(in.n)
	case uri == "":
		return rid
	case in.seen[uri] && rid != "":
		return uri + " " + rid
	}
	in.seen[uri] = true
	return uri
}

// readBlock reads a block of length bytes into in.block, or skips it
// and returns why when it is over max. The block is valid until the next
// call.
func (in *warcInput) readBlock(length int64, max int) ([]byte, string, error) {
	if length > int64(max) {
		return nil, fmt.Sprintf("too large: %d bytes (maximum %d, --max-bytes)", length, max), in.discard(length)
	}
	if int64(cap(in.block)) < length {
		in.block = make([]byte, length)
	}
	block := in.block[:length]
	n, err := io.ReadFull(in.br, block)
	in.off += int64(n)
	return block, "", err
}

// isHTMLType reports whether media is an HTML type.
func isHTMLType(media string) bool {
	return media == "text/html" || media == "application/xhtml+xml"
}

// httpHead reads the HTTP header of the response record whose block of
// length bytes is next, from the buffer (a response that is not a page
// is skipped without reading its body into memory), and returns it and
// its length, or the kind of record to count it as when it is not an
// HTML page of status 2xx.
func (in *warcInput) httpHead(length int64) (resp *http.Response, headerLen int, skip string) {
	head, _ := in.br.Peek(int(min(length, int64(in.br.Size()))))
	hr := bytes.NewReader(head)
	hb := bufio.NewReader(hr)
	resp, err := http.ReadResponse(hb, nil)
	if err != nil {
		return nil, 0, "response (unreadable HTTP header)"
	}
	// The header's length: what the parser took of head.
	headerLen = len(head) - hr.Len() - hb.Buffered()
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, 0, fmt.Sprintf("response (HTTP %d)", resp.StatusCode)
	case !isHTMLType(media):
		return nil, 0, "response (" + orNone(media) + ")"
	}
	return resp, headerLen, ""
}

// httpResponse reads the block of a response record, an HTTP response,
// and returns the text and title of its HTML page; both empty when the
// record is skipped (counted), or why it is rejected.
func (in *warcInput) httpResponse(length int64) (text, title, reason string, err error) {
	resp, headerLen, kind := in.httpHead(length)
	if kind != "" {
		in.skip(kind)
		return "", "", "", in.discard(length)
	}
	// The HTTP header is allowed 1 MiB besides the page.
	block, reason, err := in.readBlock(length, in.opts.MaxBytes+1<<20)
	if err != nil || reason != "" {
		return "", "", reason, err
	}
	// The body as net/http reads it: chunks undone, cut at its
	// Content-Length; a body shorter than its Content-Length is kept as
	// it is.
	body := block[headerLen:]
	switch {
	case slices.Contains(resp.TransferEncoding, "chunked"):
		var berr error
		body, berr = io.ReadAll(io.LimitReader(httputil.NewChunkedReader(bytes.NewReader(body)), int64(in.opts.MaxBytes)+1))
		if berr != nil && !errors.Is(berr, io.ErrUnexpectedEOF) {
			return "", "", "malformed HTTP body: " + berr.Error(), nil
		}
	case resp.ContentLength >= 0:
		body = body[:min(resp.ContentLength, int64(len(body)))]
	}
	switch enc := strings.ToLower(resp.Header.Get("Content-Encoding")); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, zerr := gzip.NewReader(bytes.NewReader(body))
		if zerr == nil {
			body, zerr = io.ReadAll(io.LimitReader(zr, int64(in.opts.MaxBytes)+1))
		}
		if zerr != nil && !errors.Is(zerr, io.ErrUnexpectedEOF) {
			return "", "", "HTTP body: gzip content encoding: " + zerr.Error(), nil
		}
	default:
		return "", "", fmt.Sprintf("HTTP content encoding %q: only gzip is undone", enc), nil
	}
	if len(body) > in.opts.MaxBytes {
		return "", "", fmt.Sprintf("too large: more than %d bytes (the maximum, --max-bytes)", in.opts.MaxBytes), nil
	}
	text, title, reason = in.html(body, resp.Header.Get("Content-Type"))
	if reason == "" && text == "" {
		reason = "no text"
	}
	return text, title, reason, nil
}

// html returns the text and title of an HTML page whose Content-Type is
// ctype, or why not.
func (in *warcInput) html(page []byte, ctype string) (text, title, reason string) {
	enc := in.opts.Encoding
	if _, params, err := mime.ParseMediaType(ctype); err == nil && enc == encAuto {
		if e, err := canonicalEncoding(params["charset"]); err == nil {
			enc = e
		}
	}
	if enc == encAuto || enc == encUTF8 {
		// DecodeText's result without its copy: valid UTF-8 less a BOM.
		if body, _ := trimUTF8BOM(page); utf8.Valid(body) {
			text, title = htmlText(body)
			return text, title, ""
		}
	}
	s, _, err := DecodeText(page, enc)
	if err != nil {
		return "", "", err.Error()
	}
	text, title = htmlText([]byte(s)) // DecodeText returns valid UTF-8
	return text, title, ""
}

// Skip counts the records of a kind that a Reader skipped.
type Skip struct {
	Kind string // "request", "metadata", "response (image/png)", "response (HTTP 404)", …
	N    int64
}

// Skipped returns the counts of the WARC records skipped so far, by kind
// in lexical order.
func (r *Reader) Skipped() []Skip {
	var s []Skip
	for k, n := range r.skipped {
		s = append(s, Skip{Kind: k, N: n})
	}
	sort.Slice(s, func(i, j int) bool { return s[i].Kind < s[j].Kind })
	return s
}

// SkippedText describes skipped records for a command's summary:
// "skipped 7 WARC records that are not pages: 3 request, 3 metadata,
// 1 warcinfo", or "" when none were.
func SkippedText(skipped []Skip) string {
	if len(skipped) == 0 {
		return ""
	}
	sorted := slices.Clone(skipped)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].N > sorted[j].N })
	var total int64
	parts := make([]string, len(sorted))
	for i, s := range sorted {
		total += s.N
		parts[i] = strconv.FormatInt(s.N, 10) + " " + s.Kind
	}
	what := "records that are not pages"
	if total == 1 {
		what = "record that is not a page"
	}
	return fmt.Sprintf("skipped %d WARC %s: %s", total, what, strings.Join(parts, ", "))
}
