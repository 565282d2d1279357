package reuse

import (
	"context"
	"encoding/json"
	"io"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/segment"
)

// Pair is a reuse pair of a corpus: A came before B, and each share is
// the share of that article found in the other. It is a line of
// neardup dedup --reuse-pairs.
type Pair struct {
	A      string  `json:"a"`
	B      string  `json:"b"`
	AShare float64 `json:"a_share"`
	BShare float64 `json:"b_share"`
}

// Batch finds the reuse pairs of a corpus, one article after another,
// in memory: each is compared with the articles before it (Find over a
// reuse index in a memstore archive, every text kept compressed) and
// then filed. It is not safe for concurrent use.
type Batch struct {
	r     *Index
	x     *index.Index
	stats BatchStats
}

// BatchStats count what a Batch did.
type BatchStats struct {
	Docs    int `json:"docs"`    // articles filed
	Pairs   int `json:"pairs"`   // reuse pairs found
	Dropped int `json:"dropped"` // boilerplate fingerprints met (once per article that has them)
}

// NewBatch returns an empty Batch.
func NewBatch(ctx context.Context, fold segment.Folder, p Params, o *Options) (*Batch, error) {
	x, err := memstore.Open(ctx, nil)
	if err != nil {
		return nil, err
	}
	r, err := Open(ctx, x, fold, p, o)
	if err != nil {
		x.Close()
		return nil, err
	}
	return &Batch{r: r, x: x}, nil
}

// Add returns the pairs text (the article id) makes with the articles
// added before, largest share first, and files it.
func (b *Batch) Add(ctx context.Context, id, text string) ([]Pair, error) {
	a, err := b.r.Find(ctx, text, id)
	if err != nil {
		return nil, err
	}
	var ps []Pair
	for _, m := range a.Matches {
		ps = append(ps, Pair{A: m.ID, B: id, AShare: m.There, BShare: m.Here})
	}
	if err := b.x.Add(ctx, index.Doc{ID: id, Text: text, Passages: a.File}); err != nil {
		return nil, err
	}
	b.stats.Docs++
	b.stats.Pairs += len(ps)
	b.stats.Dropped += a.Dropped
	return ps, nil
}

// Stats returns what b did so far.
func (b *Batch) Stats() BatchStats { return b.stats }

// Close releases b's memory.
func (b *Batch) Close() error { return b.x.Close() }

// WritePairs writes ps as JSON lines.
func WritePairs(w io.Writer, ps []Pair) error {
	enc := json.NewEncoder(w)
	for i := range ps {
		if err := enc.Encode(&ps[i]); err != nil {
			return err
		}
	}
	return nil
}
