// Package neardup finds near-duplicate Chinese and English articles.
//
// An Analyzer turns one article into a 64-bit SimHash fingerprint built
// from its TF-IDF keywords:
//
//	normalise (segment.Normalize: NFKC, lower case, no zero-width runes)
//	→ segment (gojieba, or gse in cgo-free builds)
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
package neardup
