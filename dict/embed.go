package dict

import _ "embed" // for go:embed

// The embedded files are strings, not byte slices, so that no caller can
// modify them; the []byte accessors return copies.
var (
	//go:embed data/jieba.dict.utf8
	jiebaDict string
	//go:embed data/hmm_model.utf8
	hmmModel string
	//go:embed data/idf.utf8
	zhIDF string
	//go:embed data/stop_words.utf8
	zhStopWords string
	//go:embed data/en_idf.utf8
	enIDF string
	//go:embed data/en_stop_words.utf8
	enStopWords string
)

// JiebaDict returns a copy of jieba.dict.utf8, cppjieba's Chinese
// dictionary: one "word frequency tag" line per word.
func JiebaDict() []byte { return []byte(jiebaDict) }

// JiebaDictText returns jieba.dict.utf8 as a string without copying it.
func JiebaDictText() string { return jiebaDict }

// HMMModel returns a copy of hmm_model.utf8, cppjieba's HMM model for
// words that are not in the dictionary.
func HMMModel() []byte { return []byte(hmmModel) }

// HMMModelText returns hmm_model.utf8 as a string without copying it.
func HMMModelText() string { return hmmModel }

// ZhIDF returns a copy of idf.utf8, cppjieba's Chinese IDF table: one
// "word idf" line per word.
func ZhIDF() []byte { return []byte(zhIDF) }

// ZhIDFText returns idf.utf8 as a string without copying it.
func ZhIDFText() string { return zhIDF }

// ZhStopWords returns a copy of stop_words.utf8, cppjieba's stop-word list
// (Chinese, English and punctuation), one word a line.
func ZhStopWords() []byte { return []byte(zhStopWords) }

// ZhStopWordsText returns stop_words.utf8 as a string without copying it.
func ZhStopWordsText() string { return zhStopWords }

// EnIDF returns a copy of en_idf.utf8, the English IDF table made by
// dict/gen/enidf: one "word idf" line per word.
func EnIDF() []byte { return []byte(enIDF) }

// EnStopWords returns a copy of en_stop_words.utf8, the English stop-word
// list made by dict/gen/enidf, one word a line.
func EnStopWords() []byte { return []byte(enStopWords) }
