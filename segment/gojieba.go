//go:build gojieba && cgo

package segment

import (
	"fmt"
	"strings"
	"sync"

	"github.com/yanyiwu/gojieba"

	"github.com/neardup/neardup/dict"
)

const gojiebaAvailable = true

// Gojieba is the gojieba backend, in builds with the gojieba tag (and
// cgo) only: cppjieba itself (through github.com/yanyiwu/gojieba v1.4.7)
// over the embedded jieba dictionary, written to a cache directory by
// dict.MaterializeJieba because cppjieba only reads files. Han runs are
// cut with cppjieba's MixSegment, HMM on, exactly as Jieba cuts them
// (Jieba is its pure-Go reproduction, and Gojieba its oracle: see
// TestJiebaIdentity), so an analyzer with either has the same ID.
//
// A Gojieba is safe for concurrent use (cppjieba's segmenters are const
// after construction). Close frees the C++ object; Cut after Close
// returns only the non-Han words of the text.
type Gojieba struct {
	mu      sync.RWMutex // write-locked by Close, read-locked by every C call
	x       *gojieba.Jieba
	paths   dict.JiebaPaths
	cutOnly bool // loaded with the stub extractor tables
	closed  bool
}

// NewGojieba builds the gojieba backend: it materialises the embedded
// dictionary files under opts.CacheDir (see dict.MaterializeJiebaUser),
// together with a checked copy of opts.UserDict if set, and loads them into
// cppjieba (about a second). Errors are returned, never panics: cppjieba
// aborts the process on a file it cannot read or parse, so every file is
// checked before it is handed over.
func NewGojieba(opts *Options) (*Gojieba, error) {
	if opts == nil {
		opts = &Options{}
	}
	var user []byte
	if opts.UserDict != "" {
		words, err := readUserDict(opts.UserDict, opts.Fold)
		if err != nil {
			return nil, err
		}
		user = cppjiebaUserDict(words)
	}
	paths, err := dict.MaterializeJiebaUser(opts.CacheDir, user)
	if err != nil {
		return nil, fmt.Errorf("segment: jieba: %w", err)
	}
	if opts.CutOnly {
		paths.IDF, paths.StopWords = paths.StubIDF, paths.StubStopWords
	}
	x, err := newGojieba(paths)
	if err != nil {
		return nil, err
	}
	return &Gojieba{x: x, paths: paths, cutOnly: opts.CutOnly}, nil
}

// newGojieba calls gojieba.NewJieba, turning its panic (on a missing file)
// into an error.
func newGojieba(p dict.JiebaPaths) (x *gojieba.Jieba, err error) {
	defer func() {
		if r := recover(); r != nil {
			x, err = nil, fmt.Errorf("segment: jieba: %v", r)
		}
	}()
	return gojieba.NewJieba(p.Dict, p.HMM, p.User, p.IDF, p.StopWords), nil
}

// Paths returns the dictionary files this Gojieba was loaded from.
func (j *Gojieba) Paths() dict.JiebaPaths { return j.paths }

// Cut cuts normalised text into words; see the package documentation for
// exactly what it returns.
func (j *Gojieba) Cut(text string) []string {
	return cutRuns(text, j.cutHan)
}

// cutHan cuts the joined Han runs with cppjieba, HMM on.
func (j *Gojieba) cutHan(s string) []string {
	j.mu.RLock()
	defer j.mu.RUnlock()
	if j.closed {
		return nil
	}
	return j.x.Cut(s, true)
}

// ExtractWithWeight returns the n heaviest keywords of text and their
// weights by cppjieba's KeywordExtractor, as gosimhash does: text is cut
// with HMM on, one-character words and words on cppjieba's stop list are
// dropped, and each remaining word weighs its count × its IDF from the
// embedded idf.utf8 (words not in it get the table's mean IDF, cppjieba's
// choice). Ties are in cppjieba's order. text is passed through unnormalised
// (callers that want gosimhash's exact output pass the raw text), except
// that invalid UTF-8 becomes U+FFFD and the text ends at a NUL byte, as a C
// string does. n <= 0, a closed Gojieba or one made with Options.CutOnly
// gives no keywords.
func (j *Gojieba) ExtractWithWeight(text string, n int) (words []string, weights []float64) {
	if n <= 0 || j.cutOnly {
		return nil, nil
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	j.mu.RLock()
	defer j.mu.RUnlock()
	if j.closed {
		return nil, nil
	}
	ww := j.x.ExtractWithWeight(text, n)
	if len(ww) == 0 {
		return nil, nil
	}
	words = make([]string, len(ww))
	weights = make([]float64, len(ww))
	for i, w := range ww {
		words[i], weights[i] = w.Word, w.Weight
	}
	return words, weights
}

// Close frees the C++ segmenter. It is safe to call more than once and
// concurrently with Cut; it always returns nil.
func (j *Gojieba) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.closed {
		j.closed = true
		j.x.Free()
		j.x = nil
	}
	return nil
}
