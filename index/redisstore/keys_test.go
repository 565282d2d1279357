package redisstore

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

func TestParseURL(t *testing.T) {
	for _, tt := range []struct {
		url    string
		name   string
		addrs  []string
		user   string
		pass   string
		tls    bool
		opts   Options
		dialTO time.Duration
		err    string
	}{
		{url: "redis://127.0.0.1:7000/news", name: "news", addrs: []string{"127.0.0.1:7000"}},
		{url: "redis://a:1,b:2,c:3/arch-1.v2", name: "arch-1.v2", addrs: []string{"a:1", "b:2", "c:3"}},
		{url: "redis://u:p%40ss@a:1,b:2/x", name: "x", addrs: []string{"a:1", "b:2"}, user: "u", pass: "p@ss"},
		{url: "redis://:secret@a:1/x", name: "x", addrs: []string{"a:1"}, pass: "secret"},
		{url: "rediss://a:1/x", name: "x", addrs: []string{"a:1"}, tls: true},
		{url: "redis://a:1/x?dial_timeout=3&addr=b:2", name: "x", addrs: []string{"a:1", "b:2"}, dialTO: 3 * time.Second},
		{url: "redis://a:1/x?bucket_bits=20&wait_replicas=1&wait_timeout=250ms", name: "x", addrs: []string{"a:1"},
			opts: Options{BucketBits: 20, WaitReplicas: 1, WaitTimeout: 250 * time.Millisecond}},
		{url: "redis://a:1/x?retry_window=1m", name: "x", addrs: []string{"a:1"}, opts: Options{RetryWindow: time.Minute}},
		{url: "redis://a:1/x?retry_window=0", name: "x", addrs: []string{"a:1"}, opts: Options{RetryWindow: -1}},
		{url: "redis://a:1/x?retry_window=-5s", err: "retry_window"},
		{url: "redis://a:1/x?retry_window=30", err: "retry_window"},
		{url: "http://a:1/x", err: "want redis://"},
		{url: "redis://a:1", err: `archive name ""`},
		{url: "redis://a:1/", err: `archive name ""`},
		{url: "redis://a:1/x{y}", err: `archive name "x{y}"`},
		{url: "redis://a:1/x/y", err: `archive name "x/y"`},
		{url: "redis://a:1,,b:2/x", err: `seed ""`},
		{url: "redis://a/x", err: `seed "a"`},
		{url: "redis://a:1/x?bucket_bits=many", err: "bucket_bits"},
		{url: "redis://a:1/x?wait_replicas=-1", err: "wait_replicas"},
		{url: "redis://a:1/x?nonsense=1", err: "nonsense"},
		{url: "redis://u:hunter2@a:1/x?nonsense=1", err: "u:xxxxx@a:1"},
	} {
		name, co, o, err := ParseURL(tt.url)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseURL(%q): error %v, want one containing %q", tt.url, err, tt.err)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("ParseURL(%q): error %v shows the password", tt.url, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tt.url, err)
			continue
		}
		if name != tt.name || strings.Join(co.Addrs, ",") != strings.Join(tt.addrs, ",") || co.Username != tt.user || co.Password != tt.pass ||
			(co.TLSConfig != nil) != tt.tls || o.BucketBits != tt.opts.BucketBits || o.WaitReplicas != tt.opts.WaitReplicas || o.WaitTimeout != tt.opts.WaitTimeout || o.RetryWindow != tt.opts.RetryWindow || co.DialTimeout != tt.dialTO {
			t.Errorf("ParseURL(%q) = %q, addrs %v, user %q, pass %q, tls %v, %+v, dial %v; want %q, %v, %q, %q, %v, %+v, %v",
				tt.url, name, co.Addrs, co.Username, co.Password, co.TLSConfig != nil, o, co.DialTimeout,
				tt.name, tt.addrs, tt.user, tt.pass, tt.tls, tt.opts, tt.dialTO)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"redis://a:1/x":             "redis://a:1/x",
		"redis://u:pw@a:1,b:2/x":    "redis://u:xxxxx@a:1,b:2/x",
		"rediss://:pw@a:1/x?k=v":    "rediss://:xxxxx@a:1/x?k=v",
		"redis://user@a:1/x":        "redis://user@a:1/x",
		"redis://a:1/x?q=u:p@thing": "redis://a:1/x?q=u:p@thing",
		"redis://u:p/w@a:1/x":       "redis://u:xxxxx@a:1/x",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSlot(t *testing.T) {
	// Values from Redis's CLUSTER KEYSLOT.
	for key, want := range map[string]int{
		"foo":                12182,
		"bar":                5061,
		"123456789":          12739, // CRC16-XMODEM 0x31c3
		"{user1000}.a":       3443,
		"{user1000}.b":       3443,
		"foo{}{bar}":         8363, // an empty tag hashes the whole key
		"foo{{bar}}zap":      4015, // the tag is "{bar"
		"foo{bar}{zap}":      5061, // the first tag
		"":                   0,
		"news:t\x00\x12\x34": slot("news:t\x00\x12\x34"),
	} {
		if got := slot(key); got != want {
			t.Errorf("slot(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestMarkerKeys(t *testing.T) {
	keys := markerKeys("news:")
	if len(keys) != numSlots {
		t.Fatalf("%d keys", len(keys))
	}
	for sl, k := range keys {
		if slot(k) != sl || !strings.HasPrefix(k, "news:e") {
			t.Fatalf("marker of slot %d is %q, in slot %d", sl, k, slot(k))
		}
	}
	if keys[12182] != markerKeys("news:")[12182] {
		t.Error("marker keys differ between calls")
	}
}

func TestBucketOf(t *testing.T) {
	s := &Store{prefix: "a:", bucketBits: 16}
	s20 := &Store{prefix: "a:", bucketBits: 20}
	mixed := mix64(0x0001000200030004)
	m32 := mix32(0xdeadbeef)
	mp := mix64(0x100000000)
	for _, tt := range []struct {
		s     *Store
		k     index.Key
		key   string
		match uint64
		mlen  int
		rlen  int
	}{
		{s, index.Key{Kind: index.KindTable, Table: 2, Bits: 16, Value: 0x4d2f}, "a:t\x02\x4d\x2f", 0, 0, 13},
		{s20, index.Key{Kind: index.KindTable, Table: 2, Bits: 16, Value: 0x4d2f}, "a:t\x02\x4d\x2f", 0, 0, 13},
		// 5 blocks, 10 tables: 26-bit table keys; 16 bits in the key, 10 in the match.
		{s, index.Key{Kind: index.KindTable, Table: 9, Bits: 26, Value: 0x3ffffff}, "a:t\x09\xff\xff", 0x3ff, 2, 15},
		{s20, index.Key{Kind: index.KindTable, Table: 0, Bits: 26, Value: 0x2abcdef}, "a:t\x00\x0a\xaf\x37", 0x2f, 1, 14},
		{s, index.Key{Kind: index.KindBand, Table: 15, Value: 0x0001000200030004},
			"a:b\x0f" + string([]byte{byte(mixed >> 56), byte(mixed >> 48)}), mixed & (1<<48 - 1), 6, 11},
		{s20, index.Key{Kind: index.KindContent, Value: 0x0001000200030004},
			"a:c\x00" + string([]byte{byte(mixed >> 60), byte(mixed >> 52), byte(mixed >> 44)}), mixed & (1<<44 - 1), 6, 11},
		// Passage keys below 2^32: 32 bits mixed, table byte 32, the
		// rest of the 32 bits the match (16 bits; 12 at 20 bucket bits).
		{s, index.Key{Kind: index.KindPassage, Value: 0xdeadbeef},
			"a:p\x20" + string([]byte{byte(m32 >> 24), byte(m32 >> 16)}), uint64(m32 & 0xffff), 2, 7},
		{s20, index.Key{Kind: index.KindPassage, Value: 0xdeadbeef},
			"a:p\x20" + string([]byte{byte(m32 >> 28), byte(m32 >> 20), byte(m32 >> 12)}), uint64(m32 & 0xfff), 2, 7},
		// Wider ones as before: 64 bits mixed, table byte 0.
		{s, index.Key{Kind: index.KindPassage, Value: 0x100000000},
			"a:p\x00" + string([]byte{byte(mp >> 56), byte(mp >> 48)}), mp & (1<<48 - 1), 6, 11},
	} {
		b, err := tt.s.bucketOf(tt.k)
		if err != nil {
			t.Errorf("%v: %v", tt.k, err)
			continue
		}
		if b.key != tt.key || b.match != tt.match || b.matchLen != tt.mlen || b.recLen() != tt.rlen {
			t.Errorf("bits %d, %v: key %q match %x/%d rec %d; want %q %x/%d %d",
				tt.s.bucketBits, tt.k, b.key, b.match, b.matchLen, b.recLen(), tt.key, tt.match, tt.mlen, tt.rlen)
		}
	}
	for _, k := range []index.Key{
		{Kind: index.KindTable, Bits: 16, Value: 0x10000},
		{Kind: index.KindTable, Bits: 0},
		{Kind: index.KindTable, Bits: 65},
		{Kind: 'x'},
	} {
		if _, err := s.bucketOf(k); err == nil {
			t.Errorf("%v: no error", k)
		}
	}
}

// A record is read back as written, and only by its own key's match.
func TestRecordRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, bits := range []int{8, 16, 20, 24, 32} {
		s := &Store{prefix: "p:", bucketBits: bits}
		for i := 0; i < 2000; i++ {
			var k index.Key
			switch i % 4 {
			case 3:
				k = index.Key{Kind: index.KindPassage, Value: r.Uint64() >> (32 * r.IntN(2))}
			case 0:
				b := uint8(8 + r.IntN(57))
				k = index.Key{Kind: index.KindTable, Table: uint8(r.IntN(64)), Bits: b, Value: r.Uint64() >> (64 - b)}
			case 1:
				k = index.Key{Kind: index.KindBand, Table: uint8(r.IntN(16)), Value: r.Uint64() >> r.IntN(48)}
			default:
				k = index.Key{Kind: index.KindContent, Value: r.Uint64()}
			}
			b, err := s.bucketOf(k)
			if err != nil {
				t.Fatal(err)
			}
			fp := simhash.Fingerprint(r.Uint64())
			num := r.Uint64() & maxNum
			rec := b.appendRecord(nil, fp, num)
			if len(rec) != b.recLen() {
				t.Fatalf("%v: record %d bytes, recLen %d", k, len(rec), b.recLen())
			}
			// A neighbour value sharing the bucket must not match.
			k2 := k
			k2.Value ^= 1
			b2, _ := s.bucketOf(k2)
			var got []uint64
			val := string(rec) + string(b2.appendRecord(nil, fp^1, num^1))
			if b2.key != b.key {
				val = string(rec)
			}
			if err := b.scan(val, func(f simhash.Fingerprint, n uint64) {
				got = append(got, n)
				if b.table && f != fp {
					t.Fatalf("%v: fingerprint %x, want %x", k, f, fp)
				}
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0] != num {
				t.Fatalf("bits %d, %v: scan found %v, want [%d]", bits, k, got, num)
			}
		}
	}
}

func TestMix32IsABijectionOnSamples(t *testing.T) {
	seen := map[uint32]uint32{}
	for i := uint32(0); i < 1<<16; i++ {
		for _, v := range []uint32{i, i << 16, i<<16 | i} {
			m := mix32(v)
			if w, ok := seen[m]; ok && w != v {
				t.Fatalf("mix32(%x) = mix32(%x)", v, w)
			}
			seen[m] = v
		}
	}
}

func TestMixIsABijectionOnSamples(t *testing.T) {
	seen := map[uint64]uint64{}
	for i := uint64(0); i < 1<<16; i++ {
		for _, v := range []uint64{i, i << 48, i<<32 | i} {
			m := mix64(v)
			if w, ok := seen[m]; ok && w != v {
				t.Fatalf("mix64(%x) = mix64(%x)", v, w)
			}
			seen[m] = v
		}
	}
}

// The passage levels' keys, literally: mix32(0xdeadbeef) is 0x0de5c6a9.
func TestPassageBucket(t *testing.T) {
	s := &Store{prefix: "a:", bucketBits: 16, levels: true}
	flat := &Store{prefix: "a:", bucketBits: 16}
	if m := mix32(0xdeadbeef); m != 0x0de5c6a9 {
		t.Fatalf("mix32(0xdeadbeef) = %#x, want 0x0de5c6a9", m)
	}
	for _, tt := range []struct {
		num   uint64
		level int
	}{
		{1, 0}, {65535, 0}, {65536, 1}, {196607, 1}, {196608, 2}, {458751, 2}, {458752, 3}, {1000000, 4}, {10000000, 7}, {1 << 39, 23},
	} {
		if got := s.levelOf(tt.num); got != tt.level {
			t.Errorf("levelOf(%d) = %d, want %d", tt.num, got, tt.level)
		}
	}
	p := index.Key{Kind: index.KindPassage, Value: 0xdeadbeef}
	wide := index.Key{Kind: index.KindPassage, Value: 0x100000000}
	mp := mix64(0x100000000)
	for _, tt := range []struct {
		s     *Store
		k     index.Key
		num   uint64
		key   string
		match uint64
		mlen  int
		rlen  int
	}{
		// Level 0: 16 bits in the key, 16 in the match.
		{s, p, 1, "a:p\x60\x00\x0d\xe5", 0xc6a9, 2, 7},
		// Level 3 (numbers 458752 to 1048575): 19 bits in the key.
		{s, p, 500000, "a:p\x60\x03\x00\x6f\x2e", 0x6a9, 2, 7},
		// From level 16, all 32 bits: no match, 5-byte records.
		{s, p, 1 << 33, "a:p\x60\x11\x0d\xe5\xc6\xa9", 0, 0, 5},
		// Keys of 64 bits: mixed as 64, table byte 64; level 1: the top
		// 17 bits in 3 bytes.
		{s, wide, 70000, "a:p\x40\x01" + string([]byte{byte(mp >> 63), byte(mp >> 55), byte(mp >> 47)}), mp & (1<<47 - 1), 6, 11},
		// A flat archive (created before the levels): as bucketOf.
		{flat, p, 500000, "a:p\x20\x0d\xe5", 0xc6a9, 2, 7},
	} {
		b, err := tt.s.bucketFor(tt.k, tt.num)
		if err != nil {
			t.Errorf("%v: %v", tt.k, err)
			continue
		}
		if b.key != tt.key || b.match != tt.match || b.matchLen != tt.mlen || b.recLen() != tt.rlen {
			t.Errorf("%v number %d: key %q match %x/%d rec %d; want %q %x/%d %d",
				tt.k, tt.num, b.key, b.match, b.matchLen, b.recLen(), tt.key, tt.match, tt.mlen, tt.rlen)
		}
	}
	// Keys of other kinds are the same in both layouts.
	tk := index.Key{Kind: index.KindTable, Table: 2, Bits: 16, Value: 0x4d2f}
	if b, err := s.bucketFor(tk, 1<<30); err != nil || b.key != "a:t\x02\x4d\x2f" {
		t.Errorf("table key: %q, %v", b.key, err)
	}
	if got, want := s.describe("a:p\x60\x03\x00\x6f\x2e"), "p32 level 3 bucket 006f2e"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
}
