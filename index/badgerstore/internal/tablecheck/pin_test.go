package tablecheck

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// pinnedBadger is the Badger version whose table format (block index,
// checksums, footer: shadow.go, tables.go) and log line about an
// unreadable value ("Unable to read: Key: […], … Fid:N", unreadableValue)
// the damage checks read. Damage Badger reads as a missing key is only
// found while both hold.
const pinnedBadger = "v4.9.6"

// TestBadgerPinned fails when go.mod moves Badger to another version, so
// that an upgrade cannot switch the damage checks off unnoticed: check
// shadow.go and tables.go against the new version's table/ and
// iterator.go, run badgerstore's TestDamageAfterOpen and
// TestDamagedValueLog (they fail when the format or the log line
// changed), then update pinnedBadger.
func TestBadgerPinned(t *testing.T) {
	// A test binary carries no module versions (debug.ReadBuildInfo has
	// no Deps), so the version is go.mod's.
	mod, err := os.ReadFile("../../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	found := ""
	for _, line := range strings.Split(string(mod), "\n") {
		f := strings.Fields(line)
		if i := slices.Index(f, "github.com/dgraph-io/badger/v4"); i >= 0 && i+1 < len(f) {
			if slices.Contains(f, "=>") {
				t.Fatalf("go.mod replaces Badger (%s): the damage checks were written against %s; check this package as this test's doc says", strings.TrimSpace(line), pinnedBadger)
			}
			found = f[i+1]
		}
	}
	switch found {
	case pinnedBadger:
	case "":
		t.Fatal("go.mod does not require github.com/dgraph-io/badger/v4")
	default:
		t.Fatalf("go.mod requires Badger %s; the damage checks (this package) read the table format and log line of %s: check this package as this test's doc says, then update pinnedBadger", found, pinnedBadger)
	}
}

// TestUnreadableValueLine pins the parse of Badger's log line (v4.9.6,
// iterator.go yieldItemValue: "Unable to read: Key: %v, Version : %v,
// meta: %v, userMeta: %v valuePointer: %+v").
func TestUnreadableValueLine(t *testing.T) {
	var vd ValueLog
	vd.Note("Unable to read: Key: [100 98 105 103], Version : 3, meta: 66, userMeta: 0 valuePointer: {Fid:12 Len:4096 Offset:20}")
	vd.Note("something else: Key: [1 2], Fid:9")
	if got := vd.File([]byte("dbig")); got != "000012.vlog" {
		t.Errorf("file of the noted key = %q, want 000012.vlog", got)
	}
	if got := vd.File([]byte{1, 2}); got != "value log" {
		t.Errorf("file of a key from another line = %q, want \"value log\"", got)
	}
}
