package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
)

// TestDamagedHint: a damaged Badger archive gets the verify and
// --salvage advice; a damaged Redis archive, which verify refuses, the
// advice to build it again (the line docs/redis.md shows). Before, both
// got the verify advice.
func TestDamagedHint(t *testing.T) {
	doc, err := os.ReadFile("../../docs/redis.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		err       error
		hint      string
		inDocLine bool
	}{
		{fmt.Errorf("index: /srv/a: %w: 000001.sst block 3: unreadable", index.ErrCorrupt),
			"neardup: the index is damaged: 'neardup verify --index DIR' lists what is damaged, 'neardup verify --index DIR --salvage NEWDIR' copies what is readable into a new index\n", false},
		{fmt.Errorf("redisstore: redis://default:xxxxx@127.0.0.1:7000/news: %w: 5462 of the 16384 slots lost the archive's marker", index.ErrCorrupt),
			`neardup: the Redis archive is damaged (a master lost its keys; 'neardup verify' reads Badger directories only): build it again from the articles under a new name, 'neardup add --index redis://HOST:PORT/NEWNAME FILE...' (docs/redis.md, "A damaged archive")` + "\n", true},
	} {
		var stderr bytes.Buffer
		if code := exitCode(tc.err, &stderr); code != exitError {
			t.Errorf("%v: exit %d, want %d", tc.err, code, exitError)
		}
		want := "neardup: " + tc.err.Error() + "\n" + tc.hint
		if stderr.String() != want {
			t.Errorf("%v: stderr\n%s\nwant\n%s", tc.err, stderr.String(), want)
		}
		if tc.inDocLine && !strings.Contains(string(doc), "    "+tc.hint) {
			t.Errorf("docs/redis.md does not show the hint %q", tc.hint)
		}
	}
}
