// Package tfidf picks the keywords of a segmented text: it drops stop
// words, punctuation, numbers and one-rune CJK tokens, weights each
// remaining word by term frequency × inverse document frequency and keeps
// the heaviest N.
package tfidf
