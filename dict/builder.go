package dict

import (
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// IDFBuilder counts document frequencies over a stream of documents and
// writes the resulting IDF table. The IDF of a word is
//
//	idf = ln(N / df)
//
// where N is the number of documents added and df the number of those
// documents that contain the word. An IDFBuilder is not safe for concurrent
// use.
type IDFBuilder struct {
	// MinDF leaves words that occur in fewer than MinDF documents out of
	// WriteTo and Table. Zero or one keeps every word.
	MinDF int

	docs  int
	words map[string]*dfCount
}

type dfCount struct {
	df      int
	lastDoc int // the last document (1-based) that counted this word
}

// NewIDFBuilder returns an empty builder.
func NewIDFBuilder() *IDFBuilder {
	return &IDFBuilder{words: make(map[string]*dfCount)}
}

// Add counts one document: every distinct word in words adds one to that
// word's document frequency, however often it occurs. Words the table format
// cannot hold are ignored: the empty string, words containing a space, tab,
// "\r" or "\n", and words that are not valid UTF-8. The words are copied,
// so words may alias a reused buffer.
func (b *IDFBuilder) Add(words []string) {
	b.docs++
	for _, w := range words {
		if !storable(w) {
			continue
		}
		c, ok := b.words[w]
		if !ok {
			b.words[strings.Clone(w)] = &dfCount{df: 1, lastDoc: b.docs}
			continue
		}
		if c.lastDoc != b.docs {
			c.df++
			c.lastDoc = b.docs
		}
	}
}

// Docs returns the number of documents added.
func (b *IDFBuilder) Docs() int { return b.docs }

// DF returns the number of documents added so far that contain word.
func (b *IDFBuilder) DF(word string) int {
	if c, ok := b.words[word]; ok {
		return c.df
	}
	return 0
}

// idf returns ln(N/df).
func (b *IDFBuilder) idf(df int) float64 {
	return math.Log(float64(b.docs) / float64(df))
}

// Words returns the words with df >= MinDF, sorted by byte order.
func (b *IDFBuilder) Words() []string {
	words := make([]string, 0, len(b.words))
	for w, c := range b.words {
		if c.df >= b.MinDF {
			words = append(words, w)
		}
	}
	slices.Sort(words)
	return words
}

// WriteTo writes the table as "word idf" lines (the format LoadIDF reads),
// sorted by word in byte order, idf = ln(N/df) with six decimals, leaving
// out words with df < MinDF. The output depends only on the documents
// added, not on the order of words within them. It implements io.WriterTo.
func (b *IDFBuilder) WriteTo(w io.Writer) (int64, error) {
	return writeTable(w, b.Words(), func(buf []byte, word string) []byte {
		return strconv.AppendFloat(buf, b.idf(b.words[word].df), 'f', 6, 64)
	})
}

// Table returns the words with df >= MinDF as an IDF table, with
// full-precision values ln(N/df); nil if there are none.
func (b *IDFBuilder) Table() *IDF {
	m := make(map[string]float64)
	for w, c := range b.words {
		if c.df >= b.MinDF {
			m[w] = b.idf(c.df)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return newIDF(m)
}

// storable reports whether w can be a word of an IDF table file.
func storable(w string) bool {
	return w != "" && !strings.ContainsAny(w, " \t\r\n") && utf8.ValidString(w)
}

// AddTexts adds the words of every text of texts (read once, in the
// calling goroutine), which workers goroutines find with words (safe for
// concurrent use): the table does not depend on the order in which the
// documents are counted. A text words fails on is not counted; the first
// such error is returned once texts is read to its end.
func (b *IDFBuilder) AddTexts(texts iter.Seq[string], words func(string) ([]string, error), workers int) error {
	workers = max(1, workers)
	in := make(chan string, 4*workers)
	counts := make(chan []string, 4*workers)
	var wg sync.WaitGroup
	var first error
	var once sync.Once
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range in {
				ws, err := words(t)
				if err != nil {
					once.Do(func() { first = err })
					continue
				}
				counts <- ws
			}
		}()
	}
	counted := make(chan struct{})
	go func() {
		for ws := range counts {
			b.Add(ws)
		}
		close(counted)
	}()
	for t := range texts {
		in <- t
	}
	close(in)
	wg.Wait()
	close(counts)
	<-counted
	return first
}
