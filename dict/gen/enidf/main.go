// enidf builds dict/data/en_idf.utf8 and dict/data/en_stop_words.utf8 from the
// English corpora en_brown, en_speeches and en_docs (see README.md):
//
//	go run ./dict/gen/enidf -corpora ../shared/corpora   # from the repository root
//
// Every article's text is tokenised exactly as segment.Cut tokenises
// English: segment.Normalize, then the non-Han word runs of
// segment.SplitRuns. The IDF of a word is ln(N/df) over the N articles of
// the three corpora together; words with df < 2 are left out.
//
// The stop-word list is the union of
//
//   - functionWords below: English closed-class words (articles, pronouns,
//     determiners, prepositions, conjunctions, auxiliary and modal verbs,
//     common adverbial particles) and the fragments our tokenisation makes
//     of contractions ("don't" → "don" "t");
//   - every word that is in at least -stopdf (default 0.4) of the articles
//     of each of the three corpora separately: words common in general prose
//     (Brown), political speech and software documentation alike.
//
// The output is deterministic: the same corpora give the same bytes.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/neardup/neardup/dict"
	"github.com/neardup/neardup/segment"
)

var corpora = []string{"en_brown", "en_speeches", "en_docs"}

// functionWords are English closed-class words, written for this list.
var functionWords = strings.Fields(`
a an the
i me my mine myself we us our ours ourselves you your yours yourself yourselves
he him his himself she her hers herself it its itself they them their theirs themselves
this that these those who whom whose which what whatever whoever whichever
some any no none each every either neither both all few many much more most
other another such own same several enough
one two
of in on at by for with from to into onto upon about above below over under
across along among amongst around behind beneath beside besides between beyond
through throughout during before after since until till against toward towards
within without via per off out up down near past
and or but nor so yet if then else than because although though while whereas
unless whether as once
be am is are was were been being
have has had having
do does did doing done
will would shall should can could may might must ought
not no nor only also very too just even still already again ever never always
here there where when why how
s t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn won wouldn
shan shouldn can cannot couldn mustn mightn needn
`)

func main() {
	dir := flag.String("corpora", "../shared/corpora", "directory holding en_brown.jsonl.gz, en_speeches.jsonl.gz and en_docs.jsonl.gz")
	out := flag.String("o", "dict/data", "output directory")
	stopDF := flag.Float64("stopdf", 0.4, "a word in at least this fraction of the articles of every corpus is a stop word")
	flag.Parse()

	all := dict.NewIDFBuilder()
	all.MinDF = 2
	per := make([]*dict.IDFBuilder, len(corpora))
	for i, name := range corpora {
		per[i] = dict.NewIDFBuilder()
		path := filepath.Join(*dir, name+".jsonl.gz")
		err := eachText(path, func(text string) {
			var words []string
			segment.SplitRuns(segment.Normalize(text), func(run string, han bool) {
				if !han {
					words = append(words, run)
				}
			})
			all.Add(words)
			per[i].Add(words)
		})
		if err != nil {
			log.Fatal(err)
		}
		log.Printf("%s: %d articles", name, per[i].Docs())
	}

	if err := writeFile(filepath.Join(*out, "en_idf.utf8"), func(w *bufio.Writer) error {
		_, err := all.WriteTo(w)
		return err
	}); err != nil {
		log.Fatal(err)
	}
	log.Printf("en_idf.utf8: N = %d articles, %d words with df >= 2", all.Docs(), all.Table().Len())

	stop := map[string]bool{}
	for _, w := range functionWords {
		stop[w] = true
	}
	// Words common in every corpus.
	var common []string
	for _, w := range per[0].Words() {
		ok := true
		for _, b := range per {
			if float64(b.DF(w)) < *stopDF*float64(b.Docs()) {
				ok = false
				break
			}
		}
		if ok {
			common = append(common, w)
			stop[w] = true
		}
	}
	slices.Sort(common)
	log.Printf("words in >= %.0f%% of the articles of every corpus: %d: %s", *stopDF*100, len(common), strings.Join(common, " "))
	words := make([]string, 0, len(stop))
	for w := range stop {
		words = append(words, w)
	}
	slices.Sort(words)
	if err := writeFile(filepath.Join(*out, "en_stop_words.utf8"), func(w *bufio.Writer) error {
		for _, word := range words {
			w.WriteString(word)
			w.WriteByte('\n')
		}
		return nil
	}); err != nil {
		log.Fatal(err)
	}
	log.Printf("en_stop_words.utf8: %d words", len(words))
}

// eachText calls fn with the text of every article of a .jsonl.gz corpus.
func eachText(path string, fn func(string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var doc struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			return fmt.Errorf("%s: line %d: %w", path, n, err)
		}
		fn(doc.Text)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeFile writes path through a buffered writer.
func writeFile(path string, fill func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
