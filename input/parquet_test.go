package input

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

// article is a row of the Parquet files the tests write: a title that
// may be null, a column the reader never reads.
type article struct {
	ID    string  `parquet:"id"`
	Title *string `parquet:"title,optional"`
	Text  string  `parquet:"text"`
	URL   string  `parquet:"url"`
}

func strp(s string) *string { return &s }

// writeParquet writes rows as a Parquet file with codec, a row group
// every perGroup rows.
func writeParquet[T any](t testing.TB, rows []T, perGroup int, codec compress.Codec) []byte {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewGenericWriter[T](&b, parquet.Compression(codec))
	for len(rows) > 0 {
		n := min(perGroup, len(rows))
		if _, err := w.Write(rows[:n]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		rows = rows[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var testArticles = []article{
	{ID: "p1", Title: strp("First"), Text: "the first article", URL: "http://a/1"},
	{ID: "p2", Title: nil, Text: "the second, without a title", URL: "http://a/2"},
	{ID: "p3", Title: strp("Third"), Text: "第三篇文章", URL: "http://a/3"},
	{ID: "p4", Title: strp("<b>Fourth</b>"), Text: "  ", URL: "http://a/4"},
	{ID: "p5", Title: strp("Fifth"), Text: "the fifth", URL: "http://a/5"},
}

// TestReaderParquet reads a file of three row groups with each codec
// the library has: rows in order, row numbers across row groups, a null
// title as none, a blank text a bad row naming its row group.
func TestReaderParquet(t *testing.T) {
	codecs := map[string]compress.Codec{
		"none": &parquet.Uncompressed, "snappy": &parquet.Snappy, "gzip": &parquet.Gzip,
		"zstd": &parquet.Zstd, "lz4": &parquet.Lz4Raw, "brotli": &parquet.Brotli,
	}
	want := []inputResult{
		{Rec: Record{ID: "p1", Title: "First", Text: "the first article", Source: "a.parquet", Line: 1}},
		{Rec: Record{ID: "p2", Text: "the second, without a title", Source: "a.parquet", Line: 2}},
		{Rec: Record{ID: "p3", Title: "Third", Text: "第三篇文章", Source: "a.parquet", Line: 3}},
		{Err: `a.parquet: row 4 (row group 2 of 3, row 2): field "text": only white space`},
		{Rec: Record{ID: "p5", Title: "Fifth", Text: "the fifth", Source: "a.parquet", Line: 5}},
	}
	for name, codec := range codecs {
		t.Run(name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeInputFiles(t, ".", map[string]string{"a.parquet": string(writeParquet(t, testArticles, 2, codec))})
			checkInputResults(t, readAllInputs(t, NewReader([]string{"a.parquet"}, nil, nil)), want)
		})
	}
}

// TestReaderParquetFields names other columns, an integer id, a missing
// id column and nulls; and checks the errors of a file whose columns do
// not fit.
func TestReaderParquetFields(t *testing.T) {
	t.Chdir(t.TempDir())
	type numbered struct {
		N     int64    `parquet:"n"`
		Body  *string  `parquet:"body,optional"`
		Score float64  `parquet:"score"`
		Tags  []string `parquet:"tags,list"`
	}
	rows := []numbered{{N: 7, Body: strp("seven")}, {N: -1, Body: nil}, {N: 9, Body: strp("<p>nine &amp; ten</p>")}}
	writeInputFiles(t, ".", map[string]string{"n.parquet": string(writeParquet(t, rows, 10, &parquet.Snappy))})

	got := readAllInputs(t, NewReader([]string{"n.parquet"}, nil, &Options{IDField: "n", TextField: "body", HTML: true}))
	checkInputResults(t, got, []inputResult{
		{Rec: Record{ID: "7", Text: "seven", Source: "n.parquet", Line: 1}},
		{Err: `n.parquet: row 2 (row group 1 of 1, row 2): field "body": null`},
		{Rec: Record{ID: "9", Text: "nine & ten", Source: "n.parquet", Line: 3}},
	})
	// No id column: the ID is source:row.
	got = readAllInputs(t, NewReader([]string{"n.parquet"}, nil, &Options{IDField: "none", TextField: "body"}))
	if len(got) != 3 || got[0].Rec.ID != "n.parquet:1" || got[2].Rec.ID != "n.parquet:3" {
		t.Errorf("without an id column: %+v", got)
	}
	tests := []struct {
		opts Options
		want string
	}{
		{Options{TextField: "n"}, `n.parquet: field "n": column of type INT64: want a string (BYTE_ARRAY) column`},
		{Options{TextField: "body", IDField: "score"}, `n.parquet: field "score": column of type DOUBLE: want a string or integer column`},
		{Options{TextField: "tags"}, `n.parquet: field "tags": a nested (group or list) column: want one string a row`},
		{Options{TextField: "text"}, `n.parquet: field "text": no such column (the file has n, body, score, tags.list.element)`},
		{Options{TextField: "tags.list.element"}, `n.parquet: field "tags.list.element": a repeated (list) column: want one string a row`},
	}
	for _, tt := range tests {
		got := readAllInputs(t, NewReader([]string{"n.parquet", "n.parquet"}, nil, &tt.opts))
		checkInputResults(t, got, []inputResult{{Err: tt.want}, {Err: tt.want}})
	}
}

// TestReaderParquetStreams reads Parquet data that cannot be read by
// offset, from standard input and inside zstd data, through a temporary
// copy that is removed afterwards; and a Hugging Face dataset folder.
func TestReaderParquetStreams(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("TMPDIR", mustMkdir(t, "tmp"))
	data := writeParquet(t, testArticles[:2], 1, &parquet.Zstd)
	writeInputFiles(t, "ds", map[string]string{
		"README.md":                         "# a dataset card\n\nIt is an article too.",
		"data/train-00000-of-00002.parquet": string(data),
		"data/train-00001-of-00002.parquet": string(writeParquet(t, testArticles[4:], 1, &parquet.Snappy)),
		"c.parquet.zst":                     zstdString(t, string(data)),
	})
	got := readAllInputs(t, NewReader([]string{"ds/data", "-", "ds/c.parquet.zst"}, bytes.NewReader(data), nil))
	p1 := Record{ID: "p1", Title: "First", Text: "the first article", Line: 1}
	p2 := Record{ID: "p2", Text: "the second, without a title", Line: 2}
	with := func(r Record, source string) inputResult { r.Source = source; return inputResult{Rec: r} }
	checkInputResults(t, got, []inputResult{
		with(p1, "ds/data/train-00000-of-00002.parquet"),
		with(p2, "ds/data/train-00000-of-00002.parquet"),
		with(Record{ID: "p5", Title: "Fifth", Text: "the fifth", Line: 1}, "ds/data/train-00001-of-00002.parquet"),
		with(p1, "stdin"), with(p2, "stdin"),
		with(p1, "ds/c.parquet.zst"), with(p2, "ds/c.parquet.zst"),
	})
	if left, _ := os.ReadDir("tmp"); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func mustMkdir(t *testing.T, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(abs, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestReaderParquetDamaged: a file cut short has no footer, so none of
// its rows can be found: an *Error names the file and its size; damaged
// pages in the second row group end the file there, after the first
// group's rows, naming the row group.
func TestReaderParquetDamaged(t *testing.T) {
	t.Chdir(t.TempDir())
	var rows []article
	for i := range 300 {
		rows = append(rows, article{ID: "r" + strings.Repeat("x", i%5) + string(rune('a'+i%26)), Text: strings.Repeat("varied words here ", 1+i%7) + string(rune('A'+i%26)), URL: "u"})
	}
	for i := range rows {
		rows[i].ID += "-" + strconv.Itoa(i)
	}
	data := writeParquet(t, rows, 100, &parquet.Zstd)
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	md := f.Metadata()
	if len(md.RowGroups) != 3 {
		t.Fatalf("%d row groups", len(md.RowGroups))
	}
	// The text column's chunk of the second row group: overwrite the
	// middle of its compressed pages.
	col := md.RowGroups[1].Columns[2].MetaData
	damaged := bytes.Clone(data)
	mid := col.DataPageOffset + col.TotalCompressedSize/2
	for i := mid; i < mid+16; i++ {
		damaged[i] ^= 0x5A
	}
	writeInputFiles(t, ".", map[string]string{
		"cut.parquet":     string(data[:len(data)-100]),
		"damaged.parquet": string(damaged),
		"empty.parquet":   "PAR1",
	})
	got := readAllInputs(t, NewReader([]string{"cut.parquet", "empty.parquet"}, nil, nil))
	checkInputResults(t, got, []inputResult{
		{Err: "cut.parquet: truncated Parquet file: its " + strconv.Itoa(len(data)-100) + " bytes do not end with a footer (PAR1)"},
		{Err: "empty.parquet: truncated Parquet file: 4 bytes, too short for a footer"},
	})
	r := NewReader([]string{"damaged.parquet"}, nil, nil)
	n := 0
	for {
		rec, err := r.Next()
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "damaged.parquet: row 101 (row group 2 of 3, row 1): column \"text\": ") {
				t.Errorf("after %d rows: %v", n, err)
			}
			break
		}
		if rec.ID != rows[n].ID {
			t.Fatalf("row %d: %q, want %q", n, rec.ID, rows[n].ID)
		}
		n++
	}
	if n != 100 {
		t.Errorf("read %d rows before the damage, want the first row group's 100", n)
	}
}

// TestReaderParquetRows: with ParquetRows, DuckDB's rows come whole,
// the column neardup does not read (chars, the text's length in
// characters) among them; without, none.
func TestReaderParquetRows(t *testing.T) {
	path := "testdata/formats/records.snappy.parquet"
	for _, rows := range []bool{false, true} {
		got := readAllInputs(t, NewReader([]string{path}, nil, &Options{ParquetRows: rows}))
		if len(got) != 25 {
			t.Fatalf("ParquetRows %t: %d results", rows, len(got))
		}
		for _, g := range got {
			rec := g.Rec
			if !rows {
				if rec.Row != nil || rec.Schema != nil {
					t.Fatalf("ParquetRows false: record %s has a row", rec.ID)
				}
				continue
			}
			if len(rec.Row) != 4 || rec.Schema == nil || len(rec.Schema.Columns()) != 4 {
				t.Fatalf("record %s: row %v", rec.ID, rec.Row)
			}
			if id := rec.Row[0].String(); id != rec.ID {
				t.Errorf("row's id %q, record's %q", id, rec.ID)
			}
			if n := rec.Row[3].Int64(); n != int64(utf8.RuneCountInString(rec.Text)) {
				t.Errorf("record %s: chars %d, text of %d characters", rec.ID, n, utf8.RuneCountInString(rec.Text))
			}
		}
	}
}

// TestReaderParquetRowsList: with ParquetRows, a list column, whose
// pages hold more values than their row group has rows, is read whole.
func TestReaderParquetRowsList(t *testing.T) {
	type row struct {
		ID   string   `parquet:"id"`
		Text string   `parquet:"text"`
		Tags []string `parquet:"tags,list"`
	}
	rows := []row{{"a", "text a", []string{"x", "y", "z"}}, {"b", "text b", []string{"u", "v", "w", "q"}}}
	t.Chdir(t.TempDir())
	writeInputFiles(t, ".", map[string]string{"l.parquet": string(writeParquet(t, rows, 2, &parquet.Snappy))})
	got := readAllInputs(t, NewReader([]string{"l.parquet"}, nil, &Options{ParquetRows: true}))
	if len(got) != 2 || got[1].Err != "" {
		t.Fatalf("%+v", got)
	}
	// id, text and the list's 4 values.
	if r := got[1].Rec.Row; len(r) != 6 || r[5].String() != "q" {
		t.Errorf("row b: %v", r)
	}
}
