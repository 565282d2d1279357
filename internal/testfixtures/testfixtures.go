// Package testfixtures holds what the tests of several packages share:
// one analyzer per segmentation backend, loaded once per test binary
// (loading the dictionaries takes a second or two). The root package's
// own tests cannot import it (it imports the root package) and keep
// theirs.
package testfixtures

import (
	"sync"
	"testing"

	"github.com/neardup/neardup"
)

// analyzers caches one default analyzer per backend.
var analyzers sync.Map // backend → *neardup.Analyzer

// Analyzer returns the default analyzer of backend ("" for the build's
// default), shared by every test of the binary. Tests must not close it.
func Analyzer(t testing.TB, backend string) *neardup.Analyzer {
	t.Helper()
	if a, ok := analyzers.Load(backend); ok {
		return a.(*neardup.Analyzer)
	}
	a, err := neardup.NewAnalyzer(&neardup.Options{Segmenter: backend})
	if err != nil {
		t.Fatalf("NewAnalyzer(%q): %v", backend, err)
	}
	actual, loaded := analyzers.LoadOrStore(backend, a)
	if loaded {
		a.Close()
	}
	return actual.(*neardup.Analyzer)
}
