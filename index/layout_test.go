package index

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup/simhash"
)

// The key bytes of fingerprint 0123456789abcdef and ID "a", worked out by
// hand (and checked with a separate Python script) from the layout in the
// package documentation.
func TestTableKeyGolden(t *testing.T) {
	const fp = simhash.Fingerprint(0x0123456789abcdef)
	tests := []struct {
		blocks, maxDist, table int
		key                    string // hex
	}{
		{4, 3, 0, "74" + "00" + "0123" + "0123456789abcdef" + "61"},
		{4, 3, 1, "74" + "01" + "4567" + "0123456789abcdef" + "61"},
		{4, 3, 3, "74" + "03" + "cdef" + "0123456789abcdef" + "61"},
		{5, 3, 0, "74" + "00" + "01234540" + "0123456789abcdef" + "61"}, // blocks {0,1}: 26 bits, 6 zero bits of padding
		{5, 3, 4, "74" + "04" + "68acf100" + "0123456789abcdef" + "61"}, // blocks {1,2}
		{5, 3, 9, "74" + "09" + "d5e6f780" + "0123456789abcdef" + "61"}, // blocks {3,4}: 13+12 bits
		{6, 3, 19, "74" + "13" + "13579bde" + "0123456789abcdef" + "61"},
		{8, 6, 27, "74" + "1b" + "cdef" + "0123456789abcdef" + "61"},
		{4, 2, 5, "74" + "05" + "89abcdef" + "0123456789abcdef" + "61"},
		{1, 0, 0, "74" + "00" + "0123456789abcdef" + "0123456789abcdef" + "61"},
	}
	for _, tt := range tests {
		l, err := newLayout(tt.blocks, tt.maxDist)
		if err != nil {
			t.Fatal(err)
		}
		got := hex.EncodeToString(l.appendTableKey(nil, tt.table, fp, "a"))
		if got != tt.key {
			t.Errorf("(%d,%d) table %d: key %s, want %s", tt.blocks, tt.maxDist, tt.table, got, tt.key)
		}
		tab, gotFP, id, err := l.parseTableKey(mustHex(t, tt.key))
		if err != nil || tab != tt.table || gotFP != fp || id != "a" {
			t.Errorf("(%d,%d) parse %s = %d, %v, %q, %v", tt.blocks, tt.maxDist, tt.key, tab, gotFP, id, err)
		}
	}
}

func TestOtherKeysGolden(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"doc", docKey("a"), "6461"},
		{"content", contentKey(0x0123456789abcdef, "a"), "63" + "0123456789abcdef" + "61"},
		{"content prefix", contentPrefix(0xff), "63" + "00000000000000ff"},
		{"meta", metaKey(metaLayout), "6d" + hex.EncodeToString([]byte("layout"))},
	}
	for _, tt := range tests {
		if got := hex.EncodeToString(tt.got); got != tt.want {
			t.Errorf("%s key %s, want %s", tt.name, got, tt.want)
		}
	}
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLayoutValidation(t *testing.T) {
	tests := []struct {
		blocks, maxDist int
		tables          int    // when accepted
		reject          string // substring of the error when rejected
	}{
		{4, 3, 4, ""},
		{5, 3, 10, ""},
		{6, 3, 20, ""},
		{4, 2, 6, ""},
		{8, 6, 28, ""},
		{1, 0, 1, ""},
		{2, 1, 2, ""},
		{64, 1, 64, ""},
		{7, 3, 35, ""},
		{4, 4, 0, "max distance < blocks"},
		{3, 5, 0, "max distance < blocks"},
		{0, 0, 0, "want 1 to 64"},
		{65, 3, 0, "want 1 to 64"},
		{4, -1, 0, "want at least 0"},
		{8, 3, 56, ""},
		{9, 4, 0, "126 tables: at most 64"},
		{10, 5, 0, "tables: at most 64"},
		{64, 2, 0, "tables: at most 64"},
		{9, 8, 0, "table keys of 7 bits"},
		{64, 63, 0, "table keys of 1 bits"},
	}
	for _, tt := range tests {
		l, err := newLayout(tt.blocks, tt.maxDist)
		if tt.reject != "" {
			if err == nil || !errors.Is(err, ErrLayout) || !strings.Contains(err.Error(), tt.reject) {
				t.Errorf("newLayout(%d, %d) error %v, want ErrLayout mentioning %q", tt.blocks, tt.maxDist, err, tt.reject)
			}
			continue
		}
		if err != nil {
			t.Errorf("newLayout(%d, %d): %v", tt.blocks, tt.maxDist, err)
			continue
		}
		if len(l.tables) != tt.tables {
			t.Errorf("newLayout(%d, %d): %d tables, want %d", tt.blocks, tt.maxDist, len(l.tables), tt.tables)
		}
	}
}

func TestBlockWidths(t *testing.T) {
	tests := []struct {
		blocks int
		width  []int
	}{
		{4, []int{16, 16, 16, 16}},
		{5, []int{13, 13, 13, 13, 12}},
		{6, []int{11, 11, 11, 11, 10, 10}},
		{7, []int{10, 9, 9, 9, 9, 9, 9}},
	}
	for _, tt := range tests {
		l, err := newLayout(tt.blocks, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(l.width, tt.width) {
			t.Errorf("%d blocks: widths %v, want %v", tt.blocks, l.width, tt.width)
		}
	}
	l, _ := newLayout(5, 3)
	var names []string
	for _, tab := range l.tables {
		names = append(names, fmt.Sprint(tab.blocks))
	}
	want := "[0 1] [0 2] [0 3] [0 4] [1 2] [1 3] [1 4] [2 3] [2 4] [3 4]"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("(5,3) tables %s, want %s", got, want)
	}
}

// Every set of k blocks must avoid at least one table of cover[k], and
// the covers are as small as expected for the default layout.
func TestCover(t *testing.T) {
	for _, lk := range [][2]int{{4, 3}, {5, 3}, {6, 3}, {4, 2}, {8, 6}, {7, 3}, {2, 1}, {1, 0}} {
		l, err := newLayout(lk[0], lk[1])
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k <= l.maxDist; k++ {
			combinations(l.blocks, k, func(d []int) {
				for _, ti := range l.cover[k] {
					hit := false
					for _, b := range l.tables[ti].blocks {
						for _, x := range d {
							hit = hit || b == x
						}
					}
					if !hit {
						return
					}
				}
				t.Errorf("%v k=%d: blocks %v meet every table of cover %v", lk, k, d, l.cover[k])
			})
		}
	}
	l, _ := newLayout(4, 3)
	want := [][]int{{0}, {0, 1}, {0, 1, 2}, {0, 1, 2, 3}}
	if !reflect.DeepEqual(l.cover, want) {
		t.Errorf("(4,3) covers %v, want %v", l.cover, want)
	}
}

func TestParseTableKeyErrors(t *testing.T) {
	l, _ := newLayout(4, 3)
	good := l.appendTableKey(nil, 1, 0x0123456789abcdef, "a")
	bad := map[string][]byte{
		"empty":        {},
		"wrong kind":   append([]byte{'d'}, good[1:]...),
		"table 4 of 4": append([]byte{'t', 4}, good[2:]...),
		"short":        good[:11],
		"disagree":     append([]byte{'t', 1, 0x45, 0x68}, good[4:]...),
	}
	for name, key := range bad {
		if _, _, _, err := l.parseTableKey(key); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: error %v, want ErrCorrupt", name, err)
		}
	}
}

// FuzzKey checks that table keys decode to what was encoded, for every
// layout, and that decoding arbitrary bytes fails cleanly.
func FuzzKey(f *testing.F) {
	f.Add(uint8(4), uint8(3), uint8(1), uint64(0x0123456789abcdef), "a", []byte("t\x01\x45\x67\x01\x23\x45\x67\x89\xab\xcd\xef"))
	f.Add(uint8(5), uint8(3), uint8(9), uint64(0), "", []byte{})
	f.Add(uint8(1), uint8(0), uint8(0), uint64(1<<63), "id\x00x", []byte("t\x00"))
	f.Fuzz(func(t *testing.T, blocks, maxDist, tab uint8, fp uint64, id string, raw []byte) {
		l, err := newLayout(int(blocks%20)+1, int(maxDist%8))
		if err != nil {
			return
		}
		_, _, _, _ = l.parseTableKey(raw) // must not panic
		ti := int(tab) % len(l.tables)
		key := l.appendTableKey(nil, ti, simhash.Fingerprint(fp), id)
		gotT, gotFP, gotID, err := l.parseTableKey(key)
		if err != nil || gotT != ti || gotFP != simhash.Fingerprint(fp) || gotID != id {
			t.Fatalf("round trip of (%d, %x, %q): %d, %v, %q, %v", ti, fp, id, gotT, gotFP, gotID, err)
		}
		prefix := l.appendTablePrefix(nil, ti, simhash.Fingerprint(fp))
		if !bytes.HasPrefix(key, prefix) {
			t.Fatalf("key %x lacks prefix %x", key, prefix)
		}
		h, cid, err := parseContentKey(contentKey(fp, id))
		if err != nil || h != fp || cid != id {
			t.Fatalf("content key round trip of (%x, %q): %x, %q, %v", fp, id, h, cid, err)
		}
	})
}
