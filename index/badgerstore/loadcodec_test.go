package badgerstore

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4/pb"
	"google.golang.org/protobuf/proto"
)

// appendKV writes the protocol buffer encoding of a pb.KV, field by
// field as worked out by hand from badgerpb4.proto (key 1, value 2,
// version 4, stream_id 10; zero values left out), which Badger's
// StreamWriter decodes to the same KV and proto.Marshal writes too.
func TestAppendKV(t *testing.T) {
	for _, c := range []struct {
		key, value string
		version    uint64
		id         uint32
		want       string
	}{
		{"ab", "v", 300, 5, "0a026162" + "120176" + "20ac02" + "5005"},
		{"k", "", 1, 1, "0a016b" + "2001" + "5001"},
		{"k", "", 0, 200, "0a016b" + "50c801"},
		{"", "", 0, 0, ""},
		{string(bytes.Repeat([]byte{'x'}, 130)), "", 1 << 40, 1 << 16, "0a8201" + hex.EncodeToString(bytes.Repeat([]byte{'x'}, 130)) + "208080808080" + "20" + "50808004"},
	} {
		key, value := []byte(c.key), []byte(c.value)
		got := appendKV([]byte{0xff}, key, value, c.version, c.id)
		if h := hex.EncodeToString(got[1:]); got[0] != 0xff || h != c.want {
			t.Errorf("appendKV(%q, %q, %d, %d) = %s, want %s", c.key, c.value, c.version, c.id, h, c.want)
		}
		if n := sizeKV(key, value, c.version, c.id); n != len(got)-1 {
			t.Errorf("sizeKV(%q, %q, %d, %d) = %d, want %d", c.key, c.value, c.version, c.id, n, len(got)-1)
		}
		checkKV(t, got[1:], key, value, c.version, c.id)
	}
}

// checkKV checks that enc decodes to the pb.KV of key, value, version
// and id, and is what proto.Marshal writes for it.
func checkKV(t *testing.T, enc, key, value []byte, version uint64, id uint32) {
	t.Helper()
	var kv pb.KV
	if err := proto.Unmarshal(enc, &kv); err != nil {
		t.Fatalf("%x: %v", enc, err)
	}
	if !bytes.Equal(kv.Key, key) || !bytes.Equal(kv.Value, value) || kv.Version != version || kv.StreamId != id || kv.StreamDone || kv.Meta != nil || kv.UserMeta != nil || kv.ExpiresAt != 0 {
		t.Errorf("%x decodes to %v, want key %x, value %x, version %d, stream %d", enc, &kv, key, value, version, id)
	}
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(&pb.KV{Key: key, Value: value, Version: version, StreamId: id})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, want) {
		t.Errorf("appendKV wrote %x, proto.Marshal %x", enc, want)
	}
}

func FuzzAppendKV(f *testing.F) {
	f.Add([]byte("ab"), []byte("v"), uint64(300), uint32(5))
	f.Add([]byte{}, []byte{}, uint64(0), uint32(0))
	f.Add(bytes.Repeat([]byte{1}, 200), bytes.Repeat([]byte{2}, 20000), uint64(1)<<63, uint32(1)<<31)
	f.Fuzz(func(t *testing.T, key, value []byte, version uint64, id uint32) {
		enc := appendKV(nil, key, value, version, id)
		if n := sizeKV(key, value, version, id); n != len(enc) {
			t.Errorf("sizeKV = %d, appendKV wrote %d bytes", n, len(enc))
		}
		checkKV(t, enc, key, value, version, id)
	})
}

// sortKeys sorts as slices.SortFunc with compareKeys does: band keys and
// others, below and above the size where it counts, with runs of equal
// leading bits, equal keys but for the number, and a band key whose a is
// out of its range.
func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name string
		n    int
		band bool
		key  func(i int) sortKey
	}{
		{"small", 1000, false, func(int) sortKey { return sortKey{a: r.Uint64(), b: r.Uint64(), num: r.Uint64N(10)} }},
		{"content", 200000, false, func(int) sortKey { return sortKey{a: r.Uint64(), num: r.Uint64N(1000)} }},
		{"table", 200000, false, func(int) sortKey { return sortKey{a: r.Uint64N(1<<16) << 48, b: r.Uint64(), num: r.Uint64N(1 << 20)} }},
		{"table, repeats", 200000, false, func(int) sortKey { return sortKey{a: r.Uint64N(1<<4) << 60, b: r.Uint64N(3), num: r.Uint64N(50)} }},
		{"ids", 100000, false, func(int) sortKey {
			return sortKey{a: r.Uint64N(1<<16) << 48, b: r.Uint64N(4), id: fmt.Sprint(r.IntN(100))}
		}},
		{"band", 200000, true, func(int) sortKey { return sortKey{a: r.Uint64N(16), b: r.Uint64(), num: r.Uint64N(1 << 20)} }},
		{"band, a too large", 100000, true, func(i int) sortKey { return sortKey{a: uint64(i % 17), b: r.Uint64()} }},
		{"passage below 2^32", 100000, false, func(int) sortKey { return sortKey{a: r.Uint64N(1 << 32), num: r.Uint64N(1 << 20)} }},
	} {
		keys := make([]sortKey, c.n)
		for i := range keys {
			keys[i] = c.key(i)
		}
		want := slices.Clone(keys)
		slices.SortFunc(want, compareKeys)
		spare := make([]sortKey, 10)
		for round := range 2 { // the second with the spare returned
			in := slices.Clone(keys)
			got, next := sortKeys(in, spare, c.band)
			if !slices.Equal(got, want) {
				t.Errorf("%s, round %d: not sorted as compareKeys sorts", c.name, round)
			}
			if len(got) != len(keys) || (&next[:1][0] != &in[0] && &next[:1][0] != &spare[:1][0]) {
				t.Errorf("%s, round %d: the spare returned is neither slice given", c.name, round)
			}
			spare = next
		}
	}
}

// byID sorts a chunk's documents as a stable sort by ID does, keeping
// the last of each ID: IDs with a long common prefix, shorter and
// longer than the 16 bytes compared as integers, with zero bytes where
// the integers are zero-filled, and repeated.
func TestByID(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, prefix := range []string{"", "news.example.com/zh/2026/"} {
		for _, n := range []int{1, 2, 1000} {
			l := &loader{}
			for i := range n {
				var b []byte
				for range r.IntN(24) {
					b = append(b, "ab\x00\xff"[r.IntN(4)])
				}
				l.docs = append(l.docs, loadDoc{id: prefix + string(b), num: uint64(i + 1)})
			}
			want := slices.Clone(l.docs)
			slices.SortStableFunc(want, func(a, b loadDoc) int { return strings.Compare(a.id, b.id) })
			var last []loadDoc // the last of each ID
			for i, d := range want {
				if i+1 == len(want) || want[i+1].id != d.id {
					last = append(last, d)
				}
			}
			want = last
			if got := l.byID(); !slices.Equal(got, want) {
				t.Errorf("prefix %q, %d documents: byID gives\n%q\nwant\n%q", prefix, n, ids(got), ids(want))
			}
		}
	}
}

func ids(ds []loadDoc) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s#%d", d.id, d.num))
	}
	return out
}
