package input

import (
	"bytes"

	"golang.org/x/net/html"
)

// The fast HTML path
//
// extractHTML gives the text and title that tokenizeHTML (golang.org/x/net/html's
// tokenizer) gives, about five times faster, for the pages whose markup it
// reads the same way: it finds the ends of tags, comments, doctypes and raw-text
// elements by the tokenizer's rules (quoted attribute values, "</script"
// followed by white space, "/" or ">", "-->" and "--!>"), and passes the same
// text runs, split at the same places, to the same textBuilder. A page whose
// markup needs the tokenizer's rarer rules is left to it (ok false):
//   - a NUL byte anywhere;
//   - markup cut by the end of the page (an unclosed tag, comment, doctype or
//     "<" as the last byte);
//   - a comment starting "<!--->" or "<!-->";
//   - a script whose content holds "<!--" (the escaped script states);
//   - a pre, listing or template tag ending "/>" (the tokenizer's
//     self-closing rule depends on the attributes).
//
// FuzzExtractHTML and TestExtractHTMLSame compare the two.

// extractHTML returns the text and title of page as tokenizeHTML does, or ok
// false when the page needs the tokenizer (see above).
func extractHTML(page []byte) (text, title string, ok bool) {
	if bytes.IndexByte(page, 0) >= 0 {
		return "", "", false
	}
	x := htmlExtractor{s: page}
	if !x.run() {
		return "", "", false
	}
	return x.out.String(), x.title.String(), true
}

// htmlExtractor is the state of extractHTML.
type htmlExtractor struct {
	s         []byte
	out       textBuilder
	title     textBuilder
	haveTitle bool
	template  int // depth of open template elements
	pre       int // depth of open pre/listing elements
}

// isASCIILetter reports whether c is an ASCII letter.
func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// run extracts the whole page; false: the page needs the tokenizer.
func (x *htmlExtractor) run() bool {
	s := x.s
	text := 0 // start of the pending text run
	for i := 0; ; {
		j := bytes.IndexByte(s[i:], '<')
		if j < 0 {
			x.text(s[text:])
			return true
		}
		j += i
		if j+1 >= len(s) {
			return false // "<" at the end: a text token of its own
		}
		c := s[j+1]
		if !isASCIILetter(c) && c != '/' && c != '!' && c != '?' {
			i = j + 1 // a "<" of the text
			continue
		}
		x.text(s[text:j])
		var end int
		switch {
		case isASCIILetter(c):
			end = x.startTag(j)
		case c == '/':
			end = x.endTag(j)
		case c == '!':
			end = x.declaration(j)
		default: // "<?": a bogus comment up to the first ">"
			end = closeAngle(s, j+1)
		}
		if end < 0 {
			return false
		}
		if end >= len(s) {
			return true // plaintext, or a raw-text element to the end
		}
		i, text = end, end
	}
}

// closeAngle returns the offset after the first ">" at or after i, or -1.
func closeAngle(s []byte, i int) int {
	k := bytes.IndexByte(s[i:], '>')
	if k < 0 {
		return -1
	}
	return i + k + 1
}

// text passes a text run (between two pieces of markup) to the output, as a
// text token.
func (x *htmlExtractor) text(p []byte) {
	if len(p) == 0 || x.template > 0 {
		return
	}
	pre := x.pre > 0
	if pre && bytes.IndexByte(p, '\r') >= 0 {
		p = convertNewlines(p)
	}
	x.out.write(unescapeText(p), pre)
}

// unescapeText decodes the character references of a text token, as the
// tokenizer's Text does.
func unescapeText(p []byte) []byte {
	if bytes.IndexByte(p, '&') < 0 {
		return p
	}
	return []byte(html.UnescapeString(string(p)))
}

// convertNewlines returns a copy of p with "\r\n" and "\r" made "\n", as the
// tokenizer's Text does.
func convertNewlines(p []byte) []byte {
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if p[i] != '\r' {
			out = append(out, p[i])
			continue
		}
		out = append(out, '\n')
		if i+1 < len(p) && p[i+1] == '\n' {
			i++
		}
	}
	return out
}

// skipSpace returns the offset of the first byte at or after i that is not
// HTML white space.
func skipSpace(s []byte, i int) int {
	for i < len(s) && isHTMLSpace(s[i]) {
		i++
	}
	return i
}

// readTag reads a tag whose name starts at i (after "<" or "</") as the
// tokenizer reads it (name, then attributes, values quoted or not), and
// returns the name and the offset after its ">", or -1 when the page ends
// first.
func readTag(s []byte, i int) (name []byte, end int) {
	k := i
	for k < len(s) && !isHTMLSpace(s[k]) && s[k] != '/' && s[k] != '>' {
		k++
	}
	name = s[i:k]
	if k < len(s) && isHTMLSpace(s[k]) {
		k++
	}
	for {
		if k = skipSpace(s, k); k >= len(s) {
			return nil, -1
		}
		if s[k] == '>' {
			return name, k + 1
		}
		// The attribute's name: up to "=" (unless first), white space, "/"
		// or ">".
		for start := k; ; {
			if k >= len(s) {
				return nil, -1
			}
			c := s[k]
			if c == '=' && k > start || isHTMLSpace(c) || c == '/' || c == '>' {
				break
			}
			k++
		}
		// Its value.
		if k = skipSpace(s, k); k >= len(s) {
			return nil, -1
		}
		switch s[k] {
		case '/':
			k++
			continue
		case '=':
			k++
		default:
			continue
		}
		if k = skipSpace(s, k); k >= len(s) {
			return nil, -1
		}
		switch q := s[k]; q {
		case '>':
		case '"', '\'':
			e := bytes.IndexByte(s[k+1:], q)
			if e < 0 {
				return nil, -1
			}
			k += 1 + e + 1
		default:
			for k < len(s) && !isHTMLSpace(s[k]) && s[k] != '>' {
				k++
			}
			if k >= len(s) {
				return nil, -1
			}
			if s[k] != '>' {
				k++
			}
		}
	}
}

// kindOf returns the kind of the tag of the given name, lower-casing it.
func kindOf(name []byte) (tagKind, string) {
	var low [12]byte
	if len(name) > len(low) {
		return tagInline, ""
	}
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return htmlTagKind(low[:len(name)]), string(low[:len(name)])
}

// startTag reads the start tag at i and returns the offset after it (and
// after a raw-text element's content), or -1.
func (x *htmlExtractor) startTag(i int) int {
	s := x.s
	name, end := readTag(s, i+1)
	if end < 0 {
		return -1
	}
	kind, low := kindOf(name)
	selfClosing := s[end-2] == '/'
	if kind == tagRaw {
		return x.rawText(low, end)
	}
	if x.template > 0 && kind != tagTemplate {
		return end
	}
	switch kind {
	case tagTemplate:
		if selfClosing {
			return -1
		}
		x.template++
	case tagPre:
		if selfClosing {
			return -1
		}
		x.out.breakLine()
		x.pre++
	case tagBlock:
		x.out.breakLine()
	case tagCell:
		x.out.softSpace()
	}
	return end
}

// rawText skips the content of the raw-text element name whose start tag
// ends at i, keeping a first title's, and returns the offset of its end tag
// (or of the page's end), or -1.
func (x *htmlExtractor) rawText(name string, i int) int {
	s := x.s
	if name == "plaintext" {
		return len(s)
	}
	end := len(s)
	for k := i; ; {
		j := bytes.Index(s[k:], []byte("</"))
		if j < 0 {
			break
		}
		j += k
		if e := j + 2 + len(name); e < len(s) && isRawEnd(s[j+2:e], name) &&
			(isHTMLSpace(s[e]) || s[e] == '/' || s[e] == '>') {
			end = j
			break
		}
		k = j + 2
	}
	content := s[i:end]
	if name == "script" && bytes.Contains(content, []byte("<!--")) {
		return -1
	}
	if name == "title" && x.template == 0 && !x.haveTitle && len(content) > 0 {
		x.title.write(unescapeText(content), false)
		x.haveTitle = true
	}
	return end
}

// isRawEnd reports whether p is name (lower case), ignoring ASCII case.
func isRawEnd(p []byte, name string) bool {
	for i := range len(name) {
		if c := p[i]; c != name[i] && c != name[i]-('a'-'A') {
			return false
		}
	}
	return true
}

// endTag reads the end tag (or bogus comment, or "</>") at i and returns
// the offset after it, or -1.
func (x *htmlExtractor) endTag(i int) int {
	s := x.s
	if i+2 >= len(s) {
		return -1
	}
	switch c := s[i+2]; {
	case c == '>':
		return i + 3
	case !isASCIILetter(c):
		return closeAngle(s, i+2)
	}
	name, end := readTag(s, i+2)
	if end < 0 {
		return -1
	}
	kind, _ := kindOf(name)
	if x.template > 0 && kind != tagTemplate {
		return end
	}
	switch kind {
	case tagTemplate:
		if x.template > 0 {
			x.template--
		}
	case tagPre:
		if x.pre > 0 {
			x.pre--
		}
		x.out.breakLine()
	case tagBlock:
		x.out.breakLine()
	case tagCell:
		x.out.softSpace()
	}
	return end
}

// declaration reads the comment, doctype or bogus comment starting "<!" at
// i and returns the offset after it, or -1.
func (x *htmlExtractor) declaration(i int) int {
	s := x.s
	if i+3 >= len(s) {
		return -1
	}
	if s[i+2] != '-' || s[i+3] != '-' {
		return closeAngle(s, i+2)
	}
	k := i + 4
	if k >= len(s) || s[k] == '-' || s[k] == '>' {
		return -1
	}
	end := -1
	if e := bytes.Index(s[k:], []byte("-->")); e >= 0 {
		end = k + e + 3
	}
	if e := bytes.Index(s[k:], []byte("--!>")); e >= 0 && (end < 0 || k+e+4 < end) {
		end = k + e + 4
	}
	return end
}
