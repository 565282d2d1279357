// Command enginereplay measures what dedup spends beyond the analysis
// (bench/README.md, issue #26), without the analysis's noise: it
// analyzes a JSONL corpus once and keeps the documents, then decides
// them with index.Ingest, in batches of dedup.DefaultBatch with
// dedup.Run's options, on a new lean in-memory archive, ROUNDS times,
// and prints the process's CPU per document of each replay and their
// median. The analysis of 10^5 articles takes a minute of CPU and each
// replay a second, so that a change to the engine or the store shows
// in a few replays where whole dedup runs differ by more than it from
// run to run. With -cpuprofile it profiles the replays.
//
//	enginereplay [-n ROUNDS] [-cpuprofile FILE] corpus.jsonl
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"sync"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/cputime"
)

func main() {
	rounds := flag.Int("n", 5, "replays")
	profile := flag.String("cpuprofile", "", "CPU profile of the replays")
	flag.Parse()
	if err := run(*rounds, *profile, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "enginereplay:", err)
		os.Exit(1)
	}
}

func run(rounds int, profile, corpus string) error {
	if corpus == "" {
		return fmt.Errorf("usage: enginereplay [-n ROUNDS] [-cpuprofile FILE] corpus.jsonl")
	}
	ctx := context.Background()
	a, err := neardup.NewAnalyzer(nil)
	if err != nil {
		return err
	}
	defer a.Close()
	r := input.NewReader([]string{corpus}, nil, nil)
	var recs []input.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	docs := make([]index.Doc, len(recs))
	var wg sync.WaitGroup
	w := runtime.GOMAXPROCS(0)
	for k := range w {
		wg.Go(func() {
			for i := k; i < len(recs); i += w {
				an, err := a.Analyze(recs[i].Text)
				if err != nil {
					continue
				}
				docs[i] = dedup.DocOf(an, recs[i].ID, "", 0)
			}
		})
	}
	wg.Wait()
	recs = nil
	var ok []index.Doc
	for _, d := range docs {
		if d.ID != "" {
			ok = append(ok, d)
		}
	}
	fmt.Printf("%d records, %d analyzed (the others too short or empty)\n", len(docs), len(ok))
	docs = ok
	runtime.GC()
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var us []float64
	for round := range rounds {
		x, err := archive.Memory(ctx, &archive.Options{AnalyzerID: a.ID(), Lean: true})
		if err != nil {
			return err
		}
		// dedup.Run's options (dedup/shared.go: deduper.ingest, drop and
		// member, which is unexported), with its defaults; a replay
		// prints its originals, to be checked against dedup's unique.
		members := map[string]int{}
		o := index.IngestOptions{Distance: index.DefaultMaxDistance, JoinMinContent: dedup.DriftMinContent, Deferred: true,
			Drop: func(*index.Doc) bool { return true },
			Member: func(doc *index.Doc, best *index.Match) bool {
				if best.Content >= dedup.NewMemberContent || members[doc.Original] >= dedup.DefaultMaxMembers {
					return false
				}
				members[doc.Original]++
				return true
			}}
		batch := make([]index.Doc, 0, dedup.DefaultBatch)
		c0, t0 := cputime.Self(), time.Now()
		originals := 0
		for i := 0; i < len(docs); i += dedup.DefaultBatch {
			batch = append(batch[:0], docs[i:min(i+dedup.DefaultBatch, len(docs))]...)
			res, err := x.Ingest(ctx, batch, o)
			if err != nil {
				return err
			}
			for _, r := range res {
				if r.Original {
					originals++
				}
			}
		}
		if err := x.Close(); err != nil {
			return err
		}
		c, el := cputime.Self()-c0, time.Since(t0)
		u := float64(c.Microseconds()) / float64(len(docs))
		us = append(us, u)
		fmt.Printf("round %d: %d docs, %d originals, CPU %v wall %v, %.2f µs/doc\n", round+1, len(docs), originals, c.Round(time.Millisecond), el.Round(time.Millisecond), u)
		runtime.GC()
	}
	sort.Float64s(us)
	fmt.Printf("median %.2f µs/doc\n", us[len(us)/2])
	return nil
}
