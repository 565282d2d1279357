package dedup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/testfixtures"
	"github.com/neardup/neardup/simhash"
)

// TestAdd: every record reaches each in input order with why it was not
// added; the good ones are added, in batches, a repeated ID replacing
// the earlier document.
func TestAdd(t *testing.T) {
	ctx := context.Background()
	a := testfixtures.Analyzer(t, "")
	lines := []string{
		fmt.Sprintf(`{"id":"en","text":%q}`, testfixtures.EN),
		`{"id":"bad","text":42}`,
		fmt.Sprintf(`{"id":%q,"text":%q}`, strings.Repeat("x", index.MaxIDLen+1), testfixtures.EN2),
		`{"id":"short","text":"too short"}`,
		fmt.Sprintf(`{"id":"zh","text":%q}`, testfixtures.ZH),
		fmt.Sprintf(`{"id":"en","text":%q}`, testfixtures.EN3),
		fmt.Sprintf(`{"id":"zh2","text":%q}`, testfixtures.ZH2),
	}
	x, err := memstore.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	r := input.NewReader([]string{"-"}, strings.NewReader(strings.Join(lines, "\n")+"\n"), nil)
	var got []string
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n, err := Add(ctx, r, a, x, &AddOptions{Workers: 2, Batch: 2, KeepText: true, Now: func() time.Time { return now }}, func(rec *input.Record, err error) error {
		switch {
		case err == nil:
			got = append(got, rec.ID+": added")
		case errors.Is(err, index.ErrID):
			got = append(got, fmt.Sprintf("line %d: invalid id", rec.Line))
		default:
			got = append(got, fmt.Sprintf("line %d: %v", rec.Line, err))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"en: added",
		`line 0: stdin:2: field "text": not a string (number)`, // a RecordError comes with an empty record
		"line 3: invalid id",
		"line 4: too few keywords to fingerprint: 1 keyword, need 4",
		"zh: added",
		"en: added",
		"zh2: added",
	}
	if n != 4 || !slices.Equal(got, want) {
		t.Errorf("Add = %d, reported\n%q\nwant 4 and\n%q", n, got, want)
	}
	st, err := x.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d, err := x.Get(ctx, "en")
	if err != nil {
		t.Fatal(err)
	}
	if st.Docs != 3 || d.Text != testfixtures.EN3 || !d.Added.Equal(now) || len(d.Keywords) == 0 {
		t.Errorf("archive holds %d documents, en = %q added %v with %d keywords; want 3, the second en, %v, keywords",
			st.Docs, d.Text, d.Added, len(d.Keywords), now)
	}
}

// TestAddAll: bare fingerprints are loaded into an empty archive and
// added to one that holds documents, counting each.
func TestAddAll(t *testing.T) {
	ctx := context.Background()
	x, err := memstore.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	docs := func(ids ...string) func(func(index.Doc) bool) {
		return func(yield func(index.Doc) bool) {
			for i, id := range ids {
				if !yield(index.Doc{ID: id, Fingerprint: simhash.Fingerprint(i+1) << 20}) {
					return
				}
			}
		}
	}
	for _, tt := range []struct {
		ids  []string
		docs int64
	}{{[]string{"a", "b", "c"}, 3}, {[]string{"c", "d"}, 4}} {
		n, err := AddAll(ctx, x, docs(tt.ids...))
		if err != nil {
			t.Fatal(err)
		}
		st, err := x.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(tt.ids)) || st.Docs != tt.docs {
			t.Errorf("AddAll(%q) = %d, archive of %d; want %d, %d", tt.ids, n, st.Docs, len(tt.ids), tt.docs)
		}
	}
}

// TestAddFingerprints: good lines are added stamped with the time given,
// bad ones reported by number and skipped; an error from bad stops the
// load.
func TestAddFingerprints(t *testing.T) {
	ctx := context.Background()
	x, err := memstore.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	var bad []string
	n, err := AddFingerprints(ctx, x, strings.NewReader("a\t00000000000000ff\nnot a line\n\nb\tzz\nc\t0f00000000000000\n"), "fp.tsv", now,
		func(line int, err error) error {
			bad = append(bad, fmt.Sprint(line))
			return nil
		})
	if err != nil || n != 2 || strings.Join(bad, ",") != "2,4" {
		t.Fatalf("AddFingerprints = %d, %v, bad lines %q; want 2, nil, 2,4", n, err, bad)
	}
	d, err := x.Get(ctx, "c")
	if err != nil || d.Fingerprint != 0x0f00000000000000 || !d.Added.Equal(now) {
		t.Errorf("Get(c) = %x added %v, %v", d.Fingerprint, d.Added, err)
	}
	stop := errors.New("stop here")
	n, err = AddFingerprints(ctx, x, strings.NewReader("d\t1\nbad\ne\t2\n"), "fp.tsv", now, func(int, error) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("AddFingerprints with bad returning an error = %d, %v; want %v", n, err, stop)
	}
	if _, err := x.Get(ctx, "e"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("Get(e) after the stop: %v, want ErrNotFound", err)
	}
}
