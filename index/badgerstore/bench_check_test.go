package badgerstore

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
)

var checkDocs = flag.Int("badgerstore.checkdocs", 200_000, "documents in the store BenchmarkReadCheck queries")

// checkDoc returns document i of BenchmarkReadCheck's store: random
// fingerprint, content hash and sketch, and a short title.
func checkDoc(r *rand.Rand, i int) index.Doc {
	d := index.Doc{ID: fmt.Sprintf("doc-%09d", i), Fingerprint: simhash.Fingerprint(r.Uint64()), ContentHash: r.Uint64(), Title: fmt.Sprintf("benchmark document title %05d", i)}
	for k := range d.Sketch {
		d.Sketch[k] = uint16(r.Uint32()) | 1
	}
	return d
}

// BenchmarkReadCheck times the reads of Similar (the postings of 4
// tables, 16 bands and the content hash, then the candidates' records)
// and of Get on a loaded store of -badgerstore.checkdocs documents,
// opened read-write and read-only, with the check of the blocks Badger
// read (package tablecheck) and without it. Every iteration is a round of 500
// queries of each kind, checked and unchecked one after the other;
// the metrics are the medians over the rounds of the time per query and
// of the round's ratio checked/unchecked.
func BenchmarkReadCheck(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "idx")
	x, err := OpenIndex(b.Context(), dir, nil, &index.Options{AnalyzerID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	docs := make([]index.Doc, *checkDocs)
	for i := range docs {
		docs[i] = checkDoc(r, i)
	}
	if _, err := x.Load(b.Context(), slices.Values(docs)); err != nil {
		b.Fatal(err)
	}
	if err := x.Close(); err != nil {
		b.Fatal(err)
	}
	// Queries: edited copies, so that each finds its original through
	// the tables and the bands and reads its record.
	qs := make([]index.Doc, 500)
	for i := range qs {
		d := docs[r.IntN(len(docs))]
		d.ID = fmt.Sprint("query-", i)
		d.Fingerprint ^= 1 << r.IntN(64)
		d.ContentHash = r.Uint64()
		d.Sketch[r.IntN(len(d.Sketch))] = 7
		qs[i] = d
	}
	for _, ro := range []bool{false, true} {
		b.Run(map[bool]string{false: "read-write", true: "read-only"}[ro], func(b *testing.B) {
			s, err := Open(dir, &Options{ReadOnly: ro})
			if err != nil {
				b.Fatal(err)
			}
			x, err := index.New(b.Context(), s, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer x.Close()
			similar := func() {
				for i := range qs {
					ms, err := x.Similar(b.Context(), &qs[i], 3)
					if err != nil || len(ms) == 0 {
						b.Fatalf("Similar %s: %v, %v; want its original", qs[i].ID, ms, err)
					}
				}
			}
			get := func() {
				for i := range qs {
					if _, err := x.Get(b.Context(), docs[i*7919%len(docs)].ID); err != nil {
						b.Fatal(err)
					}
				}
			}
			type sample struct{ on, off time.Duration }
			var sim, gets []sample
			timed := func(off bool, f func()) time.Duration {
				s.checksOff = off
				defer func() { s.checksOff = false }()
				start := time.Now()
				f()
				return time.Since(start)
			}
			for b.Loop() {
				sim = append(sim, sample{timed(false, similar), timed(true, similar)})
				gets = append(gets, sample{timed(false, get), timed(true, get)})
			}
			for _, m := range []struct {
				name string
				ss   []sample
			}{{"similar", sim}, {"get", gets}} {
				var on, off, ratio []float64
				for _, x := range m.ss {
					on = append(on, float64(x.on.Microseconds())/float64(len(qs)))
					off = append(off, float64(x.off.Microseconds())/float64(len(qs)))
					ratio = append(ratio, float64(x.on)/float64(x.off))
				}
				b.ReportMetric(median(on), m.name+"-checked-us/query")
				b.ReportMetric(median(off), m.name+"-unchecked-us/query")
				b.ReportMetric(median(ratio), m.name+"-checked/unchecked")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// median returns the median of xs (xs is sorted).
func median(xs []float64) float64 {
	slices.Sort(xs)
	if n := len(xs); n%2 == 1 {
		return xs[n/2]
	} else {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
}
