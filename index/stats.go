package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup/internal/progress"
)

// Stats describe an index. The JSON is that of neardup stats --json
// (less the "index" it is given), WriteText its text.
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
	// Cluster is what a store kept on a cluster reports of it (see
	// ClusterReporter); Describe sets it, nil otherwise.
	Cluster ClusterReport `json:"cluster,omitempty"`
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
	ClusterReport(ctx context.Context) (ClusterReport, error)
}

// ClusterReport is what a ClusterReporter reports: a value that is
// marshalled to JSON and writes itself for people, as lines of Stats'
// text (a label padded to 13 columns, then the value).
type ClusterReport interface {
	WriteText(w io.Writer) error
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

// WriteText writes the statistics for people, one "label  value" line
// each, the first naming the index name: its documents, layout and
// analyzer, the store's disk and Bloom filter when it has them, the
// Cluster report, and the kept texts when counted.
func (s *Stats) WriteText(w io.Writer, name string) error {
	var b strings.Builder
	line := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "%-13s "+format+"\n", append([]any{label}, args...)...)
	}
	analyzer := s.AnalyzerID
	if analyzer == "" {
		analyzer = "(not recorded)"
	}
	line("index", "%s", name)
	line("documents", "%s", progress.Count(s.Docs))
	line("layout", "%d blocks, answers distances up to %d, %s", s.Blocks, s.MaxDistance, progress.Plural(int64(s.Tables), "table", "tables"))
	line("analyzer", "%s", analyzer)
	if s.Settings != nil {
		line("settings", "%s", s.Settings)
	}
	line("format", "%d", s.FormatVersion)
	if s.DiskBytes > 0 {
		line("disk", "%s (%s bytes)", progress.Bytes(s.DiskBytes), progress.Count(s.DiskBytes))
	}
	if f := s.Bloom; f.Counters > 0 {
		line("bloom filter", "sized for %s documents: %s counters, %d hashes, %s in memory, target false-positive rate %.2f%%, %s saturated",
			progress.Count(f.Capacity), progress.Count(f.Counters), f.Hashes, progress.Bytes(f.MemoryBytes), f.FalsePositive*100, progress.Count(f.Saturated))
	}
	if s.Cluster != nil {
		if err := s.Cluster.WriteText(&b); err != nil {
			return err
		}
	}
	if t := s.Text; t != nil {
		fmt.Fprintf(&b, "%-13s %s of %s keep their text: %s, %s compressed", "text", progress.Count(t.Texts), progress.Plural(t.Docs, "document", "documents"),
			progress.Bytes(t.Bytes), progress.Bytes(t.Stored))
		if t.Bytes > 0 {
			fmt.Fprintf(&b, " (%.0f%%)", 100*float64(t.Stored)/float64(t.Bytes))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
