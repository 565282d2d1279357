package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// report is a ClusterReport that writes its one line (and fails with
// err).
type report struct {
	Masters int `json:"masters"`
	err     error
}

func (r *report) WriteText(w io.Writer) error {
	if r.err != nil {
		return r.err
	}
	_, err := fmt.Fprintf(w, "%-13s %d masters\n", "cluster", r.Masters)
	return err
}

// statsCases are a Badger archive's statistics with its kept texts
// counted, and a cluster's, as neardup stats prints them.
var statsCases = []struct {
	name     string
	s        index.Stats
	text     string
	jsonText string
}{
	{
		"disk and Bloom filter, texts",
		index.Stats{Docs: 1234567, Blocks: 4, MaxDistance: 3, Tables: 4, AnalyzerID: "nd2-jieba-t2s-659738734adc79d8",
			Settings: settings{2, "jieba"}, FormatVersion: 1, DiskBytes: 1_234_567,
			Bloom: index.BloomStats{Capacity: 1024, Counters: 9816, Hashes: 7, MemoryBytes: 4908, FalsePositive: 0.01, Saturated: 3, Lookups: 99, ReadsSaved: 98},
			Text:  &index.TextStats{Docs: 1234567, Texts: 2, Bytes: 2500, Stored: 1000}},
		`index         /tmp/archive
documents     1,234,567
layout        4 blocks, answers distances up to 3, 4 tables
analyzer      nd2-jieba-t2s-659738734adc79d8
settings      format 2, segmenter jieba
format        1
disk          1.2 MB (1,234,567 bytes)
bloom filter  sized for 1,024 documents: 9,816 counters, 7 hashes, 4.9 kB in memory, target false-positive rate 1.00%, 3 saturated
text          2 of 1,234,567 documents keep their text: 2.5 kB, 1.0 kB compressed (40%)
`,
		`{"docs":1234567,"blocks":4,"max_distance":3,"tables":4,"analyzer":"nd2-jieba-t2s-659738734adc79d8","settings":{"format":2,"segmenter":"jieba"},"format_version":1,"disk_bytes":1234567,"bloom":{"capacity":1024,"counters":9816,"hashes":7,"memory_bytes":4908,"false_positive":0.01,"saturated":3},"text":{"docs":2,"bytes":2500,"stored_bytes":1000}}`,
	},
	{
		"cluster, no analyzer recorded, no texts kept",
		index.Stats{Docs: 1, Blocks: 5, MaxDistance: 4, Tables: 1, FormatVersion: 1, Cluster: &report{Masters: 3},
			Text: &index.TextStats{Docs: 1}},
		`index         /tmp/archive
documents     1
layout        5 blocks, answers distances up to 4, 1 table
analyzer      (not recorded)
format        1
cluster       3 masters
text          0 of 1 document keep their text: 0 B, 0 B compressed
`,
		`{"docs":1,"blocks":5,"max_distance":4,"tables":1,"analyzer":"","format_version":1,"disk_bytes":0,"bloom":{"capacity":0,"counters":0,"hashes":0,"memory_bytes":0,"false_positive":0,"saturated":0},"cluster":{"masters":3},"text":{"docs":0,"bytes":0,"stored_bytes":0}}`,
	},
	{
		"nothing but the index",
		index.Stats{Docs: 0, Blocks: 6, MaxDistance: 5, Tables: 6, AnalyzerID: "url1-abc", FormatVersion: 1},
		`index         /tmp/archive
documents     0
layout        6 blocks, answers distances up to 5, 6 tables
analyzer      url1-abc
format        1
`,
		`{"docs":0,"blocks":6,"max_distance":5,"tables":6,"analyzer":"url1-abc","format_version":1,"disk_bytes":0,"bloom":{"capacity":0,"counters":0,"hashes":0,"memory_bytes":0,"false_positive":0,"saturated":0}}`,
	},
}

func TestStatsWriteText(t *testing.T) {
	for _, tt := range statsCases {
		var b strings.Builder
		if err := tt.s.WriteText(&b, "/tmp/archive"); err != nil || b.String() != tt.text {
			t.Errorf("%s: WriteText = %v\n%s\nwant\n%s", tt.name, err, b.String(), tt.text)
		}
	}
	s := index.Stats{Cluster: &report{err: errBoom}}
	if err := s.WriteText(io.Discard, "x"); !errors.Is(err, errBoom) {
		t.Errorf("WriteText with a failing cluster report: %v, want errBoom", err)
	}
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

// clustered is a memory store kept "on a cluster": it reports r.
type clustered struct {
	*memstore.Store
	r *report
}

func (c *clustered) ClusterReport(ctx context.Context) (index.ClusterReport, error) {
	if c.r.err != nil {
		return nil, c.r.err
	}
	return c.r, nil
}

// Describe adds a ClusterReporter's report, and the kept texts when
// asked; a report's error is Describe's.
func TestDescribe(t *testing.T) {
	ctx := t.Context()
	r := &report{Masters: 3}
	x, err := index.New(ctx, &clustered{memstore.New(), r}, nil)
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
	r.err = errBoom
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

// A Deletion writes itself as neardup delete prints it, and in JSON as
// delete --json.
func TestDeletionWriteText(t *testing.T) {
	tests := []struct {
		d              index.Deletion
		text, jsonText string
	}{
		{index.Deletion{Deleted: []string{"a"}, Missing: []string{}, Docs: 13}, "deleted 1 document from /x/idx; the index holds 13 documents\n",
			`{"deleted":["a"],"missing":[],"docs":13}`},
		{index.Deletion{Deleted: []string{}, Missing: []string{"b", "c"}, Docs: 1}, "deleted 0 documents from /x/idx; the index holds 1 document\n",
			`{"deleted":[],"missing":["b","c"],"docs":1}`},
		{index.Deletion{Deleted: make([]string, 1200), Missing: []string{}, Docs: 0}, "deleted 1,200 documents from /x/idx; the index holds 0 documents\n",
			`{"deleted":[` + strings.Repeat(`"",`, 1199) + `""],"missing":[],"docs":0}`},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := tt.d.WriteText(&b, "/x/idx"); err != nil || b.String() != tt.text {
			t.Errorf("WriteText = %v, %q; want %q", err, b.String(), tt.text)
		}
		if got, err := json.Marshal(&tt.d); err != nil || string(got) != tt.jsonText {
			t.Errorf("JSON = %v, %.80s; want %.80s", err, got, tt.jsonText)
		}
	}
}
