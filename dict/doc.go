// Package dict holds the dictionaries neardup segments and weighs words
// with, embedded in the binary, and the code to read and build them.
//
// Embedded files (see README.md for provenance and licences):
//
//   - jieba.dict.utf8, hmm_model.utf8, idf.utf8, stop_words.utf8: the
//     Chinese dictionary, HMM model, IDF table and stop-word list of
//     cppjieba (MIT), byte for byte as shipped with gojieba v1.4.7;
//   - en_idf.utf8: an English IDF table, and en_stop_words.utf8: an English
//     stop-word list, both made by dict/gen/enidf from public-domain and
//     freely redistributable English corpora;
//   - opencc/*.txt: seven of OpenCC's text dictionaries (Apache-2.0), the
//     tables segment.TradFold folds traditional Chinese to simplified with
//     (OpenCCText, ParseOpenCC).
//
// Nothing is parsed until asked: DefaultIDF and DefaultStopWords parse the
// embedded text on every call, so call them once and share the result;
// *IDF and StopWords are read-only after construction and safe for
// concurrent use. The raw bytes are available (JiebaDict, ZhIDF, …) for
// hashing into an analyzer ID and for segmenters that load a dictionary
// from memory; MaterializeJieba writes the files gojieba needs to disk.
package dict
