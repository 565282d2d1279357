package reuse

import (
	"fmt"
	"io"
	"strconv"
)

// WriteText writes a as neardup check prints it for the article name:
// nothing when there is no match.
//
//	article.txt: partial reuse: 1 archived article shares passages with it
//	    long  "Title"
//	        62% of this article is in it, 31% of it is in this article (1 passage, 107 characters)
func (a *Answer) WriteText(w io.Writer, name string) error {
	if len(a.Matches) == 0 {
		return nil
	}
	n := len(a.Matches)
	noun, verb := "articles", "share"
	if n == 1 {
		noun, verb = "article", "shares"
	}
	if _, err := fmt.Fprintf(w, "%s: partial reuse: %d archived %s %s passages with it\n", name, n, noun, verb); err != nil {
		return err
	}
	for _, m := range a.Matches {
		title := ""
		if m.Title != "" {
			title = "  " + strconv.Quote(m.Title)
		}
		detail := "estimated from fingerprints: its text is not kept"
		if !m.Estimated {
			chars := 0
			for _, p := range m.Passages {
				chars += p.Chars
			}
			np := "passages"
			if len(m.Passages) == 1 {
				np = "passage"
			}
			detail = fmt.Sprintf("%d %s, %d characters", len(m.Passages), np, chars)
		}
		if _, err := fmt.Fprintf(w, "    %s%s\n        %.0f%% of this article is in it, %.0f%% of it is in this article (%s)\n",
			m.ID, title, 100*m.Here, 100*m.There, detail); err != nil {
			return err
		}
	}
	return nil
}
