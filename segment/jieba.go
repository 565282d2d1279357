package segment

import (
	"sync"
	"unicode/utf8"
)

// Jieba is the default backend: cppjieba's mixed segmentation (MixSegment,
// the cut gojieba makes with HMM on) in pure Go, over the embedded jieba
// dictionary and HMM model. It gives the same tokens as gojieba v1.4.7,
// token for token (checked on the shared corpora in the gojieba build,
// TestJiebaIdentity), so it has gojieba's backend name, "jieba", and an
// analyzer made with it has the same ID and fingerprints as one made with
// gojieba.
//
// Han runs are cut as cppjieba cuts a sentence: the dictionary's words
// at every position form a DAG; the route of the greatest sum of weights
// (log(freq/total), correctly rounded as glibc's log gives them; a
// character that is not a word weighs the least weight of the dictionary)
// is taken, ties to the first candidate found from the right, the
// shorter word first; and each stretch of the route's single characters
// that are not one-character user words is re-cut by the HMM (Viterbi
// over states B, E, M, S), which recovers words outside the dictionary,
// names above all ("刘玮" instead of "刘" "玮").
//
// A Jieba is safe for concurrent use; Cut reuses buffers from a pool and
// AppendCut allocates nothing in the steady state. It holds no resources
// but memory: Close does nothing.
type Jieba struct {
	dict *jiebaDict
	hmm  *hmmModel
	kw   *keywordTables // nil with Options.CutOnly
	pool sync.Pool      // of *jiebaScratch
}

// NewJieba builds the jieba backend from the embedded dictionary and HMM
// model and opts.UserDict, if set (about 0.2 s); unless opts.CutOnly, it
// also loads cppjieba's keyword extractor tables (the IDF table and stop
// words), which ExtractWithWeight uses. opts.CacheDir is not used.
func NewJieba(opts *Options) (*Jieba, error) {
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
	j := &Jieba{}
	var wg sync.WaitGroup
	var hmmErr, kwErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		j.hmm, hmmErr = loadHMMModel()
		if hmmErr == nil && !opts.CutOnly {
			j.kw, kwErr = loadKeywordTables()
		}
	}()
	d, err := loadJiebaDict(user)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if hmmErr != nil {
		return nil, hmmErr
	}
	if kwErr != nil {
		return nil, kwErr
	}
	j.dict = d
	return j, nil
}

// Close does nothing and returns nil: a Jieba holds only memory. It
// exists so that a Jieba can stand where gojieba's backend stood.
func (j *Jieba) Close() error { return nil }

// Cut cuts normalised text into words; see the package documentation for
// exactly what it returns. The words are substrings of text.
func (j *Jieba) Cut(text string) []string {
	s := j.scratch()
	s.toks = j.appendCut(s, s.toks[:0], text)
	out := make([]string, len(s.toks))
	copy(out, s.toks)
	j.pool.Put(s)
	return out
}

// AppendCut appends the words Cut returns for text to dst and returns the
// extended slice. The words are substrings of text: with a dst of enough
// capacity it allocates nothing.
func (j *Jieba) AppendCut(dst []string, text string) []string {
	s := j.scratch()
	dst = j.appendCut(s, dst, text)
	j.pool.Put(s)
	return dst
}

func (j *Jieba) scratch() *jiebaScratch {
	if s, ok := j.pool.Get().(*jiebaScratch); ok {
		return s
	}
	return new(jiebaScratch)
}

// jiebaScratch holds the buffers of one cut.
type jiebaScratch struct {
	runes []rune
	offs  []int32   // byte offset of each rune in the text cut, and of its end
	best  []float64 // by position: the weight of the best route from there
	route []int32   // by position: the length in runes of the route's next word
	spans []span    // the words of the piece cut: rune ranges
	vw    []float64 // Viterbi weights, 4 a position
	vp    []int8    // Viterbi back pointers, 4 a position
	toks  []string  // Cut's result before it is copied
}

// span is the rune range [lo, hi) of one word.
type span struct{ lo, hi int32 }

// appendCut implements Cut: every non-Han word run whole, every Han run
// cut by the mixed segmentation. Cutting each Han run apart gives what
// cppjieba gives for them joined by "\n": a "\n" is one of its
// separators, and it cuts between separators independently.
func (j *Jieba) appendCut(s *jiebaScratch, dst []string, text string) []string {
	for i := 0; i < len(text); {
		start, end, han := nextRun(text, i)
		if start < 0 {
			break
		}
		i = end
		if !han {
			dst = append(dst, text[start:end])
			continue
		}
		run := text[start:end]
		s.decode(run)
		s.spans = j.mixCut(s, s.spans[:0], 0, int32(len(s.runes)))
		for _, sp := range s.spans {
			dst = append(dst, run[s.offs[sp.lo]:s.offs[sp.hi]])
		}
	}
	return dst
}

// decode fills s.runes and s.offs with the runes of text and their byte
// offsets. text must be valid UTF-8 (Cut's runs and ExtractWithWeight's
// text are), on which cppjieba's decoder and Go's agree.
func (s *jiebaScratch) decode(text string) {
	runes, offs := s.runes[:0], s.offs[:0]
	for i := 0; i < len(text); {
		c := text[i]
		var r rune
		size := 1
		switch {
		case c < utf8.RuneSelf:
			r = rune(c)
		case c >= 0xe0 && c < 0xf0 && i+2 < len(text):
			r, size = rune(c&0x0f)<<12|rune(text[i+1]&0x3f)<<6|rune(text[i+2]&0x3f), 3
		default:
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		runes = append(runes, r)
		offs = append(offs, int32(i))
		i += size
	}
	offs = append(offs, int32(len(text)))
	s.runes, s.offs = runes, offs
}

// mixCut appends the words of s.runes[lo:hi] to spans, as
// MixSegment::Cut(begin, end, res, hmm=true) cuts a range: the
// maximum-probability route, its stretches of single characters (other
// than the user dictionary's one-character words) re-cut by the HMM.
func (j *Jieba) mixCut(s *jiebaScratch, spans []span, lo, hi int32) []span {
	j.route(s, lo, hi)
	route := s.route
	for i := lo; i < hi; {
		n := route[i-lo]
		if n > 1 || j.userSingle(s.runes[i]) {
			spans = append(spans, span{i, i + n})
			i += n
			continue
		}
		k := i + 1
		for k < hi && route[k-lo] == 1 && !j.userSingle(s.runes[k]) {
			k++
		}
		spans = j.hmmCut(s, spans, i, k)
		i = k
	}
	return spans
}

func (j *Jieba) userSingle(r rune) bool {
	return j.dict.userSingle != nil && j.dict.userSingle[r]
}

// route fills s.route[0:hi-lo] with MPSegment's maximum-probability route
// over s.runes[lo:hi] (Trie::Find, CalcDP and CutByDag in one pass from
// the right): at each position the candidates are the word of one rune
// (or the rune alone, at the dictionary's least weight) and then every
// longer dictionary word starting there, shortest first; a candidate
// replaces the best so far only if its route weighs strictly more.
func (j *Jieba) route(s *jiebaScratch, lo, hi int32) {
	n := int(hi - lo)
	s.best = grow(s.best, n+1)
	s.route = grow(s.route, n)
	best, route := s.best[:n+1], s.route[:n]
	runes := s.runes[lo:hi]
	t := j.dict.trie
	minW := j.dict.minWeight
	best[n] = 0
	for i := n - 1; i >= 0; i-- {
		node := t.child(0, runes[i])
		w := minW
		if node != 0 && t.weight[node] != noWord {
			w = t.weight[node]
		}
		bw := best[i+1] + w // > minDouble: always taken
		bl := int32(1)
		for k := i + 1; k < n && k-i+1 <= maxWordLen && node != 0 && t.hasKids[node]; k++ {
			node = t.child(node, runes[k])
			if node == 0 {
				break
			}
			if w := t.weight[node]; w != noWord {
				if v := best[k+1] + w; v > bw {
					bw, bl = v, int32(k-i+1)
				}
			}
		}
		best[i], route[i] = bw, bl
	}
	// Only the lengths at word starts matter; route[i] is the length of
	// the word starting at i when i is one.
}

// hmmCut appends the words of s.runes[lo:hi], a stretch of single
// characters, as HMMSegment::Cut cuts a range: an ASCII character starts a
// word of its own, which takes in the letters and digits after a letter
// ("abc12") or the digits and dots after a digit ("3.14"); each run of
// other characters is cut by Viterbi.
func (j *Jieba) hmmCut(s *jiebaScratch, spans []span, lo, hi int32) []span {
	runes := s.runes
	left := lo
	right := lo
	for right < hi {
		r := runes[right]
		if r >= 0x80 {
			right++
			continue
		}
		if left != right {
			spans = j.viterbi(s, spans, left, right)
		}
		left = right
		right++
		switch {
		case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
			for right < hi && isASCIIAlnum(runes[right]) {
				right++
			}
		case '0' <= r && r <= '9':
			for right < hi && ('0' <= runes[right] && runes[right] <= '9' || runes[right] == '.') {
				right++
			}
		}
		spans = append(spans, span{left, right})
		left = right
	}
	if left != right {
		spans = j.viterbi(s, spans, left, right)
	}
	return spans
}

func isASCIIAlnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// viterbi appends the words of s.runes[lo:hi] by HMMSegment::Viterbi and
// InternalCut: the most probable sequence of states, a word ending at
// every E or S. The sums are formed in cppjieba's order, (weight +
// transition) + emission; a state is replaced only by a strictly greater
// weight, from the previous states in the order B, E, M, S, with E the
// back pointer when none beats minDouble; at the end E wins a tie with S.
func (j *Jieba) viterbi(s *jiebaScratch, spans []span, lo, hi int32) []span {
	m := j.hmm
	x := int(hi - lo)
	s.vw = grow(s.vw, 4*x)
	s.vp = grow(s.vp, 4*x)
	vw, vp := s.vw[:4*x], s.vp[:4*x]
	runes := s.runes[lo:hi]
	em := m.emission(runes[0])
	for y := range 4 {
		vw[y] = m.start[y] + em[y]
		vp[y] = -1
	}
	for i := 1; i < x; i++ {
		em := m.emission(runes[i])
		prev := (*[4]float64)(vw[4*(i-1) : 4*i])
		cur := (*[4]float64)(vw[4*i : 4*i+4])
		back := (*[4]int8)(vp[4*i : 4*i+4])
		for y := range 4 {
			bw, bp := minDouble, int8(stateE)
			e := em[y]
			for py := range 4 {
				if v := prev[py] + m.trans[py][y] + e; v > bw {
					bw, bp = v, int8(py)
				}
			}
			cur[y], back[y] = bw, bp
		}
	}
	stat := int8(stateS)
	if vw[4*(x-1)+stateE] >= vw[4*(x-1)+stateS] {
		stat = stateE
	}
	// Walk back, marking word ends in vp's first column (no longer needed
	// past each step), then emit forward.
	for i := x - 1; i >= 0; i-- {
		next := vp[4*i+int(stat)]
		vp[4*i] = stat
		stat = next
	}
	start := lo
	for i := range x {
		if vp[4*i]%2 == 1 { // E or S ends a word
			spans = append(spans, span{start, lo + int32(i) + 1})
			start = lo + int32(i) + 1
		}
	}
	return spans
}

// grow returns b with length at least n, reusing its array when it can.
func grow[T any](b []T, n int) []T {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]T, n, n+n/4+16)
}

// separators are cppjieba's SPECIAL_SEPARATORS, at which PreFilter splits
// a sentence: " ", "\t", "\n", "，" (U+FF0C) and "。" (U+3002).
func isSeparator(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\uff0c' || r == '\u3002'
}

// cutSentence cuts any valid UTF-8 text as MixSegment::Cut (HMM on) cuts
// a sentence, with no run splitting: PreFilter's pieces (each separator a
// piece of its own, and the text between separators) cut one by one. It
// leaves the words' byte ranges in s.spans as rune ranges over s.runes,
// whose byte offsets are in s.offs.
func (j *Jieba) cutSentence(s *jiebaScratch, text string) {
	s.decode(text)
	spans := s.spans[:0]
	n := int32(len(s.runes))
	for i := int32(0); i < n; {
		k := i
		for k < n && !isSeparator(s.runes[k]) {
			k++
		}
		if k == i {
			k++ // a separator alone
		}
		spans = j.mixCut(s, spans, i, k)
		i = k
	}
	s.spans = spans
}
