package main

// verifyJSON is what the tests read of verify --json
// (badgerstore.Report).
type verifyJSON struct {
	Index    string   `json:"index"`
	Records  int64    `json:"records"`
	Damage   []string `json:"damage"`
	Salvaged *int     `json:"salvaged"`
}
