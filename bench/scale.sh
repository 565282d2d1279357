#!/usr/bin/env bash
# bench/scale.sh: neardup at scale on a synthetic corpus, each dedup run
# set against analysis alone on the same input in the same run.
#
#   bench/scale.sh [N...]            (default: 100000 1000000)
#
# For each N, bench/gencorpus writes N articles (SIZE bytes of text,
# default 2700; 70% Chinese; 5% exact and 10% edited copies, with their
# truth) from the shared corpora's sentences into $WORK (default
# /tmp/neardup-scale, kept between runs: a corpus is made once per N,
# SIZE and SEED), then runs, each under `flock /tmp/neardup-bench.lock`,
# GODEBUG=gctrace=1 and /usr/bin/time -v (Debian's `time` package):
#
#   fingerprint   neardup fingerprint --keywords 1  (analysis alone)
#   memory        neardup dedup --pairs P
#   badger        neardup dedup --index DIR --pairs P  (a new archive)
#
# and prints a row per run: articles/s, MB/s of input, speed against
# fingerprint's, the process's CPU time (user + system) per article
# and its speed against fingerprint's by that measure, peak RSS, the
# largest live heap after a collection (gctrace) per article and, for
# badger, the archive's bytes on disk per article; the share of CPU the
# collector took (gctrace's figure, of GOMAXPROCS × wall time, at the
# last collection) and the precision and recall of the planted copies
# (gencorpus -score). The live heap of memory less fingerprint's, per
# article, is what the in-memory archive costs. RUNS (default
# fingerprint,memory,badger) picks the runs; NEARDUP a built binary
# (default: go build ./cmd/neardup into $WORK); BEFORE another (an
# older build), whose dedup runs follow, as memory-before and
# badger-before, against the same fingerprint run. LOCK=none runs
# without the lock (a long run, measured by its CPU time). The runs
# inherit the environment: GOMEMLIMIT bounds the heap (see
# bench/README.md for the 10^7 run).
set -euo pipefail
cd "$(dirname "$0")/.."
corpora=${NEARDUP_CORPORA:-$(cd .. && pwd)/shared/corpora}
work=${WORK:-/tmp/neardup-scale}
size=${SIZE:-2700}
seed=${SEED:-1}
runs=${RUNS:-fingerprint,memory,badger}
lock=${LOCK:-/tmp/neardup-bench.lock}
mkdir -p "$work"
[[ -x /usr/bin/time ]] || { echo "scale.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
bin=${NEARDUP:-}
if [[ -z $bin ]]; then
	bin=$work/neardup
	go build -o "$bin" ./cmd/neardup
fi
go build -o "$work/gencorpus" ./bench/gencorpus
[[ $# -gt 0 ]] || set -- 100000 1000000

# measure NAME N INPUT LOG CMD...: runs CMD under the lock, time -v and
# gctrace, and leaves in LOG its stderr.
measure() {
	local log=$1
	shift
	if [[ $lock == none ]]; then
		GODEBUG=gctrace=1 /usr/bin/time -v "$@" 2>"$log"
	else
		GODEBUG=gctrace=1 flock "$lock" /usr/bin/time -v "$@" 2>"$log"
	fi
}

# field LOG: wall seconds, peak RSS (kB), GC %, the largest live heap
# (MB) and CPU seconds (user + system) of a run's log.
field() {
	awk '
	/Elapsed \(wall clock\)/ { n = split($NF, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; wall = s }
	/User time \(seconds\)/ || /System time \(seconds\)/ { cpu += $NF }
	/Maximum resident set size/ { rss = $NF }
	/^gc [0-9]+ @/ { pct = $4; sub(/%:?/, "", pct); if (match($0, /[0-9]+->[0-9]+->[0-9]+ MB/)) { split(substr($0, RSTART, RLENGTH), h, "->"); live = h[3] + 0; if (live > maxlive) maxlive = live } }
	END { printf "%s %s %s %s %s\n", wall, rss, pct, maxlive, cpu }' "$1"
}

printf '%-14s %9s %9s %7s %7s %9s %7s %9s %10s %10s %5s %9s %8s %8s\n' run articles art/s MB/s vs_fp cpu_us/art cpu_vs peakRSS heapB/art archB/art GC% precision recall rec_j08
for n in "$@"; do
	corpus=$work/corpus-$n-$size-$seed.jsonl
	truth=$work/truth-$n-$size-$seed.jsonl
	if [[ ! -s $truth ]]; then
		"$work/gencorpus" -corpora "$corpora" -n "$n" -size "$size" -seed "$seed" -o "$corpus.tmp" -truth "$truth.tmp"
		mv "$corpus.tmp" "$corpus"
		mv "$truth.tmp" "$truth"
	fi
	bytes=$(stat -c %s "$corpus")
	fwall="" frss="" fgc="" flive=0 fcpu=""
	if [[ $runs == *fingerprint* ]]; then
		measure "$work/fp-$n.log" "$bin" fingerprint --keywords 1 "$corpus" >/dev/null
		read -r fwall frss fgc flive fcpu < <(field "$work/fp-$n.log")
	fi
	# row NAME WALL RSS GC LIVE CPU ARCHBYTES SCORE: without a
	# fingerprint run, no speed against it, and the heap column is the
	# whole live heap per article.
	row() {
		local name=$1 wall=$2 rss=$3 gc=$4 live=$5 cpu=$6 arch=$7 score=$8
		awk -v name="$name" -v n="$n" -v bytes="$bytes" -v wall="$wall" -v fwall="$fwall" -v rss="$rss" -v gc="$gc" \
			-v live="$live" -v flive="$flive" -v cpu="$cpu" -v fcpu="$fcpu" -v arch="$arch" -v score="$score" 'BEGIN {
			p = "-"; r = "-"; r8 = "-"
			if (score != "") { split(score, s, " "); p = s[1]; r = s[2]; r8 = s[3] }
			heap = (name == "fingerprint") ? "-" : sprintf("%.0f", (live - flive) * 1048576 / n)
			a = (arch == "") ? "-" : sprintf("%.0f", arch / n)
			vs = (fwall == "") ? "-" : sprintf("%.2fx", fwall / wall)
			cvs = (fcpu == "") ? "-" : sprintf("%.2fx", fcpu / cpu)
			printf "%-14s %9d %9.0f %7.2f %7s %9.0f %7s %7.2fGB %10s %10s %5s %9s %8s %8s\n", name, n, n / wall, bytes / wall / 1e6,
				vs, cpu * 1e6 / n, cvs, rss / 1048576, heap, a, gc, p, r, r8 }'
	}
	if [[ $runs == *fingerprint* ]]; then
		row fingerprint "$fwall" "$frss" "$fgc" "$flive" "$fcpu" "" ""
	fi
	score() {
		"$work/gencorpus" -score -truth "$truth" "$1" |
			sed -E 's/.*"precision":([0-9.e-]+),"recall":([0-9.e-]+),"recall_j08":([0-9.e-]+).*/\1 \2 \3/' |
			awk '{ printf "%.4f %.4f %.4f", $1, $2, $3 }'
	}
	dedups() { # SUFFIX BINARY
		local sfx=$1 b=$2
		if [[ $runs == *memory* ]]; then
			measure "$work/mem$sfx-$n.log" "$b" dedup --pairs "$work/pairs-mem$sfx-$n.jsonl" "$corpus"
			read -r wall rss gc live cpu < <(field "$work/mem$sfx-$n.log")
			row "memory$sfx" "$wall" "$rss" "$gc" "$live" "$cpu" "" "$(score "$work/pairs-mem$sfx-$n.jsonl")"
		fi
		if [[ $runs == *badger* ]]; then
			rm -rf "$work/archive-$n"
			measure "$work/badger$sfx-$n.log" "$b" dedup --index "$work/archive-$n" --pairs "$work/pairs-badger$sfx-$n.jsonl" "$corpus"
			read -r wall rss gc live cpu < <(field "$work/badger$sfx-$n.log")
			row "badger$sfx" "$wall" "$rss" "$gc" "$live" "$cpu" "$(du -sb "$work/archive-$n" | cut -f1)" "$(score "$work/pairs-badger$sfx-$n.jsonl")"
			rm -rf "$work/archive-$n"
		fi
	}
	dedups "" "$bin"
	if [[ -n ${BEFORE:-} ]]; then
		dedups -before "$BEFORE"
		for r in mem badger; do
			if [[ -f $work/pairs-$r-$n.jsonl && -f $work/pairs-$r-before-$n.jsonl ]]; then
				cmp -s "$work/pairs-$r-$n.jsonl" "$work/pairs-$r-before-$n.jsonl" && same=identical || same=DIFFERENT
				echo "# $r: pairs $same to before's"
			fi
		done
	fi
done
