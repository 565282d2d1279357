package index_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

var (
	benchN      = flag.Int("index.n", 1_000_000, "documents in the index BenchmarkNear and BenchmarkSimilar build, and in BenchmarkLoad's loads")
	benchBadger = flag.Bool("index.badger", true, "include the Badger store")
)

// benchStore is a store the benchmarks run on.
type benchStore struct {
	name string
	open func(testing.TB) *index.Index // a new, empty index
}

// benchStores are memory, and Badger in a temporary directory unless
// -index.badger=false.
func benchStores() []benchStore {
	stores := []benchStore{{"memory", func(b testing.TB) *index.Index {
		x, err := memstore.Open(b.Context(), nil)
		if err != nil {
			b.Fatal(err)
		}
		return x
	}}}
	if *benchBadger {
		stores = append(stores, benchStore{"badger", func(b testing.TB) *index.Index {
			x, err := badgerstore.OpenIndex(b.Context(), filepath.Join(b.TempDir(), "idx"), nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			return x
		}})
	}
	return stores
}

// benchDoc returns a document with a realistic record: a 30-byte title,
// 10 keywords and a full sketch (about 330 bytes encoded).
func benchDoc(r *rand.Rand, i int) index.Doc {
	d := index.Doc{
		ID:          fmt.Sprintf("doc-%09d", i),
		Fingerprint: simhash.Fingerprint(r.Uint64()),
		ContentHash: r.Uint64(),
		Title:       fmt.Sprintf("benchmark document title %05d", i%100000),
		Added:       time.Unix(1.7e9+int64(i), 0),
	}
	for range 10 {
		d.Keywords = append(d.Keywords, tfidf.Keyword{Word: fmt.Sprintf("w%05d", r.IntN(50000)), Weight: r.Float64()})
	}
	for k := range d.Sketch {
		d.Sketch[k] = uint16(r.Uint32()) | 1
	}
	return d
}

// bareDoc returns a document as add --fingerprints makes one: an ID and
// a fingerprint.
func bareDoc(r *rand.Rand, i int) index.Doc {
	return index.Doc{ID: fmt.Sprintf("doc-%09d", i), Fingerprint: simhash.Fingerprint(r.Uint64()), Added: time.Unix(1.7e9, 0)}
}

// benchKinds are the documents BenchmarkAdd and BenchmarkLoad write:
// bare fingerprints, and documents with a realistic record and a sketch
// (16 band keys more).
var benchKinds = []struct {
	name string
	doc  func(*rand.Rand, int) index.Doc
}{{"bare", bareDoc}, {"sketch", benchDoc}}

// BenchmarkAdd adds documents in batches of 1000 to one index per store.
func BenchmarkAdd(b *testing.B) {
	for _, st := range benchStores() {
		for _, kind := range benchKinds {
			b.Run(st.name+"/"+kind.name, func(b *testing.B) {
				x := st.open(b)
				defer x.Close()
				r := rand.New(rand.NewPCG(1, 1))
				const batch = 1000
				docs := make([]index.Doc, batch)
				var bytes int64
				for i := range docs {
					docs[i] = kind.doc(r, i)
					bytes += int64(len(index.EncodeDoc(nil, &docs[i])))
				}
				b.SetBytes(bytes)
				n := 0
				for b.Loop() {
					for i := range docs {
						docs[i].ID = fmt.Sprintf("doc-%09d", n*batch+i)
						docs[i].Fingerprint = simhash.Fingerprint(r.Uint64())
						docs[i].ContentHash = r.Uint64()
					}
					if err := x.Add(b.Context(), docs...); err != nil {
						b.Fatal(err)
					}
					n++
				}
				b.ReportMetric(float64(n*batch)/b.Elapsed().Seconds(), "fingerprints/s")
			})
		}
	}
}

// BenchmarkLoad fills a new index with -index.n documents by Load; each
// iteration is one Load (Badger's Loader, or Add a batch at a time in
// memory).
func BenchmarkLoad(b *testing.B) {
	for _, st := range benchStores() {
		for _, kind := range benchKinds {
			b.Run(st.name+"/"+kind.name, func(b *testing.B) {
				n := *benchN
				loads := 0
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					x := st.open(b)
					r := rand.New(rand.NewPCG(1, uint64(i)))
					b.StartTimer()
					got, err := x.Load(b.Context(), func(yield func(index.Doc) bool) {
						for j := range n {
							if !yield(kind.doc(r, j)) {
								return
							}
						}
					})
					if err != nil || got != n {
						b.Fatalf("Load: %d documents, %v", got, err)
					}
					b.StopTimer()
					x.Close()
					b.StartTimer()
					loads++
				}
				b.ReportMetric(float64(loads*n)/b.Elapsed().Seconds(), "fingerprints/s")
			})
		}
	}
}

// benchIndexes builds one index of -index.n documents with sketches per
// store, and returns their fingerprints and one document in 16.
func benchIndexes(b *testing.B) ([]*index.Index, []string, []simhash.Fingerprint, []index.Doc) {
	n := *benchN
	r := rand.New(rand.NewPCG(2, 2))
	var xs []*index.Index
	var names []string
	for _, st := range benchStores() {
		xs = append(xs, st.open(b))
		names = append(names, st.name)
	}
	fps := make([]simhash.Fingerprint, 0, n)
	var sample []index.Doc
	docs := make([]index.Doc, 0, 10000)
	start := time.Now()
	for i := range n {
		d := benchDoc(r, i)
		fps = append(fps, d.Fingerprint)
		if i%16 == 0 {
			sample = append(sample, d)
		}
		docs = append(docs, d)
		if len(docs) == cap(docs) || i == n-1 {
			for _, x := range xs {
				if err := x.Add(b.Context(), docs...); err != nil {
					b.Fatal(err)
				}
			}
			docs = docs[:0]
		}
	}
	b.Logf("built %d-document indexes in %v", n, time.Since(start))
	b.Cleanup(func() {
		for _, x := range xs {
			x.Close()
		}
	})
	return xs, names, fps, sample
}

// BenchmarkNear queries an index of -index.n documents per store at
// distance 3, each query within 0 to 3 bits of a document.
func BenchmarkNear(b *testing.B) {
	xs, names, fps, _ := benchIndexes(b)
	r := rand.New(rand.NewPCG(3, 3))
	qs := make([]simhash.Fingerprint, 1<<16)
	for i := range qs {
		qs[i] = indextest.Flip(r, fps[r.IntN(len(fps))], i%4)
	}
	for i, x := range xs {
		benchQueries(b, names[i], func(q int) ([]index.Match, error) { return x.Near(b.Context(), qs[q%len(qs)], 3) })
		b.Run(names[i]+"-parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				q := rand.IntN(len(qs))
				for pb.Next() {
					if _, err := x.Near(b.Context(), qs[q%len(qs)], 3); err != nil {
						b.Error(err)
						return
					}
					q++
				}
			})
		})
	}
}

// BenchmarkSimilar queries an index of -index.n documents per store at
// distance 3 with edited copies of its documents: a few fingerprint bits
// and sketch values changed, so that every query has its original as a
// candidate through the tables and the bands and reads its record.
func BenchmarkSimilar(b *testing.B) {
	xs, names, _, sample := benchIndexes(b)
	r := rand.New(rand.NewPCG(4, 4))
	qs := make([]index.Doc, len(sample))
	for i, d := range sample {
		d.ID = fmt.Sprint("query-", i)
		d.Fingerprint = indextest.Flip(r, d.Fingerprint, i%4)
		d.ContentHash = r.Uint64()
		for range 3 {
			d.Sketch[r.IntN(len(d.Sketch))] = uint16(r.Uint32())
		}
		qs[i] = d
	}
	for i, x := range xs {
		benchQueries(b, names[i], func(q int) ([]index.Match, error) { return x.Similar(b.Context(), &qs[q%len(qs)], 3) })
	}
}

// benchQueries runs query 0, 1, 2 … as a sub-benchmark, each with a
// planted match: it fails if they find fewer matches than there were
// queries.
func benchQueries(b *testing.B, name string, query func(q int) ([]index.Match, error)) {
	b.Run(name, func(b *testing.B) {
		found, q := 0, 0
		for b.Loop() {
			ms, err := query(q)
			if err != nil {
				b.Fatal(err)
			}
			found += len(ms)
			q++
		}
		if found < q {
			b.Fatalf("%d matches for %d queries with planted matches", found, q)
		}
	})
}

// BenchmarkExact looks up content hashes in an index of 10,000
// documents per store, absent and present.
func BenchmarkExact(b *testing.B) {
	for _, st := range benchStores() {
		x := st.open(b)
		r := rand.New(rand.NewPCG(3, 3))
		var docs []index.Doc
		for i := range 10000 {
			docs = append(docs, benchDoc(r, i))
		}
		if err := x.Add(b.Context(), docs...); err != nil {
			b.Fatal(err)
		}
		b.Run(st.name+"/absent", func(b *testing.B) {
			for b.Loop() {
				if _, err := x.Exact(b.Context(), r.Uint64()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(st.name+"/present", func(b *testing.B) {
			i := 0
			for b.Loop() {
				if ids, err := x.Exact(b.Context(), docs[i%len(docs)].ContentHash); err != nil || len(ids) != 1 {
					b.Fatal(ids, err)
				}
				i++
			}
		})
		x.Close()
	}
}

func BenchmarkEncodeDoc(b *testing.B) {
	d := benchDoc(rand.New(rand.NewPCG(4, 4)), 1)
	buf := index.EncodeDoc(nil, &d)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		buf = index.EncodeDoc(buf[:0], &d)
	}
}

func BenchmarkDecodeDoc(b *testing.B) {
	d := benchDoc(rand.New(rand.NewPCG(4, 4)), 1)
	buf := index.EncodeDoc(nil, &d)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if _, err := index.DecodeDoc(buf, d.ID); err != nil {
			b.Fatal(err)
		}
	}
}
