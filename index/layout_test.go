package index

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// The Keys of fingerprint 0123456789abcdef in one table of each layout,
// worked out by hand (and checked with a separate Python script) from
// the layout in the package documentation. badgerstore's
// TestTableKeyGolden checks the bytes it files these Keys under.
func TestTableKeyGolden(t *testing.T) {
	const fp = simhash.Fingerprint(0x0123456789abcdef)
	tests := []struct {
		blocks, maxDist, table int
		bits                   uint8
		value                  uint64
	}{
		{4, 3, 0, 16, 0x0123},
		{4, 3, 1, 16, 0x4567},
		{4, 3, 3, 16, 0xcdef},
		{5, 3, 0, 26, 0x48d15},    // blocks {0,1}: 0x0123456789abcdef >> 38
		{5, 3, 4, 26, 0x1a2b3c4},  // blocks {1,2}
		{5, 3, 9, 25, 0x1abcdef},  // blocks {3,4}: 13+12 bits
		{6, 3, 19, 31, 0x9abcdef}, // blocks {3,4,5}: 11+10+10 bits
		{8, 6, 27, 16, 0xcdef},    // blocks {6,7}
		{4, 2, 5, 32, 0x89abcdef},
		{1, 0, 0, 64, 0x0123456789abcdef},
	}
	for _, tt := range tests {
		l, err := newLayout(tt.blocks, tt.maxDist)
		if err != nil {
			t.Fatal(err)
		}
		want := Key{Kind: KindTable, Table: uint8(tt.table), Bits: tt.bits, Value: tt.value}
		if got := l.key(tt.table, fp); got != want {
			t.Errorf("(%d,%d) table %d: key %v, want %v", tt.blocks, tt.maxDist, tt.table, got, want)
		}
	}
}

func TestBandValue(t *testing.T) {
	var s minhash.Sketch
	for i := range s {
		s[i] = uint16(i)
	}
	for b, want := range map[int]uint64{0: 0x0000_0001_0002_0003, 2: 0x0008_0009_000a_000b, 15: 0x003c_003d_003e_003f} {
		if got := bandValue(&s, b); got != want {
			t.Errorf("band %d: %016x, want %016x", b, got, want)
		}
	}
}

func TestKeyString(t *testing.T) {
	for _, tt := range []struct {
		k    Key
		want string
	}{
		{Key{Kind: KindTable, Table: 1, Bits: 16, Value: 0x4567}, "t1/16:4567"},
		{Key{Kind: KindBand, Table: 3, Value: 0xab}, "b3:00000000000000ab"},
		{Key{Kind: KindContent, Value: 1}, "c:0000000000000001"},
		{Key{Kind: 'x', Table: 1, Bits: 2, Value: 3}, "kind 'x' table 1 bits 2 value 3"},
	} {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("%#v: %q, want %q", tt.k, got, tt.want)
		}
	}
}

// Flipping bits of one block changes the key of exactly the tables that
// keep that block.
func TestKeyBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, lk := range [][2]int{{4, 3}, {5, 3}, {6, 3}, {8, 6}, {7, 3}, {1, 0}} {
		l, err := newLayout(lk[0], lk[1])
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			fp := simhash.Fingerprint(r.Uint64())
			b := r.IntN(l.blocks)
			bit := l.start[b] + r.IntN(l.width[b]) // from the most significant bit
			g := fp ^ 1<<(63-bit)
			for ti, tab := range l.tables {
				keeps := false
				for _, x := range tab.blocks {
					keeps = keeps || x == b
				}
				if changed := l.key(ti, fp) != l.key(ti, g); changed != keeps {
					t.Fatalf("%v: flipping bit %d (block %d) changes the key of table %d %v: %v", lk, bit, b, ti, tab.blocks, changed)
				}
			}
		}
	}
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

// LayoutFor lays out the default index up to distance 3, and k+2 blocks
// of two-block tables above, each a valid layout up to
// MaxLayoutDistance; one more would need 66 tables.
func TestLayoutFor(t *testing.T) {
	tests := []struct{ k, blocks, maxDist, tables int }{
		{0, 4, 3, 4}, {1, 4, 3, 4}, {3, 4, 3, 4}, {4, 6, 4, 15}, {5, 7, 5, 21}, {8, 10, 8, 45}, {9, 11, 9, 55},
	}
	for _, tt := range tests {
		b, k := LayoutFor(tt.k)
		if b != tt.blocks || k != tt.maxDist {
			t.Errorf("LayoutFor(%d) = %d, %d; want %d, %d", tt.k, b, k, tt.blocks, tt.maxDist)
			continue
		}
		l, err := newLayout(b, k)
		if err != nil || len(l.tables) != tt.tables {
			t.Errorf("LayoutFor(%d): newLayout(%d, %d) = %v tables, %v; want %d", tt.k, b, k, l, err, tt.tables)
		}
	}
	if b, k := LayoutFor(MaxLayoutDistance + 1); b != 12 {
		t.Errorf("LayoutFor(%d) = %d, %d", MaxLayoutDistance+1, b, k)
	} else if _, err := newLayout(b, k); !errors.Is(err, ErrLayout) || !strings.Contains(err.Error(), "66 tables") {
		t.Errorf("the layout one past MaxLayoutDistance: %v, want 66 tables refused", err)
	}
}
