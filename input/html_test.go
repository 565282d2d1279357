package input

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStripHTML(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "just text", "just text"},
		{"empty", "", ""},
		{"entities", "A &amp; B &lt;c&gt; &#20013;&#x6587; &quot;q&quot; &copy;&nbsp;2018 &bogus; AT&T", "A & B <c> 中文 \"q\" © 2018 &bogus; AT&T"},
		{"script, style, comments",
			`<p>before</p><script type="text/javascript">var s = "<p>not text</p>"; if (a < b) {}</script>` +
				`<style>p { color: red }</style><!-- a comment <p>x</p> --><p>after</p>`,
			"before\nafter"},
		{"noscript, template, textarea, iframe",
			`<div>a<noscript>enable JS</noscript>b<template><p>tpl<template>nested</template>still</p></template>c` +
				`<textarea>form</textarea><iframe>frame</iframe>d</div>`,
			"abcd"},
		{"self-closing script still hides what follows", `x<script/>hidden</script>y`, "xy"},
		{"uppercase tags", `<P>one<SCRIPT>bad()</SCRIPT></P><P>two</P>`, "one\ntwo"},
		{"unclosed script hides the rest", `text<script>no end`, "text"},
		{"title is not text", `<html><head><title>The title</title></head><body>body</body></html>`, "body"},
		{"white space collapsed", "  a \n\t b  <b> c </b>d\u00a0\u00a0e\u3000f  ", "a b c d e\u3000f"},
		{"blocks become lines",
			`<h1>Head</h1><p>Para one</p><div><p>nested</p></div>line<br>break<br/>again<ul><li>i1</li><li>i2</li></ul>`,
			"Head\nPara one\nnested\nline\nbreak\nagain\ni1\ni2"},
		{"inline elements join", `<b>bo</b><i>ld</i> <a href="x">link</a>`, "bold link"},
		{"table cells", `<table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table>`, "a b\nc d"},
		{"pre keeps lines", "<p>x</p><pre>\n  line 1\n    line 2\n</pre><p>y</p>", "x\n  line 1\n    line 2\ny"},
		{"Chinese", `<p>新京报讯（记者&nbsp;刘玮）</p><p>10月30日，金庸逝世。</p>`, "新京报讯（记者 刘玮）\n10月30日，金庸逝世。"},
		{"stray angle brackets", `a < b and c > d, 1<2`, "a < b and c > d, 1<2"},
		{"broken markup", `<p class="x>text</p><div`, ""},
		{"doctype and processing instruction", `<!DOCTYPE html><?xml version="1.0"?>text`, "text"},
		{"invalid UTF-8", "a\xffb<p>c", "a\uFFFDb\nc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripHTML(tt.in); got != tt.want {
				t.Errorf("StripHTML(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStripHTMLTitle(t *testing.T) {
	text, title := stripHTML("<title> A  &amp;\nB </title><title>second</title><p>text</p>")
	if text != "text" || title != "A & B" {
		t.Errorf("stripHTML = %q, %q; want %q, %q", text, title, "text", "A & B")
	}
}

func ExampleStripHTML() {
	page := `<html><head><title>News</title><script>track()</script></head>
<body><h1>Headline</h1><!-- ad --><p>First&nbsp;paragraph &amp; more.</p><p>Second.</p></body></html>`
	fmt.Println(StripHTML(page))
	// Output:
	// Headline
	// First paragraph & more.
	// Second.
}

// FuzzStripHTML checks that StripHTML never panics, returns valid UTF-8,
// trimmed, not much longer than the input, and that no script survives:
// the output never contains "<script" unless the text spells it, with a
// character reference or with a "<" that starts no tag ("<<a>script"
// shows "<script").
func FuzzStripHTML(f *testing.F) {
	for _, s := range []string{
		"<p>a</p>",
		"<script>x<p>y</script>z",
		"<SCRIPT/>a</script>b",
		"<textarea><script>x</script></textarea>",
		"<template><template></template><script>",
		"<pre>\n a\n</pre>",
		"<!-- <script> -->",
		"&lt;script&gt;",
		"<svg><script>x</script></svg>",
		"<plaintext><script>",
		"a\xffb",
		"<<A>SCRIPT",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := StripHTML(s)
		if !utf8.ValidString(out) {
			t.Fatalf("StripHTML(%q) = %q: invalid UTF-8", s, out)
		}
		if strings.TrimSpace(out) != out && strings.Trim(out, " \t\r\n\f") != out {
			t.Fatalf("StripHTML(%q) = %q: not trimmed", s, out)
		}
		if len(out) > 2*len(s)+8 {
			t.Fatalf("StripHTML(%q): %d bytes out of %d", s, len(out), len(s))
		}
		if !strings.Contains(s, "&") && !hasTextLT(s) && strings.Contains(strings.ToLower(out), "<script") {
			t.Fatalf("StripHTML(%q) = %q: a script survived", s, out)
		}
	})
}

// hasTextLT reports whether s has a "<" that starts no tag, comment or
// declaration, which the tokenizer keeps as text: one at the end, or
// before anything but an ASCII letter, "/", "!" or "?".
func hasTextLT(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		if i+1 == len(s) {
			return true
		}
		c := s[i+1]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && c != '/' && c != '!' && c != '?' {
			return true
		}
	}
	return false
}

func BenchmarkStripHTML(b *testing.B) {
	page := "<html><head><title>t</title><script>var a = 1;</script></head><body>" +
		strings.Repeat(`<div class="c"><p>新京报讯（记者&nbsp;刘玮）10月30日，<b>据香港媒体报道</b>，武侠小说泰斗金庸逝世。</p><!-- ad --><ul><li>one</li><li>two &amp; three</li></ul></div>`, 500) +
		"</body></html>"
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		StripHTML(page)
	}
}
