package segment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-ego/gse"

	"github.com/neardup/neardup/dict"
)

// Gse is the pure-Go backend: github.com/go-ego/gse's shortest-path
// segmentation over the embedded jieba dictionary (dict.JiebaDictText) and
// the user dictionary, never over gse's own embedded dictionaries.
//
// Han runs are cut with gse's plain Cut (dictionary shortest path, no HMM):
// gse's HMM mode is quadratic on long runs and is never used. Dictionary
// words are added with their jieba frequencies (gse's own loader would
// give every one-character word frequency 2, which agrees less with
// cppjieba on the same dictionary).
//
// A Gse is safe for concurrent use: after construction Cut only reads the
// dictionary. It holds no resources beyond memory, so it has no Close.
type Gse struct {
	// cut is gse's Segmenter.Slice bound to our dictionary. The
	// *gse.Segmenter is kept only inside this closure on purpose: a struct
	// field of that type would let the linker see its exported methods as
	// reachable through reflection (text/template, used by CLI libraries,
	// keeps every exported method of every type stored in an interface),
	// and those methods reference gse's embedded 24 MB Japanese and 9 MB
	// Chinese dictionaries.
	cut func(string) []string
}

// NewGse builds the gse backend. It parses the embedded jieba dictionary
// (348,982 words; 0.7 s on an idle core) and opts.UserDict if set.
func NewGse(opts *Options) (*Gse, error) {
	seg, err := newGseSegmenter(opts)
	if err != nil {
		return nil, err
	}
	return &Gse{cut: func(s string) []string { return seg.Slice(s) }}, nil
}

// newGseSegmenter builds gse's segmenter over the embedded jieba dictionary
// and the user dictionary.
func newGseSegmenter(opts *Options) (*gse.Segmenter, error) {
	if opts == nil {
		opts = &Options{}
	}
	var user []userWord
	if opts.UserDict != "" {
		var err error
		if user, err = readUserDict(opts.UserDict, opts.Fold); err != nil {
			return nil, err
		}
	}
	seg := new(gse.Segmenter)
	seg.NotLoadHMM = true // never used; loading it would write gse's global HMM tables
	seg.SkipLog = true
	seg.Dict = gse.NewDict()
	seg.Init()
	data := dict.JiebaDictText()
	var freqs []int
	n := 0
	for line := range strings.Lines(data) {
		n++
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			continue
		}
		word, rest, ok1 := strings.Cut(line, " ")
		freqText, tag, ok2 := strings.Cut(rest, " ")
		freq, err := strconv.Atoi(freqText)
		if !ok1 || !ok2 || err != nil || freq <= 0 {
			return nil, fmt.Errorf("segment: embedded jieba.dict.utf8: line %d: want \"word freq tag\", got %q", n, line)
		}
		freqs = append(freqs, freq)
		if err := seg.AddToken(word, float64(freq), tag); err != nil {
			return nil, fmt.Errorf("segment: gse: add %q: %w", word, err)
		}
	}
	if len(user) > 0 {
		slices.Sort(freqs)
		median := freqs[len(freqs)/2] // cppjieba's default weight for user words
		for _, w := range user {
			freq := w.freq
			if freq == 0 {
				freq = median
			}
			// ReAddToken replaces a word the main dictionary already has.
			if f, _, found := seg.Find(w.word); found && f > 0 {
				if err := seg.ReAddToken(w.word, float64(freq), w.tag); err != nil {
					return nil, fmt.Errorf("segment: gse: user word %q: %w", w.word, err)
				}
			} else if err := seg.AddToken(w.word, float64(freq), w.tag); err != nil {
				return nil, fmt.Errorf("segment: gse: user word %q: %w", w.word, err)
			}
		}
	}
	seg.CalcToken()
	return seg, nil
}

// Cut cuts normalised text into words; see the package documentation for
// exactly what it returns.
func (g *Gse) Cut(text string) []string {
	return cutRuns(text, g.cut)
}
