package badgerstore

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

// A rebuild of the filters from Badger during an Apply of several
// transactions counts what the transactions before it committed: the
// content hashes their replacements removed are not in it, and must not
// be taken out of it again once the commits are done. Here "a" and "b"
// have the same text (content hash h); the Apply replaces "a" in its
// first transaction and outgrows the filters in its third, which
// rebuilds them from the store; "b" must still pass the content filter.
func TestForgetAfterRebuild(t *testing.T) {
	ctx := t.Context()
	s, err := Open(filepath.Join(t.TempDir(), "idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Claim(ctx, map[string][]byte{index.MetaFormat: {1}}); err != nil {
		t.Fatal(err)
	}
	const h = 0xfeedface
	doc := func(id string, fp simhash.Fingerprint, content uint64) index.Write {
		return index.Write{ID: id, Fingerprint: fp, Record: []byte{1}, Keys: []index.Key{
			{Kind: index.KindTable, Table: 0, Bits: 16, Value: uint64(fp >> 48)},
			{Kind: index.KindContent, Value: content},
		}}
	}
	a, b := doc("a", 0x1111<<48, h), doc("b", 0x2222<<48, h)
	if err := s.Apply(ctx, &index.Batch{Writes: []index.Write{a, b}}); err != nil {
		t.Fatal(err)
	}
	a2 := doc("a", 0x1111<<48, h+1) // "a" edited: its old content hash goes
	a2.Replaces, a2.OldFingerprint, a2.OldKeys = true, a.Fingerprint, a.Keys
	batch := index.Batch{Writes: []index.Write{a2}}
	for i := range 2*txnDocs + 5000 { // three transactions: the third outgrows the filters
		batch.Writes = append(batch.Writes, doc(fmt.Sprintf("d%d", i), simhash.Fingerprint(uint64(i)*0x9e3779b97f4a7c15), uint64(i)<<20|1))
	}
	before := s.rebuilds.Load()
	if err := s.Apply(ctx, &batch); err != nil {
		t.Fatal(err)
	}
	if got := s.rebuilds.Load() - before; got != 2 {
		t.Fatalf("%d rebuilds of the filters during the Apply, want 2 (at the first and the third transaction)", got)
	}
	if !s.mayContain(h) {
		t.Errorf("b's content hash is missing from the content filter: a replacement's removal was counted twice")
	}
	ps, err := s.Postings(ctx, []index.Key{{Kind: index.KindContent, Value: h}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps[0]) != 1 || ps[0][0].ID != "b" {
		t.Errorf("postings of the content hash %#x: %v, want b's", h, ps[0])
	}
}
