package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
)

// settings stands for neardup.IDSettings, which Stats.Settings holds
// in neardup stats.
type settings struct {
	Format    int    `json:"format"`
	Segmenter string `json:"segmenter"`
}

func (s settings) String() string {
	return fmt.Sprintf("format %d, segmenter %s", s.Format, s.Segmenter)
}

// statsCases are a Badger archive's statistics with its kept texts
// counted, and a cluster's, as neardup stats --json prints them
// (report.WriteStats writes their text).
var statsCases = []struct {
	name     string
	s        index.Stats
	jsonText string
}{
	{
		"disk and Bloom filter, texts",
		index.Stats{Docs: 1234567, Blocks: 4, MaxDistance: 3, Tables: 4, AnalyzerID: "nd2-jieba-t2s-659738734adc79d8",
			Settings: settings{2, "jieba"}, FormatVersion: 1, DiskBytes: 1_234_567,
			Bloom: index.BloomStats{Capacity: 1024, Counters: 9816, Hashes: 7, MemoryBytes: 4908, FalsePositive: 0.01, Saturated: 3, Lookups: 99, ReadsSaved: 98},
			Text:  &index.TextStats{Docs: 1234567, Texts: 2, Bytes: 2500, Stored: 1000}},
		`{"docs":1234567,"blocks":4,"max_distance":3,"tables":4,"analyzer":"nd2-jieba-t2s-659738734adc79d8","settings":{"format":2,"segmenter":"jieba"},"format_version":1,"disk_bytes":1234567,"bloom":{"capacity":1024,"counters":9816,"hashes":7,"memory_bytes":4908,"false_positive":0.01,"saturated":3},"text":{"docs":2,"bytes":2500,"stored_bytes":1000}}`,
	},
	{
		"cluster, no analyzer recorded, no texts kept",
		index.Stats{Docs: 1, Blocks: 5, MaxDistance: 4, Tables: 1, FormatVersion: 1, Cluster: &index.ClusterStats{Masters: 3, Replicas: 3, Largest: []index.BigKey{{Key: "t2 bucket 4d2f", Bytes: 2600, Postings: 200}}},
			Text: &index.TextStats{Docs: 1}},
		`{"docs":1,"blocks":5,"max_distance":4,"tables":1,"analyzer":"","format_version":1,"disk_bytes":0,"bloom":{"capacity":0,"counters":0,"hashes":0,"memory_bytes":0,"false_positive":0,"saturated":0},"cluster":{"Docs":0,"BucketBits":0,"LastNumber":0,"Masters":3,"Replicas":3,"UsedMemory":0,"BytesPerDoc":0,"StateBytesPerDoc":0,"StateSamples":0,"Largest":[{"Key":"t2 bucket 4d2f","Bytes":2600,"Postings":200}]},"text":{"docs":0,"bytes":0,"stored_bytes":0}}`,
	},
	{
		"nothing but the index",
		index.Stats{Docs: 0, Blocks: 6, MaxDistance: 5, Tables: 6, AnalyzerID: "url1-abc", FormatVersion: 1},
		`{"docs":0,"blocks":6,"max_distance":5,"tables":6,"analyzer":"url1-abc","format_version":1,"disk_bytes":0,"bloom":{"capacity":0,"counters":0,"hashes":0,"memory_bytes":0,"false_positive":0,"saturated":0}}`,
	},
}

// The JSON of Stats is neardup stats --json's without its "index"; the
// Text's "docs" are those that keep their text, and the Bloom filter's
// counts since Open are left out.
func TestStatsJSON(t *testing.T) {
	for _, tt := range statsCases {
		got, err := json.Marshal(&tt.s)
		if err != nil || string(got) != tt.jsonText {
			t.Errorf("%s: JSON = %v\n%s\nwant\n%s", tt.name, err, got, tt.jsonText)
		}
	}
}

// clustered is a memory store kept "on a cluster": it reports r, or
// fails with err.
type clustered struct {
	*memstore.Store
	r   *index.ClusterStats
	err error
}

func (c *clustered) ClusterReport(ctx context.Context) (*index.ClusterStats, error) {
	if c.err != nil {
		return nil, c.err
	}
	return c.r, nil
}

// Describe adds a ClusterReporter's report, and the kept texts when
// asked; a report's error is Describe's.
func TestDescribe(t *testing.T) {
	ctx := t.Context()
	r := &index.ClusterStats{Masters: 3}
	c := &clustered{Store: memstore.New(), r: r}
	x, err := index.New(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	docs := bareDocs("d", 3)
	docs[1].Text = "the kept text"
	if err := x.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	s, err := x.Describe(ctx, false)
	if err != nil || s.Docs != 3 || s.Cluster != r || s.Text != nil {
		t.Errorf("Describe(false) = %+v, %v; want 3 documents, the report, no texts", s, err)
	}
	s, err = x.Describe(ctx, true)
	if err != nil || s.Cluster != r || s.Text == nil || s.Text.Docs != 3 || s.Text.Texts != 1 || s.Text.Bytes != int64(len("the kept text")) || s.Text.Stored <= 0 {
		t.Errorf("Describe(true) = %+v (text %+v), %v; want the report and 1 of 3 texts, %d bytes", s, s.Text, err, len("the kept text"))
	}
	c.err = errBoom
	if _, err := x.Describe(ctx, false); !errors.Is(err, errBoom) {
		t.Errorf("Describe with a failing report: %v, want errBoom", err)
	}

	m, err := index.New(ctx, memstore.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if s, err := m.Describe(ctx, false); err != nil || s.Cluster != nil || s.Text != nil {
		t.Errorf("Describe of a memory store = %+v, %v; want no report, no texts", s, err)
	}
}

// A Deletion's JSON is delete --json's (report.WriteDeletion writes
// its text).
func TestDeletionJSON(t *testing.T) {
	tests := []struct {
		d        index.Deletion
		jsonText string
	}{
		{index.Deletion{Deleted: []string{"a"}, Missing: []string{}, Docs: 13}, `{"deleted":["a"],"missing":[],"docs":13}`},
		{index.Deletion{Deleted: []string{}, Missing: []string{"b", "c"}, Docs: 1}, `{"deleted":[],"missing":["b","c"],"docs":1}`},
		{index.Deletion{Deleted: make([]string, 1200), Missing: []string{}, Docs: 0}, `{"deleted":[` + strings.Repeat(`"",`, 1199) + `""],"missing":[],"docs":0}`},
	}
	for _, tt := range tests {
		if got, err := json.Marshal(&tt.d); err != nil || string(got) != tt.jsonText {
			t.Errorf("JSON = %v, %.80s; want %.80s", err, got, tt.jsonText)
		}
	}
}

// ClusterStats are marshalled with their field names (neardup stats
// --json's "cluster").
func TestClusterStatsJSON(t *testing.T) {
	for _, tt := range []struct {
		st       index.ClusterStats
		jsonText string
	}{
		{index.ClusterStats{Docs: 318, BucketBits: 16, LastNumber: 320, Masters: 3, Replicas: 3, UsedMemory: 8_832_424, BytesPerDoc: 27774.9,
			StateBytesPerDoc: 12.92, StateSamples: 1318,
			Largest: []index.BigKey{{Key: "t2 bucket 4d2f", Bytes: 2_600, Postings: 200}, {Key: "b7 bucket 0001", Bytes: 845, Postings: 65}}},
			`{"Docs":318,"BucketBits":16,"LastNumber":320,"Masters":3,"Replicas":3,"UsedMemory":8832424,"BytesPerDoc":27774.9,"StateBytesPerDoc":12.92,"StateSamples":1318,"Largest":[{"Key":"t2 bucket 4d2f","Bytes":2600,"Postings":200},{"Key":"b7 bucket 0001","Bytes":845,"Postings":65}]}`},
		{index.ClusterStats{BucketBits: 16, Masters: 1, UsedMemory: 999},
			`{"Docs":0,"BucketBits":16,"LastNumber":0,"Masters":1,"Replicas":0,"UsedMemory":999,"BytesPerDoc":0,"StateBytesPerDoc":0,"StateSamples":0,"Largest":null}`},
	} {
		if got, err := json.Marshal(&tt.st); err != nil || string(got) != tt.jsonText {
			t.Errorf("JSON = %v\n%s\nwant\n%s", err, got, tt.jsonText)
		}
	}
}
