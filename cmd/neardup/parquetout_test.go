package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// columnTypes lists the leaf columns of a Parquet file as "path type".
func columnTypes(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, p := range pf.Schema().Columns() {
		leaf, _ := pf.Schema().Lookup(p...)
		opt := ""
		if leaf.Node.Optional() {
			opt = " optional"
		}
		cols = append(cols, strings.Join(p, ".")+" "+leaf.Node.Type().String()+opt)
	}
	return cols
}

// TestFormatsParquetOutputs: --unique and --annotate files named
// *.parquet keep every column of DuckDB's Parquet input, types and
// nulls kept (its column chars, the texts' lengths, which neardup does
// not read, and the null title), the annotate file adding a group
// "neardup"; read back with parquet-go.
func TestFormatsParquetOutputs(t *testing.T) {
	t.Parallel()
	in := filepath.Join(formatsDir, "records.snappy.parquet")
	dir := t.TempDir()
	unique, ann := filepath.Join(dir, "unique.parquet"), filepath.Join(dir, "ann.parquet")
	r := runCLI(t, "dedup", "--segmenter", "gse", "--workers", "2", "--unique", unique, "--annotate", ann, in)
	if r.code != 0 || !strings.Contains(r.stderr, "25 records: 15 unique, 3 exact duplicates, 7 near duplicates") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	inCols := []string{"id STRING optional", "title STRING optional", "text STRING optional", "chars INT(64,true) optional"}
	if got := columnTypes(t, in); !slices.Equal(got, inCols) {
		t.Fatalf("input columns %q, want %q", got, inCols)
	}
	if got := columnTypes(t, unique); !slices.Equal(got, inCols) {
		t.Errorf("unique file's columns %q, want the input's %q", got, inCols)
	}
	// Parquet groups order their fields by name.
	annCols := []string{"chars INT(64,true) optional", "id STRING optional",
		"neardup.content DOUBLE optional", "neardup.member STRING optional", "neardup.reason STRING optional",
		"neardup.similarity DOUBLE optional", "neardup.verdict STRING", "neardup.cluster STRING optional",
		"text STRING optional", "title STRING optional"}
	slices.Sort(annCols)
	got := columnTypes(t, ann)
	slices.Sort(got)
	if !slices.Equal(got, annCols) {
		t.Errorf("annotate file's columns %q, want %q", got, annCols)
	}

	type row struct {
		ID      *string `parquet:"id,optional"`
		Title   *string `parquet:"title,optional"`
		Text    *string `parquet:"text,optional"`
		Chars   *int64  `parquet:"chars,optional"`
		NearDup struct {
			Verdict string  `parquet:"verdict"`
			Cluster *string `parquet:"cluster,optional"`
			Member  *string `parquet:"member,optional"`
		} `parquet:"neardup"`
	}
	inRows, err := parquet.ReadFile[row](in)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]row{}
	for _, x := range inRows {
		byID[*x.ID] = x
	}
	check := func(file string, x row) {
		t.Helper()
		y, ok := byID[*x.ID]
		switch {
		case !ok:
			t.Errorf("%s: row of id %q, not an input row", file, *x.ID)
		case *x.Text != *y.Text || *x.Chars != *y.Chars || (x.Title == nil) != (y.Title == nil) || x.Title != nil && *x.Title != *y.Title:
			t.Errorf("%s: row %q differs from the input's", file, *x.ID)
		case *x.Chars != int64(utf8.RuneCountInString(*x.Text)):
			t.Errorf("%s: row %q: chars %d, text of %d characters", file, *x.ID, *x.Chars, utf8.RuneCountInString(*x.Text))
		}
	}
	uniqueRows, err := parquet.ReadFile[row](unique)
	if err != nil || len(uniqueRows) != 15 {
		t.Fatalf("unique file: %d rows, %v; want 15", len(uniqueRows), err)
	}
	for _, x := range uniqueRows {
		check("unique", x)
	}
	annRows, err := parquet.ReadFile[row](ann)
	if err != nil || len(annRows) != 25 {
		t.Fatalf("annotate file: %d rows, %v; want 25", len(annRows), err)
	}
	verdicts, nullTitles := map[string]int{}, 0
	for i, x := range annRows {
		check("annotate", x)
		if *x.ID != *inRows[i].ID {
			t.Errorf("annotate row %d is %q, want the input's %q", i+1, *x.ID, *inRows[i].ID)
		}
		verdicts[x.NearDup.Verdict]++
		if x.Title == nil {
			nullTitles++
		}
		if x.NearDup.Cluster == nil || (x.NearDup.Verdict == "duplicate") != (x.NearDup.Member != nil) {
			t.Errorf("annotate row %q: neardup %+v", *x.ID, x.NearDup)
		}
	}
	if verdicts["unique"] != 15 || verdicts["duplicate"] != 10 || nullTitles != 1 {
		t.Errorf("annotate file: verdicts %v, %d null titles; want 15 unique, 10 duplicate, 1 null title", verdicts, nullTitles)
	}
	// --keep longest writes them when the run ends, from a second read
	// of the input: the rows are the input's too.
	longest := filepath.Join(dir, "longest.parquet")
	if r := runCLI(t, "dedup", "--segmenter", "gse", "--workers", "2", "--keep", "longest", "--unique", longest, in); r.code != 0 {
		t.Fatalf("--keep longest: exit %d: %s", r.code, r.stderr)
	}
	if got := columnTypes(t, longest); !slices.Equal(got, inCols) {
		t.Errorf("--keep longest: unique file's columns %q, want %q", got, inCols)
	}
	longRows, err := parquet.ReadFile[row](longest)
	if err != nil || len(longRows) != 15 {
		t.Fatalf("--keep longest: %d rows, %v; want 15", len(longRows), err)
	}
	for _, x := range longRows {
		check("--keep longest", x)
	}
}
