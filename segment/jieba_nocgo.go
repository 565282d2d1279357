//go:build !cgo

package segment

import "github.com/neardup/neardup/dict"

// DefaultBackend is the backend New uses for "": jieba in cgo builds, gse
// otherwise.
const DefaultBackend = BackendGse

const jiebaAvailable = false

// Jieba is the cgo backend (cppjieba through gojieba). In this build, made
// without cgo, it cannot be constructed: NewJieba returns ErrUnavailable. The
// type and its methods exist so that callers compile either way.
type Jieba struct{}

// NewJieba returns ErrUnavailable: this build has no cgo.
func NewJieba(opts *Options) (*Jieba, error) { return nil, ErrUnavailable }

// Cut returns nil.
func (j *Jieba) Cut(text string) []string { return nil }

// ExtractWithWeight returns nothing.
func (j *Jieba) ExtractWithWeight(text string, n int) (words []string, weights []float64) {
	return nil, nil
}

// Close returns nil.
func (j *Jieba) Close() error { return nil }

// Paths returns the zero JiebaPaths.
func (j *Jieba) Paths() dict.JiebaPaths { return dict.JiebaPaths{} }
