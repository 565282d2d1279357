package badgerstore

import (
	"testing"

	"github.com/dgraph-io/badger/v4/pb"
	"google.golang.org/protobuf/proto"
)

// TestParseChecksum: the checksums of Badger's blocks, as Badger
// encodes them, and what is not one.
func TestParseChecksum(t *testing.T) {
	for _, tc := range []struct {
		in   string
		algo pb.Checksum_Algorithm
		sum  uint64
		ok   bool
	}{
		{"", pb.Checksum_CRC32C, 0, true},
		{"\x10\x96\x01", pb.Checksum_CRC32C, 150, true},
		{"\x08\x01\x10\x01", pb.Checksum_XXHash64, 1, true},
		{"\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", pb.Checksum_CRC32C, 1<<64 - 1, true},
		{"\x10", 0, 0, false},         // no value
		{"\x10\x80", 0, 0, false},     // value cut short
		{"\x18\x01", 0, 0, false},     // field 3
		{"\x12\x01\x00", 0, 0, false}, // field 2 as bytes
	} {
		algo, sum, ok := parseChecksum([]byte(tc.in))
		if ok != tc.ok || ok && (algo != tc.algo || sum != tc.sum) {
			t.Errorf("parseChecksum(%q) = %v, %d, %v; want %v, %d, %v", tc.in, algo, sum, ok, tc.algo, tc.sum, tc.ok)
		}
	}
	for _, c := range []*pb.Checksum{{Algo: pb.Checksum_CRC32C, Sum: 0xdeadbeef}, {Algo: pb.Checksum_XXHash64, Sum: 1<<63 + 5}} {
		b, err := proto.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if algo, sum, ok := parseChecksum(b); !ok || algo != c.Algo || sum != c.Sum {
			t.Errorf("parseChecksum of %v marshalled: %v, %d, %v", c, algo, sum, ok)
		}
	}
}

// FuzzParseChecksum: whatever parseChecksum accepts, the protocol
// buffer decoder Badger uses decodes to the same checksum.
func FuzzParseChecksum(f *testing.F) {
	f.Add([]byte("\x10\x96\x01"))
	f.Add([]byte("\x08\x01\x10\x01"))
	f.Add([]byte("\x18\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		algo, sum, ok := parseChecksum(b)
		if !ok {
			return
		}
		var c pb.Checksum
		if err := proto.Unmarshal(b, &c); err != nil {
			t.Fatalf("parseChecksum(%q) = %v, %d; proto: %v", b, algo, sum, err)
		}
		if c.Algo != algo || c.Sum != sum {
			t.Fatalf("parseChecksum(%q) = %v, %d; proto: %v, %d", b, algo, sum, c.Algo, c.Sum)
		}
	})
}
