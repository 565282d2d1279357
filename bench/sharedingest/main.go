// Command sharedingest measures deduplicating ingest into one archive:
// documents per second through index.Ingest by 1, 2 and 4 worker
// processes sharing an archive on a Redis Cluster, against the single
// process dedup.Run runs over Badger and in memory (Similar, then Add
// in batches of 1000 with a memory index of the batch), on the same
// documents in the same run; and candidates per query (postings a
// document is compared with: those before its own under its keys for
// Ingest, those Similar reads for the others). Run it with
// bench/shared.sh, which starts a cluster with scripts/redis-cluster:
//
//	sharedingest -url redis://HOST:PORT/NAME [-n 20000] [-runs 3] [-workers 1,2,4]
//
// The documents are synthetic, in groups of four: a random document, a
// near duplicate of it (one fingerprint bit and a fifth of its sketch
// changed), an exact copy, and another random one; document i goes to
// worker i mod N, so that the copies of a group are ingested by
// different workers at about the same time. Each worker ingests its
// documents in order, 64 per Ingest (dedup.Run's batches). The workers
// open the archive, then wait for the parent's go, so that the timing
// starts with every worker ready and ends when the last is done.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/index/redisstore"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

var (
	url     = flag.String("url", "", "Redis Cluster `URL` redis://HOST:PORT/NAME (each run uses NAME.RUN.WORKERS)")
	n       = flag.Int("n", 20000, "documents per run")
	runs    = flag.Int("runs", 3, "runs of each configuration (the median is reported)")
	workers = flag.String("workers", "1,2,4", "worker process counts")
	child   = flag.Int("child", -1, "internal: be worker `W` of -of")
	of      = flag.Int("of", 0, "internal: worker count")
)

const batch = 64

// doc returns document i of the corpus.
func doc(i int) index.Doc {
	g := i / 4
	r := rand.New(rand.NewPCG(uint64(g), 15))
	var s minhash.Sketch
	for j := range s {
		s[j] = uint16(r.Uint32())
	}
	d := index.Doc{ID: fmt.Sprintf("d%08d", i), Fingerprint: simhash.Fingerprint(r.Uint64()), ContentHash: r.Uint64(), Sketch: s,
		Title: "document " + strconv.Itoa(i), Added: time.Unix(1.7e9, 0), Job: "bench", Seq: int64(i)}
	switch i % 4 {
	case 1: // a near duplicate
		d.Fingerprint ^= 1 << (r.IntN(64))
		d.ContentHash++
		for j := 0; j < 13; j++ {
			d.Sketch[j*4]++
		}
	case 3: // another document
		r2 := rand.New(rand.NewPCG(uint64(i), 16))
		d.Fingerprint, d.ContentHash = simhash.Fingerprint(r2.Uint64()), r2.Uint64()
		for j := range d.Sketch {
			d.Sketch[j] = uint16(r2.Uint32())
		}
	}
	return d
}

// result is a worker's report.
type result struct {
	Docs, Originals, Candidates int64
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("sharedingest: ")
	if *child >= 0 {
		if err := work(); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *url == "" {
		log.Fatal("-url is required (bench/shared.sh starts a cluster)")
	}
	var counts []int
	for _, f := range strings.Split(*workers, ",") {
		w, err := strconv.Atoi(f)
		if err != nil || w < 1 {
			log.Fatalf("-workers %q", *workers)
		}
		counts = append(counts, w)
	}
	fmt.Printf("%d documents a run (a quarter near duplicates, a quarter exact copies), median of %d runs, %d CPUs\n\n", *n, *runs, cpus())
	fmt.Printf("%-22s %12s %10s %12s %16s\n", "archive", "docs/s", "vs badger", "originals", "candidates/query")
	type row struct {
		name  string
		rates []float64
		res   result
	}
	var rows []*row
	get := func(name string) *row {
		for _, r := range rows {
			if r.name == name {
				return r
			}
		}
		r := &row{name: name}
		rows = append(rows, r)
		return r
	}
	// Alternate the configurations run by run, so that a slow moment of
	// the machine does not land on one of them.
	for run := 0; run < *runs; run++ {
		for _, mem := range []bool{true, false} {
			name := "badger, 1 process"
			if mem {
				name = "memory, 1 process"
			}
			rate, res, err := single(mem)
			if err != nil {
				log.Fatal(err)
			}
			r := get(name)
			r.rates, r.res = append(r.rates, rate), res
		}
		for _, w := range counts {
			rate, res, err := shared(run, w)
			if err != nil {
				log.Fatal(err)
			}
			r := get(fmt.Sprintf("redis, %d process%s", w, map[bool]string{true: "", false: "es"}[w == 1]))
			r.rates, r.res = append(r.rates, rate), res
		}
	}
	base := median(get("badger, 1 process").rates)
	for _, r := range rows {
		m := median(r.rates)
		fmt.Printf("%-22s %12.0f %9.2fx %12d %16.2f\n", r.name, m, m/base, r.res.Originals, float64(r.res.Candidates)/float64(r.res.Docs))
	}
}

func cpus() int {
	n, _ := strconv.Atoi(strings.TrimSpace(run("nproc")))
	return n
}

func run(name string, args ...string) string {
	out, _ := exec.Command(name, args...).Output()
	return string(out)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// counting counts the postings Similar reads (from the archive and from
// the batch not written yet).
type counting struct {
	index.Store
	postings int64
}

func (c *counting) Postings(ctx context.Context, keys []index.Key) ([][]index.Posting, error) {
	ps, err := c.Store.Postings(ctx, keys)
	for _, p := range ps {
		c.postings += int64(len(p))
	}
	return ps, err
}

// single runs dedup.Run's decision loop over Badger (in a temporary
// directory) or memory: Similar against the archive and the batch not
// yet written, Add to the batch, write every 1000.
func single(mem bool) (float64, result, error) {
	ctx := context.Background()
	var s index.Store
	var err error
	if mem {
		s, err = memstore.New(), nil
	} else {
		dir, derr := os.MkdirTemp("", "sharedingest-")
		if derr != nil {
			return 0, result{}, derr
		}
		defer os.RemoveAll(dir)
		s, err = badgerstore.Open(filepath.Join(dir, "b"), nil)
	}
	if err != nil {
		return 0, result{}, err
	}
	cs := &counting{Store: s}
	x, err := index.New(ctx, cs, nil)
	if err != nil {
		return 0, result{}, err
	}
	defer x.Close()
	cp := &counting{Store: memstore.New()}
	pending, err := index.New(ctx, cp, nil)
	if err != nil {
		return 0, result{}, err
	}
	defer pending.Close()
	docs := make([]index.Doc, *n)
	for i := range docs {
		docs[i] = doc(i)
	}
	var res result
	var queued []index.Doc
	flush := func() error {
		if err := x.Add(ctx, queued...); err != nil {
			return err
		}
		ids := make([]string, len(queued))
		for i := range queued {
			ids[i] = queued[i].ID
		}
		queued = queued[:0]
		return pending.Delete(ctx, ids...)
	}
	start := time.Now()
	for i := range docs {
		d := &docs[i]
		ms, err := x.Similar(ctx, d, index.DefaultMaxDistance)
		if err != nil {
			return 0, res, err
		}
		pm, err := pending.Similar(ctx, d, index.DefaultMaxDistance)
		if err != nil {
			return 0, res, err
		}
		res.Docs++
		if len(ms)+len(pm) > 0 {
			continue
		}
		res.Originals++
		if err := pending.Add(ctx, *d); err != nil {
			return 0, res, err
		}
		if queued = append(queued, *d); len(queued) == 1000 {
			if err := flush(); err != nil {
				return 0, res, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, res, err
	}
	el := time.Since(start)
	res.Candidates = cs.postings + cp.postings
	return float64(res.Docs) / el.Seconds(), res, nil
}

// shared runs w worker processes on a new archive and returns their
// documents per second, from the go to the last worker's end.
func shared(runNo, w int) (float64, result, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, result{}, err
	}
	u := fmt.Sprintf("%s.%d.%d.%d", *url, os.Getpid(), runNo, w)
	type proc struct {
		cmd *exec.Cmd
		in  *os.File
		out *bufio.Reader
	}
	var ps []proc
	for k := 0; k < w; k++ {
		cmd := exec.Command(self, "-child", strconv.Itoa(k), "-of", strconv.Itoa(w), "-n", strconv.Itoa(*n), "-url", u)
		cmd.Stderr = os.Stderr
		pr, pw, err := os.Pipe()
		if err != nil {
			return 0, result{}, err
		}
		cmd.Stdin = pr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return 0, result{}, err
		}
		if err := cmd.Start(); err != nil {
			return 0, result{}, err
		}
		pr.Close()
		ps = append(ps, proc{cmd, pw, bufio.NewReader(out)})
	}
	for _, p := range ps { // each says "ready" once the archive is open
		if l, err := p.out.ReadString('\n'); err != nil || l != "ready\n" {
			return 0, result{}, fmt.Errorf("worker: %q, %v", l, err)
		}
	}
	start := time.Now()
	for _, p := range ps {
		p.in.WriteString("go\n")
		p.in.Close()
	}
	var total result
	for _, p := range ps {
		var r result
		if err := json.NewDecoder(p.out).Decode(&r); err != nil {
			return 0, total, err
		}
		if err := p.cmd.Wait(); err != nil {
			return 0, total, err
		}
		total.Docs += r.Docs
		total.Originals += r.Originals
		total.Candidates += r.Candidates
	}
	el := time.Since(start)
	if total.Docs != int64(*n) {
		return 0, total, fmt.Errorf("%d workers ingested %d documents, want %d", w, total.Docs, *n)
	}
	return float64(total.Docs) / el.Seconds(), total, nil
}

// work is a worker: it opens the archive, says ready, waits for go, and
// ingests its documents.
func work() error {
	ctx := context.Background()
	s, err := redisstore.Open(ctx, *url, nil)
	if err != nil {
		return err
	}
	cs := &countingShared{Shared: s}
	x, err := index.New(ctx, cs, nil)
	if err != nil {
		return err
	}
	defer x.Close()
	var docs []index.Doc
	for i := *child; i < *n; i += *of {
		docs = append(docs, doc(i))
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return err
	}
	var res result
	for len(docs) > 0 {
		b := docs[:min(batch, len(docs))]
		docs = docs[len(b):]
		got, err := x.Ingest(ctx, b, index.IngestOptions{Distance: index.DefaultMaxDistance, JoinMinContent: dedup.DriftMinContent})
		if err != nil {
			return err
		}
		for _, r := range got {
			res.Docs++
			if r.Original {
				res.Originals++
			}
		}
	}
	res.Candidates = cs.postings
	return json.NewEncoder(os.Stdout).Encode(res)
}

// countingShared counts the postings AppendRead returns (those before
// each document's own, under all its keys).
type countingShared struct {
	index.Shared
	postings int64
}

func (c *countingShared) AppendRead(ctx context.Context, ws []index.Write) ([]index.Appended, error) {
	app, err := c.Shared.AppendRead(ctx, ws)
	for _, a := range app {
		for _, b := range a.Before {
			c.postings += int64(len(b))
		}
	}
	return app, err
}
