package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/progress"
)

// Summary counts what a dedup.Run did. Its JSON is the object neardup dedup
// --json prints: the fields below, then "seconds" (Elapsed), "mb_per_s"
// and "workers".
type Summary struct {
	Records     int64 `json:"records"` // records read, good and bad
	Unique      int64 `json:"unique"`
	Exact       int64 `json:"exact"` // duplicates whose best match has identical content
	Near        int64 `json:"near"`  // other duplicates
	TooShort    int64 `json:"too_short"`
	Rejected    int64 `json:"rejected"`
	InputErrors int64 `json:"input_errors"`
	// Archived counts the records found in the archive from an earlier
	// run (Outcome.Archived; they are counted by their verdict too), and
	// Resumed those of them from a run of the same job at the same
	// position. Changed counts the records rejected because the archive
	// holds another text under their ID.
	Resumed  int64 `json:"resumed"`
	Archived int64 `json:"archived"`
	Changed  int64 `json:"changed"`
	// Filter is the store's exact-duplicate filter when the run ended
	// (a Badger archive: its content-hash lookups since it was opened,
	// and how many it answered without reading the store); zero
	// otherwise.
	Filter  index.BloomStats `json:"-"`
	Bytes   int64            `json:"bytes"` // bytes of article text analysed
	Elapsed time.Duration    `json:"-"`
	Workers int              `json:"-"` // Options.Workers, as Run used it
}

// MarshalJSON encodes s with Elapsed in seconds, the rate and the
// filter's counts when it was used.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	type filter struct {
		Lookups    int64 `json:"filter_lookups,omitempty"`
		ReadsSaved int64 `json:"filter_reads_saved,omitempty"`
	}
	// The field order is the output's: the counts, the filter, then the
	// bytes, time and rate.
	return json.Marshal(struct {
		plain
		filter
		Bytes       int64   `json:"bytes"`
		Seconds     float64 `json:"seconds"`
		MBPerSecond float64 `json:"mb_per_s"`
		Workers     int     `json:"workers"`
	}{plain(s), filter{s.Filter.Lookups, s.Filter.ReadsSaved}, s.Bytes, s.Elapsed.Seconds(), s.MBPerSecond(), s.Workers})
}

// MBPerSecond is the rate of the run in megabytes of text a second.
func (s *Summary) MBPerSecond() float64 {
	if secs := s.Elapsed.Seconds(); secs > 0 {
		return float64(s.Bytes) / 1e6 / secs
	}
	return 0
}

// WriteText writes s for people, each line starting with prefix
// ("neardup dedup: "): the counts, the rate, what came from the archive
// and the filter.
func (s *Summary) WriteText(w io.Writer, prefix string) error {
	n, pl := progress.Count, progress.Plural
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s: %s unique, %s exact %s, %s near %s, %s too short, %s rejected, %s\n", prefix,
		pl(s.Records, "record", "records"), n(s.Unique), n(s.Exact), word(s.Exact, "duplicate", "duplicates"),
		n(s.Near), word(s.Near, "duplicate", "duplicates"), n(s.TooShort), n(s.Rejected), pl(s.InputErrors, "input error", "input errors"))
	fmt.Fprintf(&b, "%s%s of text in %s (%.2f MB/s, %s)\n", prefix,
		progress.Bytes(s.Bytes), s.Elapsed.Round(time.Millisecond), s.MBPerSecond(), pl(int64(s.Workers), "worker", "workers"))
	switch archived := s.Unique + s.Exact + s.Near; {
	case s.Resumed > 0 && s.Resumed == archived && s.Archived == archived:
		fmt.Fprintf(&b, "%sthis run had finished before: all %s already in the index, reported with their verdicts then\n", prefix,
			pl(s.Resumed, "record was", "records were"))
	case s.Resumed > 0:
		fmt.Fprintf(&b, "%sresumed an interrupted run: %s already in the index\n", prefix, pl(s.Resumed, "record was", "records were"))
	}
	if other := s.Archived - s.Resumed; other > 0 {
		fmt.Fprintf(&b, "%s%s already in the index from earlier runs, reported with their verdicts then\n", prefix,
			pl(other, "record was", "records were"))
	}
	if s.Changed > 0 {
		fmt.Fprintf(&b, "%s%s rejected: the index holds another text under the same id (delete those ids first to replace them)\n", prefix,
			pl(s.Changed, "record", "records"))
	}
	if f := s.Filter; f.Lookups > 0 {
		fmt.Fprintf(&b, "%sexact-duplicate filter: %s, %s (%.1f%%) answered without reading the index\n", prefix,
			pl(f.Lookups, "content-hash lookup", "content-hash lookups"), n(f.ReadsSaved), 100*float64(f.ReadsSaved)/float64(f.Lookups))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// word returns one or many by n.
func word(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// URLSummary counts what a urldedup.Run did. Its JSON is the object
// neardup url dedup --json prints: the fields below, with "duplicates"
// (Exact + Near) after "unique" and "seconds" (Elapsed) last.
type URLSummary struct {
	Lines       int64 `json:"lines"` // lines read, blank and bad ones included
	URLs        int64 `json:"urls"`  // URLs normalised
	Unique      int64 `json:"unique"`
	Exact       int64 `json:"exact"` // duplicates with urldedup.Outcome.Exact
	Near        int64 `json:"near"`  // other duplicates
	Blank       int64 `json:"blank"`
	Rejected    int64 `json:"rejected"`
	InputErrors int64 `json:"input_errors"`
	Resumed     int64 `json:"resumed"`
	// Skipped counts the WARC and WET records read and skipped as not
	// pages, by kind, as input.Reader.Skipped names them ("request",
	// "response (image/png)", …); nil when there were none. They are not
	// lines.
	Skipped map[string]int64 `json:"skipped,omitempty"`
	// Pairs and Clusters are the lines written to the pairs and the
	// clusters files (Outputs.NPairs, Outputs.Commit), and MinSimilarity
	// the similarity in percent that MaxDistance was chosen for
	// (urlhash.MaxDistance): urldedup.Run leaves them 0 for its caller to set.
	Pairs         int64   `json:"pairs"`
	Clusters      int64   `json:"clusters"`
	MinSimilarity float64 `json:"min_similarity"`
	MaxDistance   int     `json:"max_distance"` // urldedup.Options.MaxDistance
	// Search says how the kept URLs were searched: the in-memory block
	// index of this run's (Blocks and Tables its layout), or every one
	// when no layout covers MaxDistance (Blocks and Tables 0), and the
	// store, named by urldedup.Options.StoreName, with its layout and the URLs
	// it held when the run began.
	Search         string        `json:"search"`
	Normalizer     string        `json:"normalizer"` // urldedup.Options.Normalize.ID()
	Blocks, Tables int           `json:"-"`
	Elapsed        time.Duration `json:"-"`
}

// MarshalJSON encodes s with the duplicates and Elapsed in seconds.
func (s URLSummary) MarshalJSON() ([]byte, error) {
	type plain URLSummary
	// The fields of this struct hide plain's of the same name, which
	// keeps its other fields' order.
	return json.Marshal(struct {
		Lines      int64 `json:"lines"`
		URLs       int64 `json:"urls"`
		Unique     int64 `json:"unique"`
		Duplicates int64 `json:"duplicates"`
		plain
		Seconds float64 `json:"seconds"`
	}{s.Lines, s.URLs, s.Unique, s.Exact + s.Near, plain(s), s.Elapsed.Seconds()})
}

// WriteText writes s for people, each line starting with prefix
// ("neardup url dedup: "): the counts, the search and the time, and what
// was resumed (all the kept URLs: a run that had finished before).
func (s *URLSummary) WriteText(w io.Writer, prefix string) error {
	n, pl := progress.Count, progress.Plural
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s: %s, %s kept, %s (%s exact: the same normalised URL as an earlier one), %s, %s, %s\n", prefix,
		pl(s.Lines, "line", "lines"), pl(s.URLs, "URL", "URLs"), n(s.Unique), pl(s.Exact+s.Near, "duplicate", "duplicates"),
		n(s.Exact), pl(s.Blank, "blank", "blank"), pl(s.Rejected, "rejected", "rejected"), pl(s.InputErrors, "input error", "input errors"))
	rate := ""
	if secs := s.Elapsed.Seconds(); secs > 0 {
		rate = fmt.Sprintf(", %s URLs/s", n(int64(float64(s.URLs)/secs)))
	}
	if len(s.Skipped) > 0 {
		var skips []input.Skip
		for kind, k := range s.Skipped {
			skips = append(skips, input.Skip{Kind: kind, N: k})
		}
		slices.SortFunc(skips, func(a, b input.Skip) int { return strings.Compare(a.Kind, b.Kind) })
		fmt.Fprintf(&b, "%s%s\n", prefix, input.SkippedText(skips))
	}
	fmt.Fprintf(&b, "%smin similarity %g%% (distance ≤ %d of 64 bits), searched %s; %s%s\n", prefix,
		s.MinSimilarity, s.MaxDistance, s.Search, s.Elapsed.Round(time.Millisecond), rate)
	switch {
	case s.Resumed > 0 && s.Resumed == s.Unique:
		fmt.Fprintf(&b, "%sthis run had finished before: all %s already in the index\n", prefix, pl(s.Resumed, "kept URL was", "kept URLs were"))
	case s.Resumed > 0:
		fmt.Fprintf(&b, "%sresumed an interrupted run: %s already in the index\n", prefix, pl(s.Resumed, "kept URL was", "kept URLs were"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
