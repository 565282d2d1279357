package input

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// StripHTML returns the visible text of an HTML document or fragment.
//
// It tokenizes s with golang.org/x/net/html (which never fails: malformed
// markup is read the way a browser would) and
//   - drops the contents of script, style, noscript, template, title,
//     textarea, iframe, noembed, noframes, xmp and plaintext elements, and
//     drops comments, doctypes and processing instructions;
//   - decodes character references (&amp; &#20013; &nbsp; …);
//   - collapses each run of HTML white space (and U+00A0 no-break space)
//     to one space, except inside pre and listing elements, whose lines
//     are kept as they are (minus leading and trailing blank lines);
//   - ends a line at every block-level element (p, div, li, h1–h6, tr,
//     br, …) and separates table cells with a space;
//   - otherwise trims white space at the start and end of every line and
//     drops empty lines; the result has no leading or trailing white
//     space.
//
// The work is linear in len(s) and the result is never much longer than s.
// The result is valid UTF-8 (invalid input bytes become U+FFFD).
func StripHTML(s string) string {
	text, _ := stripHTML(s)
	return text
}

// stripHTML is StripHTML that also returns the text of the first title
// element, white space collapsed.
func stripHTML(s string) (text, title string) {
	text, title = htmlText([]byte(s))
	if !utf8.ValidString(s) {
		text = strings.ToValidUTF8(text, "\uFFFD")
		title = strings.ToValidUTF8(title, "\uFFFD")
	}
	return text, title
}

// htmlText returns the text and title of page as tokenizeHTML does:
// through extractHTML, or the tokenizer for the pages extractHTML leaves
// to it. The output is valid UTF-8 when page is.
func htmlText(page []byte) (text, title string) {
	if text, title, ok := extractHTML(page); ok {
		return text, title
	}
	return tokenizeHTML(string(page))
}

// tokenizeHTML is stripHTML for s known to be valid UTF-8, through
// golang.org/x/net/html's tokenizer: the reference that extractHTML
// follows.
func tokenizeHTML(s string) (text, title string) {
	z := html.NewTokenizer(strings.NewReader(s))
	var (
		out       textBuilder
		titleOut  textBuilder
		rawSkip   bool // the next text token is the content of a dropped raw-text element
		rawTitle  bool // ... and it is a title
		haveTitle bool
		template  int // depth of open template elements
		pre       int // depth of open pre/listing elements
	)
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // io.EOF: the tokenizer reports no other error for a strings.Reader
		}
		if tt != html.TextToken {
			rawSkip, rawTitle = false, false
		}
		switch tt {
		case html.TextToken:
			if rawSkip {
				if rawTitle && template == 0 && !haveTitle {
					titleOut.write(z.Text(), false)
					haveTitle = true
				}
				rawSkip, rawTitle = false, false
				continue
			}
			if template > 0 {
				continue
			}
			out.write(z.Text(), pre > 0)
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			kind := htmlTagKind(name)
			if template > 0 && kind != tagTemplate && kind != tagRaw {
				continue
			}
			switch kind {
			case tagRaw:
				// The tokenizer reads the element's content as one raw text
				// token, even for <script/>, as browsers do.
				rawSkip = true
				rawTitle = string(name) == "title"
			case tagTemplate:
				if tt == html.StartTagToken {
					template++
				}
			case tagPre:
				out.breakLine()
				if tt == html.StartTagToken {
					pre++
				}
			case tagBlock:
				out.breakLine()
			case tagCell:
				out.softSpace()
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			kind := htmlTagKind(name)
			if template > 0 && kind != tagTemplate {
				continue
			}
			switch kind {
			case tagTemplate:
				if template > 0 {
					template--
				}
			case tagPre:
				if pre > 0 {
					pre--
				}
				out.breakLine()
			case tagBlock:
				out.breakLine()
			case tagCell:
				out.softSpace()
			}
		}
	}
	return out.String(), titleOut.String()
}

type tagKind uint8

const (
	tagInline   tagKind = iota
	tagRaw              // raw-text element whose content is dropped
	tagTemplate         // content dropped, nests
	tagPre              // block, white space preserved
	tagBlock            // ends a line
	tagCell             // table cell: separated by a space
)

// htmlTagKind classifies a lower-case tag name.
func htmlTagKind(name []byte) tagKind {
	switch string(name) {
	case "script", "style", "noscript", "title", "textarea", "iframe",
		"noembed", "noframes", "xmp", "plaintext":
		return tagRaw
	case "template":
		return tagTemplate
	case "pre", "listing":
		return tagPre
	case "address", "article", "aside", "blockquote", "body", "br", "caption",
		"center", "dd", "details", "dialog", "dir", "div", "dl", "dt",
		"fieldset", "figcaption", "figure", "footer", "form", "frameset",
		"h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr",
		"html", "legend", "li", "main", "menu", "nav", "ol", "optgroup",
		"option", "p", "section", "summary", "table", "tbody", "tfoot",
		"thead", "tr", "ul":
		return tagBlock
	case "td", "th":
		return tagCell
	}
	return tagInline
}

// textBuilder accumulates text with HTML white-space collapsing. It never
// writes white space at the start or end of a line, nor empty lines.
type textBuilder struct {
	b       strings.Builder
	space   bool // a space is due before the next text
	newline bool // a newline is due before the next text
}

// isHTMLSpace reports whether c is HTML white space.
func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// write appends text; pre keeps its white space as it is.
func (t *textBuilder) write(p []byte, pre bool) {
	if pre {
		body := bytes.TrimRight(p, " \t\r\n\f")
		tail := p[len(body):]
		if t.b.Len() == 0 || t.newline {
			body = bytes.TrimLeft(body, "\r\n")
		}
		if len(body) > 0 {
			t.flush()
			t.b.Write(body)
		}
		if bytes.IndexByte(tail, '\n') >= 0 {
			t.newline = true
		} else if len(tail) > 0 {
			t.space = true
		}
		return
	}
	for i := 0; i < len(p); {
		c := p[i]
		if isHTMLSpace(c) {
			t.space = true
			i++
			continue
		}
		if c == 0xC2 && i+1 < len(p) && p[i+1] == 0xA0 { // U+00A0
			t.space = true
			i += 2
			continue
		}
		j := i + 1
		for j < len(p) && !isHTMLSpace(p[j]) && !(p[j] == 0xC2 && j+1 < len(p) && p[j+1] == 0xA0) {
			j++
		}
		t.flush()
		t.b.Write(p[i:j])
		i = j
	}
}

// flush writes the pending separator, if any, unless nothing was written yet.
func (t *textBuilder) flush() {
	if t.b.Len() > 0 {
		if t.newline {
			t.b.WriteByte('\n')
		} else if t.space {
			t.b.WriteByte(' ')
		}
	}
	t.newline, t.space = false, false
}

// breakLine makes the next text start a new line.
func (t *textBuilder) breakLine() { t.newline = true }

// softSpace makes the next text be separated by at least a space.
func (t *textBuilder) softSpace() { t.space = true }

// String returns the text, without leading or trailing white space.
func (t *textBuilder) String() string {
	return strings.Trim(t.b.String(), " \t\r\n\f")
}
