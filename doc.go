// Package neardup finds near-duplicate Chinese and English articles.
//
// An Analyzer turns one article into a 64-bit SimHash fingerprint built
// from its TF-IDF keywords:
//
//	normalise (segment.Normalize: NFKC, lower case, no zero-width runes)
//	→ segment (cppjieba's mixed segmentation, in pure Go)
//	→ keywords (tfidf: stop words, punctuation, numbers and one-rune
//	  tokens dropped; count × IDF; unknown words get the table's median IDF)
//	→ simhash.Sum over XXH64 of each keyword.
//
// Besides the fingerprint an Analysis carries the weighted keywords (to
// explain matches), an XXH64 hash of the normalised text (the exact
// duplicate path) and a MinHash sketch of its character 5-grams, which the
// index uses to confirm SimHash candidates by their content.
//
// Fingerprints are only comparable when made by the same analyzer
// configuration; Analyzer.ID names it, and indexes refuse to mix IDs.
//
// The pipeline's other stages are packages of their own, each imported
// only by those after it:
//
//	input   reading articles: JSONL, text, HTML, directories, gzip, GBK;
//	        bad records reported with file, line and field
//	neardup this package: text → fingerprint, keywords, content hash, sketches
//	        (with segment, dict, tfidf, simhash, minhash)
//	index   the archive: layout, candidates, confirmation, records, over a
//	        Store (badgerstore, memstore, redisstore)
//	dedup   the decisions: dedup.Run over a corpus, dedup.Check for one
//	        article, their reports
//	eval    precision and recall against labelled pairs (eval.Evaluate)
//	serve   the HTTP service and the editors' page
package neardup
