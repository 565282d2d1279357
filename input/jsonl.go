package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonlInput reads records from a JSONL stream.
type jsonlInput struct {
	opts   *Options
	source string
	br     *bufio.Reader
	lines  *LineReader // of br, after the byte-order mark
	closer io.Closer   // nil for stdin
	line   int         // lines read
	bom    int64       // length of the byte-order mark skipped
}

// start skips a UTF-8 byte-order mark and rejects UTF-16.
func (in *jsonlInput) start() error {
	head, _ := in.br.Peek(len(utf8BOM))
	switch {
	case bytes.HasPrefix(head, utf8BOM):
		in.br.Discard(len(utf8BOM))
		in.bom = int64(len(utf8BOM))
	case len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF):
		return &Error{Source: in.source, Err: errors.New("UTF-16 text: JSONL must be UTF-8, GBK or GB18030")}
	}
	in.lines = NewLineReader(in.br, in.opts.MaxLine)
	return nil
}

// pos returns the offset in the stream of what has been read.
func (in *jsonlInput) pos() int64 { return in.bom + in.lines.Offset() }

func (in *jsonlInput) close() error {
	if in.closer == nil {
		return nil
	}
	return in.closer.Close()
}

// next returns the next record, a *RecordError, an *Error or io.EOF.
func (in *jsonlInput) next() (Record, error) {
	for {
		start := in.pos()
		line, tooLong, err := in.lines.Next()
		if err == io.EOF {
			return Record{}, io.EOF
		}
		if err != nil {
			return Record{}, &Error{Source: in.source, Line: in.line + 1, Offset: in.pos(), Err: err}
		}
		in.line++
		if tooLong {
			return Record{}, &RecordError{Source: in.source, Line: in.line,
				Reason: fmt.Sprintf("line too long: more than %d bytes", in.opts.MaxLine)}
		}
		// A byte-order mark starting a later line comes from files joined
		// with cat; the first line's was skipped when the input opened.
		line = bytes.TrimPrefix(line, utf8BOM)
		if isBlankLine(line) {
			continue
		}
		raw := bytes.Clone(line)
		rec, reason, field := parseJSONLRecord(raw, in.opts, in.source, in.line)
		if reason != "" {
			return Record{}, &RecordError{Source: in.source, Line: in.line, Field: field, Reason: reason, Raw: raw}
		}
		rec.Offset = start
		return rec, nil
	}
}

// isBlankLine reports whether line holds only spaces, tabs and "\r".
func isBlankLine(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// parseJSONLRecord makes a record of a JSONL line, or returns why not and
// the field at fault.
func parseJSONLRecord(raw []byte, opts *Options, source string, line int) (rec Record, reason, field string) {
	text := raw
	switch opts.Encoding {
	case encAuto:
		if !utf8.Valid(raw) {
			s, ok := decodeGBPlausible(raw)
			if !ok {
				return rec, fmt.Sprintf("invalid UTF-8 (not GBK/GB18030 either) at byte %d of the line", invalidUTF8Offset(raw)), ""
			}
			text = []byte(s)
		}
	case encUTF8:
		if !utf8.Valid(raw) {
			return rec, fmt.Sprintf("invalid UTF-8 at byte %d of the line", invalidUTF8Offset(raw)), ""
		}
	case encGBK, encGB18030:
		if !allASCII(raw) {
			s, bad := decodeGB(raw, opts.Encoding == encGB18030)
			if bad >= 0 {
				name := "GBK"
				if opts.Encoding == encGB18030 {
					name = "GB18030"
				}
				return rec, fmt.Sprintf("invalid %s at byte %d of the line", name, bad), ""
			}
			text = []byte(s)
		}
	}
	keys := [3]string{opts.IDField, opts.TextField, opts.TitleField}
	vals, err := parseJSONObject(text, &keys)
	if err != nil {
		return rec, err.Error(), ""
	}
	idv, textv, titlev := vals[0], vals[1], vals[2]

	rec = Record{Source: source, Line: line, Raw: raw}
	switch textv.kind {
	case jsonMissing:
		return rec, "missing", opts.TextField
	case jsonString:
		rec.Text = textv.str()
	default:
		return rec, "not a string (" + textv.kind.String() + ")", opts.TextField
	}
	if rec.Text, reason = checkFieldText(rec.Text, opts); reason != "" {
		return rec, reason, opts.TextField
	}

	switch idv.kind {
	case jsonMissing, jsonNull:
		rec.ID = fmt.Sprintf("%s:%d", source, line)
	case jsonString:
		if rec.ID = idv.str(); rec.ID == "" {
			return rec, "empty string", opts.IDField
		}
	case jsonNumber:
		rec.ID = string(idv.raw)
	default:
		return rec, "not a string or number (" + idv.kind.String() + ")", opts.IDField
	}

	switch titlev.kind {
	case jsonMissing, jsonNull:
	case jsonString:
		rec.Title = titlev.str()
		if opts.HTML {
			rec.Title = StripHTML(rec.Title)
		}
	case jsonNumber:
		rec.Title = string(titlev.raw)
	default:
		return rec, "not a string (" + titlev.kind.String() + ")", opts.TitleField
	}
	return rec, "", ""
}

// checkFieldText checks the text of a record's text field (JSONL or a
// Parquet column) and strips its markup when opts.HTML is set: it
// returns the text, or why the record is rejected.
func checkFieldText(text string, opts *Options) (string, string) {
	switch {
	case len(text) == 0:
		return text, "empty string"
	case len(text) > opts.MaxBytes:
		return text, fmt.Sprintf("too large: %d bytes (maximum %d, --max-bytes)", len(text), opts.MaxBytes)
	case isBlankText(text):
		return text, "only white space"
	}
	if opts.HTML {
		if text = StripHTML(text); text == "" {
			return text, "no text after HTML stripping"
		}
	}
	return text, ""
}

// allASCII reports whether b is all ASCII.
func allASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// jsonKind is the type of a JSON value.
type jsonKind uint8

const (
	jsonMissing jsonKind = iota
	jsonNull
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	return [...]string{"missing", "null", "boolean", "number", "string", "array", "object"}[k]
}

// jsonValue is a value found in a JSON object.
type jsonValue struct {
	kind jsonKind
	raw  []byte // the value's bytes; a string's include the quotes
	esc  bool   // a string with escapes
}

// str returns the value of a string.
func (v jsonValue) str() string {
	s := v.raw[1 : len(v.raw)-1]
	if !v.esc {
		return string(s)
	}
	return unescapeJSON(s)
}

// maxJSONDepth is the nesting limit of encoding/json.
const maxJSONDepth = 10000

// jsonSyntaxError is a JSON syntax error at a byte offset of the line.
type jsonSyntaxError struct {
	Offset int
	Msg    string
}

func (e *jsonSyntaxError) Error() string {
	return fmt.Sprintf("malformed JSON at byte %d: %s", e.Offset, e.Msg)
}

// parseJSONObject checks that line is exactly one JSON object, with
// white space around it allowed, and returns the values of keys (the last
// one when a key repeats). It accepts what encoding/json accepts (line
// being valid UTF-8), and is several times faster as it only decodes the
// values asked for.
func parseJSONObject(line []byte, keys *[3]string) ([3]jsonValue, error) {
	var vals [3]jsonValue
	p := jsonParser{b: line}
	p.ws()
	if p.i < len(line) && line[p.i] != '{' {
		kind, err := p.value(0)
		if err != nil {
			return vals, err
		}
		if p.ws(); p.i < len(line) {
			return vals, p.unexpected("after top-level value")
		}
		return vals, fmt.Errorf("not a JSON object (%s)", kind)
	}
	if p.i >= len(line) {
		return vals, p.unexpected("looking for an object")
	}
	if err := p.object(1, keys, &vals); err != nil {
		return vals, err
	}
	if p.ws(); p.i < len(line) {
		return vals, p.unexpected("after the object")
	}
	return vals, nil
}

// JSONField returns the value of the key name in line, one JSON object
// (white space around it allowed), found as the JSONL reader finds the
// fields of a record: raw is the value's bytes, nil when the key is
// missing (the last value when it repeats), and when the value is a
// string, s is that string decoded as encoding/json decodes it (each byte
// that is not UTF-8 becomes U+FFFD). It accepts what encoding/json
// accepts. Keys are compared as they are after unescaping (encoding/json
// decodes the bytes of a key that are not UTF-8 as U+FFFD as well). err
// says where the syntax is wrong ("malformed JSON at byte 7: ..."), or
// that line holds another value ("not a JSON object (array)").
func JSONField(line []byte, name string) (raw []byte, s string, err error) {
	keys := [3]string{name, name, name}
	vals, err := parseJSONObject(line, &keys)
	if err != nil {
		return nil, "", err
	}
	v := vals[0]
	if v.kind == jsonString {
		if s = v.str(); !utf8.ValidString(s) {
			b := make([]byte, 0, len(s)+8)
			for _, r := range s { // RuneError for each byte that is not UTF-8
				b = utf8.AppendRune(b, r)
			}
			s = string(b)
		}
	}
	return v.raw, s, nil
}

// jsonParser scans JSON.
type jsonParser struct {
	b []byte
	i int
}

func (p *jsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// unexpected reports the byte at p.i (or the end of the line).
func (p *jsonParser) unexpected(context string) error {
	if p.i >= len(p.b) {
		return &jsonSyntaxError{p.i, "unexpected end of line " + context}
	}
	r, _ := utf8.DecodeRune(p.b[p.i:])
	return &jsonSyntaxError{p.i, fmt.Sprintf("unexpected %q %s", r, context)}
}

// value scans any value at p.i; depth is that of the enclosing container.
func (p *jsonParser) value(depth int) (jsonKind, error) {
	if p.i >= len(p.b) {
		return 0, p.unexpected("looking for a value")
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, err := p.str()
		return jsonString, err
	case c == '{':
		return jsonObject, p.object(depth+1, nil, nil)
	case c == '[':
		return jsonArray, p.array(depth + 1)
	case c == '-' || '0' <= c && c <= '9':
		return jsonNumber, p.number()
	case c == 't':
		return jsonBool, p.literal("true")
	case c == 'f':
		return jsonBool, p.literal("false")
	case c == 'n':
		return jsonNull, p.literal("null")
	}
	return 0, p.unexpected("looking for a value")
}

// object scans an object at p.i; if keys is not nil, it stores the values
// of those keys in vals.
func (p *jsonParser) object(depth int, keys *[3]string, vals *[3]jsonValue) error {
	if depth > maxJSONDepth {
		return &jsonSyntaxError{p.i, "nested too deeply"}
	}
	p.i++ // '{'
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return p.unexpected("looking for an object key")
		}
		ks := p.i
		kesc, err := p.str()
		if err != nil {
			return err
		}
		key := p.b[ks+1 : p.i-1]
		if p.ws(); p.i >= len(p.b) || p.b[p.i] != ':' {
			return p.unexpected("after object key")
		}
		p.i++
		p.ws()
		vs := p.i
		kind, err := p.value(depth)
		if err != nil {
			return err
		}
		if keys != nil {
			for j, want := range keys {
				var match bool
				if kesc {
					match = unescapeJSON(key) == want
				} else {
					match = string(key) == want // no allocation
				}
				if match {
					vals[j] = jsonValue{kind: kind, raw: p.b[vs:p.i], esc: kind == jsonString && bytes.IndexByte(p.b[vs:p.i], '\\') >= 0}
				}
			}
		}
		p.ws()
		if p.i < len(p.b) {
			switch p.b[p.i] {
			case ',':
				p.i++
				continue
			case '}':
				p.i++
				return nil
			}
		}
		return p.unexpected("after object value")
	}
}

// array scans an array at p.i.
func (p *jsonParser) array(depth int) error {
	if depth > maxJSONDepth {
		return &jsonSyntaxError{p.i, "nested too deeply"}
	}
	p.i++ // '['
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return nil
	}
	for {
		p.ws()
		if _, err := p.value(depth); err != nil {
			return err
		}
		p.ws()
		if p.i < len(p.b) {
			switch p.b[p.i] {
			case ',':
				p.i++
				continue
			case ']':
				p.i++
				return nil
			}
		}
		return p.unexpected("after array element")
	}
}

// str scans a string at p.i and reports whether it has escapes.
func (p *jsonParser) str() (bool, error) {
	b := p.b
	i := p.i + 1
	esc := false
	q, bs := -1, -1 // next '"' and '\\' at or after i; len(b) if none
	for {
		if q < i {
			if k := bytes.IndexByte(b[i:], '"'); k >= 0 {
				q = i + k
			} else {
				q = len(b)
			}
		}
		if bs < i {
			if k := bytes.IndexByte(b[i:], '\\'); k >= 0 {
				bs = i + k
			} else {
				bs = len(b)
			}
		}
		end := min(q, bs)
		for k := i; k < end; k++ {
			if b[k] < 0x20 {
				p.i = k
				return esc, p.unexpected("in string")
			}
		}
		switch {
		case end == len(b):
			p.i = end
			return esc, p.unexpected("in string")
		case end == q:
			p.i = q + 1
			return esc, nil
		}
		esc = true
		i = bs + 1
		if i >= len(b) {
			p.i = i
			return esc, p.unexpected("in string escape")
		}
		switch b[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			for k := i + 1; k < i+5; k++ {
				if k >= len(b) || !isJSONHex(b[k]) {
					p.i = k
					return esc, p.unexpected("in \\u escape")
				}
			}
			i += 5
		default:
			p.i = i
			return esc, p.unexpected("in string escape")
		}
	}
}

func isJSONHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isJSONDigit(c byte) bool { return '0' <= c && c <= '9' }

// number scans a number at p.i.
func (p *jsonParser) number() error {
	b := p.b
	if b[p.i] == '-' {
		p.i++
	}
	digits := func() error {
		if p.i >= len(b) || !isJSONDigit(b[p.i]) {
			return p.unexpected("in number")
		}
		for p.i < len(b) && isJSONDigit(b[p.i]) {
			p.i++
		}
		return nil
	}
	if p.i < len(b) && b[p.i] == '0' {
		p.i++
	} else if err := digits(); err != nil {
		return err
	}
	if p.i < len(b) && b[p.i] == '.' {
		p.i++
		if err := digits(); err != nil {
			return err
		}
	}
	if p.i < len(b) && (b[p.i] == 'e' || b[p.i] == 'E') {
		p.i++
		if p.i < len(b) && (b[p.i] == '+' || b[p.i] == '-') {
			p.i++
		}
		if err := digits(); err != nil {
			return err
		}
	}
	return nil
}

// literal scans the literal lit at p.i.
func (p *jsonParser) literal(lit string) error {
	for k := 0; k < len(lit); k++ {
		if p.i >= len(p.b) || p.b[p.i] != lit[k] {
			return p.unexpected("in literal " + lit)
		}
		p.i++
	}
	return nil
}

// JSONString decodes the JSON string whose opening quote is b[i], the
// one decoder of JSON strings in neardup (the JSONL reader's fields, the
// HTTP service's bodies): s is the string as encoding/json decodes it,
// and next the index after its closing quote. err says where a
// malformed string goes wrong ("malformed JSON at byte 7: unexpected
// '\x01' in string": no closing quote, a control character, a bad
// escape). lone reports an escaped surrogate that is not half of a
// pair: s has U+FFFD in its place, as encoding/json decodes it, for a
// caller that accepts what encoding/json accepts (the JSONL reader); a
// stricter caller refuses the string (the HTTP service). Bytes that are
// not UTF-8 are kept as they are: a caller checks b's encoding first.
func JSONString(b []byte, i int) (s string, next int, lone bool, err error) {
	p := jsonParser{b: b, i: i}
	if i >= len(b) || b[i] != '"' {
		return "", i, false, p.unexpected("looking for a string")
	}
	esc, err := p.str()
	if err != nil {
		return "", p.i, false, err
	}
	if !esc {
		return string(b[i+1 : p.i-1]), p.i, false, nil
	}
	s, lone = unescape(b[i+1 : p.i-1])
	return s, p.i, lone, nil
}

// unescapeJSON decodes the escapes of a scanned string's contents s, as
// encoding/json does: a \u escape of a lone surrogate becomes U+FFFD.
func unescapeJSON(s []byte) string {
	u, _ := unescape(s)
	return u
}

// unescape is unescapeJSON, reporting whether s escapes a lone
// surrogate.
func unescape(s []byte) (_ string, lone bool) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			j := bytes.IndexByte(s[i:], '\\')
			if j < 0 {
				j = len(s) - i
			}
			out = append(out, s[i:i+j]...)
			i += j
			continue
		}
		i++
		switch c := s[i]; c {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(s[i+1 : i+5])
			i += 5
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = hex4(s[i+2 : i+6])
				}
				if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
					r = d
					i += 6
				} else {
					r, lone = unicode.ReplacementChar, true
				}
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, c)
		}
		i++
	}
	return string(out), lone
}

// hex4 decodes four hexadecimal digits (already checked).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
