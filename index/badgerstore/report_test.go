package badgerstore

import (
	"encoding/json"
	"errors"
	"testing"
)

// A Report's JSON is verify --json's: each damage a string, none an
// empty list (neardup verify writes its text).
func TestReportJSON(t *testing.T) {
	two := 2
	none := 0
	damage := []Damage{
		{File: "000001.sst", Block: 3, Err: errors.New("unreadable (a checksum or its structure does not match)")},
		{File: "value log", Block: -1, ID: "a/b", Err: errors.New("record kept in the value log: not salvaged")},
	}
	tests := []struct {
		name     string
		r        Report
		jsonText string
	}{
		{"whole", Report{Dir: "/x/idx", Tables: 1, Entries: 1234, Records: 1, Damage: []Damage{}},
			`{"index":"/x/idx","tables":1,"entries":1234,"records":1,"damage":[]}`},
		{"damaged", Report{Dir: "/x/idx", Tables: 2, Entries: 1, Records: 5, Damage: damage[:1]},
			`{"index":"/x/idx","tables":2,"entries":1,"records":5,"damage":["000001.sst block 3: unreadable (a checksum or its structure does not match)"]}`},
		{"salvaged", Report{Dir: "/x/idx", Tables: 0, Entries: 0, Records: 2, Damage: damage, Salvaged: &two, Into: "/x/new"},
			`{"index":"/x/idx","tables":0,"entries":0,"records":2,"damage":["000001.sst block 3: unreadable (a checksum or its structure does not match)","value log record \"a/b\": record kept in the value log: not salvaged"],"salvaged":2}`},
		{"salvaged nothing", Report{Dir: "d", Damage: []Damage{}, Salvaged: &none, Into: "n"},
			`{"index":"d","tables":0,"entries":0,"records":0,"damage":[],"salvaged":0}`},
	}
	for _, tt := range tests {
		if got, err := json.Marshal(&tt.r); err != nil || string(got) != tt.jsonText {
			t.Errorf("%s: JSON = %v\n%s\nwant\n%s", tt.name, err, got, tt.jsonText)
		}
	}
}
