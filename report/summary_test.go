package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
)

func TestSummaryText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		sum  Summary
		json string
		text string
	}{
		{"memory", Summary{Records: 1, Unique: 1, Bytes: 2_500_000, Elapsed: 2 * time.Second, Workers: 1},
			`{"records":1,"unique":1,"exact":0,"near":0,"too_short":0,"rejected":0,"input_errors":0,"resumed":0,"archived":0,"changed":0,"bytes":2500000,"seconds":2,"mb_per_s":1.25,"workers":1}`,
			"x: 1 record: 1 unique, 0 exact duplicates, 0 near duplicates, 0 too short, 0 rejected, 0 input errors\n" +
				"x: 2.5 MB of text in 2s (1.25 MB/s, 1 worker)\n"},
		{"resumed archive", Summary{Records: 1200, Unique: 1000, Exact: 1, Near: 199, Rejected: 2, InputErrors: 1, Resumed: 200, Archived: 300, Changed: 1,
			Filter: index.BloomStats{Lookups: 8, ReadsSaved: 6}, Bytes: 999, Elapsed: 1500 * time.Microsecond, Workers: 4},
			`{"records":1200,"unique":1000,"exact":1,"near":199,"too_short":0,"rejected":2,"input_errors":1,"resumed":200,"archived":300,"changed":1,"filter_lookups":8,"filter_reads_saved":6,"bytes":999,"seconds":0.0015,"mb_per_s":0.666,"workers":4}`,
			"x: 1,200 records: 1,000 unique, 1 exact duplicate, 199 near duplicates, 0 too short, 2 rejected, 1 input error\n" +
				"x: 999 B of text in 2ms (0.67 MB/s, 4 workers)\n" +
				"x: resumed an interrupted run: 200 records were already in the index\n" +
				"x: 100 records were already in the index from earlier runs, reported with their verdicts then\n" +
				"x: 1 record rejected: the index holds another text under the same id (delete those ids first to replace them)\n" +
				"x: exact-duplicate filter: 8 content-hash lookups, 6 (75.0%) answered without reading the index\n"},
		{"finished before", Summary{Records: 2, Unique: 2, Resumed: 2, Archived: 2, Workers: 2},
			`{"records":2,"unique":2,"exact":0,"near":0,"too_short":0,"rejected":0,"input_errors":0,"resumed":2,"archived":2,"changed":0,"bytes":0,"seconds":0,"mb_per_s":0,"workers":2}`,
			"x: 2 records: 2 unique, 0 exact duplicates, 0 near duplicates, 0 too short, 0 rejected, 0 input errors\n" +
				"x: 0 B of text in 0s (0.00 MB/s, 2 workers)\n" +
				"x: this run had finished before: all 2 records were already in the index, reported with their verdicts then\n"},
	} {
		b, err := json.Marshal(tt.sum)
		if err != nil || string(b) != tt.json {
			t.Errorf("%s: JSON %s, %v\nwant %s", tt.name, b, err, tt.json)
		}
		var back Summary
		if err := json.Unmarshal(b, &back); err != nil || back.Records != tt.sum.Records || back.Archived != tt.sum.Archived || back.Bytes != tt.sum.Bytes {
			t.Errorf("%s: decoded %+v, %v", tt.name, back, err)
		}
		var sb strings.Builder
		if err := tt.sum.WriteText(&sb, "x: "); err != nil || sb.String() != tt.text {
			t.Errorf("%s: text\n%s\nwant\n%s", tt.name, sb.String(), tt.text)
		}
	}
}

// TestURLSummaryText: url dedup's summary, as JSON (the first is a line
// of cmd/neardup's golden testdata/url/dedup_95_json.txt, its seconds 0)
// and as text.
func TestURLSummaryText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		sum  URLSummary
		json string
		text string
	}{
		{"in memory", URLSummary{Lines: 200, URLs: 198, Unique: 177, Near: 21, Rejected: 2, Pairs: 24, MinSimilarity: 95, MaxDistance: 3,
			Search: "in-memory block index (4 blocks, 4 tables)", Normalizer: "urlhash/1-420d1628b36be843", Blocks: 4, Tables: 4},
			`{"lines":200,"urls":198,"unique":177,"duplicates":21,"exact":0,"near":21,"blank":0,"rejected":2,"input_errors":0,"resumed":0,"pairs":24,"clusters":0,"min_similarity":95,"max_distance":3,"search":"in-memory block index (4 blocks, 4 tables)","normalizer":"urlhash/1-420d1628b36be843","seconds":0}`,
			"x: 200 lines: 198 URLs, 177 kept, 21 duplicates (0 exact: the same normalised URL as an earlier one), 0 blank, 2 rejected, 0 input errors\n" +
				"x: min similarity 95% (distance ≤ 3 of 64 bits), searched in-memory block index (4 blocks, 4 tables); 0s\n"},
		{"resumed", URLSummary{Lines: 1, URLs: 1, Unique: 3, Exact: 1000, Near: 1, Blank: 1, InputErrors: 1, Resumed: 1, Clusters: 2, MinSimilarity: 87.5, MaxDistance: 8,
			Search: "every kept URL", Elapsed: 1500 * time.Millisecond},
			`{"lines":1,"urls":1,"unique":3,"duplicates":1001,"exact":1000,"near":1,"blank":1,"rejected":0,"input_errors":1,"resumed":1,"pairs":0,"clusters":2,"min_similarity":87.5,"max_distance":8,"search":"every kept URL","normalizer":"","seconds":1.5}`,
			"x: 1 line: 1 URL, 3 kept, 1,001 duplicates (1,000 exact: the same normalised URL as an earlier one), 1 blank, 0 rejected, 1 input error\n" +
				"x: min similarity 87.5% (distance ≤ 8 of 64 bits), searched every kept URL; 1.5s, 0 URLs/s\n" +
				"x: resumed an interrupted run: 1 kept URL was already in the index\n"},
		{"finished before", URLSummary{Lines: 3, URLs: 3, Unique: 2, Near: 1, Resumed: 2, MinSimilarity: 90, MaxDistance: 6, Search: "s"},
			`{"lines":3,"urls":3,"unique":2,"duplicates":1,"exact":0,"near":1,"blank":0,"rejected":0,"input_errors":0,"resumed":2,"pairs":0,"clusters":0,"min_similarity":90,"max_distance":6,"search":"s","normalizer":"","seconds":0}`,
			"x: 3 lines: 3 URLs, 2 kept, 1 duplicate (0 exact: the same normalised URL as an earlier one), 0 blank, 0 rejected, 0 input errors\n" +
				"x: min similarity 90% (distance ≤ 6 of 64 bits), searched s; 0s\n" +
				"x: this run had finished before: all 2 kept URLs were already in the index\n"},
		{"WARC records skipped", URLSummary{Lines: 2, URLs: 2, Unique: 2, MinSimilarity: 90, MaxDistance: 6, Search: "s",
			Skipped: map[string]int64{"response (image/png)": 1, "request": 3, "metadata": 1}},
			`{"lines":2,"urls":2,"unique":2,"duplicates":0,"exact":0,"near":0,"blank":0,"rejected":0,"input_errors":0,"resumed":0,"skipped":{"metadata":1,"request":3,"response (image/png)":1},"pairs":0,"clusters":0,"min_similarity":90,"max_distance":6,"search":"s","normalizer":"","seconds":0}`,
			"x: 2 lines: 2 URLs, 2 kept, 0 duplicates (0 exact: the same normalised URL as an earlier one), 0 blank, 0 rejected, 0 input errors\n" +
				"x: skipped 5 WARC records that are not pages: 3 request, 1 metadata, 1 response (image/png)\n" +
				"x: min similarity 90% (distance ≤ 6 of 64 bits), searched s; 0s\n"},
	} {
		b, err := json.Marshal(tt.sum)
		if err != nil || string(b) != tt.json {
			t.Errorf("%s: JSON %s, %v\nwant %s", tt.name, b, err, tt.json)
		}
		var sb strings.Builder
		if err := tt.sum.WriteText(&sb, "x: "); err != nil || sb.String() != tt.text {
			t.Errorf("%s: text\n%s\nwant\n%s", tt.name, sb.String(), tt.text)
		}
	}
}
