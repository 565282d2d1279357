// Package testfixtures holds what the tests of several packages share:
// one analyzer per set of options, loaded once per test binary (loading
// the dictionaries takes a second or two). The root package's own tests
// cannot import it (it imports the root package) and keep theirs.
package testfixtures

import (
	"sync"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/segment"
)

// Analyzer returns the default analyzer of backend ("" for the build's
// default), shared by every test of the binary. Tests must not close it.
func Analyzer(t testing.TB, backend string) *neardup.Analyzer {
	t.Helper()
	a, err := Analyzers.Get(&neardup.Options{Segmenter: backend})
	if err != nil {
		t.Fatalf("NewAnalyzer(%q): %v", backend, err)
	}
	return a
}

// Analyzers is the test binary's pool of analyzers.
var Analyzers = &Pool{}

// A Pool lends analyzers: one per set of options that names no file,
// made on first use and kept for the life of the test binary (an
// Analyzer is safe for concurrent use), and a new one, closed by Put, for
// options that name a file (an IDF table, stop words or a user
// dictionary: tests write those into temporary directories, and each
// would be kept for nothing). The command's tests hand it to the runs
// they make in-process.
type Pool struct {
	entries sync.Map // neardup.Options → *poolEntry
	kept    sync.Map // *neardup.Analyzer → true
}

type poolEntry struct {
	once sync.Once
	a    *neardup.Analyzer
	err  error
}

// Get returns the analyzer of o.
func (p *Pool) Get(o *neardup.Options) (*neardup.Analyzer, error) {
	var key neardup.Options
	if o != nil {
		key = *o
	}
	if key.Segmenter == "" {
		key.Segmenter = segment.DefaultBackend
	}
	if key.IDFFile != "" || key.StopWordsFile != "" || key.UserDictFile != "" {
		return neardup.NewAnalyzer(o)
	}
	e, _ := p.entries.LoadOrStore(key, &poolEntry{})
	entry := e.(*poolEntry)
	entry.once.Do(func() {
		entry.a, entry.err = neardup.NewAnalyzer(&key)
		if entry.err == nil {
			p.kept.Store(entry.a, true)
		}
	})
	return entry.a, entry.err
}

// Put takes back an analyzer Get returned: it closes those it does not
// keep.
func (p *Pool) Put(a *neardup.Analyzer) {
	if _, ok := p.kept.Load(a); !ok {
		a.Close()
	}
}
