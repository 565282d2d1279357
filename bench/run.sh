#!/usr/bin/env bash
# bench/run.sh: neardup's speed on the shared news corpora, every number
# next to a baseline measured in the same run.
#
#   bench/run.sh [COUNT [SECTIONS]]
#
# COUNT is the number of benchmark repetitions (default 5); SECTIONS the
# sections to run, as digits (default 1234: all).
#
# Prints, for zh_news and en_reuters:
#   1. BenchmarkInterleaved: normalising, cutting, the whole analysis and
#      gosimhash-style extraction (gojieba ExtractWithWeight + lookup3)
#      timed in alternating passes over the same articles; MB/s, the share
#      of the analysis spent after cutting (against a pass of bare cuts,
#      and "inside": with the cuts timed within the analysis, next to how
#      much slower they run there), and the speed-up over
#      gosimhash (each the median of 15 passes, from wall time and from
#      CPU time), medians over COUNT runs;
#   2. `neardup dedup` end to end with 1 and 2 workers against
#      bench/bareseg (start up with the segmenter, read the same input,
#      normalise and cut every text with as many goroutines): median wall
#      times of 3 alternating runs and their ratio; and against
#      `bareseg -gojieba`, the same with gojieba's own Cut, which sends
#      English through cppjieba too;
#   3. index ingest (Add in batches, and Load) and query (Badger and
#      memory) at 1M fingerprints; bench/badgeringest -n 10000000
#      does the same at 10M (about 15 minutes).
#   4. the fold of traditional Chinese (BenchmarkFold): the analysis with
#      and without it (Options.KeepTraditional, the analysis of before) in
#      alternating passes over 300 zh_news articles as they are, over
#      those without a character of segment.TradChars, and over
#      their s2twp conversion made at bench time by Debian's opencc
#      command (never stored; apt-get install opencc): MB/s and
#      the ratio fold/keep of wall and CPU time, medians over COUNT runs.
# bench/foldcount.sh counts the fold's instructions instead (callgrind),
# which the load of the machine does not change.
# Needs ../shared/corpora (or NEARDUP_CORPORA) and g++: the baselines
# (gosimhash's method, bareseg -gojieba) are gojieba's, built with -tags
# gojieba; neardup itself is the default, pure-Go build. Takes about 12
# minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
sections=${2:-1234}
corpora=${NEARDUP_CORPORA:-$(cd .. && pwd)/shared/corpora}
export NEARDUP_CORPORA=$corpora
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "# machine: $(nproc) cores, $(go version | cut -d' ' -f3-)"
if [[ $sections == *1* ]]; then
echo
echo "## 1. Analysis: stage by stage, in alternating passes over 300 articles per corpus (median of $count)"
go test -tags gojieba -run '^$' -bench 'BenchmarkInterleaved' -benchtime 15x -count "$count" . > "$out/interleaved.txt"
# Median of every metric per benchmark.
awk '/^BenchmarkInterleaved/ { n=$1; sub(/-[0-9]+$/, "", n); sub(/^BenchmarkInterleaved\//, "", n)
	for (i=3;i<NF;i+=2) print n, $(i+1), $i }' "$out/interleaved.txt" |
	sort -k1,1 -k2,2 -k3,3g |
	awk '{ k=$1" "$2; v[k]=v[k]" "$3; c[k]++ }
	END { for (k in v) { split(v[k], a, " "); print k, a[int((c[k]+1)/2)] } }' |
	sort > "$out/medians.txt"
printf "%-10s %10s %10s %12s %12s %10s %10s %10s %10s %10s %12s %12s %12s\n" "backend/corpus" "normalize" "cut" "analyze" "gosimhash" "post-cut" "sketch" "keywords" "inside" "cut slower" "x gosimhash" "post-cut cpu" "x gos. cpu"
for n in $(cut -d' ' -f1 "$out/medians.txt" | sort -u); do
	m() { awk -v n="$n" -v k="$1" '$1==n && $2==k {print $3}' "$out/medians.txt"; }
	printf "%-14s %6s MB/s %6s MB/s %8s MB/s %8s MB/s %9s%% %9s%% %9s%% %9s%% %9s%% %11s %11s%% %11s\n" "$n" "$(m normalize-MB/s)" "$(m cut-MB/s)" "$(m analyze-MB/s)" "$(m gosimhash-MB/s)" "$(m post-cut-%)" "$(m sketch-%)" "$(m keywords-%)" "$(m post-cut-inside-%)" "$(m cut-slowdown-%)" "$(m x-gosimhash)" "$(m post-cut-cpu-%)" "$(m x-gosimhash-cpu)"
done
fi

if [[ $sections == *2* ]]; then
echo
echo "## 2. neardup dedup end to end against bare segmentation (median wall time of 3 alternating runs)"
go build -o "$out/neardup" ./cmd/neardup
go build -tags gojieba -o "$out/bareseg" ./bench/bareseg
# seconds CMD...: the wall time of CMD, its output discarded (its
# errors shown if it fails, which stops the script).
seconds() {
	local s
	s=$(date +%s.%N)
	"$@" >/dev/null 2>"$out/stderr" || { cat "$out/stderr" >&2; return 1; }
	echo "$(date +%s.%N) - $s" | bc
}
# median of three values.
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
printf "%-12s %-8s %10s %10s %12s %14s %16s %s\n" corpus workers "dedup s" "MB/s" "bareseg s" "dedup/bareseg" "gojieba cut s" "dedup/gojieba"
for corpus in zh_news en_reuters; do
	in="$corpora/$corpus.jsonl.gz"
	mb=$(zcat "$in" | python3 -c 'import sys,json; print(sum(len(json.loads(l)["text"].encode()) for l in sys.stdin)/1e6)')
	for w in 1 2; do
		dd=(); bs=(); gj=()
		for r in 1 2 3; do
			bs+=("$(seconds "$out/bareseg" -workers "$w" "$in")")
			dd+=("$(seconds "$out/neardup" dedup --workers "$w" --pairs "$out/pairs.jsonl" "$in")")
			gj+=("$(seconds "$out/bareseg" -gojieba -workers "$w" "$in")")
		done
		dmed=$(median "${dd[@]}")
		bmed=$(median "${bs[@]}")
		gmed=$(median "${gj[@]}")
		printf "%-12s %-8s %10.2f %10.2f %12.2f %13.2fx %16.2f %.2fx\n" "$corpus" "$w" "$dmed" "$(echo "$mb / $dmed" | bc -l)" "$bmed" "$(echo "$dmed / $bmed" | bc -l)" "$gmed" "$(echo "$dmed / $gmed" | bc -l)"
	done
done
fi

if [[ $sections == *3* ]]; then
echo
echo "## 3. Index: ingest and Near at 1M fingerprints"
echo "### Add in batches of 1000 (records with title and keywords, no sketch); Near on Badger and in memory"
(go run ./bench/badgeringest -n 1000000 -sketch=false -memory -queries 10000)
echo "### Load of bare fingerprints (add --fingerprints into a new index); Near"
(go run ./bench/badgeringest -n 1000000 -bare -load -queries 10000)
fi

if [[ $sections == *4* ]]; then
echo
echo "## 4. The fold of traditional Chinese: analysis without (keep) and with it (fold), alternating passes over 300 zh_news articles, those of them without a traditional character, and their s2twp version (median of $count)"
go test -run '^$' -bench 'BenchmarkFold' -benchtime 9x -count "$count" . > "$out/fold.txt"
awk '/^BenchmarkFold/ { n=$1; sub(/-[0-9]+$/, "", n); sub(/^BenchmarkFold\//, "", n)
	for (i=3;i<NF;i+=2) print n, $(i+1), $i }' "$out/fold.txt" |
	sort -k1,1 -k2,2 -k3,3g |
	awk '{ k=$1" "$2; v[k]=v[k]" "$3; c[k]++ }
	END { for (k in v) { split(v[k], a, " "); print k, a[int((c[k]+1)/2)] } }' |
	sort > "$out/fold-medians.txt"
printf "%-22s %12s %12s %10s %14s\n" "backend/text" "keep" "fold" "fold/keep" "fold/keep cpu"
for n in $(cut -d' ' -f1 "$out/fold-medians.txt" | sort -u); do
	m() { awk -v n="$n" -v k="$1" '$1==n && $2==k {print $3}' "$out/fold-medians.txt"; }
	printf "%-22s %7s MB/s %7s MB/s %10s %14s\n" "$n" "$(m keep-MB/s)" "$(m fold-MB/s)" "$(m fold/keep)" "$(m fold/keep-cpu)"
done
fi
