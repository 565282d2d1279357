package index

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

var (
	benchN      = flag.Int("index.n", 1_000_000, "fingerprints in the index BenchmarkNear builds")
	benchBadger = flag.Bool("index.badger", true, "include the Badger index in BenchmarkNear")
)

// benchDoc returns a document with a realistic record: a 30-byte title,
// 10 keywords and a full sketch (about 330 bytes encoded).
func benchDoc(r *rand.Rand, i int) Doc {
	d := Doc{
		ID:          fmt.Sprintf("doc-%09d", i),
		Fingerprint: simhash.Fingerprint(r.Uint64()),
		ContentHash: r.Uint64(),
		Title:       fmt.Sprintf("benchmark document title %05d", i%100000),
		Added:       time.Unix(1.7e9+int64(i), 0),
	}
	for k := 0; k < 10; k++ {
		d.Keywords = append(d.Keywords, tfidf.Keyword{Word: fmt.Sprintf("w%05d", r.IntN(50000)), Weight: r.Float64()})
	}
	for k := range d.Sketch {
		d.Sketch[k] = uint16(r.Uint32()) | 1
	}
	return d
}

// bareDoc returns a document as add --fingerprints makes one: an ID and
// a fingerprint.
func bareDoc(r *rand.Rand, i int) Doc {
	return Doc{ID: fmt.Sprintf("doc-%09d", i), Fingerprint: simhash.Fingerprint(r.Uint64()), Added: time.Unix(1.7e9, 0)}
}

// benchKinds are the documents BenchmarkAdd and BenchmarkLoad write:
// bare fingerprints, and documents with a realistic record and a sketch
// (16 band keys more).
var benchKinds = []struct {
	name string
	doc  func(*rand.Rand, int) Doc
}{{"bare", bareDoc}, {"sketch", benchDoc}}

// BenchmarkAdd adds documents in batches of 1000 to one index.
func BenchmarkAdd(b *testing.B) {
	for _, kind := range benchKinds {
		b.Run(kind.name, func(b *testing.B) {
			x, _ := openTemp(b, nil)
			r := rand.New(rand.NewPCG(1, 1))
			const batch = 1000
			docs := make([]Doc, batch)
			var bytes int64
			for i := range docs {
				docs[i] = kind.doc(r, i)
				bytes += int64(len(encodeDoc(nil, &docs[i])))
			}
			b.SetBytes(bytes)
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				for i := range docs {
					docs[i].ID = fmt.Sprintf("doc-%09d", n*batch+i)
					docs[i].Fingerprint = simhash.Fingerprint(r.Uint64())
					docs[i].ContentHash = r.Uint64()
				}
				if err := x.Add(docs...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "fingerprints/s")
		})
	}
}

// BenchmarkLoad fills a new index with -index.n documents by Load; each
// iteration is one Load.
func BenchmarkLoad(b *testing.B) {
	for _, kind := range benchKinds {
		b.Run(kind.name, func(b *testing.B) {
			n := *benchN
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				x, _ := openTemp(b, nil)
				r := rand.New(rand.NewPCG(1, uint64(i)))
				b.StartTimer()
				got, err := x.Load(func(yield func(Doc) bool) {
					for j := 0; j < n; j++ {
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
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "fingerprints/s")
		})
	}
}

// nearQueries returns fingerprints each within 0 to 3 bits of one in
// fps, so that every query has a planted neighbour.
func nearQueries(r *rand.Rand, fps []simhash.Fingerprint, n int) []simhash.Fingerprint {
	qs := make([]simhash.Fingerprint, n)
	for i := range qs {
		qs[i] = flip(r, fps[r.IntN(len(fps))], i%4)
	}
	return qs
}

// BenchmarkNear builds one index of -index.n random fingerprints per
// implementation and queries it at distance 3.
func BenchmarkNear(b *testing.B) {
	n := *benchN
	r := rand.New(rand.NewPCG(2, 2))
	docs := make([]Doc, 0, 10000)
	fps := make([]simhash.Fingerprint, 0, n)
	x, _ := openTemp(b, nil)
	m, _ := NewMemory(nil)
	start := time.Now()
	for i := 0; i < n; i++ {
		d := benchDoc(r, i)
		fps = append(fps, d.Fingerprint)
		docs = append(docs, d)
		if len(docs) == cap(docs) || i == n-1 {
			if *benchBadger {
				if err := x.Add(docs...); err != nil {
					b.Fatal(err)
				}
			}
			if err := m.Add(docs...); err != nil {
				b.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	b.Logf("built %d-fingerprint indexes in %v", n, time.Since(start))
	qs := nearQueries(r, fps, 1<<16)
	impls := []struct {
		name string
		x    indexer
	}{{"badger", x}, {"memory", m}}
	if !*benchBadger {
		impls = impls[1:]
	}
	for _, impl := range impls {
		b.Run(impl.name, func(b *testing.B) {
			found := 0
			for i := 0; i < b.N; i++ {
				ms, err := impl.x.Near(qs[i%len(qs)], 3)
				if err != nil {
					b.Fatal(err)
				}
				found += len(ms)
			}
			if found < b.N {
				b.Fatalf("%d matches for %d queries with planted neighbours", found, b.N)
			}
		})
		b.Run(impl.name+"-parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				i := rand.IntN(len(qs))
				for pb.Next() {
					if _, err := impl.x.Near(qs[i%len(qs)], 3); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
		})
	}
}

func BenchmarkExact(b *testing.B) {
	x, _ := openTemp(b, nil)
	r := rand.New(rand.NewPCG(3, 3))
	var docs []Doc
	for i := 0; i < 10000; i++ {
		docs = append(docs, benchDoc(r, i))
	}
	if err := x.Add(docs...); err != nil {
		b.Fatal(err)
	}
	b.Run("absent", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x.Exact(r.Uint64())
		}
	})
	b.Run("present", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x.Exact(docs[i%len(docs)].ContentHash)
		}
	})
}

func BenchmarkEncodeDoc(b *testing.B) {
	d := benchDoc(rand.New(rand.NewPCG(4, 4)), 1)
	buf := encodeDoc(nil, &d)
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		buf = encodeDoc(buf[:0], &d)
	}
}

func BenchmarkDecodeDoc(b *testing.B) {
	d := benchDoc(rand.New(rand.NewPCG(4, 4)), 1)
	buf := encodeDoc(nil, &d)
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		if _, err := decodeDoc(buf, d.ID); err != nil {
			b.Fatal(err)
		}
	}
}
