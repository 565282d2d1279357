package index

import (
	"context"
	"errors"
	"fmt"
)

// Stats describe an index. The JSON is that of neardup stats --json
// (less the "index" it is given); report.WriteStats writes its text.
type Stats struct {
	Docs        int64  `json:"docs"`
	Blocks      int    `json:"blocks"`
	MaxDistance int    `json:"max_distance"`
	Tables      int    `json:"tables"`
	AnalyzerID  string `json:"analyzer"`
	// Settings is what AnalyzerID spells out (neardup.ParseID, which
	// reads an ID this package only records), set by a caller that
	// reads it; nil otherwise.
	Settings      fmt.Stringer `json:"settings,omitempty"`
	FormatVersion int          `json:"format_version"`
	DiskBytes     int64        `json:"disk_bytes"` // bytes the store's files take on disk; 0 for stores without files
	Bloom         BloomStats   `json:"bloom"`      // zero for stores without a content filter
	// Lean: the archive keeps its records without titles, keywords or
	// texts (LeanRecord), so its matches explain nothing to a person.
	Lean bool `json:"lean,omitempty"`
	// Compressed: the store compresses its files (a Badger directory
	// created with compressed tables).
	Compressed bool `json:"compressed,omitempty"`
	// Cluster is what a store kept on a cluster reports of it (see
	// ClusterReporter); Describe sets it, nil otherwise.
	Cluster *ClusterStats `json:"cluster,omitempty"`
	// Text counts the kept texts (see TextStats); Describe sets it when
	// asked, nil otherwise.
	Text *TextStats `json:"text,omitempty"`
}

// TextStats count the kept texts of an archive (see Index.TextStats).
// In JSON, "docs" are the documents that keep their text (Texts).
type TextStats struct {
	Docs   int64 `json:"-"`            // documents
	Texts  int64 `json:"docs"`         // documents that keep their text
	Bytes  int64 `json:"bytes"`        // the kept texts' length, in bytes of UTF-8
	Stored int64 `json:"stored_bytes"` // the bytes they take compressed in the records
}

// ClusterReporter is a Store kept on a cluster of servers that reports
// the cluster's state (redisstore: its memory, its largest keys, the
// ingest states): Index.Describe adds the report to Stats.Cluster.
// (The statistics of a store on a disk, its size and its Bloom filter,
// are every store's StoreStats.)
type ClusterReporter interface {
	ClusterReport(ctx context.Context) (*ClusterStats, error)
}

// ClusterStats describe an archive kept on a cluster of servers and the
// cluster it is in (redisstore's): what a ClusterReporter reports. Its
// JSON has the field names.
type ClusterStats struct {
	Docs       int64
	BucketBits int
	LastNumber int64 // the last document number handed out

	Masters, Replicas int
	// UsedMemory is the sum of used_memory (INFO memory) over the
	// masters: every archive of the cluster, and Redis's own overhead.
	UsedMemory int64
	// BytesPerDoc is UsedMemory / Docs: a bound for this archive alone
	// when the cluster holds others.
	BytesPerDoc float64

	// StateBytesPerDoc is the memory of the ingest states (index.Shared:
	// one per document index.Ingest wrote) per state, by MEMORY USAGE of
	// up to 16 state hashes spread over the document numbers,
	// StateSamples the states they hold; 0 and 0 when none has any.
	StateBytesPerDoc float64
	StateSamples     int64

	// Largest are the largest posting buckets, largest first: those that
	// reached 64, 128, 256, ... records, with their size now.
	Largest []BigKey
}

// BigKey is one posting bucket.
type BigKey struct {
	Key      string // "t2 bucket 4d2f": kind, table or band number, bucket in hex
	Bytes    int64
	Postings int64 // records, including those of other values sharing the bucket
}

// Stats describes the index.
func (x *Index) Stats(ctx context.Context) (Stats, error) {
	if err := x.use(); err != nil {
		return Stats{}, err
	}
	defer x.life.RUnlock()
	ss, err := x.store.Stats(ctx)
	if err != nil {
		return Stats{}, err
	}
	return Stats{
		Docs:          ss.Docs,
		Blocks:        x.layout.blocks,
		MaxDistance:   x.layout.maxDist,
		Tables:        len(x.layout.tables),
		AnalyzerID:    x.analyzer,
		FormatVersion: FormatVersion,
		DiskBytes:     ss.DiskBytes,
		Bloom:         ss.Bloom,
		Lean:          ss.Lean,
		Compressed:    ss.Compressed,
	}, nil
}

// Describe is Stats with what takes longer to gather: the report of a
// store kept on a cluster (a ClusterReporter) and, when texts is true,
// the kept texts (TextStats, which reads every record).
func (x *Index) Describe(ctx context.Context, texts bool) (Stats, error) {
	s, err := x.Stats(ctx)
	if err != nil {
		return Stats{}, err
	}
	if cr, ok := x.store.(ClusterReporter); ok {
		if s.Cluster, err = cr.ClusterReport(ctx); err != nil {
			return Stats{}, err
		}
	}
	if texts {
		ts, err := x.TextStats(ctx)
		if err != nil {
			return Stats{}, err
		}
		s.Text = &ts
	}
	return s, nil
}

// TextStats counts the documents of the index and the texts they keep
// (Doc.Text), reading every record once without decompressing a text.
// The store must be a RecordScanner; otherwise the error wraps
// errors.ErrUnsupported.
func (x *Index) TextStats(ctx context.Context) (TextStats, error) {
	if err := x.use(); err != nil {
		return TextStats{}, err
	}
	defer x.life.RUnlock()
	sc, ok := x.store.(RecordScanner)
	if !ok {
		return TextStats{}, fmt.Errorf("index: %s: counting the kept texts needs a store that lists its records: %w", x.name, errors.ErrUnsupported)
	}
	var ts TextStats
	err := sc.ScanRecords(ctx, func(id string, rec []byte) error {
		n, stored, err := textSize(rec, id)
		if err != nil {
			return fmt.Errorf("index: %s: record of %q: %w: %w", x.name, id, ErrCorrupt, err)
		}
		ts.Docs++
		if stored > 0 {
			ts.Texts++
			ts.Bytes += n
			ts.Stored += stored
		}
		return nil
	})
	return ts, err
}
