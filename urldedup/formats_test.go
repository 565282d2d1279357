package urldedup

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

const formatsDir = "../input/testdata/formats/"

// TestRunWARC: the target URIs of a WARC file wget wrote (its 25
// responses of HTML pages) are read, and its other records skipped and
// counted by kind as dedup counts them (its requests, metadata, logs, an
// image and a missing page); the WET file of the same pages gives the
// same URIs, all exact duplicates.
func TestRunWARC(t *testing.T) {
	got, sum, err := runURLs(t, []string{formatsDir + "pages.warc.gz", formatsDir + "records.wet.gz"}, "", nil, &Options{MaxDistance: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Lines != 50 || sum.URLs != 50 || sum.Rejected != 0 || sum.InputErrors != 0 || sum.Exact < 25 || sum.Unique+sum.Exact+sum.Near != 50 {
		t.Errorf("summary %+v, want 50 URLs (25 + 25), at least the WET's 25 exact duplicates", sum)
	}
	wantSkipped := map[string]int64{"request": 27, "resource (text/plain)": 2, "metadata": 1, "response (HTTP 404)": 1,
		"response (image/png)": 1, "warcinfo": 2}
	if !maps.Equal(sum.Skipped, wantSkipped) {
		t.Errorf("skipped %v, want %v", sum.Skipped, wantSkipped)
	}
	// Record 3 is the first response (after warcinfo and a request);
	// the WET's record 2 (after its warcinfo) is the same page.
	if !slices.Contains(got, "3 unique http://127.0.0.1:18329/lo-help-en-US/text/sbasic/shared/03/lib_depot.html") {
		t.Errorf("no first response among\n%s", strings.Join(got, "\n"))
	}
	if !slices.Contains(got, "2 duplicate http://127.0.0.1:18329/lo-help-en-US/text/sbasic/shared/03/lib_depot.html [http://127.0.0.1:18329/lo-help-en-US/text/sbasic/shared/03/lib_depot.html 0=] exact") {
		t.Errorf("the WET's first record is not an exact duplicate:\n%s", strings.Join(got, "\n"))
	}
	for _, o := range got {
		if strings.Contains(o, "missing.html") || strings.Contains(o, ".png") {
			t.Errorf("the missing page's or the image's response was read: %s", o)
		}
	}
	// A damaged member: the URIs before it, and the error naming it.
	got, sum, err = runURLs(t, []string{formatsDir + "damaged.warc.gz"}, "", nil, &Options{MaxDistance: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"3 unique http://127.0.0.1:18329/lo-help-en-US/text/sbasic/shared/03/lib_depot.html",
		// A near-duplicate URL at distance 2.
		"5 duplicate http://127.0.0.1:18329/lo-help-en-US/text/sbasic/shared/03/lib_formwizard.html [http://127.0.0.1:18329/lo-help-en-US/text/sbasic/shared/03/lib_depot.html 2]",
		// klauspost/compress/flate counts the offset from the member's start.
		"7 input-failed : ../input/testdata/formats/damaged.warc.gz: record 7 (byte 5296): gzip member at byte 3562: flate: corrupt input before offset 1",
	}
	if !slices.Equal(got, want) || sum.InputErrors != 1 || !maps.Equal(sum.Skipped, map[string]int64{"warcinfo": 1, "request": 3}) {
		t.Errorf("damaged:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRunParquet: the URLs of a Parquet column (url by default, or
// --url-field), from a file and from standard input; a null URL is a
// bad row naming its row group.
func TestRunParquet(t *testing.T) {
	type row struct {
		ID  string  `parquet:"id"`
		URL *string `parquet:"url,optional"`
		Alt string  `parquet:"link"`
	}
	s := func(v string) *string { return &v }
	rows := []row{
		{"a", s("http://a.org/x"), "http://b.org/1"},
		{"b", s("http://a.org/x"), "http://b.org/2"},
		{"c", nil, "http://b.org/3"},
		{"d", s("http://c.org/y?id=1"), "http://b.org/1"},
	}
	var b bytes.Buffer
	w := parquet.NewGenericWriter[row](&b)
	for _, r := range rows {
		w.Write([]row{r})
		w.Flush() // a row group a row
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := writeTemp(t, "urls.parquet", b.String())
	got, sum, err := runURLs(t, []string{path, "-"}, b.String(), nil, &Options{MaxDistance: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1 unique http://a.org/x",
		"2 duplicate http://a.org/x [http://a.org/x 0=] exact",
		`3 rejected : ` + path + `:3: field "url": row 3 (row group 3 of 4, row 1): null`,
		"4 unique http://c.org/y?id=1",
		"1 duplicate http://a.org/x [http://a.org/x 0=] exact",
		"2 duplicate http://a.org/x [http://a.org/x 0=] exact",
		`3 rejected : stdin:3: field "url": row 3 (row group 3 of 4, row 1): null`,
		"4 duplicate http://c.org/y?id=1 [http://c.org/y?id=1 0=] exact",
	}
	if !slices.Equal(got, want) || sum.Rejected != 2 {
		t.Errorf("url column:\n%s\nwant\n%s\nsummary %+v", strings.Join(got, "\n"), strings.Join(want, "\n"), sum)
	}
	got, _, err = runURLs(t, []string{path}, "", nil, &Options{MaxDistance: 3, Field: "link"})
	want = []string{"1 unique http://b.org/1", "2 unique http://b.org/2", "3 unique http://b.org/3", "4 duplicate http://b.org/1 [http://b.org/1 0=] exact"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("--url-field link:\n%s\nwant\n%s (%v)", strings.Join(got, "\n"), strings.Join(want, "\n"), err)
	}
	// A column of another type rejects the file.
	got, _, _ = runURLs(t, []string{formatsDir + "bad-type.parquet"}, "", nil, &Options{Field: "text"})
	want = []string{`0 rejected : ` + formatsDir + `bad-type.parquet: field "text": column of type INT64: want a string (BYTE_ARRAY) column`}
	if !slices.Equal(got, want) {
		t.Errorf("bad type:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
