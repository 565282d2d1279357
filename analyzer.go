package neardup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/dict"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/segment"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// ErrTooShort is returned by Analyze for a text with fewer than
// MinKeywords keywords: too short, or nothing but stop words, numbers and
// punctuation. Such a text has no meaningful fingerprint; giving it one
// would make every short text match every other.
var ErrTooShort = errors.New("too few keywords to fingerprint")

// ErrEmpty is returned by Analyze for a text with nothing but white space
// and invisible characters. It wraps ErrTooShort.
var ErrEmpty = fmt.Errorf("empty text: %w", ErrTooShort)

// MinKeywords is the fewest keywords a text needs for a fingerprint in
// the default mode.
const MinKeywords = 4

// Options configure an Analyzer. The zero value (or nil) uses the embedded
// dictionaries, the default segmenter and the adaptive keyword count.
type Options struct {
	// Segmenter is "jieba", "gse" or "" for segment.DefaultBackend
	// (jieba); "gojieba" in builds with the gojieba tag, which cuts as
	// jieba does and so gives the same analyzer ID.
	Segmenter string
	// IDFFile replaces the embedded IDF table (jieba "word idf" lines).
	IDFFile string
	// StopWordsFile replaces the embedded stop-word lists (a word a line).
	StopWordsFile string
	// UserDictFile adds words to the segmenter's dictionary (jieba format).
	UserDictFile string
	// TopN fixes the number of keywords; 0 adapts it to the text's length
	// (tfidf.AdaptiveN). Compat mode requires it.
	TopN int
	// Compat reproduces yanyiwu/simhash and gosimhash fingerprints bit for
	// bit: cppjieba's keyword extractor (mean-IDF fallback), reproduced
	// in Go by the jieba backend (or cppjieba's own with gojieba), lookup3
	// hashlittle2 per keyword. It needs the jieba (or gojieba) backend and
	// takes the text as given (no normalisation).
	Compat bool
	// CacheDir is where the jieba backend materialises its dictionary
	// files; "" is the per-user cache directory.
	CacheDir string
	// KeepTraditional leaves traditional Chinese as it is. By default a
	// text with traditional characters is folded to simplified Chinese
	// after normalisation (segment.TradFold, OpenCC's tables), so that a
	// traditional reprint of a simplified article gets its keywords,
	// fingerprint and sketch; the fold is part of the ID. With
	// KeepTraditional the analysis, and the ID, are those of neardup
	// before the fold, which an index built then asks for. Compat mode
	// never folds (gosimhash does not).
	KeepTraditional bool
}

// Analysis is what Analyze finds in one text.
type Analysis struct {
	Fingerprint simhash.Fingerprint
	// Keywords are the weighted keywords the fingerprint was made of,
	// heaviest first. Their words may be slices of the normalised text:
	// to keep a few of them for long without keeping the whole text
	// alive, copy them (strings.Clone), as the memory store does.
	Keywords []tfidf.Keyword
	// ContentHash is XXH64 of the normalised (and folded) text: equal for
	// texts that differ only in width, case, zero-width characters, white
	// space or (where OpenCC's conversion is exact) traditional and
	// simplified characters.
	ContentHash uint64
	// Sketch is a MinHash of the normalised (and folded) text's character
	// 5-grams.
	Sketch minhash.Sketch
	// Shingles is the number of distinct character 5-grams the Sketch is
	// of (minhash.NewCount), from which the archive estimates how much of
	// one text another contains.
	Shingles int
	// Long is the confirmation sketch of the same 5-grams, made in the
	// same pass (minhash.NewAll): the archive confirms candidates with it.
	Long minhash.Long
	// Words is the number of tokens the segmenter produced.
	Words int
	// Folded reports that the text had traditional characters that were
	// folded to simplified before the analysis (Options.KeepTraditional):
	// the keywords are words of the folded text.
	Folded bool
}

// An Analyzer fingerprints articles. It is safe for concurrent use.
type Analyzer struct {
	id      string
	backend string
	seg     segment.Segmenter
	fold    segment.Folder   // nil: none
	jieba   keywordExtractor // compat mode only
	ex      tfidf.Extractor
	compat  bool
	topN    int
	closer  io.Closer
	closed  atomic.Bool
	scratch sync.Pool // of *scratch
}

// scratch is the working memory of one Analyze, kept between calls in
// Analyzer.scratch so that an analysis allocates only what it returns
// (and the normalised text).
type scratch struct {
	toks []string // the cut's tokens, substrings of the normalised text
	kw   tfidf.Scratch
	mh   minhash.Scratch
}

// maxKeptTokens bounds the token slice a scratch keeps between calls.
const maxKeptTokens = 1 << 16

// FormatVersion changes whenever the analysis changes in a way that moves
// fingerprints or sketches (normalisation, candidate rules, AdaptiveN,
// hashes). Version 2: the sketch hashes shingles with ShingleHash.
// It is part of every analyzer ID. The traditional-to-simplified fold
// did not change it: it is a setting of its own (see ID), so that
// KeepTraditional gives the IDs of version 2 before the fold.
const FormatVersion = 2

// FoldSuffix is the part of an analyzer ID that says the analyzer folds
// traditional Chinese to simplified: "nd2-jieba-t2s-…". An ID without it
// names an analyzer without the fold (Options.KeepTraditional, or neardup
// before the fold).
const FoldSuffix = "-t2s"

// NewAnalyzer loads the dictionaries and the segmenter. Loading the
// embedded dictionaries takes about a second; reuse one Analyzer.
func NewAnalyzer(opts *Options) (*Analyzer, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	backend := o.Segmenter
	if backend == "" {
		backend = segment.DefaultBackend
	}
	// gojieba cuts exactly as jieba does (segment.TestJiebaIdentity):
	// one analyzer ID for both, so that their archives are one.
	idBackend := backend
	if backend == segment.BackendGojieba {
		idBackend = segment.BackendJieba
	}
	if o.Compat {
		if idBackend != segment.BackendJieba {
			return nil, fmt.Errorf("compat mode needs the jieba segmenter, not %q", backend)
		}
		if o.TopN <= 0 {
			return nil, errors.New("compat mode needs a keyword count (TopN > 0), as gosimhash's topN")
		}
	}
	if o.TopN < 0 {
		return nil, fmt.Errorf("keyword count %d: must be 0 (adaptive) or positive", o.TopN)
	}

	idh := sha256.New()
	fmt.Fprintf(idh, "neardup analyzer v%d\nbackend %s\nsegment %s\ncompat %t\ntopn %d\nminn %d maxn %d\n",
		FormatVersion, idBackend, segment.Version, o.Compat, o.TopN, tfidf.MinN, tfidf.MaxN)

	// Segmenter dictionary: the embedded jieba files, plus a user dict.
	idh.Write(dict.JiebaDict())
	idh.Write(dict.HMMModel())
	if o.UserDictFile != "" {
		b, err := os.ReadFile(o.UserDictFile)
		if err != nil {
			return nil, fmt.Errorf("user dictionary: %w", err)
		}
		fmt.Fprintf(idh, "userdict %d\n", len(b))
		idh.Write(b)
	}

	// The segmenter loads while the tables below are parsed. Only compat
	// mode extracts keywords with the segmenter (cppjieba's extractor).
	type segResult struct {
		seg segment.Segmenter
		err error
	}
	segmenter := make(chan segResult, 1)
	var fold segment.Folder
	if !o.Compat && !o.KeepTraditional {
		// The tables are parsed when the first traditional text arrives.
		f, err := segment.NewTradFold()
		if err != nil {
			return nil, err
		}
		fold = f
	}
	go func() {
		seg, err := segment.New(backend, &segment.Options{UserDict: o.UserDictFile, CacheDir: o.CacheDir, CutOnly: !o.Compat, Fold: fold})
		segmenter <- segResult{seg, err}
	}()
	// fail waits for the segmenter and frees it, for an early return.
	fail := func(err error) (*Analyzer, error) {
		if r := <-segmenter; r.err == nil {
			if c, ok := r.seg.(io.Closer); ok {
				c.Close()
			}
		}
		return nil, err
	}

	a := &Analyzer{backend: backend, compat: o.Compat, topN: o.TopN, fold: fold}
	var foldID string
	if fold != nil {
		foldID = FoldSuffix
	}
	if o.Compat {
		// cppjieba's extractor reads its own IDF and stop-word files.
		idh.Write(dict.ZhIDF())
		idh.Write(dict.ZhStopWords())
	} else {
		lex, err := loadLexicon(o.IDFFile, o.StopWordsFile, idh)
		if err != nil {
			return fail(err)
		}
		a.ex = tfidf.Extractor{Lookup: lex.LookupAll, TopN: o.TopN}
	}

	res := <-segmenter
	if res.err != nil {
		return nil, res.err
	}
	seg := res.seg
	a.seg = seg
	if c, ok := seg.(io.Closer); ok {
		a.closer = c
	}
	if o.Compat {
		j, ok := seg.(keywordExtractor)
		if !ok {
			a.Close()
			return nil, fmt.Errorf("compat mode: segmenter %q has no cppjieba keyword extractor", backend)
		}
		a.jieba = j
	}
	if a.fold != nil {
		// Last, so that the hash without it is the ID before the fold.
		fmt.Fprintf(idh, "fold %s\n", segment.TradFoldVersion)
	}
	a.id = "nd" + strconv.Itoa(FormatVersion) + "-" + idBackend + foldID + "-" + hex.EncodeToString(idh.Sum(nil)[:8])
	if o.Compat {
		a.id = "nd" + strconv.Itoa(FormatVersion) + "-compat" + strconv.Itoa(o.TopN) + "-" + hex.EncodeToString(idh.Sum(nil)[:8])
	}
	return a, nil
}

// keywordExtractor is cppjieba's KeywordExtractor, which compat mode
// uses: *segment.Jieba's, or *segment.Gojieba's in the gojieba build.
type keywordExtractor interface {
	ExtractWithWeight(text string, n int) (words []string, weights []float64)
}

// loadLexicon loads the IDF table and the stop words (the embedded ones
// for empty paths) into one lexicon, hashing their contents into idh.
func loadLexicon(idfPath, stopPath string, idh io.Writer) (*dict.Lexicon, error) {
	var idfData []byte
	if idfPath == "" {
		idh.Write(dict.ZhIDF())
		idh.Write(dict.EnIDF())
	} else {
		b, err := os.ReadFile(idfPath)
		if err != nil {
			return nil, fmt.Errorf("IDF table: %w", err)
		}
		fmt.Fprintf(idh, "idf %d\n", len(b))
		idh.Write(b)
		idfData = b
	}
	stop, err := loadStopWords(stopPath, idh)
	if err != nil {
		return nil, err
	}
	if idfPath == "" {
		return dict.DefaultLexicon(stop)
	}
	t, err := dict.LoadIDF(bytes.NewReader(idfData))
	if err != nil {
		return nil, fmt.Errorf("IDF table %s: %w", idfPath, err)
	}
	return dict.NewLexicon(t, stop), nil
}

func loadStopWords(path string, idh io.Writer) (dict.StopWords, error) {
	if path == "" {
		idh.Write(dict.ZhStopWords())
		idh.Write(dict.EnStopWords())
		return dict.DefaultStopWords()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("stop words: %w", err)
	}
	fmt.Fprintf(idh, "stop %d\n", len(b))
	idh.Write(b)
	s, err := dict.LoadStopWords(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("stop words %s: %w", path, err)
	}
	return s, nil
}

// ID names the analyzer configuration: backend, dictionaries, keyword
// rule, hash, format version and the traditional-to-simplified fold
// (FoldSuffix). Two analyzers with the same ID make the same fingerprint
// of every text.
func (a *Analyzer) ID() string { return a.id }

// Folds reports whether the analyzer folds traditional Chinese to
// simplified (not with Options.KeepTraditional or Compat).
func (a *Analyzer) Folds() bool { return a.fold != nil }

// Backend is the segmenter's name.
func (a *Analyzer) Backend() string { return a.backend }

// Segmenter returns the analyzer's segmenter, for measuring it alone.
func (a *Analyzer) Segmenter() segment.Segmenter { return a.seg }

// ErrClosed is returned by Analyze after Close.
var ErrClosed = errors.New("analyzer is closed")

// Close frees the segmenter's native resources. Analyze fails with
// ErrClosed afterwards; Close must not run concurrently with Analyze.
func (a *Analyzer) Close() error {
	if a.closed.Swap(true) {
		return nil
	}
	if a.closer != nil {
		return a.closer.Close()
	}
	return nil
}

// Analyze fingerprints one article. A text with fewer than MinKeywords
// keywords gets ErrTooShort (ErrEmpty when it is blank).
func (a *Analyzer) Analyze(text string) (*Analysis, error) {
	if a.closed.Load() {
		return nil, ErrClosed
	}
	norm := segment.Normalize(text)
	if norm == "" {
		return nil, ErrEmpty
	}
	folded := false
	if a.fold != nil {
		f, err := a.fold.Fold(norm)
		if err != nil {
			return nil, err
		}
		folded = f != norm
		norm = f
	}
	r := &Analysis{
		Folded:      folded,
		ContentHash: xxhash.Sum64String(norm),
	}
	s, _ := a.scratch.Get().(*scratch)
	if s == nil {
		s = new(scratch)
	}
	defer a.scratch.Put(s)
	r.Sketch, r.Long, r.Shingles = minhash.NewAllScratch(norm, &s.mh)
	if a.compat {
		words, weights := a.jieba.ExtractWithWeight(text, a.topN)
		if len(words) == 0 {
			return nil, ErrTooShort
		}
		feats := make([]simhash.Feature, len(words))
		r.Keywords = make([]tfidf.Keyword, len(words))
		for i, w := range words {
			feats[i] = simhash.Feature{Hash: simhash.HashLookup3(w), Weight: weights[i]}
			r.Keywords[i] = tfidf.Keyword{Word: w, Weight: weights[i]}
		}
		r.Fingerprint = simhash.Sum(feats)
		return r, nil
	}
	toks := s.cut(a.seg, norm)
	r.Words = len(toks)
	r.Keywords = a.ex.ExtractScratch(toks, &s.kw)
	s.release()
	if len(r.Keywords) < MinKeywords {
		noun := "keywords"
		if len(r.Keywords) == 1 {
			noun = "keyword"
		}
		return nil, fmt.Errorf("%w: %d %s, need %d", ErrTooShort, len(r.Keywords), noun, MinKeywords)
	}
	var buf [tfidf.MaxN]simhash.Feature
	feats := buf[:0]
	for _, k := range r.Keywords {
		feats = append(feats, simhash.Feature{Hash: simhash.HashWord(k.Word), Weight: k.Weight})
	}
	r.Fingerprint = simhash.Sum(feats)
	return r, nil
}

// appendCutter is a segmenter that can append its tokens to a slice it
// is given: *segment.Jieba, whose AppendCut allocates nothing.
type appendCutter interface {
	AppendCut(dst []string, text string) []string
}

// cut cuts text with seg, into s.toks when seg is an appendCutter.
func (s *scratch) cut(seg segment.Segmenter, text string) []string {
	if c, ok := seg.(appendCutter); ok {
		s.toks = c.AppendCut(s.toks[:0], text)
		return s.toks
	}
	return seg.Cut(text)
}

// release lets go of the text the tokens are substrings of, and of a
// token slice too large to keep.
func (s *scratch) release() {
	if cap(s.toks) > maxKeptTokens {
		s.toks = nil
	}
	clear(s.toks)
}

// Words returns the candidate keywords of text as Analyze sees them,
// before IDF weights and stop words: the text normalised, folded when
// the analyzer folds, cut by its segmenter, and kept when
// tfidf.Candidate (at least two runes, a letter, not a number). An IDF
// table trained on them holds the words the analyzer looks up
// (neardup idf build). It is safe for concurrent use.
func (a *Analyzer) Words(text string) ([]string, error) {
	if a.closed.Load() {
		return nil, ErrClosed
	}
	norm, err := segment.NormalizeFold(text, a.fold)
	if err != nil {
		return nil, err
	}
	toks := a.seg.Cut(norm)
	kept := toks[:0]
	for _, w := range toks {
		if tfidf.Candidate(w) {
			kept = append(kept, w)
		}
	}
	return kept, nil
}
