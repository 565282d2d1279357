package redisstore

import (
	"encoding/json"
	"strings"
	"testing"
)

// ClusterStats write themselves as lines of neardup stats, and in JSON
// with their field names.
func TestClusterStatsWriteText(t *testing.T) {
	tests := []struct {
		st       ClusterStats
		text     string
		jsonText string
	}{
		{
			ClusterStats{Docs: 318, BucketBits: 16, LastNumber: 320, Masters: 3, Replicas: 3, UsedMemory: 8_832_424, BytesPerDoc: 27774.9,
				StateBytesPerDoc: 12.92, StateSamples: 1318,
				Largest: []BigKey{{Key: "t2 bucket 4d2f", Bytes: 2_600, Postings: 200}, {Key: "b7 bucket 0001", Bytes: 845, Postings: 65}}},
			`cluster       3 masters, 3 replicas; 8.8 MB used on the masters, 27.8 kB a document
ingest state  12.9 bytes a document written by dedup (1,318 sampled)
largest keys  t2 bucket 4d2f: 200 postings, 2.6 kB
              b7 bucket 0001: 65 postings, 845 B
`,
			`{"Docs":318,"BucketBits":16,"LastNumber":320,"Masters":3,"Replicas":3,"UsedMemory":8832424,"BytesPerDoc":27774.9,"StateBytesPerDoc":12.92,"StateSamples":1318,"Largest":[{"Key":"t2 bucket 4d2f","Bytes":2600,"Postings":200},{"Key":"b7 bucket 0001","Bytes":845,"Postings":65}]}`,
		},
		{
			ClusterStats{BucketBits: 16, Masters: 1, UsedMemory: 999},
			"cluster       1 masters, 0 replicas; 999 B used on the masters, 0 B a document\n",
			`{"Docs":0,"BucketBits":16,"LastNumber":0,"Masters":1,"Replicas":0,"UsedMemory":999,"BytesPerDoc":0,"StateBytesPerDoc":0,"StateSamples":0,"Largest":null}`,
		},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := tt.st.WriteText(&b); err != nil || b.String() != tt.text {
			t.Errorf("WriteText of %+v = %v\n%s\nwant\n%s", tt.st, err, b.String(), tt.text)
		}
		if got, err := json.Marshal(&tt.st); err != nil || string(got) != tt.jsonText {
			t.Errorf("JSON = %v\n%s\nwant\n%s", err, got, tt.jsonText)
		}
	}
}
