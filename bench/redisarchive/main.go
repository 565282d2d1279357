// redisarchive measures a Redis archive: ingest rate through Index.Add,
// memory per document (used_memory over the masters, and MEMORY USAGE
// of samples of each kind of key), Near and Similar latency, and
// candidates per query; with -packed, what the records would cost
// packed in hashes rather than a key each. It is a program rather than a benchmark because
// a million documents take a minute or more. Without -url it starts a
// 3-master cluster on loopback with scripts/redis-cluster (in a
// temporary directory, stopped at the end), so that the memory figures
// are the archive's alone.
//
// From the repository root:
//
//	go run ./bench/redisarchive -n 1000000
//	go run ./bench/redisarchive -n 1000000 -sketch=false
//	go run ./bench/redisarchive -n 1000000 -bare
//	go run ./bench/redisarchive -n 1000000 -compact
//	go run ./bench/redisarchive -n 1000000 -real -lean
//	go run ./bench/redisarchive -n 1000000 -real -lean -packed hashes
//	go run ./bench/redisarchive -n 200000 -ingest
//	go run ./bench/redisarchive -n 200000 -url redis://127.0.0.1:7000/bench
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/redisstore"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

var (
	n       = flag.Int("n", 200_000, "documents to add")
	batch   = flag.Int("batch", 1000, "documents per Add (or Ingest) call")
	queries = flag.Int("queries", 5000, "Near and Similar queries, each with a planted neighbour 0 to 3 bits away")
	sketch  = flag.Bool("sketch", true, "give documents MinHash sketches (the 64-value one, 16 band keys each, and the 256-value confirmation sketch) and a 5-gram count, as analysis does")
	bare    = flag.Bool("bare", false, "documents of an ID and a fingerprint only (no title, keywords, content hash or sketch), as add --fingerprints makes")
	url     = flag.String("url", "", "archive URL (default: a new 3-master cluster on loopback)")
	bits    = flag.Int("bucketbits", 0, "bucket bits of the new archive (0: the default)")
	blocks  = flag.Int("blocks", 0, "layout blocks (0: default 4)")
	compact = flag.Bool("compact", false, "also compact the buckets (Store.Compact) after ingest and measure memory again")
	ingest  = flag.Bool("ingest", false, "write through Index.Ingest (the race-free shared ingest dedup uses, with its states) instead of Index.Add")
	lean    = flag.Bool("lean", false, "a lean archive (redisstore.Options.Lean): records without title, keywords and text")
	cpuprof = flag.String("cpuprofile", "", "write a CPU profile of the ingest to this file")
	packed  = flag.String("packed", "", "after the memory figures, measure records packed in hashes of about 64 by their key's hash (what records keyed one a key would cost packed): \"hashes\" (the cluster's own hash settings: values over 64 bytes make a hash table) or \"listpack\" (hash-max-listpack-value raised to 1024 on the masters first: only with a cluster of its own, no -url)")
	real    = flag.Bool("real", false, "real-looking documents: 47-byte IDs (news.example.com/zh/2026/MM/DD/a000000001.html), titles of 18 Chinese characters and 32 keywords of 2 or 3, as dedup stores for bench/gencorpus's articles")
)

// han returns n random Chinese characters.
func han(r *rand.Rand, n int) string {
	rs := make([]rune, n)
	for i := range rs {
		rs[i] = rune(0x4e00 + r.IntN(3000))
	}
	return string(rs)
}

// docID is the ID of document i.
func docID(i int) string {
	if *real {
		return fmt.Sprintf("news.example.com/zh/2026/%02d/%02d/a%09d.html", 1+i%12, 1+i%28, i)
	}
	return fmt.Sprintf("doc-%09d", i)
}

func doc(r *rand.Rand, i int) index.Doc {
	d := index.Doc{ID: docID(i), Fingerprint: simhash.Fingerprint(r.Uint64()), Added: time.Unix(1.7e9+int64(i), 0)}
	if *bare {
		return d
	}
	d.ContentHash = r.Uint64()
	if *real {
		d.Title = han(r, 18)
		for k := 0; k < 32; k++ {
			d.Keywords = append(d.Keywords, tfidf.Keyword{Word: han(r, 2+r.IntN(2)), Weight: r.Float64()})
		}
	} else {
		d.Title = fmt.Sprintf("benchmark document title %05d", i%100000)
		for k := 0; k < 10; k++ {
			d.Keywords = append(d.Keywords, tfidf.Keyword{Word: fmt.Sprintf("w%05d", r.IntN(50000)), Weight: r.Float64()})
		}
	}
	if *sketch {
		for k := range d.Sketch {
			d.Sketch[k] = uint16(r.Uint32()) | 1
		}
		for k := range d.Long { // the confirmation sketch and set size analysis gives every record
			d.Long[k] = uint8(r.Uint32()) | 1
		}
		d.Shingles = 500 + r.IntN(5000)
	}
	return d
}

// counting wraps the store, counting the postings and records read; it
// is an index.Shared as the store is.
type counting struct {
	*redisstore.Store
	postings, records atomic.Int64
}

func (c *counting) Postings(ctx context.Context, keys []index.Key) ([][]index.Posting, error) {
	ps, err := c.Store.Postings(ctx, keys)
	for _, l := range ps {
		c.postings.Add(int64(len(l)))
	}
	return ps, err
}

func (c *counting) Records(ctx context.Context, ids []string) ([][]byte, error) {
	c.records.Add(int64(len(ids)))
	return c.Store.Records(ctx, ids)
}

func main() {
	flag.Parse()
	ctx := context.Background()
	if *url == "" {
		stopCluster = startCluster()
		defer stopCluster()
	}
	s, err := redisstore.Open(ctx, *url, &redisstore.Options{BucketBits: *bits, Lean: *lean})
	if err != nil {
		fatal(err)
	}
	cs := &counting{Store: s}
	x, err := index.New(ctx, cs, &index.Options{Blocks: *blocks})
	if err != nil {
		fatal(err)
	}
	defer x.Close()
	st0, err := s.ClusterStats(ctx, 0)
	if err != nil {
		fatal(err)
	}
	xs, _ := x.Stats(ctx)
	fmt.Printf("n=%d batch=%d sketch=%v bare=%v ingest=%v bucketbits=%d tables=%d masters=%d used_memory before=%d MiB\n",
		*n, *batch, *sketch && !*bare, *bare, *ingest, s.BucketBits(), xs.Tables, st0.Masters, st0.UsedMemory>>20)

	// Ingest.
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fatal(err)
		}
	}
	cpu0, scpu0 := clientCPU(), serverCPU(ctx, s)
	r := rand.New(rand.NewPCG(42, 42))
	fps := make([]simhash.Fingerprint, 0, *n)
	start := time.Now()
	var addTime time.Duration
	docs := make([]index.Doc, 0, *batch)
	for i := 0; i < *n; i++ {
		d := doc(r, i)
		fps = append(fps, d.Fingerprint)
		docs = append(docs, d)
		if len(docs) == *batch || i == *n-1 {
			t := time.Now()
			if *ingest {
				if _, err := x.Ingest(ctx, docs, index.IngestOptions{Distance: 3, JoinMinContent: 0.5}); err != nil {
					fatal(err)
				}
			} else if err := x.Add(ctx, docs...); err != nil {
				fatal(err)
			}
			addTime += time.Since(t)
			docs = docs[:0]
		}
		if (i+1)%200_000 == 0 {
			fmt.Printf("  %d added, %.0f docs/s in writes\n", i+1, float64(i+1)/addTime.Seconds())
		}
	}
	postings := 4 + 1 + 16
	if *bare {
		postings = 4 + 1
	} else if !*sketch {
		postings = 4 + 1
	}
	postings = postings - 4 + xs.Tables
	fmt.Printf("ingest: %d documents in %v of writes (%v wall): %.0f documents/s, %.0f fingerprints/s, %.0f postings/s\n",
		*n, addTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond),
		float64(*n)/addTime.Seconds(), float64(*n)/addTime.Seconds(), float64(*n*postings)/addTime.Seconds())

	ccpu, scpu := clientCPU()-cpu0, serverCPU(ctx, s)-scpu0
	if *cpuprof != "" {
		pprof.StopCPUProfile()
	}
	fmt.Printf("ingest CPU: client %.1f µs/document, servers %.1f µs/document (%.1f µs/posting together)\n",
		ccpu.Seconds()*1e6/float64(*n), scpu.Seconds()*1e6/float64(*n), (ccpu+scpu).Seconds()*1e6/float64(*n*postings))

	// Memory.
	st, err := s.ClusterStats(ctx, 5)
	if err != nil {
		fatal(err)
	}
	fmt.Printf("memory: used_memory %d MiB over %d masters, %d documents: %.1f bytes/document (%.1f after the empty archive's %d MiB)\n",
		st.UsedMemory>>20, st.Masters, st.Docs, st.BytesPerDoc, float64(st.UsedMemory-st0.UsedMemory)/float64(st.Docs), st0.UsedMemory>>20)
	memoryByKind(ctx, s, st.Docs)
	if st.StateSamples > 0 {
		fmt.Printf("  ingest states: %.2f bytes/document (MEMORY USAGE of state hashes holding %d states)\n", st.StateBytesPerDoc, st.StateSamples)
	}
	for _, b := range st.Largest {
		fmt.Printf("  largest bucket: %s, %d postings, %d bytes\n", b.Key, b.Postings, b.Bytes)
	}

	if *packed != "" {
		packRecords(ctx, s, st.Docs, st0.UsedMemory)
		return // the records are gone: no queries
	}

	if *compact {
		t := time.Now()
		n, err := s.Compact(ctx)
		if err != nil {
			fatal(err)
		}
		stc, err := s.ClusterStats(ctx, 0)
		if err != nil {
			fatal(err)
		}
		fmt.Printf("compact: %d buckets in %v; used_memory %d MiB: %.1f bytes/document (%.1f after the empty archive)\n",
			n, time.Since(t).Round(time.Millisecond), stc.UsedMemory>>20, stc.BytesPerDoc, float64(stc.UsedMemory-st0.UsedMemory)/float64(stc.Docs))
		memoryByKind(ctx, s, stc.Docs)
	}

	// Queries: a random document, 0 to 3 bits flipped.
	qr := rand.New(rand.NewPCG(7, 7))
	type query struct {
		d    index.Doc
		want string
	}
	qs := make([]query, *queries)
	for i := range qs {
		src := qr.IntN(len(fps))
		// Regenerate the document's other fields the way ingest did.
		d := index.Doc{ID: "query", Fingerprint: fps[src]}
		if !*bare {
			g, err := x.Get(ctx, docID(src))
			if err != nil {
				fatal(err)
			}
			d = g
			d.ID = "query"
		}
		for _, b := range qr.Perm(64)[:i%4] {
			d.Fingerprint ^= 1 << uint(b)
		}
		qs[i] = query{d, docID(src)}
	}
	measure := func(name string, f func(q *query) ([]index.Match, error)) {
		lat := make([]time.Duration, len(qs))
		p0, r0 := cs.postings.Load(), cs.records.Load()
		found := 0
		for i := range qs {
			t := time.Now()
			ms, err := f(&qs[i])
			lat[i] = time.Since(t)
			if err != nil {
				fatal(err)
			}
			if slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == qs[i].want }) {
				found++
			}
		}
		slices.Sort(lat)
		var sum time.Duration
		for _, l := range lat {
			sum += l
		}
		q := float64(len(qs))
		fmt.Printf("%s: %d queries, %.0f/s; p50 %v p90 %v p99 %v max %v; planted neighbour found %d/%d; %.1f postings and %.1f records read per query\n",
			name, len(qs), q/sum.Seconds(), lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*9/10].Round(time.Microsecond),
			lat[len(lat)*99/100].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond), found, len(qs),
			float64(cs.postings.Load()-p0)/q, float64(cs.records.Load()-r0)/q)
	}
	measure("Near k=3", func(q *query) ([]index.Match, error) { return x.Near(ctx, q.d.Fingerprint, 3) })
	if !*bare {
		measure("Similar k=3", func(q *query) ([]index.Match, error) { return x.Similar(ctx, &q.d, 3) })
	}
}

// memoryByKind prints, for each kind of key of the archive (records,
// number hashes, table, band and content buckets), MEMORY USAGE and
// value bytes averaged over a sample of its keys (the first 3000 a
// master's SCAN finds), and per document: that average times the kind's
// keys (counted by a SCAN of every key) over the documents.
func memoryByKind(ctx context.Context, s *redisstore.Store, docs int64) {
	c := s.Client()
	name := s.String()[strings.LastIndex(s.String(), "/")+1:]
	type agg struct{ all, keys, mem, bytes int64 }
	kinds := map[byte]*agg{}
	var mu sync.Mutex
	err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		var cursor uint64
		sampled := map[byte]int{}
		for {
			keys, next, err := m.Scan(ctx, cursor, name+":*", 1000).Result()
			if err != nil {
				return err
			}
			for _, k := range keys {
				kind := k[len(name)+1]
				if !strings.ContainsRune("rntbc", rune(kind)) {
					continue
				}
				var u, l int64
				if sampled[kind] < 3000 {
					sampled[kind]++
					if u, err = m.MemoryUsage(ctx, k, 0).Result(); err != nil {
						return err
					}
					if kind == 'n' {
						l, _ = m.HLen(ctx, k).Result()
					} else {
						l, _ = m.StrLen(ctx, k).Result()
					}
				}
				mu.Lock()
				a := kinds[kind]
				if a == nil {
					a = &agg{}
					kinds[kind] = a
				}
				a.all++
				if u > 0 {
					a.keys++
					a.mem += u
					a.bytes += l
				}
				mu.Unlock()
			}
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	})
	if err != nil {
		fatal(err)
	}
	var sum float64
	var parts []string
	for _, kind := range []byte{'r', 'n', 't', 'b', 'c'} {
		a := kinds[kind]
		if a == nil || a.keys == 0 {
			continue
		}
		unit := "bytes of value"
		if kind == 'n' {
			unit = "entries"
		}
		per := float64(a.mem) / float64(a.keys) * float64(a.all) / float64(docs)
		sum += per
		parts = append(parts, fmt.Sprintf("%c %.1f", kind, per))
		fmt.Printf("  %c keys: %d of %d sampled, MEMORY USAGE %.0f bytes/key for %.1f %s: %.2f bytes of memory per %s; %.1f bytes/document\n",
			kind, a.keys, a.all, float64(a.mem)/float64(a.keys), float64(a.bytes)/float64(a.keys), unit,
			float64(a.mem)/float64(a.bytes), strings.TrimSuffix(strings.TrimPrefix(unit, "bytes of "), "s"), per)
	}
	fmt.Printf("  per document by kind: %s; sum %.1f\n", strings.Join(parts, ", "), sum)
}

// packRecords measures what the archive's records would cost packed in
// hashes rather than a key each: it copies every record key's value
// (number and record) into a field of a hash of its bucket, NAME ":R"
// and the top bits of the key's 16 hash bytes (about 64 records a
// hash), the field the next 8 bytes; then it deletes the record keys.
// used_memory before, between and after gives the cost of either form,
// Redis's dictionary of keys included, which MEMORY USAGE leaves out.
// The archive is unusable afterwards (its records are gone): it is the
// last thing measured (no queries follow).
func packRecords(ctx context.Context, s *redisstore.Store, docs, empty int64) {
	c := s.Client()
	name := s.String()[strings.LastIndex(s.String(), "/")+1:]
	switch *packed {
	case "hashes":
	case "listpack":
		if *url != "" && stopCluster == nil {
			fatal(fmt.Errorf("-packed listpack changes the masters' settings: only with a cluster of its own (no -url)"))
		}
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return m.ConfigSet(ctx, "hash-max-listpack-value", "1024").Err()
		})
		if err != nil {
			fatal(err)
		}
	default:
		fatal(fmt.Errorf("-packed %q: want hashes or listpack", *packed))
	}
	bits := 0
	for int64(64)<<bits < docs {
		bits++
	}
	used := func() int64 {
		st, err := s.ClusterStats(ctx, 0)
		if err != nil {
			fatal(err)
		}
		return st.UsedMemory
	}
	// The record keys, by master (each master's SCAN); their values are
	// copied in pipelines of 1,000.
	var mu sync.Mutex
	var recKeys []string
	err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		var cursor uint64
		for {
			keys, next, err := m.Scan(ctx, cursor, name+":r*", 1000).Result()
			if err != nil {
				return err
			}
			mu.Lock()
			for _, k := range keys {
				if len(k) == len(name)+2+16 {
					recKeys = append(recKeys, k)
				}
			}
			mu.Unlock()
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	})
	if err != nil {
		fatal(err)
	}
	if int64(len(recKeys)) != docs {
		fatal(fmt.Errorf("-packed: %d record keys of 16 hash bytes for %d documents (an archive of hashed record keys is needed)", len(recKeys), docs))
	}
	bucket := func(k string) (string, string) {
		h := []byte(k[len(name)+2:])
		top := binary.BigEndian.Uint32(h) >> (32 - bits)
		if bits == 0 {
			top = 0
		}
		return fmt.Sprintf("%s:R%08x", name, top), string(h[4:12])
	}
	m0 := used()
	for i := 0; i < len(recKeys); i += 1000 {
		keys := recKeys[i:min(i+1000, len(recKeys))]
		vals, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range keys {
				p.Get(ctx, k)
			}
			return nil
		})
		if err != nil {
			fatal(err)
		}
		_, err = c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for j, k := range keys {
				hk, f := bucket(k)
				p.HSet(ctx, hk, f, vals[j].(*redis.StringCmd).Val())
			}
			return nil
		})
		if err != nil {
			fatal(err)
		}
	}
	m1 := used()
	for i := 0; i < len(recKeys); i += 1000 {
		keys := recKeys[i:min(i+1000, len(recKeys))]
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range keys {
				p.Unlink(ctx, k)
			}
			return nil
		})
		if err != nil {
			fatal(err)
		}
	}
	time.Sleep(time.Second) // UNLINK frees large values in the background
	m2 := used()
	// A sample of the hashes: encoding, fields, MEMORY USAGE.
	var enc string
	var hmem, hlen, hn int64
	for i := 0; i < len(recKeys) && hn < 300; i += max(1, len(recKeys)/300) {
		hk, _ := bucket(recKeys[i])
		e, err := c.ObjectEncoding(ctx, hk).Result()
		if err != nil {
			fatal(err)
		}
		u, err := c.MemoryUsage(ctx, hk, 0).Result()
		if err != nil {
			fatal(err)
		}
		l, err := c.HLen(ctx, hk).Result()
		if err != nil {
			fatal(err)
		}
		enc, hmem, hlen, hn = e, hmem+u, hlen+l, hn+1
	}
	fmt.Printf("packed records (%s): %d hashes of 2^%d, %.1f records a hash, encoding %s, MEMORY USAGE %.1f bytes/record\n",
		*packed, int64(1)<<bits, bits, float64(hlen)/float64(hn), enc, float64(hmem)/float64(hlen))
	fmt.Printf("  used_memory: a key a record %.1f bytes/document, packed %.1f (%.1f less); in all %.1f bytes/document packed (used_memory less the empty archive's)\n",
		float64(m1-m2)/float64(docs), float64(m1-m0)/float64(docs), float64((m1-m2)-(m1-m0))/float64(docs), float64(m2-empty)/float64(docs))
}

// clientCPU returns the CPU time this process has used.
func clientCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverCPU returns the CPU time the masters have used (INFO cpu).
func serverCPU(ctx context.Context, s *redisstore.Store) time.Duration {
	var mu sync.Mutex
	var sum float64
	err := s.Client().ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		v, err := m.Info(ctx, "cpu").Result()
		if err != nil {
			return err
		}
		for _, l := range strings.Split(v, "\n") {
			for _, f := range []string{"used_cpu_sys:", "used_cpu_user:"} {
				if x, ok := strings.CutPrefix(strings.TrimSpace(l), f); ok {
					y, _ := strconv.ParseFloat(x, 64)
					mu.Lock()
					sum += y
					mu.Unlock()
				}
			}
		}
		return nil
	})
	if err != nil {
		fatal(err)
	}
	return time.Duration(sum * float64(time.Second))
}

var stopCluster func()

// fatal stops the cluster this program started, then exits.
func fatal(err error) {
	if stopCluster != nil {
		stopCluster()
	}
	log.Fatal(err)
}

// startCluster starts a 3-master cluster (internal/redistest) and sets
// *url; the returned function stops it.
func startCluster() func() {
	c, err := redistest.Run(redistest.Options{})
	if err != nil {
		fatal(err)
	}
	*url = c.URL("bench")
	return func() {
		if err := c.Close(); err != nil {
			log.Printf("stopping the cluster: %v", err)
		}
	}
}
