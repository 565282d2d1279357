// Command gsebin is built by TestGseBinarySize: a small program that uses
// only the gse backend and, like CLI libraries do, text/template with a
// segmenter stored in an interface (text/template makes the linker keep the
// exported methods of such values).
package main

import (
	"fmt"
	"os"
	"text/template"

	"github.com/neardup/neardup/segment"
)

func main() {
	seg, err := segment.NewGse(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var s segment.Segmenter = seg
	t := template.Must(template.New("t").Parse("{{call .Cut .Text}}\n"))
	if err := t.Execute(os.Stdout, map[string]any{"Cut": s.Cut, "Text": "北京 abc"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%T\n", s)
}
