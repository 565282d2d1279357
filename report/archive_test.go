package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
)

// settings stands for neardup.IDSettings, which index.Stats.Settings
// holds in neardup stats.
type settings struct{ format int }

func (s settings) String() string { return fmt.Sprintf("format %d, segmenter jieba", s.format) }

// TestWriteStats: a Badger archive's statistics with its kept texts
// counted, a cluster's, and a bare index's, as neardup stats prints
// them.
func TestWriteStats(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    index.Stats
		text string
	}{
		{"disk and Bloom filter, texts",
			index.Stats{Docs: 1234567, Blocks: 4, MaxDistance: 3, Tables: 4, AnalyzerID: "nd2-jieba-t2s-659738734adc79d8",
				Settings: settings{2}, FormatVersion: 1, DiskBytes: 1_234_567,
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
`},
		{"cluster, no analyzer recorded, no texts kept",
			index.Stats{Docs: 1, Blocks: 5, MaxDistance: 4, Tables: 1, FormatVersion: 1,
				Cluster: &index.ClusterStats{BucketBits: 16, Masters: 1, UsedMemory: 999}, Text: &index.TextStats{Docs: 1}},
			`index         /tmp/archive
documents     1
layout        5 blocks, answers distances up to 4, 1 table
analyzer      (not recorded)
format        1
cluster       1 masters, 0 replicas; 999 B used on the masters, 0 B a document
text          0 of 1 document keep their text: 0 B, 0 B compressed
`},
		{"a cluster's ingest states and largest keys",
			index.Stats{Docs: 318, Blocks: 4, MaxDistance: 3, Tables: 4, AnalyzerID: "a", FormatVersion: 1,
				Cluster: &index.ClusterStats{Docs: 318, BucketBits: 16, LastNumber: 320, Masters: 3, Replicas: 3, UsedMemory: 8_832_424, BytesPerDoc: 27774.9,
					StateBytesPerDoc: 12.92, StateSamples: 1318,
					Largest: []index.BigKey{{Key: "t2 bucket 4d2f", Bytes: 2_600, Postings: 200}, {Key: "b7 bucket 0001", Bytes: 845, Postings: 65}}}},
			`index         /tmp/archive
documents     318
layout        4 blocks, answers distances up to 3, 4 tables
analyzer      a
format        1
cluster       3 masters, 3 replicas; 8.8 MB used on the masters, 27.8 kB a document
ingest state  12.9 bytes a document written by dedup (1,318 sampled)
largest keys  t2 bucket 4d2f: 200 postings, 2.6 kB
              b7 bucket 0001: 65 postings, 845 B
`},
		{"nothing but the index",
			index.Stats{Docs: 0, Blocks: 6, MaxDistance: 5, Tables: 6, AnalyzerID: "url1-abc", FormatVersion: 1},
			`index         /tmp/archive
documents     0
layout        6 blocks, answers distances up to 5, 6 tables
analyzer      url1-abc
format        1
`},
	} {
		var b strings.Builder
		if err := WriteStats(&b, &tt.s, "/tmp/archive"); err != nil || b.String() != tt.text {
			t.Errorf("%s: WriteStats = %v\n%s\nwant\n%s", tt.name, err, b.String(), tt.text)
		}
	}
}

// TestWriteDeletion: what neardup delete prints.
func TestWriteDeletion(t *testing.T) {
	for _, tt := range []struct {
		d    index.Deletion
		text string
	}{
		{index.Deletion{Deleted: []string{"a"}, Missing: []string{}, Docs: 13}, "deleted 1 document from /x/idx; the index holds 13 documents\n"},
		{index.Deletion{Deleted: []string{}, Missing: []string{"b", "c"}, Docs: 1}, "deleted 0 documents from /x/idx; the index holds 1 document\n"},
		{index.Deletion{Deleted: make([]string, 1200), Missing: []string{}, Docs: 0}, "deleted 1,200 documents from /x/idx; the index holds 0 documents\n"},
	} {
		var b strings.Builder
		if err := WriteDeletion(&b, &tt.d, "/x/idx"); err != nil || b.String() != tt.text {
			t.Errorf("WriteDeletion = %v, %q; want %q", err, b.String(), tt.text)
		}
	}
}
