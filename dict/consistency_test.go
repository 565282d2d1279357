package dict_test

import (
	"strings"
	"testing"

	"github.com/neardup/neardup/dict"
	"github.com/neardup/neardup/segment"
)

// Every word of the English tables is one token as segment.Cut would emit
// it: the tables were made with the segmenter's tokenisation, and this
// fails if that tokenisation drifts without the tables being regenerated.
func TestEnglishTablesMatchTokenisation(t *testing.T) {
	for name, data := range map[string][]byte{"en_idf.utf8": dict.EnIDF(), "en_stop_words.utf8": dict.EnStopWords()} {
		for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			word, _, _ := strings.Cut(line, " ")
			var runs []string
			segment.SplitRuns(segment.Normalize(word), func(run string, han bool) {
				if han {
					t.Errorf("%s line %d: %q has a Han run", name, i+1, word)
				}
				runs = append(runs, run)
			})
			if len(runs) != 1 || runs[0] != word {
				t.Errorf("%s line %d: %q tokenises to %q", name, i+1, word, runs)
			}
		}
	}
}
