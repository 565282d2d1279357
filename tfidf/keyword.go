package tfidf

// Keyword is a word and its TF-IDF weight.
type Keyword struct {
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
}
