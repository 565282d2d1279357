// badgeringest builds an index of random fingerprints with realistic
// records in a Badger store and measures ingest rate, Near latency,
// bytes on disk and peak RSS; optionally it does the same queries on an
// index in memory. It is a program rather than a benchmark because a
// 10M index takes minutes to build.
//
// From the repository root:
//
//	go run ./bench/badgeringest -n 1000000 -memory
//	go run ./bench/badgeringest -n 1000000 -load -sketch=false
//	go run ./bench/badgeringest -n 1000000 -real ../shared/corpora
//	go run ./bench/badgeringest -n 10000000 -dir /work/tmp/idx10m
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// ownFlags gives the program a flag set of its own before its flags are
// defined: importing neardup imports OpenCC's package, which registers a
// -dir flag on flag.CommandLine that means nothing here.
var ownFlags = func() bool {
	flag.CommandLine = flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	return true
}()

var (
	n        = flag.Int("n", 1_000_000, "fingerprints to index")
	batch    = flag.Int("batch", 1000, "documents per Add call")
	queries  = flag.Int("queries", 10000, "Near queries, each with a planted neighbour 0 to 3 bits away")
	dir      = flag.String("dir", "", "index directory (default: a new temporary directory, removed at the end)")
	memory   = flag.Bool("memory", false, "also build an index in memory (memstore) and measure its query rate")
	noBadger = flag.Bool("nobadger", false, "skip the Badger index (with -memory)")
	sketch   = flag.Bool("sketch", true, "give documents a MinHash sketch (and so 16 band keys each); false measures the fingerprint tables alone")
	cpuprof  = flag.String("cpuprofile", "", "write a CPU profile of the query phase to this file")
	reuse    = flag.Bool("reuse", false, "query an existing index in -dir built by an earlier run with the same -n (skip ingest)")
	load     = flag.Bool("load", false, "fill the index with Index.Load (Badger's bulk path) instead of Add in batches")
	bare     = flag.Bool("bare", false, "documents of an ID and a fingerprint only, as add --fingerprints makes (no title, keywords, content hash or sketch)")
	realDir  = flag.String("real", "", "also index the fingerprints of every article of the corpora (*.jsonl.gz) in `DIR`, made by the default analyzer, and query those instead of random ones")
)

// realFP is the fingerprint of a real article.
type realFP struct {
	id string
	fp simhash.Fingerprint
}

// realFingerprints fingerprints every article of the corpora in dir.
func realFingerprints(dir string) ([]realFP, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil {
		return nil, err
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return strings.HasSuffix(p, ".pairs.jsonl.gz") })
	a, err := neardup.NewAnalyzer(nil)
	if err != nil {
		return nil, err
	}
	var out []realFP
	for _, p := range paths {
		r := input.NewReader([]string{p}, nil, nil)
		corpus := strings.TrimSuffix(filepath.Base(p), ".jsonl.gz")
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			an, err := a.Analyze(rec.Text)
			if err != nil {
				continue // too short
			}
			out = append(out, realFP{"real-" + corpus + "/" + rec.ID, an.Fingerprint})
		}
		r.Close()
	}
	return out, nil
}

// blockSkew prints, for each 16-bit block, how many of fps share the
// most common value, and the mean number of others that share a
// fingerprint's block value, against what uniform random fingerprints
// would give.
func blockSkew(fps []realFP) {
	n := len(fps)
	for b := 0; b < 4; b++ {
		counts := map[uint16]int{}
		for _, f := range fps {
			counts[f.fp.Blocks()[b]]++
		}
		maxc, sumsq := 0, 0
		for _, c := range counts {
			maxc = max(maxc, c)
			sumsq += c * c
		}
		fmt.Printf("  block %d: %d distinct values, the most common shared by %d; a fingerprint shares its value with %.2f others (uniform: %.2f)\n",
			b, len(counts), maxc, float64(sumsq)/float64(n)-1, float64(n-1)/65536)
	}
}

func doc(r *rand.Rand, i int) index.Doc {
	if *bare {
		return index.Doc{ID: fmt.Sprintf("doc-%09d", i), Fingerprint: simhash.Fingerprint(r.Uint64()), Added: time.Unix(1.7e9, 0)}
	}
	d := index.Doc{
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
	if !*sketch {
		d.Sketch = minhash.Sketch{} // no MinHash band keys
	}
	return d
}

func peakRSS() string {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return fmt.Sprintf("%.0f MiB", float64(ru.Maxrss)/1024)
}

func main() {
	flag.Parse()
	ctx := context.Background()
	d := *dir
	if d == "" {
		tmp, err := os.MkdirTemp("", "neardup-bench")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		d = filepath.Join(tmp, "idx")
	}
	fmt.Printf("n=%d batch=%d sketch=%v dir=%s GOMAXPROCS=%d\n", *n, *batch, *sketch, d, runtime.GOMAXPROCS(0))

	var reals []realFP
	if *realDir != "" {
		t := time.Now()
		var err error
		if reals, err = realFingerprints(*realDir); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("real fingerprints: %d articles of %s in %v\n", len(reals), *realDir, time.Since(t).Round(time.Millisecond))
		blockSkew(reals)
	}
	realDoc := func(i int) index.Doc {
		return index.Doc{ID: reals[i].id, Fingerprint: reals[i].fp, Added: time.Unix(1.7e9, 0)}
	}

	// The fingerprints are regenerated from the same seed, so -reuse
	// knows them without storing them.
	r := rand.New(rand.NewPCG(42, 42))
	fps := make([]simhash.Fingerprint, 0, *n)
	if *noBadger {
		*reuse = true // only regenerate the fingerprints
	}
	x, err := badgerstore.OpenIndex(ctx, d, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	var addTime time.Duration
	start := time.Now()
	switch {
	case *reuse:
		for i := 0; i < *n; i++ {
			fps = append(fps, doc(r, i).Fingerprint)
		}
	case *load:
		got, err := x.Load(ctx, func(yield func(index.Doc) bool) {
			for i := 0; i < *n; i++ {
				dd := doc(r, i)
				fps = append(fps, dd.Fingerprint)
				if !yield(dd) {
					return
				}
			}
			for i := range reals {
				if !yield(realDoc(i)) {
					return
				}
			}
		})
		if err != nil {
			log.Fatal(err)
		}
		addTime = time.Since(start)
		fmt.Printf("load: %d fingerprints in %v: %.0f fingerprints/s, peak RSS %s\n",
			got, addTime.Round(time.Millisecond), float64(got)/addTime.Seconds(), peakRSS())
	default:
		docs := make([]index.Doc, 0, *batch)
		for i := 0; i < *n; i++ {
			dd := doc(r, i)
			fps = append(fps, dd.Fingerprint)
			docs = append(docs, dd)
			if len(docs) == *batch || i == *n-1 {
				t := time.Now()
				if err := x.Add(ctx, docs...); err != nil {
					log.Fatal(err)
				}
				addTime += time.Since(t)
				docs = docs[:0]
			}
			if (i+1)%1_000_000 == 0 {
				fmt.Printf("  %d added, %.0f/s in Add, wall %v, peak RSS %s\n", i+1, float64(i+1)/addTime.Seconds(), time.Since(start).Round(time.Second), peakRSS())
			}
		}
		for i := 0; i < len(reals); i += *batch {
			var docs []index.Doc
			for j := i; j < min(i+*batch, len(reals)); j++ {
				docs = append(docs, realDoc(j))
			}
			if err := x.Add(ctx, docs...); err != nil {
				log.Fatal(err)
			}
		}
		fmt.Printf("ingest: %d fingerprints in %v of Add calls (%v wall): %.0f fingerprints/s\n",
			*n, addTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), float64(*n)/addTime.Seconds())
	}
	if err := x.Close(); err != nil {
		log.Fatal(err)
	}
	t := time.Now()
	x, err = badgerstore.OpenIndex(ctx, d, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("reopen (filters from the file Close saved): %v\n", time.Since(t).Round(time.Millisecond))
	s, err := x.Stats(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("disk: %d bytes, %.1f bytes/fingerprint; bloom %d KiB for %d docs\n",
		s.DiskBytes, float64(s.DiskBytes)/float64(s.Docs), s.Bloom.MemoryBytes>>10, s.Docs)

	qr := rand.New(rand.NewPCG(7, 7))
	type query struct {
		fp   simhash.Fingerprint
		want string // the planted neighbour's ID
	}
	qs := make([]query, *queries)
	for i := range qs {
		var fp simhash.Fingerprint
		var want string
		if len(reals) > 0 {
			src := qr.IntN(len(reals))
			fp, want = reals[src].fp, reals[src].id
		} else {
			src := qr.IntN(len(fps))
			fp, want = fps[src], fmt.Sprintf("doc-%09d", src)
		}
		for _, b := range qr.Perm(64)[:i%4] {
			fp ^= 1 << uint(b)
		}
		qs[i] = query{fp, want}
	}
	measure := func(name string, x *index.Index) {
		near := func(fp simhash.Fingerprint, k int) ([]index.Match, error) { return x.Near(ctx, fp, k) }
		lat := make([]time.Duration, len(qs))
		found, matches := 0, 0
		for i, q := range qs {
			t := time.Now()
			ms, err := near(q.fp, 3)
			lat[i] = time.Since(t)
			if err != nil {
				log.Fatal(err)
			}
			matches += len(ms)
			if slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == q.want }) {
				found++
			}
		}
		slices.Sort(lat)
		var sum time.Duration
		for _, l := range lat {
			sum += l
		}
		fmt.Printf("%s Near(k=3), %d queries: p50 %v p99 %v max %v mean %v (%.0f queries/s, 1 goroutine); planted neighbour found %d/%d, %.1f matches a query\n",
			name, len(qs), lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1], sum/time.Duration(len(lat)),
			float64(len(lat))/sum.Seconds(), found, len(qs), float64(matches)/float64(len(qs)))
		for _, g := range []int{2} {
			t := time.Now()
			var wg sync.WaitGroup
			for w := 0; w < g; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; i < len(qs); i += g {
						near(qs[i].fp, 3)
					}
				}()
			}
			wg.Wait()
			fmt.Printf("%s Near(k=3): %.0f queries/s with %d goroutines\n", name, float64(len(qs))/time.Since(t).Seconds(), g)
		}
	}
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if !*noBadger {
		measure("badger (cold)", x)
		measure("badger (warm)", x)
		fmt.Println("peak RSS after badger:", peakRSS())
	}
	x.Close()

	if *memory {
		m, err := memstore.Open(ctx, nil)
		if err != nil {
			log.Fatal(err)
		}
		defer m.Close()
		r := rand.New(rand.NewPCG(42, 42))
		t := time.Now()
		docs := make([]index.Doc, 0, *batch)
		for i := 0; i < *n; i++ {
			docs = append(docs, doc(r, i))
			if len(docs) == *batch || i == *n-1 {
				if err := m.Add(ctx, docs...); err != nil {
					log.Fatal(err)
				}
				docs = docs[:0]
			}
		}
		for i := range reals {
			if err := m.Add(ctx, realDoc(i)); err != nil {
				log.Fatal(err)
			}
		}
		fmt.Printf("memory: built in %v\n", time.Since(t).Round(time.Millisecond))
		measure("memory", m)
		fmt.Println("peak RSS after memory:", peakRSS())
	}
}
