package main

import (
	"fmt"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/redisstore"
	"github.com/urfave/cli/v2"
)

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:  "stats",
		Usage: "describe an index",
		Description: `Prints the number of documents in the index in --index DIR (or $NEARDUP_INDEX), its layout (the
fingerprint blocks and the largest distance it answers), the analyzer that built it, its size on disk
and the Bloom filter in front of its exact-duplicate lookups. The index is opened read-only.
--text also counts the article texts the archive keeps (neardup serve keeps them, compressed):
how many documents keep one, their length and the bytes they take compressed. It reads every
record once (a Redis archive: a SCAN of every master).`,
		Flags: []cli.Flag{indexFlag("archive `DIR|URL` (a Badger directory, or redis://HOST:PORT[,HOST:PORT...]/NAME on a Redis Cluster; it must exist)"), jsonFlag(),
			&cli.BoolFlag{DisableDefaultText: true, Name: "text", Category: catOutput, Usage: "count the kept article texts and their compressed size (reads every record)"}},
		Action: runStats,
	}
}

// statsJSON is stats --json.
type statsJSON struct {
	Index       string `json:"index"`
	Docs        int64  `json:"docs"`
	Blocks      int    `json:"blocks"`
	MaxDistance int    `json:"max_distance"`
	Tables      int    `json:"tables"`
	Analyzer    string `json:"analyzer"`
	// Settings spells out what Analyzer names (neardup.ParseID).
	Settings      *neardup.IDSettings `json:"settings,omitempty"`
	FormatVersion int                 `json:"format_version"`
	DiskBytes     int64               `json:"disk_bytes"`
	Bloom         bloomJSON           `json:"bloom"`
	// Cluster: a Redis archive's cluster (memory, largest keys).
	Cluster *redisstore.ClusterStats `json:"cluster,omitempty"`
	// Text: the kept texts, with --text.
	Text *textJSON `json:"text,omitempty"`
}

// textJSON counts the kept texts of stats --text.
type textJSON struct {
	Docs        int64 `json:"docs"`         // documents that keep their text
	Bytes       int64 `json:"bytes"`        // their length in UTF-8
	StoredBytes int64 `json:"stored_bytes"` // compressed, in the records
}

type bloomJSON struct {
	Capacity      int64   `json:"capacity"`
	Counters      int64   `json:"counters"`
	Hashes        int     `json:"hashes"`
	MemoryBytes   int64   `json:"memory_bytes"`
	FalsePositive float64 `json:"false_positive"`
	Saturated     int64   `json:"saturated"`
}

func runStats(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef(c, "unexpected argument %q", c.Args().First())
	}
	dir, err := indexDir(c)
	if err != nil {
		return err
	}
	x, err := openIndex(c.Context, dir, "", 0, 0, true)
	if err != nil {
		return err
	}
	defer x.Close()
	s, err := x.Stats(c.Context)
	if err != nil {
		return err
	}
	rs, isRedis := x.Store().(*redisstore.Store)
	var cs redisstore.ClusterStats
	if isRedis {
		if cs, err = rs.ClusterStats(c.Context, 5); err != nil {
			return err
		}
	}
	var ts *index.TextStats
	if c.Bool("text") {
		t, err := x.TextStats(c.Context)
		if err != nil {
			return err
		}
		ts = &t
	}
	if c.Bool("json") {
		j := statsJSON{
			Index: dir, Docs: s.Docs, Blocks: s.Blocks, MaxDistance: s.MaxDistance, Tables: s.Tables, Analyzer: s.AnalyzerID,
			FormatVersion: s.FormatVersion, DiskBytes: s.DiskBytes,
			Bloom: bloomJSON{Capacity: s.Bloom.Capacity, Counters: s.Bloom.Counters, Hashes: s.Bloom.Hashes,
				MemoryBytes: s.Bloom.MemoryBytes, FalsePositive: s.Bloom.FalsePositive, Saturated: s.Bloom.Saturated},
		}
		if isRedis {
			j.Cluster = &cs
		}
		if st, ok := neardup.ParseID(s.AnalyzerID); ok {
			j.Settings = &st
		}
		if ts != nil {
			j.Text = &textJSON{Docs: ts.Texts, Bytes: ts.Bytes, StoredBytes: ts.Stored}
		}
		return writeJSON(c.App.Writer, j)
	}
	var b strings.Builder
	analyzer := s.AnalyzerID
	if analyzer == "" {
		analyzer = "(not recorded)"
	}
	fmt.Fprintf(&b, "%-13s %s\n", "index", dir)
	fmt.Fprintf(&b, "%-13s %s\n", "documents", formatCount(s.Docs))
	fmt.Fprintf(&b, "%-13s %d blocks, answers distances up to %d, %s\n", "layout", s.Blocks, s.MaxDistance, plural(int64(s.Tables), "table", "tables"))
	fmt.Fprintf(&b, "%-13s %s\n", "analyzer", analyzer)
	if st, ok := neardup.ParseID(s.AnalyzerID); ok {
		fmt.Fprintf(&b, "%-13s %s\n", "settings", st)
	}
	fmt.Fprintf(&b, "%-13s %d\n", "format", s.FormatVersion)
	if isRedis {
		fmt.Fprintf(&b, "%-13s %d masters, %d replicas; %s used on the masters, %s a document\n", "cluster",
			cs.Masters, cs.Replicas, formatBytes(cs.UsedMemory), formatBytes(int64(cs.BytesPerDoc)))
		if cs.StateSamples > 0 {
			fmt.Fprintf(&b, "%-13s %.1f bytes a document written by dedup (%s sampled)\n", "ingest state", cs.StateBytesPerDoc, formatCount(cs.StateSamples))
		}
		for i, k := range cs.Largest {
			label := ""
			if i == 0 {
				label = "largest keys"
			}
			fmt.Fprintf(&b, "%-13s %s: %s postings, %s\n", label, k.Key, formatCount(k.Postings), formatBytes(k.Bytes))
		}
	} else {
		fmt.Fprintf(&b, "%-13s %s (%s bytes)\n", "disk", formatBytes(s.DiskBytes), formatCount(s.DiskBytes))
		fmt.Fprintf(&b, "%-13s sized for %s documents: %s counters, %d hashes, %s in memory, target false-positive rate %.2f%%, %s saturated\n",
			"bloom filter", formatCount(s.Bloom.Capacity), formatCount(s.Bloom.Counters), s.Bloom.Hashes,
			formatBytes(s.Bloom.MemoryBytes), s.Bloom.FalsePositive*100, formatCount(s.Bloom.Saturated))
	}
	if ts != nil {
		fmt.Fprintf(&b, "%-13s %s of %s keep their text: %s, %s compressed", "text", formatCount(ts.Texts), plural(ts.Docs, "document", "documents"),
			formatBytes(ts.Bytes), formatBytes(ts.Stored))
		if ts.Bytes > 0 {
			fmt.Fprintf(&b, " (%.0f%%)", 100*float64(ts.Stored)/float64(ts.Bytes))
		}
		b.WriteByte('\n')
	}
	_, err = fmt.Fprint(c.App.Writer, b.String())
	return err
}
