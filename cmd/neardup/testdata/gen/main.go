// Command gen writes the neardup command's test fixtures and the sample
// corpus from the clean-licence Debian documentation corpora (en_docs,
// zh_docs: MPL-2.0, GFDL-1.2+, CC-BY-SA-3.0, GPL-2+). It is
// deterministic: the same corpora give the same files.
//
//	go run ./cmd/neardup/testdata/gen -corpora /work/shared/corpora
//
// It writes cmd/neardup/testdata/{articles.jsonl,a.txt,b.txt,c.txt} and
// testdata/sample/sample.jsonl (paths relative to the module root, the
// working directory). See the README.md next to each.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

type article struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

type pair struct {
	A, B    string
	Jaccard float64 `json:"jaccard_char5"`
}

func main() {
	corpora := flag.String("corpora", "/work/shared/corpora", "directory of en_docs.jsonl.gz and zh_docs.jsonl.gz")
	flag.Parse()
	if err := run(*corpora); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	en, err := load(filepath.Join(dir, "en_docs.jsonl.gz"))
	if err != nil {
		return err
	}
	zh, err := load(filepath.Join(dir, "zh_docs.jsonl.gz"))
	if err != nil {
		return err
	}
	byID := make(map[string]article)
	for _, a := range append(append([]article{}, en...), zh...) {
		byID[a.ID] = a
	}
	var pairs []pair
	for _, name := range []string{"en_docs", "zh_docs"} {
		ps, err := loadPairs(filepath.Join(dir, name+".pairs.jsonl.gz"))
		if err != nil {
			return err
		}
		pairs = append(pairs, ps...)
	}
	if err := fixtures(byID); err != nil {
		return err
	}
	return sample(en, zh, byID, pairs)
}

// fixtures writes the command tests' small articles.
func fixtures(byID map[string]article) error {
	get := func(id string) article {
		a, ok := byID[id]
		if !ok {
			panic("gen: no article " + id)
		}
		return a
	}
	enA := get("lo-help-en-US/text/sbasic/guide/access2base")
	zhB := get("lo-help-zh-CN/text/sbasic/guide/show_dialog")
	enC := get("gnome-help-C/backup-how")
	zhD := get("manpages-zh/swapoff.8")
	arts := []article{
		enA,
		zhB,
		enC,
		zhD,
		withNote(zhB, "archive/show_dialog-reprint", "转载："+zhB.Title),
		exactCopy(enA, "archive/access2base-copy"),
		get("manpages-zh/clearerr.3"),
		get("manpages-zh/feof.3"),
		get("manpages-zh/sha256sum.1"),
		get("manpages-zh/sha384sum.1"),
		get("lo-help-en-US/text/sbasic/shared/03/lib_depot"),
		get("lo-help-en-US/text/sbasic/shared/03/lib_formwizard"),
		get("manpages-zh/swapon.8"),
		{ID: "short-1", Title: "太短", Text: "你好，世界。"},
	}
	if err := writeJSONL("cmd/neardup/testdata/articles.jsonl", arts); err != nil {
		return err
	}
	// Whole-file articles for compare and check: an original, a reprint
	// of it, and an unrelated article.
	edited := withNote(zhB, "", "")
	files := map[string]string{
		"cmd/neardup/testdata/a.txt": zhB.Text + "\n",
		"cmd/neardup/testdata/b.txt": edited.Text + "\n",
		"cmd/neardup/testdata/c.txt": get("gnome-help-C/bluetooth-send-file").Text + "\n",
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sample writes the sample corpus: originals from both corpora, the
// documentation's own near-duplicate pairs, and edited copies.
func sample(en, zh []article, byID map[string]article, pairs []pair) error {
	rng := rand.New(rand.NewPCG(20240601, 7))
	fits := func(a article) bool { n := len(a.Text); return n >= 600 && n <= 3000 }
	var out []article
	seen := make(map[string]bool)
	add := func(a article) {
		if !seen[a.ID] {
			seen[a.ID] = true
			out = append(out, a)
		}
	}
	pick := func(src []article, n int) {
		step := len(src) / n
		for i := 0; i < len(src) && n > 0; i += step {
			for j := i; j < len(src) && j < i+step; j++ {
				if fits(src[j]) && !seen[src[j].ID] {
					add(src[j])
					n--
					break
				}
			}
		}
	}
	pick(en, 110)
	pick(zh, 110)
	// The corpora's own reprints (character 5-gram Jaccard ≥ 0.8).
	np := 0
	for _, p := range pairs {
		a, b := byID[p.A], byID[p.B]
		if p.Jaccard >= 0.8 && fits(a) && fits(b) && np < 24 && !seen[b.ID] {
			add(a)
			add(b)
			np++
		}
	}
	// Edited copies, each inserted at a random place after its original.
	srcs := append([]article{}, out...)
	for i := 0; i < len(srcs); i += 5 {
		src := srcs[i]
		title := "Reprint: " + src.Title
		if isChinese(src.Text) {
			title = "转载：" + src.Title
		}
		var c article
		switch (i / 5) % 3 {
		case 0:
			c = withNote(src, src.ID+"#reprint", title)
		case 1:
			c = reprint(src, src.ID+"#edited", title, rng)
		case 2:
			c = exactCopy(src, src.ID+"#copy")
		}
		at := 0
		for at < len(out) && out[at].ID != src.ID {
			at++
		}
		pos := at + 1 + rng.IntN(len(out)-at)
		out = append(out[:pos], append([]article{c}, out[pos:]...)...)
	}
	out = append(out,
		article{ID: "sample/too-short-zh", Title: "太短", Text: "你好，世界。"},
		article{ID: "sample/too-short-en", Title: "Too short", Text: "Hello, world."},
	)
	if err := os.MkdirAll("testdata/sample", 0o755); err != nil {
		return err
	}
	return writeJSONL("testdata/sample/sample.jsonl", out)
}

// reprint edits a more: drops one line of the middle, swaps two
// adjacent lines and appends a source note.
func reprint(a article, id, title string, rng *rand.Rand) article {
	lines := strings.Split(a.Text, "\n")
	if len(lines) > 6 {
		i := 2 + rng.IntN(len(lines)-4)
		lines = append(lines[:i], lines[i+1:]...)
		j := 1 + rng.IntN(len(lines)-3)
		lines[j], lines[j+1] = lines[j+1], lines[j]
	}
	note := "(Reprinted from the Debian documentation.)"
	if isChinese(a.Text) {
		note = "（本文转载自 Debian 文档。）"
	}
	lines = append(lines, note)
	return article{ID: id, Title: title, Text: strings.Join(lines, "\n")}
}

// withNote appends a source note to a, as a reprinting site might.
func withNote(a article, id, title string) article {
	note := "(Reprinted from the Debian documentation.)"
	if isChinese(a.Text) {
		note = "（本文转载自 Debian 文档。）"
	}
	return article{ID: id, Title: title, Text: a.Text + "\n" + note}
}

// exactCopy changes only what normalisation removes: letter case, white
// space and full-width forms.
func exactCopy(a article, id string) article {
	t := strings.ReplaceAll(a.Text, "\n", "\n\n  ")
	t = strings.Replace(t, "LibreOffice", "ＬＩＢＲＥＯＦＦＩＣＥ", 1)
	t = strings.Replace(t, "Basic", "BASIC", 1)
	return article{ID: id, Title: strings.ToUpper(a.Title), Text: t}
}

func isChinese(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}

func load(path string) ([]article, error) {
	var out []article
	err := eachLine(path, func(b []byte) error {
		var a article
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		out = append(out, a)
		return nil
	})
	return out, err
}

func loadPairs(path string) ([]pair, error) {
	var out []pair
	err := eachLine(path, func(b []byte) error {
		var p pair
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

func eachLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}

func writeJSONL(path string, arts []article) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, a := range arts {
		if err := enc.Encode(a); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
