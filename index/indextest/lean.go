package indextest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// The helpers of the stores' tests of lean records (badgerstore's and
// redisstore's TestLeanDigests).

// leanSentences make the texts of LeanDoc: distinct enough that texts
// sharing few of them share no sketch band.
var leanSentences = []string{
	"The river authority said on Tuesday that water levels had fallen for the third week in a row.",
	"Farmers in the valley have been asked to cut irrigation by a fifth until the autumn rains arrive.",
	"A spokesman for the ministry declined to say when restrictions on shipping would be lifted.",
	"Officials expect the reservoir to recover only slowly, even if the forecast storms arrive on time.",
	"The harbour master closed two of the five berths after a dredger ran aground near the mouth.",
	"Local schools will open an hour later next month to save power during the morning peak.",
	"Economists warned that grain prices could rise sharply if the drought lasts into the winter.",
	"The city council voted to build a second pipeline from the northern lakes at a cost of two billion.",
	"Residents complained that the new water meters overcharged households with large gardens.",
	"Engineers found cracks in the old dam's spillway during an inspection earlier this year.",
}

// LeanDoc is a document of the sentences at idx (of a fixed list of
// English news sentences), with both sketches and a fingerprint far
// from every other LeanDoc's, so that only the sketch bands and the
// content hash make candidates.
func LeanDoc(id string, seed uint64, idx ...int) index.Doc {
	var b strings.Builder
	for _, i := range idx {
		b.WriteString(leanSentences[i])
		b.WriteByte(' ')
	}
	sk, long, n := minhash.NewAll(b.String())
	return index.Doc{ID: id, Fingerprint: simhash.Fingerprint(seed * 0x9e3779b97f4a7c15), ContentHash: seed,
		Title: "title " + id, Added: time.Unix(1.7e9, 0).UTC(), Sketch: sk, Long: long, Shingles: n}
}

// SimilarOf is what Similar finds for d: each match's ID, distance,
// content and containment estimates and exactness.
func SimilarOf(t testing.TB, x *index.Index, d index.Doc) string {
	t.Helper()
	ms, err := x.Similar(context.Background(), &d, 3)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s@%d/%.4f/%.4f/%v", m.ID, m.Distance, m.Content, m.Containment, m.Exact))
	}
	return strings.Join(out, " ")
}

// DigestsOnly reports whether s holds band digests (index.BatchRecord):
// a non-zero value at the start of each band, zeros elsewhere.
func DigestsOnly(s *minhash.Sketch) bool {
	for i, v := range s {
		if (i%index.BandRows == 0) != (v != 0) {
			return false
		}
	}
	return true
}
