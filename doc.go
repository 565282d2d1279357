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
// The rest of the package runs the pipeline over corpora read by an
// input.Reader (package input reads articles from JSONL, text and HTML
// files, directories, gzip and standard input, detects their encoding and
// reports bad records with file, line and field): Dedup decides, in input
// order and in parallel, which records duplicate an earlier one, against
// an index.Index or index.Memory, and resumes interrupted jobs; Evaluate
// measures precision and recall against labelled pairs.
package neardup
