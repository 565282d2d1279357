// Command enginecost measures the decision engine's serial share of
// dedup's CPU (bench/README.md, "One decision engine"): it deduplicates
// a JSONL corpus with dedup.Run, in memory or on a new Badger archive,
// under a CPU profile, and prints the records, the wall and CPU time,
// and, from the profile, the CPU per record of the analysis
// (neardup.Analyzer.Analyze), of the engine's serial part (samples
// labelled index.ProfileLabel=serial) and of its parallel part.
//
// It prints the speed-up the serial part allows on 8, 32 and 64 cores
// by Amdahl's law (the serial part stopping every core) and as a
// pipeline (the serial lanes overlapping the analysis: the ordered
// part, and the store's writes beside it, of which the part a store
// spreads over the cores, memstore's lists and badgerstore's memory
// copy, counts as parallel). In
// memory the archive is lean, as neardup dedup keeps it; on Badger it
// is what neardup dedup --index makes of a new directory: lean,
// compressed, its postings and records served from memory.
//
//	enginecost [-store memory|badger] [-dir DIR] [-workers N] [-profile FILE] corpus.jsonl
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/input"
)

func main() {
	store := flag.String("store", "memory", "memory or badger")
	dir := flag.String("dir", "", "directory of the Badger archive (a new temporary one when empty)")
	workers := flag.Int("workers", 0, "analysis workers (GOMAXPROCS when 0)")
	profile := flag.String("profile", "enginecost.pprof", "CPU profile output")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: enginecost [-store memory|badger] [-dir DIR] [-workers N] [-profile FILE] corpus.jsonl")
		os.Exit(2)
	}
	if err := run(*store, *dir, *workers, *profile, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "enginecost:", err)
		os.Exit(1)
	}
}

func run(store, dir string, workers int, profile, corpus string) error {
	ctx := context.Background()
	a, err := neardup.NewAnalyzer(nil)
	if err != nil {
		return err
	}
	defer a.Close()
	var x *index.Index
	switch store {
	case "memory":
		// Lean, as neardup dedup keeps an archive in memory.
		x, err = archive.Memory(ctx, &archive.Options{AnalyzerID: a.ID(), Lean: true})
	case "badger":
		if dir == "" {
			if dir, err = os.MkdirTemp("", "enginecost-"); err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			dir = filepath.Join(dir, "archive")
		}
		// As neardup dedup --index opens a new archive: lean,
		// compressed, its postings and records served from memory.
		x, err = archive.Open(ctx, dir, &archive.Options{AnalyzerID: a.ID(), Lean: true, Compress: true, MemPostings: true})
	default:
		return fmt.Errorf("-store %q: want memory or badger", store)
	}
	if err != nil {
		return err
	}
	defer x.Close()
	f, err := os.Create(profile)
	if err != nil {
		return err
	}
	defer f.Close()
	r := input.NewReader([]string{corpus}, nil, nil)
	cpu0 := cpuTime()
	start := time.Now()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	o := &dedup.Options{Workers: workers, Job: "enginecost"}
	if store == "memory" {
		o.Job = ""
	}
	sum, err := dedup.Run(ctx, r, a, x, o, func(*dedup.Outcome) error { return nil })
	pprof.StopCPUProfile()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	if err != nil {
		return err
	}
	n := float64(sum.Records)
	fmt.Printf("store %s, %d records (%d unique, %d near, %d exact), %d workers of GOMAXPROCS %d\n",
		store, sum.Records, sum.Unique, sum.Near, sum.Exact, sum.Workers, runtime.GOMAXPROCS(0))
	fmt.Printf("wall %v (%.0f records/s), CPU %v (%.1f µs/record)\n", elapsed.Round(time.Millisecond), n/elapsed.Seconds(), cpu.Round(time.Millisecond), us(cpu)/n)
	total, err := totalSamples(profile)
	if err != nil {
		return err
	}
	analysis, err := samples(profile, "-focus=neardup.\\(\\*Analyzer\\).Analyze$")
	if err != nil {
		return err
	}
	serial, err := samples(profile, "-tagfocus="+index.ProfileLabel+"=serial")
	if err != nil {
		return err
	}
	parallel, err := samples(profile, "-tagfocus="+index.ProfileLabel+"=parallel")
	if err != nil {
		return err
	}
	write, err := samples(profile, "-tagfocus="+index.ProfileLabel+"=write")
	if err != nil {
		return err
	}
	fmt.Printf("profile: %.1f µs/record in all, analysis %.1f, engine serial %.2f, engine parallel %.2f, store writes beside %.2f\n",
		us(total)/n, us(analysis)/n, us(serial)/n, us(parallel)/n, us(write)/n)
	fmt.Printf("serial/analysis %.2f%%; Amdahl speed-up on 8, 32, 64 cores: %.1f, %.1f, %.1f\n", 100*float64(serial)/float64(analysis),
		amdahl(serial, total, 8), amdahl(serial, total, 32), amdahl(serial, total, 64))
	lane := max(serial, write)
	fmt.Printf("pipeline bound on 8, 32, 64 cores: %.1f, %.1f, %.1f (slowest serial lane %.2f µs/record)\n",
		pipelined(lane, total, 8), pipelined(lane, total, 32), pipelined(lane, total, 64), us(lane)/n)
	return nil
}

// pipelined is the speed-up on p cores of work whose slowest serial
// lane (the ordered part, or the store's writes beside it) takes lane
// of total: the lanes overlap the rest, so the lane bounds the rate.
func pipelined(lane, total time.Duration, p float64) float64 {
	if lane == 0 {
		return p
	}
	return min(p, float64(total)/float64(lane))
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// amdahl is the speed-up on p cores of work of which serial is the
// part that runs on one.
func amdahl(serial, total time.Duration, p float64) float64 {
	s := float64(serial) / float64(total)
	return 1 / (s + (1-s)/p)
}

// samples returns the CPU time of the profile's samples that go tool
// pprof keeps with the filter (all with "").
func samples(profile, filter string) (time.Duration, error) {
	args := []string{"tool", "pprof", "-top", "-cum", "-nodecount=1"}
	if filter != "" {
		args = append(args, filter)
	}
	out, err := exec.Command("go", append(args, profile)...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("go tool pprof: %v: %s", err, out)
	}
	// The first node by cumulative time (the root of the kept samples'
	// stacks) holds them all: its cum column after the header line.
	lines := strings.Split(string(out), "\n")
	for i, l := range lines {
		if strings.Contains(l, "flat%") && i+1 < len(lines) {
			f := strings.Fields(lines[i+1])
			if len(f) >= 5 {
				return time.ParseDuration(f[3])
			}
		}
	}
	if strings.Contains(string(out), "no samples") || strings.Contains(string(out), "Showing nodes accounting for 0, 0% of 0 total") {
		return 0, nil
	}
	return 0, fmt.Errorf("go tool pprof: no total in %s", bytes.TrimSpace(out))
}

// totalSamples returns the CPU time of all the profile's samples.
func totalSamples(profile string) (time.Duration, error) {
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=1", profile).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("go tool pprof: %v: %s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if i := strings.Index(l, "Total samples = "); i >= 0 {
			if f := strings.Fields(l[i+len("Total samples = "):]); len(f) > 0 {
				return time.ParseDuration(f[0])
			}
		}
	}
	return 0, fmt.Errorf("go tool pprof: no total in %s", bytes.TrimSpace(out))
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
