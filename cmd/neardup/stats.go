package main

import (
	"fmt"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index/redisstore"
	"github.com/urfave/cli/v2"
)

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:  "stats",
		Usage: "describe an index",
		Description: `Prints the number of documents in the index in --index DIR (or $NEARDUP_INDEX), its layout (the
fingerprint blocks and the largest distance it answers), the analyzer that built it, its size on disk
and the Bloom filter in front of its exact-duplicate lookups. The index is opened read-only.`,
		Flags:  []cli.Flag{indexFlag("archive `DIR|URL` (a Badger directory, or redis://HOST:PORT[,HOST:PORT...]/NAME on a Redis Cluster; it must exist)"), jsonFlag()},
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
	_, err = fmt.Fprint(c.App.Writer, b.String())
	return err
}
