package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/progress"
)

// WriteStats writes s, the statistics of the archive named name, for
// people (neardup stats), one "label  value" line each, the first
// naming the archive: its documents, layout and analyzer, the store's
// disk and Bloom filter when it has them, the cluster's report, and the
// kept texts when counted. Their JSON is index.Stats'.
func WriteStats(w io.Writer, s *index.Stats, name string) error {
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
	switch {
	case s.Lean && s.Compressed:
		line("records", "lean (no titles, keywords or texts), in compressed tables")
	case s.Lean:
		line("records", "lean (no titles, keywords or texts)")
	case s.Compressed:
		line("records", "in compressed tables")
	}
	if f := s.Bloom; f.Counters > 0 {
		line("bloom filter", "sized for %s documents: %s counters, %d hashes, %s in memory, target false-positive rate %.2f%%, %s saturated",
			progress.Count(f.Capacity), progress.Count(f.Counters), f.Hashes, progress.Bytes(f.MemoryBytes), f.FalsePositive*100, progress.Count(f.Saturated))
	}
	if s.Cluster != nil {
		writeCluster(&b, s.Cluster)
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

// writeCluster writes the lines of a cluster's report in WriteStats:
// the cluster, the ingest states when sampled, and the largest
// buckets.
func writeCluster(b *strings.Builder, st *index.ClusterStats) {
	fmt.Fprintf(b, "%-13s %d masters, %d replicas; %s used on the masters, %s a document\n", "cluster",
		st.Masters, st.Replicas, progress.Bytes(st.UsedMemory), progress.Bytes(int64(st.BytesPerDoc)))
	if st.StateSamples > 0 {
		fmt.Fprintf(b, "%-13s %.1f bytes a document written by dedup (%s sampled)\n", "ingest state", st.StateBytesPerDoc, progress.Count(st.StateSamples))
	}
	for i, k := range st.Largest {
		label := ""
		if i == 0 {
			label = "largest keys"
		}
		fmt.Fprintf(b, "%-13s %s: %s postings, %s\n", label, k.Key, progress.Count(k.Postings), progress.Bytes(k.Bytes))
	}
}

// WriteDeletion writes d, what was deleted from the archive named name,
// as neardup delete prints it: "deleted 2 documents from NAME; the
// index holds 5 documents". Its JSON is index.Deletion's.
func WriteDeletion(w io.Writer, d *index.Deletion, name string) error {
	_, err := fmt.Fprintf(w, "deleted %s from %s; the index holds %s\n",
		progress.Plural(int64(len(d.Deleted)), "document", "documents"), name, progress.Plural(d.Docs, "document", "documents"))
	return err
}
