package main

import "github.com/neardup/neardup/index"

// statsJSON is what the tests read of stats --json (index.Stats with
// the index's name), decoded as a reader of the output would.
type statsJSON struct {
	Index   string              `json:"index"`
	Docs    int64               `json:"docs"`
	Cluster *index.ClusterStats `json:"cluster"`
	Text    *struct {
		Docs        int64 `json:"docs"`
		Bytes       int64 `json:"bytes"`
		StoredBytes int64 `json:"stored_bytes"`
	} `json:"text"`
}

// verifyJSON is what the tests read of verify --json
// (badgerstore.Report).
type verifyJSON struct {
	Index    string   `json:"index"`
	Records  int64    `json:"records"`
	Damage   []string `json:"damage"`
	Salvaged *int     `json:"salvaged"`
}
