//go:build !(gojieba && cgo)

package segment

import "github.com/neardup/neardup/dict"

const gojiebaAvailable = false

// Gojieba is the gojieba backend (cppjieba through cgo), compiled in only
// with the gojieba build tag and cgo (go build -tags gojieba). In this
// build NewGojieba returns ErrUnavailable; the type and its methods exist
// so that callers compile either way.
type Gojieba struct{}

// NewGojieba returns ErrUnavailable: this build has no gojieba.
func NewGojieba(opts *Options) (*Gojieba, error) { return nil, ErrUnavailable }

// Cut returns nil.
func (j *Gojieba) Cut(text string) []string { return nil }

// ExtractWithWeight returns nothing.
func (j *Gojieba) ExtractWithWeight(text string, n int) (words []string, weights []float64) {
	return nil, nil
}

// Close returns nil.
func (j *Gojieba) Close() error { return nil }

// Paths returns the zero JiebaPaths.
func (j *Gojieba) Paths() dict.JiebaPaths { return dict.JiebaPaths{} }
