package report

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/tfidf"
)

func TestCheckText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		rep  Check
		n    int
		want string
	}{
		{"new", Check{ID: "a", Verdict: CheckNew, Matches: []Match{}}, 10, ""},
		{"added", Check{ID: "has space", Title: "T", Verdict: CheckNew, Matches: []Match{}, Added: true}, 10,
			"\"has space\" \"T\": added to arch\n"},
		{"matches", Check{ID: "a", Verdict: CheckDuplicate, Archived: "different", Matches: []Match{
			{ID: "x", Title: "标题", Distance: 2, Similarity: 0.96875, Content: 0.8, Shared: []string{"北京", "清华", "大学"}},
			{ID: "y", Distance: 0, Similarity: 1, Content: 1, Exact: true, Shared: []string{}, noKeywords: true},
			{ID: "z", Distance: 3, Similarity: 0.953125, Unverified: true, Shared: []string{}},
		}}, 2,
			"a: 3 near-duplicates in arch\n" +
				"  near duplicate   x  \"标题\"\n      distance 2, similarity 0.969, content similarity 0.80\n      shared keywords: 北京, 清华, … (1 more)\n" +
				"  exact duplicate  y\n      distance 0, similarity 1.000, content similarity 1.00\n      (no keywords stored with it)\n" +
				"  unverified       z\n      distance 3, similarity 0.953, unverified (fingerprint only: no text to compare)\n" +
				"a: arch holds another text under this id\n"},
		{"archived", Check{ID: "a", Verdict: CheckArchived, Archived: "same", Matches: []Match{}}, 0,
			"a: arch holds this article already, under its id\n"},
	} {
		var b strings.Builder
		if err := tt.rep.WriteText(&b, "arch", tt.n); err != nil || b.String() != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, b.String(), tt.want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ms         []index.Match
		json, text string
	}{
		{nil, `{"fingerprint":"00000000000000ff","verified":false,"matches":[]}`,
			"fingerprint 00000000000000ff: SimHash screen only (no text, so content similarity is not verified)\nno fingerprint within 3 bits in arch\n"},
		{[]index.Match{{ID: "a b", Title: "T", Distance: 1, Similarity: 0.984375}, {ID: "c", Distance: 3, Similarity: 0.953125}},
			`{"fingerprint":"00000000000000ff","verified":false,"matches":[{"id":"a b","title":"T","distance":1,"similarity":0.984375},{"id":"c","title":"","distance":3,"similarity":0.953125}]}`,
			"fingerprint 00000000000000ff: SimHash screen only (no text, so content similarity is not verified)\n" +
				"  near fingerprint  \"a b\"  \"T\"\n      distance 1, similarity 0.984\n" +
				"  near fingerprint  c\n      distance 3, similarity 0.953\n" +
				"2 fingerprints within 3 bits in arch\n"},
	} {
		r := NewFingerprint(0xff, 3, tt.ms)
		if b, err := json.Marshal(r); err != nil || string(b) != tt.json {
			t.Errorf("JSON %s, %v; want %s", b, err, tt.json)
		}
		var b strings.Builder
		if err := r.WriteText(&b, "arch"); err != nil || b.String() != tt.text {
			t.Errorf("text\n%s\nwant\n%s", b.String(), tt.text)
		}
	}
}

func TestComparisonText(t *testing.T) {
	t.Parallel()
	r := Comparison{
		A:        Side{ID: "a.txt", Fingerprint: "0000000000000001", Keywords: 12, Title: "甲"},
		B:        Side{ID: "b c.txt", Fingerprint: "0000000000000003", Keywords: 9},
		Distance: 1, Similarity: 0.984375, Content: 0.75, Verdict: "near duplicate", Why: "because",
		Shared: []Shared{{"北京", 1.5, 1.25}, {"大学", 1, 2}},
		OnlyA:  []tfidf.Keyword{{Word: "清华", Weight: 3.14159}},
	}
	want := "A                   0000000000000001  a.txt (12 keywords)  \"甲\"\n" +
		"B                   0000000000000003  \"b c.txt\" (9 keywords)\n" +
		"distance            1 of 64 bits\n" +
		"similarity          0.984\n" +
		"content similarity  0.750 (estimated Jaccard of character 5-grams)\n" +
		"verdict             near duplicate: because\n" +
		"shared keywords     2: 北京 1.50/1.25, … (1 more)\n" +
		"only in A           1: 清华 3.14\n" +
		"only in B           0\n"
	var b strings.Builder
	if err := r.WriteText(&b, 1); err != nil || b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestUnchecked(t *testing.T) {
	t.Parallel()
	bad := &input.RecordError{Source: "in.jsonl", Line: 3, Field: "text", Reason: "not a string (number)"}
	for _, tt := range []struct {
		rec        *input.Record
		err        error
		json, text string
	}{
		{&input.Record{Source: "in.jsonl", Line: 3}, bad,
			`{"source":"in.jsonl","line":3,"matches":[],"added":false,"error":"in.jsonl:3: field \"text\": not a string (number)"}`,
			"not checked: in.jsonl:3: field \"text\": not a string (number)\n"},
		{&input.Record{ID: "a b", Title: "T", Source: "in.jsonl", Line: 7}, neardup.ErrTooShort,
			`{"id":"a b","title":"T","source":"in.jsonl","line":7,"matches":[],"added":false,"error":"` + neardup.ErrTooShort.Error() + `"}`,
			"not checked: in.jsonl:7 (id \"a b\"): " + neardup.ErrTooShort.Error() + "\n"},
		{nil, &input.Error{Source: "gone.txt", Err: os.ErrNotExist}, "", ""},
	} {
		r := Unchecked(tt.rec, tt.err)
		b, err := json.Marshal(r)
		if tt.json == "" {
			// Where an input error happened comes from the error itself.
			if r.Source != "gone.txt" || !strings.HasPrefix(r.Error, "gone.txt") {
				t.Errorf("Unchecked(nil, %v) = %+v", tt.err, r)
			}
			continue
		}
		if err != nil || string(b) != tt.json {
			t.Errorf("JSON %s, %v; want %s", b, err, tt.json)
		}
		var sb strings.Builder
		if err := r.WriteText(&sb, "arch", 0); err != nil || sb.String() != tt.text {
			t.Errorf("text %q, want %q", sb.String(), tt.text)
		}
	}
}

// TestAnalysis: a line of fingerprint --json and fingerprint's
// text, with all keywords and with n of them.
func TestAnalysis(t *testing.T) {
	t.Parallel()
	ks := []tfidf.Keyword{{Word: "高考", Weight: 5.123}, {Word: "考生", Weight: 3.4}, {Word: "志愿", Weight: 2.905}}
	for _, tt := range []struct {
		name       string
		an         neardup.Analysis
		n          int
		json, text string
	}{
		{"keywords", neardup.Analysis{Fingerprint: 0x8f4c4a1fb7e2b0a3, ContentHash: 0xab, Words: 12, Keywords: ks}, 2,
			`{"id":"a b","title":"T","fingerprint":"8f4c4a1fb7e2b0a3","content_hash":"00000000000000ab","analyzer":"nd2-x","words":12,"keywords":[{"word":"高考","weight":5.123},{"word":"考生","weight":3.4},{"word":"志愿","weight":2.905}]}`,
			"8f4c4a1fb7e2b0a3  \"a b\"\n    高考 5.12  考生 3.40\n"},
		{"none", neardup.Analysis{Fingerprint: 1}, 0,
			`{"id":"a b","title":"T","fingerprint":"0000000000000001","content_hash":"0000000000000000","analyzer":"nd2-x","keywords":[]}`,
			"0000000000000001  \"a b\"\n    \n"},
	} {
		r := NewAnalysis("a b", "T", "nd2-x", &tt.an)
		b, err := json.Marshal(r)
		if err != nil || string(b) != tt.json {
			t.Errorf("%s: JSON %s, %v\nwant %s", tt.name, b, err, tt.json)
		}
		var sb strings.Builder
		if err := r.WriteText(&sb, tt.n); err != nil || sb.String() != tt.text {
			t.Errorf("%s: text %q, %v; want %q", tt.name, sb.String(), err, tt.text)
		}
	}
}
