package input

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/testfixtures/corpora"
)

// htmlCases are pages for comparing extractHTML with tokenizeHTML: every
// construct whose end the fast path finds itself, and every one it leaves
// to the tokenizer (want false).
var htmlCases = []struct {
	name, page string
	fast       bool // extractHTML reads it itself
}{
	{"plain", "just text", true},
	{"empty", "", true},
	{"entities", "A &amp; B &lt;c&gt; &#20013;&#x6587; &copy;&nbsp;2018 &bogus; AT&T &amp", true},
	{"quoted >", `<p title="a>b" class='c>d'>text</p><a href=x>y</a>`, true},
	{"unquoted value ends at >", `<a href=x/>link</a><p a=/>z`, true},
	{"attribute oddities", `<p =x a = "b" c= d e/f g/>t</p><p a b c>u`, true},
	{"end tag with attributes", `a</p x=">">b</div	>c`, true},
	{"empty end tag and bogus ones", `a</>b</ x>c</3>d<?php x ?>e`, true},
	{"doctype and bogus comment", `<!DOCTYPE html><!doctype><!x>a<!->b<!-x>c`, true},
	{"comments", `a<!-- x -->b<!--y--!>c<!--z--!-->d<!--a--!x-->e<!-- -- >f -->g`, true},
	{"stray <", `a < b <3 <<p>c<`, false},
	{"stray < inside", `a < b <3 <<p>c`, true},
	{"raw text", `a<script>if (a</scripty) x = "</script"</script >b<style>p{}</STYLE>c<xmp><p></xmp/>d`, true},
	{"raw to the end", `a<textarea>b</textarea`, true},
	{"plaintext", `a<plaintext>b</plaintext>c`, true},
	{"self-closing raw", `x<script/>hidden</script>y<br/>z`, true},
	{"titles", "<title></title><title> A &amp;\r\nB </title><title>second</title>t", true},
	{"title in template", "<template><title>no</title></template><title>yes</title>", true},
	{"template", `<div>a<template><p>t<template>n</template>s</p><script>x</script></template>c</div>`, true},
	{"pre", "<p>x</p><pre>\r\n  a  <b>b</b>\r  c\r\n</pre>y<listing>\n\nl</listing>", true},
	{"pre in template", "<template><pre>a</pre></template>b<pre a=x/>c</pre>", false},
	{"pre self-closing", "<pre/>a  b", false},
	{"template self-closing", "<template/>a", false},
	{"table", `<table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table>`, true},
	{"uppercase", `<P>one<SCRIPT>bad()</SCRIPT></P><BR>two<TITLE>T</TITLE>`, true},
	{"long tag names", `<blockquotex>a</blockquotex><figcaption>b</figcaption>`, true},
	{"NUL", "a\x00b<p>c", false},
	{"escaped script", `<script><!-- document.write("<script>x</script>") --></script>after`, false},
	{"empty comment", `a<!-->b`, false},
	{"dash comment", `a<!--->b-->c`, false},
	{"unclosed comment", `a<!-- b`, false},
	{"unclosed tag", `a<p class="x>b`, false},
	{"unclosed end tag", `a</p`, false},
	{"unclosed doctype", `a<!DOCTYPE`, false},
	{"< at the end", `a<`, false},
	{"</ at the end", `a</`, false},
	{"invalid UTF-8", "a\xffb<p>c\xe4", true},
	{"Chinese", `<p>新京报讯（记者&nbsp;刘玮）</p><p>10月30日，金庸逝世。</p>`, true},
}

func TestExtractHTMLSame(t *testing.T) {
	for _, tt := range htmlCases {
		t.Run(tt.name, func(t *testing.T) {
			wantText, wantTitle := tokenizeHTML(tt.page)
			text, title, ok := extractHTML([]byte(tt.page))
			if ok != tt.fast {
				t.Fatalf("extractHTML(%q): ok %v, want %v", tt.page, ok, tt.fast)
			}
			if ok && (text != wantText || title != wantTitle) {
				t.Errorf("extractHTML(%q)\n = %q, %q\nwant %q, %q (the tokenizer's)", tt.page, text, title, wantText, wantTitle)
			}
			// htmlText gives the tokenizer's result either way.
			if text, title := htmlText([]byte(tt.page)); text != wantText || title != wantTitle {
				t.Errorf("htmlText(%q) = %q, %q; want %q, %q", tt.page, text, title, wantText, wantTitle)
			}
		})
	}
}

// TestExtractHTMLLiteral fixes a few results by hand, so that the two
// extractors cannot agree on a wrong one.
func TestExtractHTMLLiteral(t *testing.T) {
	for _, tt := range []struct{ page, text, title string }{
		{`<p title="a>b">x</p><p>y`, "x\ny", ""},
		{"<title> A &amp;\r\nB </title><pre>\r\n a  <b>b</b>\r</pre>", "a b", "A & B"},
		{`a<!--y--!>b<script>"</script"</script >c`, "abc", ""},
	} {
		text, title, ok := extractHTML([]byte(tt.page))
		if !ok || text != tt.text || title != tt.title {
			t.Errorf("extractHTML(%q) = %q, %q, %v; want %q, %q, true", tt.page, text, title, ok, tt.text, tt.title)
		}
	}
}

// TestExtractHTMLPages compares the two extractors on the pages of the
// committed WARC fixtures (written by wget), all on the fast path.
func TestExtractHTMLPages(t *testing.T) {
	var pages []string
	for _, name := range []string{"pages.warc.gz", "damaged.warc.gz"} {
		pages = append(pages, warcPages(t, filepath.Join("testdata", "formats", name))...)
	}
	if len(pages) == 0 {
		t.Fatal("no pages in the WARC fixtures")
	}
	fast := 0
	for _, p := range pages {
		fast += comparePage(t, p)
	}
	if fast != len(pages) {
		t.Errorf("%d of %d fixture pages on the fast path, want all", fast, len(pages))
	}
}

// TestExtractHTMLShared compares the two extractors on pages made of the
// clean-licence shared corpora's articles with a news site's markup.
func TestExtractHTMLShared(t *testing.T) {
	dir := corpora.Require(t, "en_docs.jsonl.gz", "zh_docs.jsonl.gz")
	for _, corpus := range []string{"en_docs", "zh_docs"} {
		n, fast := 0, 0
		for i, a := range sharedArticles(t, filepath.Join(dir, corpus+".jsonl.gz"), 500) {
			fast += comparePage(t, newsPage(i, a.title, a.text))
			n++
		}
		if n == 0 || fast != n {
			t.Errorf("%s: %d of %d pages on the fast path, want all", corpus, fast, n)
		}
	}
}

// comparePage fails the test when extractHTML differs from tokenizeHTML
// on page; it returns 1 when the fast path read it.
func comparePage(t *testing.T, page string) int {
	t.Helper()
	wantText, wantTitle := tokenizeHTML(page)
	text, title, ok := extractHTML([]byte(page))
	if !ok {
		return 0
	}
	if text != wantText || title != wantTitle {
		t.Errorf("extractHTML differs from the tokenizer on a page of %d bytes:\n got %.200q, %q\nwant %.200q, %q", len(page), text, title, wantText, wantTitle)
	}
	return 1
}

// warcPages returns the HTML bodies of the response records of a WARC
// file (HTTP header cut at its blank line), as far as it reads.
func warcPages(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br, _, err := Decompress(bufio.NewReader(f), 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	data, _ := io.ReadAll(br) // a damaged file: what was read
	for _, rec := range strings.Split(string(data), "WARC/1.")[1:] {
		if !strings.Contains(rec, "WARC-Type: response") || !strings.Contains(strings.ToLower(rec), "content-type: text/html") {
			continue
		}
		// The WARC header, then the HTTP header, then the page.
		parts := strings.SplitN(rec, "\r\n\r\n", 3)
		if len(parts) == 3 {
			pages = append(pages, parts[2])
		}
	}
	return pages
}

type sharedArticle struct{ title, text string }

// sharedArticles reads up to n articles of a shared corpus directory's
// JSONL files.
func sharedArticles(t *testing.T, dir string, n int) []sharedArticle {
	t.Helper()
	var out []sharedArticle
	r := NewReader([]string{dir}, nil, nil)
	defer r.Close()
	for len(out) < n {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			continue // a bad record is the Reader's business, not this test's
		}
		out = append(out, sharedArticle{rec.Title, rec.Text})
	}
	return out
}

// newsPage lays out an article as a news site's page: a head with meta
// tags, about 9 kB of inline style and script, a menu of 80 links, the
// article's paragraphs with ads and entities, a sidebar, a footer and
// comments: about 22 kB of markup a page, which makes an article of
// 4.4 kB (zh_news's mean) about a sixth of its page, as Common Crawl's
// WET text is about a sixth of its WARC data. The markup is made of
// random names and numbers (seeded by i), so that it does not compress
// better than a real page's.
func newsPage(i int, title, text string) string {
	rng := rand.New(rand.NewPCG(uint64(i), 29))
	word := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyz"
		n := 3 + rng.IntN(7)
		w := make([]byte, n)
		for k := range w {
			w[k] = letters[rng.IntN(len(letters))]
		}
		return string(w)
	}
	var css, js, menu strings.Builder
	for css.Len() < 4000 {
		fmt.Fprintf(&css, ".%s-%d>a:hover,.%s{color:#%06x;margin:%dpx %dpx;font-size:%d.%drem}\n", word(), rng.IntN(100), word(),
			rng.IntN(1<<24), rng.IntN(20), rng.IntN(20), rng.IntN(3), rng.IntN(10))
	}
	for js.Len() < 5000 {
		fmt.Fprintf(&js, "var %s=function(%s,%s){if(%s<%d&&%s>%d){return %s.%s(%q)}return %d};\n", word(), word(), word(), word(),
			rng.IntN(1000), word(), rng.IntN(1000), word(), word(), word(), rng.IntN(1<<20))
	}
	for k := 0; k < 80; k++ {
		fmt.Fprintf(&menu, "<li class=\"menu-item menu-%d\"><a href=\"/%s/%s-%d\" data-track=\"nav-%d\">%s %s</a></li>\n", k, word(), word(),
			rng.IntN(1e6), k, word(), word())
	}
	return newsPageOf(i, title, text, css.String(), js.String(), menu.String())
}

// newsPageOf is newsPage with its style, script and menu.
func newsPageOf(i int, title, text, css, js, menu string) string {
	esc := func(s string) string {
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\u00a0", "&nbsp;").Replace(s)
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + esc(title) + " | The Daily Example</title>\n")
	b.WriteString("<link rel=\"stylesheet\" href=\"/static/css/site.min.css?v=20261127\">\n<link rel=\"canonical\" href=\"https://news.example/a/" + strconv.Itoa(i) + "\">\n")
	b.WriteString("<meta property=\"og:title\" content=\"" + esc(title) + "\">\n<meta property=\"og:type\" content=\"article\">\n")
	b.WriteString("<style>.nav{display:flex;gap:1rem}.ad>p{color:#333}body{font-family:-apple-system,BlinkMacSystemFont,\"Segoe UI\",Roboto,sans-serif}\n" + css + "</style>\n")
	b.WriteString("<script>\n" + js + "</script>\n")
	b.WriteString("<script async src=\"https://www.googletagmanager.com/gtag/js?id=G-XXXX\"></script>\n")
	b.WriteString("<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());if(a<b&&c>d){x='</div>'}</script>\n</head>\n")
	b.WriteString("<body class=\"article-page\">\n<!-- header -->\n<header class=\"site-header\"><nav class=\"nav\" aria-label=\"Main\"><ul>")
	for _, s := range []string{"World", "Business", "Tech", "Sport", "Culture"} {
		b.WriteString("<li class=\"nav-item\"><a class=\"nav-link\" href=\"/" + strings.ToLower(s) + "/\">" + s + "</a></li>")
	}
	b.WriteString("</ul><ul class=\"menu\">\n" + menu)
	b.WriteString("</ul></nav></header>\n<main id=\"content\">\n<article class=\"story\" data-id=\"" + strconv.Itoa(i) + "\">\n<h1 class=\"headline\">" + esc(title) + "</h1>\n")
	b.WriteString("<div class=\"byline\"><span class=\"author\">By <a href=\"/by/staff\">Staff</a></span> &middot; <time datetime=\"2026-11-27T04:00:00Z\">27 Nov 2026</time></div>\n")
	for j, para := range strings.Split(text, "\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		b.WriteString("<p class=\"para\" data-n=\"" + strconv.Itoa(j) + "\">" + esc(para) + "</p>\n")
		if j%3 == 2 {
			b.WriteString("<div class=\"ad\" data-slot=\"mid\"><noscript><img src=\"/px.gif\" alt=\"\"></noscript><!-- ad slot --></div>\n")
		}
	}
	b.WriteString("</article>\n<aside class=\"related\"><h2>Related</h2><ul><li><a href=\"/a/1\">One</a></li><li><a href=\"/a/2\">Two &amp; three</a></li></ul></aside>\n</main>\n")
	b.WriteString("<footer><p>&copy; 2026 The Daily Example. <a href=\"/privacy\">Privacy</a></p></footer>\n")
	b.WriteString("<script type=\"application/ld+json\">{\"@type\":\"NewsArticle\",\"headline\":\"x\"}</script>\n</body>\n</html>\n")
	return b.String()
}

// FuzzExtractHTML checks that extractHTML, when it reads a page, gives the
// tokenizer's text and title.
func FuzzExtractHTML(f *testing.F) {
	for _, tt := range htmlCases {
		f.Add(tt.page)
	}
	f.Add(newsPage(7, "A title", "First para & more.\nSecond <one>."))
	f.Fuzz(func(t *testing.T, page string) {
		text, title, ok := extractHTML([]byte(page))
		if !ok {
			return
		}
		wantText, wantTitle := tokenizeHTML(page)
		if text != wantText || title != wantTitle {
			t.Fatalf("extractHTML(%q)\n = %q, %q\nwant %q, %q (the tokenizer's)", page, text, title, wantText, wantTitle)
		}
	})
}
