package dedup

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// TestCheck: what Check reports and adds, article by article, against
// an archive holding "a".
func TestCheck(t *testing.T) {
	ctx := context.Background()
	var sk minhash.Sketch
	for i := range sk {
		sk[i] = uint16(i + 1)
	}
	a := index.Doc{ID: "a", Fingerprint: 0x0123456789abcdef, ContentHash: 1, Sketch: sk}
	tests := []struct {
		name              string
		doc               index.Doc
		add               bool
		matches           []string
		self, same, added bool
		notAdded          error
		docs              int64 // in the archive afterwards
	}{
		{"new", index.Doc{ID: "b", Fingerprint: 0xfedcba9876543210, ContentHash: 2}, false, nil, false, false, false, nil, 1},
		{"new, added", index.Doc{ID: "b", Fingerprint: 0xfedcba9876543210, ContentHash: 2}, true, nil, false, false, true, nil, 2},
		{"exact copy under another id", index.Doc{ID: "c", Fingerprint: a.Fingerprint, ContentHash: 1, Sketch: sk}, true, []string{"a"}, false, false, false, nil, 1},
		{"near copy (2 bits)", index.Doc{ID: "c", Fingerprint: a.Fingerprint ^ 0x11, ContentHash: 3, Sketch: sk}, true, []string{"a"}, false, false, false, nil, 1},
		{"itself", a, true, nil, true, true, false, ErrArchived, 1},
		{"itself, not adding", a, false, nil, true, true, false, nil, 1},
		{"another text under its id", index.Doc{ID: "a", Fingerprint: 0xfedcba9876543210, ContentHash: 4}, true, nil, true, false, false, ErrIDTaken, 1},
		{"invalid id", index.Doc{ID: "", Fingerprint: 0xfedcba9876543210, ContentHash: 5}, true, nil, false, false, false, index.ErrID, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := memstore.Open(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if err := x.Add(ctx, a); err != nil {
				t.Fatal(err)
			}
			got, err := Check(ctx, x, &tt.doc, 3, tt.add)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, m := range got.Matches {
				ids = append(ids, m.ID)
			}
			if !slices.Equal(ids, tt.matches) || (got.Self != nil) != tt.self || got.Same != tt.same || got.Added != tt.added {
				t.Errorf("Check = matches %v, self %t, same %t, added %t; want %v, %t, %t, %t",
					ids, got.Self != nil, got.Same, got.Added, tt.matches, tt.self, tt.same, tt.added)
			}
			if (tt.notAdded == nil) != (got.NotAdded == nil) || !errors.Is(got.NotAdded, tt.notAdded) {
				t.Errorf("Check: NotAdded %v, want %v", got.NotAdded, tt.notAdded)
			}
			st, err := x.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Docs != tt.docs {
				t.Errorf("archive holds %d documents, want %d", st.Docs, tt.docs)
			}
		})
	}
}

// TestCheckReport: a Checked as check --json and POST /v1/check print
// it: the verdict, the shared keywords of each match, what the archive
// holds under the article's id.
func TestCheckReport(t *testing.T) {
	kw := func(words ...string) []tfidf.Keyword {
		ks := make([]tfidf.Keyword, len(words))
		for i, w := range words {
			ks[i] = tfidf.Keyword{Word: w, Weight: float64(len(words) - i)}
		}
		return ks
	}
	an := &neardup.Analysis{Fingerprint: 0x00000000000000ff, Keywords: kw("金庸", "武侠", "小说")}
	tests := []struct {
		name string
		c    Checked
		want string
	}{
		{"new", Checked{}, `{"id":"x","fingerprint":"00000000000000ff","verdict":"new","matches":[],"added":false}`},
		{"added", Checked{Added: true}, `{"id":"x","fingerprint":"00000000000000ff","verdict":"new","matches":[],"added":true}`},
		{"duplicate", Checked{Matches: []index.Match{
			{ID: "a", Title: "A", Distance: 2, Similarity: 0.96875, Content: 0.8, Keywords: kw("小说", "金庸", "香港")},
			{ID: "b", Distance: 1, Similarity: 0.984375, Unverified: true},
		}}, `{"id":"x","fingerprint":"00000000000000ff","verdict":"duplicate","matches":[` +
			`{"id":"a","title":"A","distance":2,"similarity":0.96875,"content":0.8,"exact":false,"shared_keywords":["金庸","小说"]},` +
			`{"id":"b","title":"","distance":1,"similarity":0.984375,"content":0,"exact":false,"unverified":true,"shared_keywords":[]}],"added":false}`},
		{"itself", Checked{Self: &index.Doc{ID: "x"}, Same: true}, `{"id":"x","fingerprint":"00000000000000ff","verdict":"archived","matches":[],"archived":"same","added":false}`},
		{"another text under its id", Checked{Self: &index.Doc{ID: "x"}}, `{"id":"x","fingerprint":"00000000000000ff","verdict":"new","matches":[],"archived":"different","added":false}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.c.Report("x", an))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("%s: Report = %s\nwant %s", tt.name, b, tt.want)
		}
	}
}

// TestCheckFingerprint: the SimHash screen of a bare fingerprint, with
// the titles of the matches.
func TestCheckFingerprint(t *testing.T) {
	ctx := context.Background()
	x, err := memstore.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Add(ctx, index.Doc{ID: "a", Title: "A", Fingerprint: 0xff}, index.Doc{ID: "b", Fingerprint: 0xff00ff}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		fp   simhash.Fingerprint
		k    int
		want []index.Match
	}{
		{0xfe, 3, []index.Match{{ID: "a", Title: "A", Distance: 1, Similarity: 0.984375}}},
		{0xff00ff, 0, []index.Match{{ID: "b", Distance: 0, Similarity: 1}}},
		{0xf0f0f0f0, 3, nil},
	} {
		got, err := CheckFingerprint(ctx, x, tt.fp, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tt.want) || (len(got) > 0 && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("CheckFingerprint(%v, %d) = %+v, want %+v", tt.fp, tt.k, got, tt.want)
		}
	}
}

// TestCheckSummary: what check counts, article by article, and its last
// line.
func TestCheckSummary(t *testing.T) {
	dup := Checked{Matches: []index.Match{{ID: "a"}}}
	for _, tt := range []struct {
		name      string
		checked   []Checked
		unchecked int64
		want      report.CheckSummary
		text      string
	}{
		{"none", nil, 0, report.CheckSummary{}, "no near-duplicate in A (0 articles checked)\n"},
		{"new", []Checked{{Added: true}}, 0, report.CheckSummary{Checked: 1, Added: 1}, "no near-duplicate in A (1 article checked); added 1 article\n"},
		{"archived", []Checked{{Same: true, NotAdded: ErrArchived}}, 0, report.CheckSummary{Checked: 1, Found: 1, Archived: 1},
			"the article is in A already\n"},
		{"duplicate", []Checked{dup}, 2, report.CheckSummary{Checked: 1, Found: 1, Unchecked: 2},
			"the article has near-duplicates in A; 2 not checked\n"},
		{"many", []Checked{dup, {Same: true}, {NotAdded: ErrIDTaken}, {Added: true}, {Added: true}}, 1000,
			report.CheckSummary{Checked: 5, Found: 2, Archived: 1, Added: 2, NotAdded: 1, Unchecked: 1000},
			"2 of 5 articles checked have near-duplicates in A; added 2 articles; 1,000 not checked\n"},
	} {
		s := report.CheckSummary{Unchecked: tt.unchecked}
		for i := range tt.checked {
			tt.checked[i].Tally(&s)
		}
		if s != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, s, tt.want)
		}
		var b strings.Builder
		if err := s.WriteText(&b, "A"); err != nil || b.String() != tt.text {
			t.Errorf("%s: text %q, %v; want %q", tt.name, b.String(), err, tt.text)
		}
	}
}
