package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/simhash"
)

// TestIngestRace runs indextest.IngestRace with three writers, each an
// Index of its own on the archive.
func TestIngestRace(t *testing.T) {
	c := redistest.Shared(t)
	url := c.URL(redistest.Name(t))
	rounds := 30
	if testing.Short() {
		rounds = 4
	}
	indextest.IngestRace(t, openWriters(t, url, 3), rounds, 25)
}

// dying is a store whose writer dies before deciding anything.
type dying struct{ *Store }

func (d dying) Decide(context.Context, []index.Decision) ([]index.State, error) {
	return nil, errors.New("killed")
}

// TestIngestDeadWriter: a document left pending by a writer that died
// (written by AppendRead, never decided) holds up a later document that
// matches it for IngestOptions.Wait, then counts as an original: the
// later one becomes its duplicate rather than risk two originals. When
// the dead writer's run is resumed, its document is decided original.
func TestIngestDeadWriter(t *testing.T) {
	url := redistest.Shared(t).URL(redistest.Name(t))
	open := func(die bool) *index.Index {
		s, err := Open(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		var st index.Store = s
		if die {
			st = dying{s}
		}
		x, err := index.New(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		return x
	}
	g := indextest.NewGroup(rand.New(rand.NewPCG(15, 3)), "pair", 0)
	a, b := g.Docs[0], g.Docs[1]
	a.Job, b.Job = "dead", "alive"
	if _, err := open(true).Ingest(ctx, []index.Doc{a}, index.IngestOptions{Distance: 3}); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("Ingest by a writer that dies: %v", err)
	}
	start := time.Now()
	res, err := open(false).Ingest(ctx, []index.Doc{b}, index.IngestOptions{Distance: 3, Wait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); res[0].Original || len(res[0].Matches) != 1 || res[0].Matches[0].ID != a.ID || waited < 200*time.Millisecond {
		t.Errorf("Ingest next to a pending document: %+v after %v; want a duplicate of %s after waiting 200ms", res[0], waited, a.ID)
	}
	res, err = open(false).Ingest(ctx, []index.Doc{a}, index.IngestOptions{Distance: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].Original || !res[0].Resumed {
		t.Errorf("the dead writer's document resumed: %+v; want a resumed original", res[0])
	}
}

// TestIngestStateStats: ClusterStats measures the ingest states: 300
// documents written by Ingest (numbers 1 to 300, in three state
// hashes) are 300 states sampled, each a few bytes (a status byte and
// a one-byte field in a listpack of up to 128).
func TestIngestStateStats(t *testing.T) {
	x, s := openIndex(t, nil, nil)
	r := rand.New(rand.NewPCG(15, 5))
	var docs []index.Doc
	for i := range 300 {
		docs = append(docs, doc(fmt.Sprintf("s%d", i), simhash.Fingerprint(r.Uint64()), uint64(i)))
	}
	for i := 0; i < len(docs); i += 100 {
		if _, err := x.Ingest(ctx, docs[i:i+100], index.IngestOptions{Distance: 3}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.ClusterStats(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.LastNumber != 300 || st.StateSamples != 300 || st.StateBytesPerDoc < 2 || st.StateBytesPerDoc > 16 {
		t.Errorf("ClusterStats: last number %d, %d states sampled at %.1f bytes each; want 300, 300, 2 to 16 bytes", st.LastNumber, st.StateSamples, st.StateBytesPerDoc)
	}
	t.Logf("%.2f bytes per state", st.StateBytesPerDoc)
}

// TestIngestDeleteRecordOnly: a duplicate Ingest archived RecordOnly
// keeps the postings it was appended under (Ingest files every document
// under all its keys before deciding it); deleting it removes them from
// the table buckets too, not only from its content key.
func TestIngestDeleteRecordOnly(t *testing.T) {
	x, s := openIndex(t, nil, nil)
	g := indextest.NewGroup(rand.New(rand.NewPCG(15, 6)), "pair", 0)
	res, err := x.Ingest(ctx, g.Docs, index.IngestOptions{Distance: 3, JoinMinContent: indextest.JoinMinContent,
		Member: func(*index.Doc, *index.Match) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	b := g.Docs[1]
	if d, err := x.Get(ctx, b.ID); err != nil || !d.RecordOnly || d.Original != g.Docs[0].ID {
		t.Fatalf("B after Ingest: %+v, %v; want RecordOnly in A's cluster", d, err)
	}
	held := func() int {
		n := 0
		for tb := range 4 {
			bk, err := s.bucketFor(index.Key{Kind: index.KindTable, Table: uint8(tb), Bits: 16, Value: uint64(b.Fingerprint>>(48-16*tb)) & 0xffff}, res[1].Num)
			if err != nil {
				t.Fatal(err)
			}
			val, err := s.Client().Get(ctx, bk.key).Result()
			if err != nil && err != redis.Nil {
				t.Fatal(err)
			}
			if err := bk.scan(val, func(_ simhash.Fingerprint, num uint64) {
				if num == res[1].Num {
					n++
				}
			}); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	if n := held(); n != 4 {
		t.Fatalf("B's number in %d of its 4 table buckets after Ingest; want 4", n)
	}
	if err := x.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if n := held(); n != 0 {
		t.Errorf("B's number in %d of its table buckets after Delete; want none", n)
	}
}

// countingRecords counts the records read.
type countingRecords struct {
	*Store
	read int
}

func (c *countingRecords) Records(ctx context.Context, ids []string) ([][]byte, error) {
	c.read += len(ids)
	return c.Store.Records(ctx, ids)
}

// TestIngestReadsCandidatesOnly: of the documents a new one sees under
// its table keys, Ingest reads the records of those within the distance
// only, as Similar does: 40 documents sharing a table bucket with it
// but 16 or more bits away cost no record read.
func TestIngestReadsCandidatesOnly(t *testing.T) {
	c := &countingRecords{Store: open(t, nil)}
	x, err := index.New(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	r := rand.New(rand.NewPCG(15, 7))
	var docs []index.Doc
	for i := range 41 {
		// Table 0's 16 bits shared; the other 48 random (a distance of
		// about 24 bits), none within 3 of another.
		docs = append(docs, index.Doc{ID: fmt.Sprintf("far%d", i), Fingerprint: 0xABCD<<48 | simhash.Fingerprint(r.Uint64()>>16), ContentHash: uint64(i) + 1})
	}
	for i := range docs {
		for j := range i {
			if docs[i].Fingerprint.Distance(docs[j].Fingerprint) <= 3 {
				t.Fatalf("%s and %s are within 3 bits", docs[i].ID, docs[j].ID)
			}
		}
	}
	if _, err := x.Ingest(ctx, docs[:40], index.IngestOptions{Distance: 3}); err != nil {
		t.Fatal(err)
	}
	c.read = 0
	res, err := x.Ingest(ctx, docs[40:], index.IngestOptions{Distance: 3})
	if err != nil || !res[0].Original {
		t.Fatalf("Ingest = %+v, %v; want an original", res, err)
	}
	if c.read != 1 {
		t.Errorf("Ingest of a document 40 far ones share a bucket with read %d records; want 1 (its own ID, to see it is new)", c.read)
	}
}

// openWriters opens n indexes on the archive url, one a writer, closed
// when the test ends.
func openWriters(t *testing.T, url string, n int) []*index.Index {
	t.Helper()
	xs := make([]*index.Index, n)
	for w := range xs {
		x, err := OpenIndex(ctx, url, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		xs[w] = x
	}
	return xs
}
