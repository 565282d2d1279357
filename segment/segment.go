// Package segment normalises text and cuts it into words, with a choice of
// Chinese dictionary segmenters over the same embedded jieba dictionary
// (package dict): jieba (the default: cppjieba's mixed segmentation,
// reproduced in pure Go, token for token), gse (pure Go, shortest path)
// and, in builds with the gojieba tag, gojieba (cppjieba itself through
// cgo, which cuts exactly as jieba does).
//
// # What Cut returns
//
// Cut expects Normalize's output. It splits the text into runs (see
// SplitRuns) and returns, in text order:
//
//   - every non-Han word run whole, exactly as it appears in the text
//     ("iphone", "16", "pro", "café", "gpt4"): both backends produce the same
//     tokens for text without Han characters;
//   - the words the backend's dictionary segmentation makes of every Han run
//     ("发布会", "在", "北京", "举行").
//
// White space, punctuation and symbols never come out as tokens, and no
// token is empty. Each token is a substring of the text passed to Cut or of
// a string built from its Han runs. The backends differ only in how they cut
// Han runs; the few dictionary entries that mix Han and Latin ("T恤", "B超")
// therefore never match.
//
// # Concurrency
//
// Every backend is safe for concurrent use: Cut only reads the dictionary
// built by the constructor.
package segment

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Version identifies the rules of Normalize and of how Cut splits text into
// runs and puts the backend's words back together. It changes whenever
// Normalize's or Cut's output can change for some input with the same
// dictionary, so that callers can make it part of an analyzer ID. It does
// not cover the dictionaries (hash dict's embedded files for those) nor the
// backend libraries, which go.mod pins.
const Version = "2"

// Segmenter cuts normalised text into words. Implementations are safe for
// concurrent use.
type Segmenter interface {
	Cut(text string) []string
}

// Options configures a segmenter. A nil *Options means the zero value.
type Options struct {
	// UserDict is the path of an extra dictionary in jieba's format, one
	// word a line: "word", "word freq", "word freq tag" or "word tag" (freq
	// a positive integer). Words are normalised with Normalize; words that
	// contain anything but Han characters are skipped, since Cut only hands
	// Han runs to the dictionary. A word without a frequency gets the
	// median frequency of the main dictionary, as in cppjieba. Optional.
	UserDict string
	// Fold, when not nil, folds the user dictionary's words after
	// Normalize, as the text the segmenter is given is folded (for
	// instance traditional Chinese to simplified, TradFold).
	Fold Folder
	// CacheDir is where the gojieba backend writes the dictionary files
	// cppjieba reads (see dict.MaterializeJieba); "" means the user's cache
	// directory. The jieba and gse backends do not use it.
	CacheDir string
	// CutOnly, for the jieba and gojieba backends, leaves out cppjieba's
	// keyword extractor tables (its IDF table and stop words), which only
	// ExtractWithWeight uses: that saves start-up time and the memory of
	// a 259,000-word table. ExtractWithWeight then returns no keywords.
	// Cut is the same either way.
	CutOnly bool
}

// ErrUnavailable is returned by NewGojieba (and by New for "gojieba") in
// builds without the gojieba build tag or without cgo.
var ErrUnavailable = errors.New("segment: gojieba backend unavailable: this binary was built without -tags gojieba (or without cgo); the jieba backend cuts identically in pure Go")

// Backend names.
const (
	BackendJieba   = "jieba"
	BackendGse     = "gse"
	BackendGojieba = "gojieba"
)

// DefaultBackend is the backend New uses for "": jieba, in every build.
const DefaultBackend = BackendJieba

// New returns the segmenter named by backend: "jieba" (a *Jieba), "gse" (a
// *Gse), "gojieba" (a *Gojieba) or "" for DefaultBackend. An unknown name
// is an error that lists the valid ones; "gojieba" in a build without the
// gojieba tag returns ErrUnavailable. A *Gojieba holds C++ memory: it
// implements io.Closer, and callers should close it when done (a
// finalizer frees it otherwise); so, for symmetry, does a *Jieba.
func New(backend string, opts *Options) (Segmenter, error) {
	if backend == "" {
		backend = DefaultBackend
	}
	switch backend {
	case BackendJieba:
		j, err := NewJieba(opts)
		if err != nil {
			return nil, err
		}
		return j, nil
	case BackendGojieba:
		j, err := NewGojieba(opts)
		if err != nil {
			return nil, err
		}
		return j, nil
	case BackendGse:
		g, err := NewGse(opts)
		if err != nil {
			return nil, err
		}
		return g, nil
	}
	return nil, fmt.Errorf("segment: unknown backend %q: valid backends are %s (available in this build: %s)",
		backend, strings.Join([]string{`""`, BackendJieba, BackendGse, BackendGojieba}, ", "), strings.Join(Backends(), ", "))
}

// Backends returns the names of the backends available in this build, the
// default first.
func Backends() []string {
	if gojiebaAvailable {
		return []string{BackendJieba, BackendGse, BackendGojieba}
	}
	return []string{BackendJieba, BackendGse}
}

// cutRuns implements Cut for gse and gojieba: non-Han word runs are emitted
// whole, and all Han runs of the text, joined by "\n", are handed to cutHan
// in one call (one cgo call for gojieba) whose tokens are put back in place.
// cutHan must return tokens that cover its input in order; "\n" is a
// separator for both dictionary segmenters, so no token spans two runs.
func cutRuns(text string, cutHan func(joined string) []string) []string {
	// The runs in order, and which of them are Han. Text without Han
	// (English) is cut once its runs are found: they are the result.
	// The first 64 runs are kept on the stack, in small; a text with more
	// moves them to big, allocated once for as many runs as the bytes of
	// the runs so far predict for the whole text (an overestimate, as
	// they leave out the separators), and so for the Han runs' indexes.
	var (
		small    [64]string
		n        int
		big      []string
		hanBuf   [32]int32
		han      = hanBuf[:0]
		hanLen   int
		runBytes int
	)
	predict := func(k int) int { return k*len(text)/runBytes + 16 }
	SplitRuns(text, func(s string, isHan bool) {
		runBytes += len(s)
		if isHan {
			if len(han) == cap(han) && cap(han) == len(hanBuf) {
				han = append(make([]int32, 0, predict(len(han))), han...)
			}
			han = append(han, int32(n))
			hanLen += len(s)
		}
		switch {
		case n < len(small):
			small[n] = s
		case big == nil:
			big = append(make([]string, 0, predict(n)), small[:]...)
			fallthrough
		default:
			big = append(big, s)
		}
		n++
	})
	if len(han) == 0 {
		if big != nil {
			return big
		}
		return slices.Clone(small[:n])
	}
	runs := big
	if runs == nil {
		runs = small[:n]
	}
	var joined string
	if len(han) == 1 {
		joined = runs[han[0]]
	} else {
		var b strings.Builder
		b.Grow(hanLen + len(han) - 1)
		for i, r := range han {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(runs[r])
		}
		joined = b.String()
	}
	toks := cutHan(joined)
	out := make([]string, 0, len(runs)-len(han)+len(toks))
	// Tokens of Han run han[0] come first, after the word runs before it;
	// each "\n" in a token marks the start of the next Han run.
	out = append(out, runs[:han[0]]...)
	h := 0
	for _, tok := range toks {
		for {
			i := strings.IndexByte(tok, '\n')
			if i < 0 {
				if tok != "" {
					out = append(out, tok)
				}
				break
			}
			if i > 0 {
				out = append(out, tok[:i])
			}
			if h+1 < len(han) { // a backend's extra "\n" is only a separator
				out = append(out, runs[han[h]+1:han[h+1]]...) // the word runs between
				h++
			}
			tok = tok[i+1:]
		}
	}
	end := len(runs)
	if h+1 < len(han) { // a backend that lost a "\n"
		end = int(han[h+1])
	}
	out = append(out, runs[han[h]+1:end]...)
	return slices.Clip(out)
}
