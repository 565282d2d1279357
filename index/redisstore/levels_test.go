package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/simhash"
	"sync"
)

// The posting levels' keys, literally (bucket bits 16: level 0 has
// 2^10 buckets a table or band, level l 2^(10+l)).
func TestPostingLevelBucket(t *testing.T) {
	s := &Store{prefix: "a:", bucketBits: 16, postLevels: true}
	flat := &Store{prefix: "a:", bucketBits: 16}
	tk := index.Key{Kind: index.KindTable, Table: 2, Bits: 16, Value: 0x4d2f}
	bk := index.Key{Kind: index.KindBand, Table: 5, Value: 0xdeadbeef}
	m := mix64(0xdeadbeef)
	for _, tt := range []struct {
		s     *Store
		k     index.Key
		num   uint64
		key   string
		match uint64
		mlen  int
		rlen  int
	}{
		// Level 0: the top 10 of 16 bits in the key, 6 in a match byte;
		// numbers below 2^16 in 2 bytes.
		{s, tk, 1, "a:t\x02\x80\x01\x34", 0x2f, 1, 11},
		// Level 4 (numbers 983040 to 2031615): 14 bits; numbers less
		// 983040 in 3 bytes.
		{s, tk, 1000000, "a:t\x02\x84\x13\x4b", 0x3, 1, 12},
		// From level 6 the whole key: no match.
		{s, tk, 10000000, "a:t\x02\x87\x4d\x2f", 0, 0, 11},
		// A band: the mixed value's top 10 bits, 54 in 7 bytes.
		{s, bk, 1, "a:b\x05\x80" + string([]byte{byte(m >> 62), byte(m >> 54)}), m & (1<<54 - 1), 7, 9},
		// Level 2: 12 bits.
		{s, bk, 200000, "a:b\x05\x82" + string([]byte{byte(m >> 60), byte(m >> 52)}), m & (1<<52 - 1), 7, 10},
		// Level 9 (from 33488896): numbers in 4 bytes.
		{s, tk, 40000000, "a:t\x02\x89\x4d\x2f", 0, 0, 12},
		// A flat archive: bucketOf's 16 bits at any number.
		{flat, tk, 1000000, "a:t\x02\x4d\x2f", 0, 0, 13},
		{flat, bk, 1, "a:b\x05" + string([]byte{byte(m >> 56), byte(m >> 48)}), m & (1<<48 - 1), 6, 11},
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
	if got := s.levelKey(index.KindTable, 2, 4, 0x134b, 14); got != "a:t\x02\x84\x13\x4b" {
		t.Errorf("levelKey = %q", got)
	}
	// A record at level 4: match, fingerprint, 1000000-983040 = 0x4240.
	b, _ := s.bucketFor(tk, 1000000)
	rec := b.appendRecord(nil, 0x4d2f000000000001, 1000000)
	if want := "\x03\x4d\x2f\x00\x00\x00\x00\x00\x01\x00\x42\x40"; string(rec) != want {
		t.Errorf("record %q, want %q", rec, want)
	}
	var got []uint64
	if err := b.scan(string(rec)+"\x02"+string(rec[1:]), func(_ simhash.Fingerprint, num uint64) { got = append(got, num) }); err != nil || len(got) != 1 || got[0] != 1000000 {
		t.Errorf("scan = %v, %v; want [1000000] (the other record's match differs)", got, err)
	}
	if n := b.numString(1000000); n != "\x00\x42\x40" || b.numOffset() != 9 {
		t.Errorf("numString = %q, numOffset %d", n, b.numOffset())
	}
	if got, want := s.describe("a:t\x02\x84\x13\x4b"), "t2 level 4 bucket 134b"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
	if got, want := flat.describe("a:t\x02\x4d\x2f"), "t2 bucket 4d2f"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
}

// An archive of bucket bits 8 has posting levels of 255, 512 and 1024
// numbers (2^2, 2^3 and 2^4 buckets a table or band): documents written
// in small batches are found across them by Near and Similar, also by
// a store that opens the archive afterwards; a copy is decided a
// duplicate of an original at another level by Ingest; and once the
// next level's first numbers are taken, level 0's and level 1's
// buckets are at their exact size.
func TestPostingLevels(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	s, err := Open(ctx, url, &Options{BucketBits: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.postLevels {
		t.Fatal("a new archive without posting levels")
	}
	if v, err := s.c.Get(ctx, s.storeKey("bucketbits")).Result(); err != nil || v != "8 levels" {
		t.Fatalf("bucket bits setting %q, %v; want \"8 levels\"", v, err)
	}
	x, err := index.New(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	r := rand.New(rand.NewPCG(8, 8))
	var docs []index.Doc
	for i := range 900 {
		docs = append(docs, doc(fmt.Sprintf("d%03d", i), simhash.Fingerprint(r.Uint64()), uint64(i)))
	}
	for i := 0; i < len(docs); i += 3 { // many APPENDs to each bucket
		if err := x.Add(ctx, docs[i:i+3]...); err != nil {
			t.Fatal(err)
		}
	}
	// Records under a hash of their ID, not the ID.
	if n, err := s.c.Exists(ctx, s.prefix+"rd000").Result(); err != nil || n != 0 {
		t.Errorf("a record under its ID: %d, %v", n, err)
	}
	if n, err := s.c.Exists(ctx, s.recordKey("d000")).Result(); err != nil || n != 1 || len(s.recordKey("d000")) != len(s.prefix)+1+recordHashLen {
		t.Errorf("no record under the ID's hash: %d, %v", n, err)
	}
	// Numbers 1-900: levels 0, 1 and 2.
	if got := s.levelOf(900); got != 2 {
		t.Fatalf("levelOf(900) = %d, want 2", got)
	}
	check := func(x *index.Index, what string) {
		t.Helper()
		for i, d := range docs {
			q := d
			q.ID = "q"
			q.Fingerprint = flip(r, d.Fingerprint, i%4)
			near, err := x.Near(ctx, q.Fingerprint, 3)
			if err != nil || len(near) != 1 || near[0].ID != d.ID {
				t.Fatalf("%s: Near(%s, %d bits off) = %v, %v", what, d.ID, i%4, ids(near), err)
			}
			q.Fingerprint = flip(r, d.Fingerprint, 10) // found by its bands and content
			sim, err := x.Similar(ctx, &q, 3)
			if err != nil || len(sim) != 1 || sim[0].ID != d.ID || !sim[0].Exact {
				t.Fatalf("%s: Similar(copy of %s) = %v, %v", what, d.ID, ids(sim), err)
			}
		}
	}
	check(x, "the writer")
	s2, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	x2, err := index.New(ctx, s2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x2.Close()
	check(x2, "a new reader")

	// Compacted: every bucket of levels 0 and 1 (MEMORY USAGE is the
	// string's allocation, a jemalloc class, and the key's own).
	var loose []string
	var seen int
	var mu sync.Mutex // ForEachMaster calls fn for the masters at once
	err = s.c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		keys, err := m.Keys(ctx, s.prefix+"[tbc]*").Result()
		if err != nil {
			return err
		}
		for _, k := range keys {
			if l := k[len(s.prefix)+2]; l != 0x80 && l != 0x81 {
				continue
			}
			n, err := m.StrLen(ctx, k).Result()
			if err != nil {
				return err
			}
			u, err := m.MemoryUsage(ctx, k, 0).Result()
			if err != nil {
				return err
			}
			mu.Lock()
			seen++
			if n > 64 && u > n+n*3/10+80 { // a class of 1,280 for 1,024 bytes and the header
				loose = append(loose, fmt.Sprintf("%s: %d bytes, MEMORY USAGE %d", s.describe(k), n, u))
			}
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 4 tables and 16 bands of 4 and 8 buckets, and content's.
	if want := 21 * (4 + 8); seen != want || len(loose) > 0 {
		t.Errorf("%d buckets at levels 0 and 1 (want %d), %d not compacted:\n%s", seen, want, len(loose), strings.Join(loose, "\n"))
	}

	// Ingest: copies of d000-d009 (level 0) at level 2.
	var copies []index.Doc
	for _, d := range docs[:10] {
		d.ID = "copy of " + d.ID
		d.Fingerprint = flip(r, d.Fingerprint, 2)
		copies = append(copies, d)
	}
	res, err := x2.Ingest(ctx, copies, index.IngestOptions{Distance: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range res {
		if s2.levelOf(g.Num) != 2 || g.Original || len(g.Matches) == 0 || g.Matches[0].ID != docs[i].ID {
			t.Errorf("Ingest(%s): number %d, original %v, matches %v; want a duplicate of %s", copies[i].ID, g.Num, g.Original, ids(g.Matches), docs[i].ID)
		}
	}
}

// Record keys of a new archive hold the first 16 bytes of the ID's
// SHA-256 (printf d1 | sha256sum: 8b53639f152c8fc6ef30802fde462ba0…).
func TestRecordKey(t *testing.T) {
	s := &Store{prefix: "a:", hashedKeys: true}
	if got, want := s.recordKey("d1"), "a:r\x8b\x53\x63\x9f\x15\x2c\x8f\xc6\xef\x30\x80\x2f\xde\x46\x2b\xa0"; got != want {
		t.Errorf("recordKey(d1) = %q, want %q", got, want)
	}
	old := &Store{prefix: "a:"}
	if got := old.recordKey("d1"); got != "a:rd1" {
		t.Errorf("recordKey(d1) of an archive of before = %q, want \"a:rd1\"", got)
	}
}

// An archive created before the posting levels and hashed record keys
// ('M' "bucketbits" "16", no "recordkeys") is read and written as it
// was: flat buckets at their literal keys, records under their IDs;
// Near, Similar and the record scan find its documents.
func TestOldLayoutArchive(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	s, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// What an archive of before holds before its first write.
	if err := s.c.Set(ctx, s.storeKey("bucketbits"), "16", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.c.Del(ctx, s.storeKey("recordkeys")).Err(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.postLevels || s.hashedKeys || s.bucketBits != 16 {
		t.Fatalf("opened with posting levels %v, hashed keys %v, bucket bits %d; want the flat layout of 16", s.postLevels, s.hashedKeys, s.bucketBits)
	}
	x, err := index.New(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	d := doc("d1", 0x4d2f_0001_0002_0003, 1)
	if err := x.Add(ctx, d); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{s.prefix + "rd1", s.prefix + "t\x00\x4d\x2f", s.prefix + "t\x03\x00\x03"} {
		if n, err := s.c.Exists(ctx, k).Result(); err != nil || n != 1 {
			t.Errorf("key %q: exists %d, %v", k, n, err)
		}
	}
	if n, err := s.c.StrLen(ctx, s.prefix+"t\x00\x4d\x2f").Result(); err != nil || n != 13 {
		t.Errorf("table 0's bucket holds %d bytes, %v; want one 13-byte posting", n, err)
	}
	near, err := x.Near(ctx, d.Fingerprint^1, 3)
	if err != nil || len(near) != 1 || near[0].ID != "d1" {
		t.Errorf("Near = %v, %v", ids(near), err)
	}
	q := d
	q.ID, q.Fingerprint = "q", ^d.Fingerprint
	sim, err := x.Similar(ctx, &q, 3)
	if err != nil || len(sim) != 1 || sim[0].ID != "d1" {
		t.Errorf("Similar = %v, %v", ids(sim), err)
	}
	var scanned []string
	if err := s.ScanRecords(ctx, func(id string, _ []byte) error { scanned = append(scanned, id); return nil }); err != nil || len(scanned) != 1 || scanned[0] != "d1" {
		t.Errorf("ScanRecords = %v, %v", scanned, err)
	}
}

// postings=flat makes a new archive of flat buckets, which later
// openers keep; other values are refused.
func TestFlatPostings(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	s, err := Open(ctx, url+"?postings=flat", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.postLevels || !s.hashedKeys {
		t.Fatalf("postings=flat: posting levels %v, hashed keys %v; want flat buckets, hashed keys", s.postLevels, s.hashedKeys)
	}
	x, err := index.New(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Add(ctx, doc("d1", 0x4d2f_0001_0002_0003, 1)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.c.StrLen(ctx, s.prefix+"t\x00\x4d\x2f").Result(); err != nil || n != 13 {
		t.Errorf("table 0's flat bucket holds %d bytes, %v; want one 13-byte posting", n, err)
	}
	again, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.postLevels {
		t.Error("an archive created flat opened with posting levels")
	}
	if _, _, _, err := ParseURL(url + "?postings=tree"); err == nil || !strings.Contains(err.Error(), `postings="tree": want flat or levels`) {
		t.Errorf("postings=tree: %v", err)
	}
}
