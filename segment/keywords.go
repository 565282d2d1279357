package segment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/neardup/neardup/dict"
)

// keywordTables are cppjieba's KeywordExtractor tables: the IDF of each
// word of the embedded idf.utf8, their mean, and the stop words of
// stop_words.utf8.
type keywordTables struct {
	idf     map[string]float64
	idfMean float64
	stop    map[string]bool
}

// loadKeywordTables parses the embedded idf.utf8 and stop_words.utf8 as
// KeywordExtractor's LoadIdfDict and LoadStopWordDict do: a "word idf"
// line sets the word's IDF (a later line wins) and adds to the sum; the
// mean divides that sum by the number of lines, those skipped (empty, or
// not two fields) included; every line of the stop list is a stop word.
func loadKeywordTables() (*keywordTables, error) {
	text := dict.ZhIDFText()
	k := &keywordTables{idf: make(map[string]float64, strings.Count(text, "\n")+1)}
	sum := 0.0
	lines := 0
	for n := 1; text != ""; n++ {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		lines++
		f := cppSplit(line, ' ')
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return nil, fmt.Errorf("segment: embedded idf.utf8: line %d: %w", n, err)
		}
		k.idf[f[0]] = v
		sum += v
	}
	if lines == 0 {
		return nil, fmt.Errorf("segment: embedded idf.utf8 is empty")
	}
	k.idfMean = sum / float64(lines)
	stop := dict.ZhStopWordsText()
	k.stop = make(map[string]bool, strings.Count(stop, "\n")+1)
	for stop != "" {
		line := stop
		if i := strings.IndexByte(stop, '\n'); i >= 0 {
			line, stop = stop[:i], stop[i+1:]
		} else {
			stop = ""
		}
		k.stop[line] = true
	}
	return k, nil
}

// cppSplit splits s at every sep as limonp::Split does: a separator at
// the very end gives no empty last field, and "" gives no field.
func cppSplit(s string, sep byte) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, sep)
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
	return out
}

// ExtractWithWeight returns the n heaviest keywords of text and their
// weights as cppjieba's KeywordExtractor (gojieba's ExtractWithWeight)
// gives them, as gosimhash uses them: the whole text cut by the mixed
// segmentation (no run splitting: cppjieba's own rules for Latin letters
// and digits apply), one-rune words and words on cppjieba's stop list
// dropped, each remaining word weighing its count × its IDF from the
// embedded idf.utf8 (words not in it get the table's mean IDF), the
// heaviest first, in the order of libstdc++'s partial_sort among equal
// weights. text is used unnormalised (callers that want gosimhash's exact
// output pass the raw text), except that, as gojieba's C string does, it
// ends at a NUL byte, and invalid UTF-8 becomes U+FFFD. n <= 0, or a
// Jieba made with Options.CutOnly, gives no keywords.
func (j *Jieba) ExtractWithWeight(text string, n int) (words []string, weights []float64) {
	if n <= 0 || j.kw == nil {
		return nil, nil
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	s := j.scratch()
	defer j.pool.Put(s)
	j.cutSentence(s, text)
	counts := make(map[string]float64)
	for _, sp := range s.spans {
		w := text[s.offs[sp.lo]:s.offs[sp.hi]]
		if sp.hi-sp.lo == 1 || j.kw.stop[w] { // IsSingleWord: one rune
			continue
		}
		counts[w]++
	}
	// std::map order: bytewise.
	kws := make([]keyword, 0, len(counts))
	for w, c := range counts {
		kws = append(kws, keyword{w, c})
	}
	slices.SortFunc(kws, func(a, b keyword) int { return strings.Compare(a.word, b.word) })
	for i := range kws {
		idf, ok := j.kw.idf[kws[i].word]
		if !ok {
			idf = j.kw.idfMean
		}
		kws[i].weight *= idf
	}
	n = min(n, len(kws))
	partialSort(kws, n)
	words, weights = make([]string, n), make([]float64, n)
	for i, k := range kws[:n] {
		words[i], weights[i] = k.word, k.weight
	}
	if n == 0 {
		return nil, nil
	}
	return words, weights
}

type keyword struct {
	word   string
	weight float64
}

// heavier is KeywordExtractor::Compare.
func heavier(a, b *keyword) bool { return a.weight > b.weight }

// partialSort is libstdc++'s std::partial_sort(first, first+middle, last,
// Compare): a heap of the first middle elements, each later element that
// is heavier than the heap's top swapped in, then the heap sorted. It is
// not stable, and which of equally heavy keywords come first, and in
// which order, is exactly what cppjieba returns, so the algorithm is
// reproduced step by step (bits/stl_heap.h and bits/stl_algo.h).
func partialSort(a []keyword, middle int) {
	if middle <= 0 {
		return
	}
	heap := a[:middle]
	makeHeap(heap)
	for i := middle; i < len(a); i++ {
		if heavier(&a[i], &a[0]) {
			popHeap(heap, &a[i])
		}
	}
	for last := middle; last > 1; {
		last--
		popHeap(a[:last], &a[last])
	}
}

func makeHeap(a []keyword) {
	n := len(a)
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		adjustHeap(a, parent, n, a[parent])
		if parent == 0 {
			return
		}
	}
}

// popHeap is std::__pop_heap(first, last, result): *result goes into the
// heap, the top to *result.
func popHeap(a []keyword, result *keyword) {
	v := *result
	*result = a[0]
	adjustHeap(a, 0, len(a), v)
}

func adjustHeap(a []keyword, hole, n int, v keyword) {
	top := hole
	child := hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if heavier(&a[child], &a[child-1]) {
			child--
		}
		a[hole] = a[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		a[hole] = a[child-1]
		hole = child - 1
	}
	// std::__push_heap
	parent := (hole - 1) / 2
	for hole > top && heavier(&a[parent], &v) {
		a[hole] = a[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	a[hole] = v
}
