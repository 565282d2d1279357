// Package tfidf picks the keywords of a segmented text: it drops stop
// words, punctuation, numbers and one-rune CJK tokens, weights each
// remaining word by sublinear term frequency (1 + ln count) × inverse
// document frequency and keeps the heaviest N.
package tfidf
