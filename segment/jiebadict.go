package segment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup/dict"
)

// minDouble is cppjieba's MIN_DOUBLE: the weight of nothing, the emission
// probability of a character the HMM model does not know, and the start
// of every maximum.
const minDouble = -3.14e+100

// maxWordLen is cppjieba's MAX_WORD_LENGTH: the longest dictionary word
// the route looks for, in runes.
const maxWordLen = 512

// jiebaDict is cppjieba's DictTrie: the words of jieba.dict.utf8 and of
// the user dictionary with their weights, log(freq/sum of the main
// dictionary's frequencies).
type jiebaDict struct {
	trie *trie
	// minWeight is the weight of a character the dictionary does not
	// have as a word: the least weight of the main dictionary.
	minWeight float64
	// userSingle holds the one-rune words of the user dictionary, which
	// the mixed segmentation keeps as words rather than handing them to
	// the HMM.
	userSingle map[rune]bool
}

// loadJiebaDict builds the dictionary from the embedded jieba.dict.utf8
// and the user dictionary's words, as DictTrie::Init does.
func loadJiebaDict(user []userWord) (*jiebaDict, error) {
	text := dict.JiebaDictText()
	lines := strings.Count(text, "\n") + 1
	type entry struct {
		word string
		freq float64
	}
	entries := make([]entry, 0, lines)
	sum := 0.0
	n := 0
	for line := range strings.Lines(text) {
		// getline: the last line needs no "\n"; an empty line is an
		// error (cppjieba aborts: it splits into no columns).
		n++
		line = strings.TrimSuffix(line, "\n")
		word, rest, ok1 := strings.Cut(line, " ")
		freqText, tag, ok2 := strings.Cut(rest, " ")
		freq, err := strconv.ParseFloat(freqText, 64)
		if !ok1 || !ok2 || strings.IndexByte(tag, ' ') >= 0 || err != nil || !(freq > 0) || !utf8.ValidString(word) {
			return nil, fmt.Errorf("segment: embedded jieba.dict.utf8: line %d: want \"word freq tag\" with a positive freq, got %q", n, line)
		}
		entries = append(entries, entry{word, freq})
		sum += freq // in file order, as CalcFreqSum adds them
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("segment: embedded jieba.dict.utf8 is empty")
	}
	// A word's weight depends on its frequency alone, and log is
	// monotonic: the least and the median weight are the weights of the
	// least and the median frequency. Each distinct frequency's
	// logarithm is taken once.
	weights := make(map[float64]float64, 8192)
	counts := make(map[float64]int, 8192)
	var distinct []float64
	for _, e := range entries {
		if counts[e.freq] == 0 {
			distinct = append(distinct, e.freq)
		}
		counts[e.freq]++
	}
	slices.Sort(distinct)
	for _, f := range distinct {
		weights[f] = crLog(f / sum)
	}
	// The weight at index len/2 of the weights sorted, as
	// SetStaticWordWeights takes the median.
	medianFreq := distinct[len(distinct)-1]
	for i, seen := 0, 0; i < len(distinct); i++ {
		if seen += counts[distinct[i]]; seen > len(entries)/2 {
			medianFreq = distinct[i]
			break
		}
	}
	d := &jiebaDict{
		trie:      newTrie(len(entries) + len(user)),
		minWeight: weights[distinct[0]],
	}
	median := weights[medianFreq] // the weight of a user word without a frequency
	var runes []rune
	for _, e := range entries {
		runes = appendRunes(runes[:0], e.word)
		d.trie.insert(runes, weights[e.freq])
	}
	for _, w := range user {
		weight := median
		if w.freq > 0 {
			weight = crLog(float64(w.freq) / sum)
		}
		runes = appendRunes(runes[:0], w.word)
		d.trie.insert(runes, weight)
		if len(runes) == 1 {
			if d.userSingle == nil {
				d.userSingle = make(map[rune]bool)
			}
			d.userSingle[runes[0]] = true
		}
	}
	return d, nil
}

func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}

// hmmModel is cppjieba's HMMModel: states B, E, M, S (0 to 3), their start
// and transition log-probabilities, and each character's emission
// log-probability in each state (minDouble when the model lacks it).
type hmmModel struct {
	start [4]float64
	trans [4][4]float64
	// emitIdx maps a rune below rootSpan to its row of emit (0: unknown);
	// emitMap the others.
	emitIdx []uint16
	emitMap map[rune]uint16
	emit    [][4]float64
}

const (
	stateB = 0
	stateE = 1
	stateM = 2
	stateS = 3
)

// emission returns the emission log-probabilities of r in the four states.
func (m *hmmModel) emission(r rune) *[4]float64 {
	if uint32(r) < rootSpan {
		return &m.emit[m.emitIdx[r]]
	}
	return &m.emit[m.emitMap[r]]
}

// loadHMMModel parses the embedded hmm_model.utf8 as HMMModel::LoadModel
// does: lines trimmed, empty lines and lines starting with "#" skipped;
// then the start probabilities, four lines of transitions and the
// emissions of B, E, M and S, "char:prob" separated by commas.
func loadHMMModel() (*hmmModel, error) {
	text := dict.HMMModelText()
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.Trim(l, " \t\n\v\f\r")
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines = append(lines, l)
	}
	if len(lines) < 9 {
		return nil, fmt.Errorf("segment: embedded hmm_model.utf8: %d lines of data, want 9", len(lines))
	}
	row := func(i int, dst *[4]float64) error {
		f := strings.Split(lines[i], " ")
		if len(f) != 4 {
			return fmt.Errorf("segment: embedded hmm_model.utf8: data line %d: %d fields, want 4", i+1, len(f))
		}
		for j, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("segment: embedded hmm_model.utf8: data line %d: %w", i+1, err)
			}
			dst[j] = v
		}
		return nil
	}
	m := &hmmModel{emitIdx: make([]uint16, rootSpan), emitMap: map[rune]uint16{}}
	if err := row(0, &m.start); err != nil {
		return nil, err
	}
	for i := range 4 {
		if err := row(1+i, &m.trans[i]); err != nil {
			return nil, err
		}
	}
	m.emit = append(m.emit, [4]float64{minDouble, minDouble, minDouble, minDouble})
	for state := range 4 {
		for _, item := range strings.Split(lines[5+state], ",") {
			kv := strings.Split(item, ":")
			if len(kv) != 2 {
				return nil, fmt.Errorf("segment: embedded hmm_model.utf8: emission %q of state %d: want char:prob", item, state)
			}
			r, size := utf8.DecodeRuneInString(kv[0])
			if size == 0 || size != len(kv[0]) || r == utf8.RuneError {
				return nil, fmt.Errorf("segment: embedded hmm_model.utf8: emission %q of state %d: not one character", item, state)
			}
			v, err := strconv.ParseFloat(kv[1], 64)
			if err != nil {
				return nil, fmt.Errorf("segment: embedded hmm_model.utf8: emission %q of state %d: %w", item, state, err)
			}
			var idx uint16
			if uint32(r) < rootSpan {
				idx = m.emitIdx[r]
			} else {
				idx = m.emitMap[r]
			}
			if idx == 0 {
				if len(m.emit) == 1<<16 {
					return nil, fmt.Errorf("segment: embedded hmm_model.utf8: more than 65535 characters")
				}
				idx = uint16(len(m.emit))
				m.emit = append(m.emit, [4]float64{minDouble, minDouble, minDouble, minDouble})
				if uint32(r) < rootSpan {
					m.emitIdx[r] = idx
				} else {
					m.emitMap[r] = idx
				}
			}
			m.emit[idx][state] = v // a character given twice: the later value, as the map assignment does
		}
	}
	return m, nil
}
