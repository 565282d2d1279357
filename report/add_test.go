package report

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAddSummary: add --json's object and add's line.
func TestAddSummary(t *testing.T) {
	for _, tt := range []struct {
		sum        AddSummary
		json, text string
	}{
		{AddSummary{Index: "arch", Added: 1, Docs: 1},
			`{"index":"arch","added":1,"replaced":0,"failed":0,"docs":1}`,
			"added 1 document to arch; the index holds 1 document\n"},
		{AddSummary{Index: "redis://h:1/a", Added: 2500, Replaced: 1200, Failed: 3, Docs: 10000},
			`{"index":"redis://h:1/a","added":2500,"replaced":1200,"failed":3,"docs":10000}`,
			"added 2,500 documents to redis://h:1/a (1,200 replaced a document with the same id); the index holds 10,000 documents\n"},
	} {
		b, err := json.Marshal(tt.sum)
		if err != nil || string(b) != tt.json {
			t.Errorf("JSON %s, %v; want %s", b, err, tt.json)
		}
		var sb strings.Builder
		if err := tt.sum.WriteText(&sb); err != nil || sb.String() != tt.text {
			t.Errorf("text %q, %v; want %q", sb.String(), err, tt.text)
		}
	}
}
