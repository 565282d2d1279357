// Command reusecost measures what a reuse index (package reuse) costs an
// archive: bytes per document on each store (memory, Badger, Redis
// Cluster), against the same documents filed without one, and the time
// of a check with it: reuse.Index.Find beside index.Similar, the
// near-duplicate query a check makes anyway, and a whole check as check
// --reuse makes it (the analysis, Find, dedup.Check), on the same
// archive in the same run.
//
//	reusecost [-n 100000] [-queries 300] [-stores memory,badger,redis] [-bits 32] [-url redis://HOST:PORT/NAME] [-fill=false]
//
// -fill=false with -url times the queries on an archive that a run with
// the same -n filled (a cluster it started stays up while it waits for
// -lock), filing nothing: its bytes a document are then 0.
//
// -bits lists the key widths measured (reuse.Params.Bits), each on an
// archive of its own, so that 64,32 compares the two in one run.
//
// The articles are synthetic and all distinct: half English-like (about
// 1,800 characters of pseudo-words drawn from a Zipf vocabulary), half
// Chinese-like (about 800 common Han characters, Zipf too), each with
// its text kept (index.Doc.Text) with and without the reuse index, so
// that the difference is the reuse index's alone: its postings and the
// record's passage field. Article i is made from a generator seeded
// with i, so that none is kept in memory. The documents are filed with
// every fingerprint (random text has no boilerplate for the stop rule
// to drop). A query is two thirds of an archived article and a third of
// a new one: Find finds that article. -collisions counts the query
// fingerprints whose 32-bit key meets only unrelated archived ones.
// Without -url a 3-master cluster is started on loopback with
// scripts/redis-cluster, and stopped at the end. On a shared machine,
// wrap it in flock /tmp/neardup-bench.lock, or give -lock
// /tmp/neardup-bench.lock to hold the lock only while timing.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/index/redisstore"
	"github.com/neardup/neardup/internal/cputime"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/reuse"
	"github.com/neardup/neardup/segment"
	"github.com/neardup/neardup/simhash"
)

var (
	n          = flag.Int("n", 100000, "documents")
	queries    = flag.Int("queries", 300, "queries timed")
	stores     = flag.String("stores", "memory,badger,redis", "stores to measure")
	url        = flag.String("url", "", "Redis Cluster `URL` redis://HOST:PORT/NAME (default: start one)")
	profile    = flag.String("cpuprofile", "", "write a CPU profile of the queries to `FILE`")
	lockFile   = flag.String("lock", "", "take an exclusive flock on `FILE` while timing the queries only (fill unlocked)")
	baseline   = flag.Bool("baseline", true, "also fill each store without the reuse index, for the bytes it adds")
	progress   = flag.Int("progress", 0, "say every `N` documents filed how long it took")
	collisions = flag.Bool("collisions", true, "count the queries' fingerprints whose 32-bit key only unrelated archived fingerprints have (needs 8 bytes a fingerprint)")
	doFill     = flag.Bool("fill", true, "fill the archive; -fill=false with -url times the queries on an archive a run filled (the same -n) and leaves it")
	bits       = flag.String("bits", "32", "passage hash `BITS` of the reuse indexes measured, comma-separated (reuse.Params.Bits: 32 or 64)")
)

// locked runs f holding an exclusive flock on *lockFile, when set.
func locked(f func()) {
	if *lockFile == "" {
		f()
		return
	}
	fh, err := os.OpenFile(*lockFile, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer fh.Close()
	if err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX); err != nil {
		log.Fatal(err)
	}
	defer syscall.Flock(int(fh.Fd()), syscall.LOCK_UN)
	f()
}

// query is a query: its text, its document (fingerprint hashes as
// Passages) and the archived article it copies from.
type query struct {
	text string
	doc  index.Doc
	want string
}

// corpus makes the synthetic articles: article i from a generator of
// its own, so that any one can be made again without keeping them all
// (10^6 articles with their sketches are several GB).
type corpus struct {
	words []string
	han   []rune
}

func newCorpus(seed uint64) *corpus {
	r := rand.New(rand.NewPCG(seed, 1))
	c := &corpus{}
	for range 20000 {
		n := 2 + r.IntN(8)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		c.words = append(c.words, string(b))
	}
	for h := rune(0x4e00); h < 0x4e00+3500; h++ {
		c.han = append(c.han, h)
	}
	return c
}

// text makes an article from r: Chinese-like when zh.
func (c *corpus) text(r *rand.Rand, zh bool) string {
	var b strings.Builder
	if zh {
		z := rand.NewZipf(r, 1.05, 1, uint64(len(c.han)-1))
		for i := 0; i < 800; i++ {
			b.WriteRune(c.han[z.Uint64()])
			if i%25 == 24 {
				b.WriteString("。")
			}
		}
		return b.String()
	}
	z := rand.NewZipf(r, 1.1, 1, uint64(len(c.words)-1))
	for b.Len() < 1800 {
		b.WriteString(c.words[z.Uint64()])
		if r.IntN(12) == 0 {
			b.WriteString(". ")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// doc makes archived article i, without its sketches and passages.
func (c *corpus) doc(i int) index.Doc {
	r := rand.New(rand.NewPCG(42, uint64(i)))
	fp := simhash.Fingerprint(r.Uint64())
	return index.Doc{ID: fmt.Sprintf("doc-%08d", i), Fingerprint: fp, Text: c.text(r, i%2 == 1), Added: time.Unix(1, 0)}
}

// batch makes articles from to to+len(dst), filled, on every core.
func (c *corpus) batch(dst []index.Doc, from int) {
	var wg sync.WaitGroup
	nw := runtime.GOMAXPROCS(0)
	for w := range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(dst); i += nw {
				dst[i] = c.doc(from + i)
				fill(&dst[i])
			}
		}()
	}
	wg.Wait()
}

// fill completes the archive document of d.Text: what the analysis
// would give it but the keywords (d's fingerprint is random), and its
// passage fingerprints.
func fill(d *index.Doc) {
	norm := segment.Normalize(d.Text)
	d.ContentHash = xxhash.Sum64String(norm)
	d.Sketch, d.Long, d.Shingles = minhash.NewAll(norm)
	t, _ := reuse.NewText(d.Text, nil)
	d.Passages = reuse.Hashes(reuse.DefaultParams.Prints(t))
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	ctx := context.Background()
	c := newCorpus(42)
	r := rand.New(rand.NewPCG(7, 7))
	an, err := neardup.NewAnalyzer(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer an.Close()
	fmt.Printf("reusecost: n=%d queries=%d, params k=%d w=%d\n", *n, *queries, reuse.DefaultGram, reuse.DefaultWindow)
	qs := make([]query, *queries)
	for i := range qs {
		j := r.IntN(*n)
		rs := []rune(c.doc(j).Text)
		other := []rune(c.text(r, j%2 == 1))
		text := string(rs[:len(rs)*2/3]) + string(other[:len(other)/3])
		q := index.Doc{ID: "query", Fingerprint: simhash.Fingerprint(r.Uint64()), Text: text}
		fill(&q)
		qs[i] = query{text: text, doc: q, want: fmt.Sprintf("doc-%08d", j)}
	}

	for _, name := range strings.Split(*stores, ",") {
		var base float64
		var configs []int // passage hash bits; 0 without a reuse index
		if *baseline {
			configs = append(configs, 0)
		}
		for _, f := range strings.Split(*bits, ",") {
			b, err := strconv.Atoi(f)
			if err != nil {
				log.Fatalf("-bits %q: %v", *bits, err)
			}
			configs = append(configs, b)
		}
		for _, hb := range configs {
			withReuse := hb != 0
			s, size, afterClose, done := open(ctx, name)
			x, err := index.New(ctx, s, nil)
			if err != nil {
				log.Fatal(err)
			}
			var ri *reuse.Index
			if withReuse {
				if ri, err = reuse.Open(ctx, x, nil, reuse.Params{Bits: hb}, nil); err != nil {
					log.Fatal(err)
				}
			}
			before := size()
			start := time.Now()
			var gen time.Duration
			var prints int
			var all []uint64 // every document's fingerprint hashes, for -collisions
			batch := make([]index.Doc, 1000)
			for from := 0; *doFill && from < *n; from += len(batch) {
				b := batch[:min(len(batch), *n-from)]
				t := time.Now()
				c.batch(b, from)
				gen += time.Since(t)
				for i := range b {
					if withReuse && *collisions && all == nil {
						all = make([]uint64, 0, 60*(*n))
					}
					if all != nil {
						all = append(all, b[i].Passages...)
					}
					if withReuse {
						b[i].Passages = ri.Params().Keys(b[i].Passages)
					} else {
						b[i].Passages = nil
					}
					prints += len(b[i].Passages)
				}
				if err := x.Add(ctx, b...); err != nil {
					log.Fatal(err)
				}
				if *progress > 0 && (from+len(b))%*progress == 0 {
					log.Printf("%s: %d documents filed in %v", name, from+len(b), time.Since(start).Round(time.Second))
				}
			}
			fill := time.Since(start) - gen
			if all != nil {
				collide(all, qs, ri.Params())
				all = nil
				*collisions = false
			}
			var similar, find, check, findCPU, checkCPU []time.Duration
			found, candidates, matches := 0, 0, 0
			if withReuse && len(qs) > 0 {
				if *profile != "" {
					f, err := os.Create(*profile)
					if err != nil {
						log.Fatal(err)
					}
					pprof.StartCPUProfile(f)
				}
				locked(func() {
					for i := range qs {
						t := time.Now()
						if _, err := x.Similar(ctx, &qs[i].doc, 3); err != nil {
							log.Fatal(err)
						}
						similar = append(similar, time.Since(t))
						t, c := time.Now(), cputime.Self()
						a, err := ri.Find(ctx, qs[i].text, "")
						if err != nil {
							log.Fatal(err)
						}
						find, findCPU = append(find, time.Since(t)), append(findCPU, cputime.Self()-c)
						candidates += a.Candidates
						matches += len(a.Matches)
						if slices.ContainsFunc(a.Matches, func(m reuse.Match) bool { return m.ID == qs[i].want }) {
							found++
						}
						// A whole check, as check --reuse makes it:
						// the analysis, Find, then the near-duplicate
						// check (dedup.Check).
						t, c = time.Now(), cputime.Self()
						res, err := an.Analyze(qs[i].text)
						if err != nil {
							log.Fatal(err)
						}
						d := dedup.DocOf(res, "query", "", 0)
						if a, err = ri.Find(ctx, qs[i].text, "query"); err != nil {
							log.Fatal(err)
						}
						d.Passages, d.Text = a.File, qs[i].text
						if _, err := dedup.Check(ctx, x, &d, 3, false); err != nil {
							log.Fatal(err)
						}
						check, checkCPU = append(check, time.Since(t)), append(checkCPU, cputime.Self()-c)
					}
				})
				pprof.StopCPUProfile()
			}
			var after int64
			if !afterClose {
				after = size()
			}
			x.Close()
			if afterClose {
				after = size()
			}
			done()
			per := float64(after-before) / float64(*n)
			label := "none"
			if withReuse {
				label = fmt.Sprintf("%d-bit", hb)
			}
			fmt.Printf("%s reuse=%s: filled in %v (%.0f documents/s, generating them apart), %.0f bytes a document, %.1f passage postings a document\n",
				name, label, fill.Round(time.Millisecond), float64(*n)/fill.Seconds(), per, float64(prints)/float64(*n))
			if !withReuse {
				base = per
				continue
			}
			if len(qs) > 0 {
				fmt.Printf("%s reuse=%s check: Similar p50 %v p95 %v; Find p50 %v p95 %v (Find/Similar at p50 %.2f); whole check p50 %v p95 %v; the source found %d/%d; %.2f candidates and %.2f matches a Find\n", name, label,
					pct(similar, 50), pct(similar, 95), pct(find, 50), pct(find, 95), float64(pct(find, 50))/float64(pct(similar, 50)), pct(check, 50), pct(check, 95), found, len(qs),
					float64(candidates)/float64(len(qs)), float64(matches)/float64(len(qs)))
				fmt.Printf("%s reuse=%s CPU time of this process: Find p50 %v p95 %v; whole check p50 %v p95 %v\n", name, label,
					pct(findCPU, 50), pct(findCPU, 95), pct(checkCPU, 50), pct(checkCPU, 95))
			}
			if *baseline {
				fmt.Printf("%s reuse=%s: the reuse index adds %.0f bytes a document (%.0f without it, texts kept; %.1f a posting)\n", name, label, per-base, base, (per-base)/(float64(prints)/float64(*n)))
			}
		}
	}
}

// collide counts, of the queries' distinct fingerprint hashes, those
// the archive has (all, every archived document's hashes), and those it
// has not but whose key (p with 32 bits) an archived hash has: the
// collisions of 32-bit keys, which bring a candidate that is not one.
func collide(all []uint64, qs []query, p reuse.Params) {
	slices.Sort(all)
	all = slices.Compact(all)
	p32 := reuse.Params{Gram: p.Gram, Window: p.Window, Bits: 32}
	var n, shared, collided int
	for _, q := range qs {
		for _, h := range q.doc.Passages {
			n++
			i, ok := slices.BinarySearch(all, h)
			switch {
			case ok:
				shared++
			case i > 0 && p32.Key(all[i-1]) == p32.Key(h), i < len(all) && p32.Key(all[i]) == p32.Key(h):
				collided++
			}
		}
	}
	fmt.Printf("collisions: %d distinct archived fingerprint hashes (%.4f of 2^32); of %d query fingerprints %d are archived, %d more meet an archived one's 32-bit key only (%.4f)\n",
		len(all), float64(len(all))/(1<<32), n, shared, collided, float64(collided)/float64(n))
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(time.Microsecond)
}

// open opens an empty store of kind name, a function measuring its size
// (heap bytes, bytes on disk, used_memory of the masters), whether to
// measure it after closing the store (Badger: its memtables are
// written then), and a function to call at the end.
func open(ctx context.Context, name string) (index.Store, func() int64, bool, func()) {
	switch name {
	case "memory":
		heap := func() int64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return int64(m.HeapAlloc)
		}
		s := memstore.New()
		var keep index.Store = s
		return keep, func() int64 {
			h := heap()
			runtime.KeepAlive(keep)
			return h
		}, false, func() { keep = nil }
	case "badger":
		dir, err := os.MkdirTemp("", "neardup-reusecost-")
		if err != nil {
			log.Fatal(err)
		}
		s, err := badgerstore.Open(dir, nil)
		if err != nil {
			log.Fatal(err)
		}
		// Measured after Close, from an empty directory: Badger's
		// preallocated memtable files are gone by then.
		first := true
		return s, func() int64 {
			if first {
				first = false
				return 0
			}
			return du(dir)
		}, true, func() { os.RemoveAll(dir) }
	case "redis":
		u, stop := *url, func() {}
		if u == "" {
			u, stop = startCluster()
		}
		s, err := redisstore.Open(ctx, u, nil)
		if err != nil {
			log.Fatal(err)
		}
		return s, func() int64 {
			st, err := s.ClusterStats(ctx, 0)
			if err != nil {
				log.Fatal(err)
			}
			return st.UsedMemory
		}, false, stop
	}
	log.Fatalf("unknown store %q", name)
	return nil, nil, false, nil
}

func du(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// startCluster starts a 3-master cluster (internal/redistest) and
// returns its URL and how to stop it.
func startCluster() (string, func()) {
	c, err := redistest.Run(redistest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	return c.URL("reusecost"), func() {
		if err := c.Close(); err != nil {
			log.Printf("stopping the cluster: %v", err)
		}
	}
}
