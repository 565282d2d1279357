package badgerstore

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A Report writes itself as neardup verify prints it (less the
// command's salvage hint), and in JSON as verify --json: each damage a
// string, none an empty list.
func TestReportWriteText(t *testing.T) {
	two := 2
	none := 0
	damage := []Damage{
		{File: "000001.sst", Block: 3, Err: errors.New("unreadable (a checksum or its structure does not match)")},
		{File: "value log", Block: -1, ID: "a/b", Err: errors.New("record kept in the value log: not salvaged")},
	}
	tests := []struct {
		name     string
		r        Report
		text     string
		jsonText string
	}{
		{"whole", Report{Dir: "/x/idx", Tables: 1, Entries: 1234, Records: 1, Damage: []Damage{}},
			"/x/idx: 1 table, 1,234 entries, 1 record\nno damage found\n",
			`{"index":"/x/idx","tables":1,"entries":1234,"records":1,"damage":[]}`},
		{"damaged", Report{Dir: "/x/idx", Tables: 2, Entries: 1, Records: 5, Damage: damage[:1]},
			"/x/idx: 2 tables, 1 entry, records not decoded\n  damaged: 000001.sst block 3: unreadable (a checksum or its structure does not match)\n",
			`{"index":"/x/idx","tables":2,"entries":1,"records":5,"damage":["000001.sst block 3: unreadable (a checksum or its structure does not match)"]}`},
		{"salvaged", Report{Dir: "/x/idx", Tables: 0, Entries: 0, Records: 2, Damage: damage, Salvaged: &two, Into: "/x/new"},
			"/x/idx: 0 tables, 0 entries, 2 records\n  damaged: 000001.sst block 3: unreadable (a checksum or its structure does not match)\n" +
				"  damaged: value log record \"a/b\": record kept in the value log: not salvaged\nsalvaged 2 documents into /x/new\n",
			`{"index":"/x/idx","tables":0,"entries":0,"records":2,"damage":["000001.sst block 3: unreadable (a checksum or its structure does not match)","value log record \"a/b\": record kept in the value log: not salvaged"],"salvaged":2}`},
		{"salvaged nothing", Report{Dir: "d", Damage: []Damage{}, Salvaged: &none, Into: "n"},
			"d: 0 tables, 0 entries, 0 records\nsalvaged 0 documents into n\n",
			`{"index":"d","tables":0,"entries":0,"records":0,"damage":[],"salvaged":0}`},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := tt.r.WriteText(&b); err != nil || b.String() != tt.text {
			t.Errorf("%s: WriteText = %v\n%s\nwant\n%s", tt.name, err, b.String(), tt.text)
		}
		if got, err := json.Marshal(&tt.r); err != nil || string(got) != tt.jsonText {
			t.Errorf("%s: JSON = %v\n%s\nwant\n%s", tt.name, err, got, tt.jsonText)
		}
	}
}
