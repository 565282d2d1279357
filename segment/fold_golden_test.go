package segment

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/testfixtures/corpora"
)

var updateFoldGolden = flag.Bool("update-fold-golden", false, "rewrite testdata/tradfold_golden.jsonl.gz from zh_docs (needs Debian's opencc command and the shared corpora)")

// foldGoldenPath is the record of what OpenCC's conversion over
// TradFold's tables (longbridgeapp/opencc v0.3.13's Convert, when neardup
// took its tables from that module) makes of 150 LibreOffice help pages (zh_docs,
// MPL-2.0; see testdata/README.md) and of their s2t, s2tw, s2hk and s2twp
// versions made by Debian's opencc command.
const foldGoldenPath = "testdata/tradfold_golden.jsonl.gz"

// foldGoldenDocs is how many pages the golden file holds.
const foldGoldenDocs = 150

// foldGoldenConvs are the versions of each page: "" is the page as it is.
var foldGoldenConvs = []string{"", "s2t", "s2tw", "s2hk", "s2twp"}

// foldGoldenCase is one line of the golden file: a version of a page,
// normalised (In), and its conversion (Want).
type foldGoldenCase struct {
	ID   string `json:"id"`
	Conv string `json:"conv"`
	In   string `json:"in"`
	Want string `json:"want"`
}

func readFoldGolden(t testing.TB) []foldGoldenCase {
	t.Helper()
	var out []foldGoldenCase
	corpora.Lines(t, foldGoldenPath, func(line []byte) bool {
		var c foldGoldenCase
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
		return true
	})
	if len(out) != foldGoldenDocs*len(foldGoldenConvs) {
		t.Fatalf("%s: %d cases, want %d", foldGoldenPath, len(out), foldGoldenDocs*len(foldGoldenConvs))
	}
	return out
}

// TestTradFoldGolden: TradFold's conversion gives, on every case of the
// golden file, what OpenCC's conversion gave over the same tables: the
// guarantee that neardup's matcher and its parse of the embedded files
// are OpenCC's (longbridgeapp/opencc's) conversion.
func TestTradFoldGolden(t *testing.T) {
	if *updateFoldGolden {
		writeFoldGolden(t)
	}
	f := newTradFold(t)
	changed := 0
	for _, c := range readFoldGolden(t) {
		if Normalize(c.In) != c.In {
			t.Fatalf("%s %s: the input is not normalised", c.ID, c.Conv)
		}
		if got := f.tables.convert(c.In); got != c.Want {
			t.Fatalf("%s %s: conversion differs from the golden: %s", c.ID, c.Conv, firstDiff(got, c.Want))
		}
		if c.Want != c.In {
			changed++
		}
	}
	t.Logf("%d cases, %d changed by the conversion", foldGoldenDocs*len(foldGoldenConvs), changed)
}

// foldDocsPages returns the first foldGoldenDocs LibreOffice help pages of
// zh_docs in the order of the SHA-1 of their ids, with at least 200
// characters, whole.
func foldDocsPages(t testing.TB) []struct{ ID, Text string } {
	t.Helper()
	type page struct{ ID, Text, key string }
	var pages []page
	corpora.Lines(t, filepath.Join(corpora.Require(t, "zh_docs.jsonl.gz"), "zh_docs.jsonl.gz"), func(line []byte) bool {
		var d struct{ ID, Text string }
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(d.ID, "lo-help-zh-CN/") && len([]rune(d.Text)) >= 200 {
			h := sha1.Sum([]byte(d.ID))
			pages = append(pages, page{d.ID, d.Text, hex.EncodeToString(h[:])})
		}
		return true
	})
	slices.SortFunc(pages, func(a, b page) int { return strings.Compare(a.key, b.key) })
	out := make([]struct{ ID, Text string }, 0, foldGoldenDocs)
	for _, p := range pages[:foldGoldenDocs] {
		out = append(out, struct{ ID, Text string }{p.ID, p.Text})
	}
	return out
}

// writeFoldGolden records the golden file: the pages and their versions,
// normalised, and what TradFold's conversion makes of them. The file in
// the repository was recorded with OpenCC's own Convert
// (longbridgeapp/opencc v0.3.13) in place of TradFold's, over the same
// tables (see testdata/README.md); rewrite it only when the tables change
// on purpose.
func writeFoldGolden(t *testing.T) {
	f := newTradFold(t)
	pages := foldDocsPages(t)
	texts := make([]string, len(pages))
	for i, p := range pages {
		texts[i] = p.Text
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	versions := make([][]string, len(foldGoldenConvs))
	for v, conv := range foldGoldenConvs {
		versions[v] = texts
		if conv != "" {
			versions[v] = corpora.OpenCC(t, conv, texts)
		}
	}
	// Page by page, so that gzip finds each page's versions together.
	for i := range pages {
		for v, conv := range foldGoldenConvs {
			n := Normalize(versions[v][i])
			want := f.tables.convert(n)
			if err := enc.Encode(foldGoldenCase{pages[i].ID, conv, n, want}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(foldGoldenPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// foldTablesDigest is the SHA-256 of TradFold's tables as
// foldChainEntries lists them (pass, table, then "key\tvalue" lines in
// key order), recorded when they were parsed by longbridgeapp/opencc
// v0.3.13 (through liuzl/da) from its embedded files: the tables parsed by
// dict.ParseOpenCC from the same files embedded in dict are the same.
const foldTablesDigest = "f962945d7acc0aab3cc676d7f3849ab2338d43e5e3b698b619e742227c8a0576"

// TestFoldTablesDigest: TradFold's tables are those recorded.
func TestFoldTablesDigest(t *testing.T) {
	chain, err := foldChainEntries()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	entries := 0
	for p, tables := range chain {
		for d, es := range tables {
			fmt.Fprintf(h, "pass %d table %d: %d entries\n", p, d, len(es))
			for _, e := range es {
				fmt.Fprintf(h, "%s\t%s\n", e.Key, e.Value)
			}
			entries += len(es)
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != foldTablesDigest {
		t.Errorf("the tables' digest is %s (%d entries), want %s", got, entries, foldTablesDigest)
	}
}
