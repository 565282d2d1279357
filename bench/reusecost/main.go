// Command reusecost measures what a reuse index (package reuse) costs an
// archive: bytes per document on each store (memory, Badger, Redis
// Cluster), against the same documents filed without one, and the time
// of a check with it: reuse.Index.Find beside index.Similar, the
// near-duplicate query a check makes anyway, on the same archive in the
// same run.
//
//	reusecost [-n 100000] [-queries 300] [-stores memory,badger,redis] [-url redis://HOST:PORT/NAME]
//
// The articles are synthetic and all distinct: half English-like (about
// 1,800 characters of pseudo-words drawn from a Zipf vocabulary), half
// Chinese-like (about 800 common Han characters, Zipf too), each with
// its text kept (index.Doc.Text) with and without the reuse index, so
// that the difference is the reuse index's alone: its postings and the
// record's passage field. The documents are filed with every
// fingerprint (random text has no boilerplate for the stop rule to
// drop). A query is two thirds of an archived article and a third of a
// new one: Find finds that article. Without -url a 3-master cluster is started on
// loopback with scripts/redis-cluster, and stopped at the end. On a
// shared machine, wrap it in flock /tmp/neardup-bench.lock, or give
// -lock /tmp/neardup-bench.lock to hold the lock only while timing.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
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

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/index/redisstore"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/reuse"
	"github.com/neardup/neardup/segment"
	"github.com/neardup/neardup/simhash"
)

var (
	n        = flag.Int("n", 100000, "documents")
	queries  = flag.Int("queries", 300, "queries timed")
	stores   = flag.String("stores", "memory,badger,redis", "stores to measure")
	url      = flag.String("url", "", "Redis Cluster `URL` redis://HOST:PORT/NAME (default: start one)")
	profile  = flag.String("cpuprofile", "", "write a CPU profile of the queries to `FILE`")
	lockFile = flag.String("lock", "", "take an exclusive flock on `FILE` while timing the queries only (fill unlocked)")
	baseline = flag.Bool("baseline", true, "also fill each store without the reuse index, for the bytes it adds")
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

// corpus makes the synthetic articles.
type corpus struct {
	words []string
	han   []rune
	zipfW *rand.Zipf
	zipfH *rand.Zipf
	r     *rand.Rand
}

func newCorpus(seed uint64) *corpus {
	r := rand.New(rand.NewPCG(seed, 1))
	c := &corpus{r: r}
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
	c.zipfW = rand.NewZipf(r, 1.1, 1, uint64(len(c.words)-1))
	c.zipfH = rand.NewZipf(r, 1.05, 1, uint64(len(c.han)-1))
	return c
}

func (c *corpus) text(zh bool) string {
	var b strings.Builder
	if zh {
		for i := 0; i < 800; i++ {
			b.WriteRune(c.han[c.zipfH.Uint64()])
			if i%25 == 24 {
				b.WriteString("。")
			}
		}
		return b.String()
	}
	for b.Len() < 1800 {
		b.WriteString(c.words[c.zipfW.Uint64()])
		if c.r.IntN(12) == 0 {
			b.WriteString(". ")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
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
	fmt.Printf("reusecost: n=%d queries=%d, params k=%d w=%d\n", *n, *queries, reuse.DefaultGram, reuse.DefaultWindow)
	t0 := time.Now()
	docs := make([]index.Doc, *n)
	for i := range docs {
		docs[i] = index.Doc{ID: fmt.Sprintf("doc-%08d", i), Fingerprint: simhash.Fingerprint(r.Uint64()), Text: c.text(i%2 == 1), Added: time.Unix(1, 0)}
	}
	// The rest of each document, on every core.
	var wg sync.WaitGroup
	nw := runtime.GOMAXPROCS(0)
	for w := range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(docs); i += nw {
				fill(&docs[i])
			}
		}()
	}
	wg.Wait()
	var prints int
	for i := range docs {
		prints += len(docs[i].Passages)
	}
	fmt.Printf("corpus: %d documents in %v, %.1f passage fingerprints a document\n", *n, time.Since(t0).Round(time.Millisecond), float64(prints)/float64(*n))
	type query struct {
		text string
		doc  index.Doc
		want string
	}
	qs := make([]query, *queries)
	for i := range qs {
		j := r.IntN(len(docs))
		src := docs[j]
		rs := []rune(src.Text)
		other := []rune(c.text(j%2 == 1))
		text := string(rs[:len(rs)*2/3]) + string(other[:len(other)/3])
		q := index.Doc{ID: "query", Fingerprint: simhash.Fingerprint(r.Uint64()), Text: text}
		fill(&q)
		qs[i] = query{text: text, doc: q, want: src.ID}
	}

	for _, name := range strings.Split(*stores, ",") {
		var base, with float64
		configs := []bool{false, true}
		if !*baseline {
			configs = []bool{true}
		}
		for _, withReuse := range configs {
			s, size, afterClose, done := open(ctx, name)
			x, err := index.New(ctx, s, nil)
			if err != nil {
				log.Fatal(err)
			}
			var ri *reuse.Index
			if withReuse {
				if ri, err = reuse.Open(ctx, x, nil, reuse.Params{}, nil); err != nil {
					log.Fatal(err)
				}
			}
			before := size()
			start := time.Now()
			batch := make([]index.Doc, 0, 1000)
			for i := range docs {
				d := docs[i]
				if !withReuse {
					d.Passages = nil
				}
				if batch = append(batch, d); len(batch) == cap(batch) || i == len(docs)-1 {
					if err := x.Add(ctx, batch...); err != nil {
						log.Fatal(err)
					}
					batch = batch[:0]
				}
			}
			fill := time.Since(start)
			var similar, find []time.Duration
			found := 0
			if withReuse {
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
						t = time.Now()
						a, err := ri.Find(ctx, qs[i].text, "")
						if err != nil {
							log.Fatal(err)
						}
						find = append(find, time.Since(t))
						if slices.ContainsFunc(a.Matches, func(m reuse.Match) bool { return m.ID == qs[i].want }) {
							found++
						}
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
			if withReuse {
				with = per
			} else {
				base = per
			}
			fmt.Printf("%s reuse=%v: filled in %v (%.0f documents/s), %.0f bytes a document\n", name, withReuse, fill.Round(time.Millisecond), float64(*n)/fill.Seconds(), per)
			if withReuse {
				fmt.Printf("%s check: Similar p50 %v p90 %v; Find p50 %v p90 %v (Find/Similar at p50 %.2f); the source found %d/%d\n", name,
					pct(similar, 50), pct(similar, 90), pct(find, 50), pct(find, 90), float64(pct(find, 50))/float64(pct(similar, 50)), found, len(qs))
			}
		}
		if !*baseline {
			continue
		}
		fmt.Printf("%s: the reuse index adds %.0f bytes a document (%.0f without it, texts kept; %.1f a fingerprint)\n", name, with-base, base, (with-base)/(float64(prints)/float64(*n)))
	}
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

// startCluster starts a 3-master cluster on free loopback ports with
// scripts/redis-cluster and returns its URL and how to stop it.
func startCluster() (string, func()) {
	script, err := filepath.Abs("scripts/redis-cluster")
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "neardup-reusecost-redis-")
	if err != nil {
		log.Fatal(err)
	}
	args := []string{"start", dir}
	for len(args) < 5 {
		port := 21000 + rand.IntN(30000)
		if free(port) && free(port+10000) {
			args = append(args, strconv.Itoa(port))
		}
	}
	out, err := exec.Command(script, args...).CombinedOutput()
	if err != nil {
		log.Fatalf("%s: %v", out, err)
	}
	return "redis://" + strings.TrimSpace(string(out)) + "/reusecost", func() {
		if out, err := exec.Command(script, "stop", dir).CombinedOutput(); err != nil {
			log.Printf("stopping the cluster: %v: %s", err, out)
		}
		os.RemoveAll(dir)
	}
}

func free(p int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
