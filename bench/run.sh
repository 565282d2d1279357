#!/usr/bin/env bash
# bench/run.sh: neardup's speed on the shared news corpora, every number
# next to a baseline measured in the same run.
#
#   bench/run.sh [COUNT]        (COUNT benchmark repetitions, default 5)
#
# Prints, for zh_news and en_reuters:
#   1. bare segmentation vs the whole analysis pipeline vs gosimhash-style
#      extraction (gojieba ExtractWithWeight + lookup3), MB/s medians over
#      COUNT runs (Go benchmarks, via benchstat) and their ratios;
#   2. `neardup dedup` end to end with 1 and 2 workers: median wall time of
#      3 runs, MB/s of article text, and the ratio to the bare segmenter's
#      time on the same text;
#   3. index ingest and query (Badger and memory) at 1M fingerprints.
# Needs ../shared/corpora (or NEARDUP_CORPORA). Takes about 10 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
corpora=${NEARDUP_CORPORA:-$(cd .. && pwd)/shared/corpora}
export NEARDUP_CORPORA=$corpora
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
benchstat="go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

echo "# machine: $(nproc) cores, $(go version | cut -d' ' -f3-)"
echo
echo "## 1. Pipeline vs bare segmentation (300 articles per corpus, MB/s, median of $count)"
go test -run '^$' -bench 'BenchmarkPipeline|BenchmarkGosimhash' -benchtime 3x -count "$count" . > "$out/pipeline.txt"
$benchstat -col /x "$out/pipeline.txt" 2>/dev/null || $benchstat "$out/pipeline.txt"
# Ratios from the medians of the MB/s column (portable awk: sort does the ordering).
awk '/^Benchmark/ { n=$1; sub(/-[0-9]+$/, "", n); for (i=1;i<NF;i++) if ($(i+1)=="MB/s") print n, $i }' "$out/pipeline.txt" |
	sort -k1,1 -k2,2n |
	awk '{ v[$1]=v[$1] " " $2; c[$1]++ }
	END {
		for (n in v) { split(v[n], a, " "); med[n]=a[int((c[n]+1)/2)] }
		for (n in med) if (n ~ /\/analyze$/) {
			s=n; sub(/analyze$/, "segment", s)
			lang=n; sub(/^BenchmarkPipeline\/[a-z]+\//, "", lang); sub(/\/analyze$/, "", lang)
			g="BenchmarkGosimhash/" lang
			printf "%-34s analyze %6.2f MB/s  segment %6.2f MB/s  analyze/segment time %.2fx", n, med[n], med[s], med[s]/med[n]
			if (n ~ /jieba/ && (g in med)) printf "  gosimhash-style %5.2f MB/s (neardup/gosimhash speed %.2fx)", med[g], med[n]/med[g]
			printf "\n"
		}
	}' | sort

echo
echo "## 2. neardup dedup end to end (median wall time of 3 runs)"
go build -o "$out/neardup" ./cmd/neardup
go test -run '^$' -bench 'BenchmarkCorpusSegment' -benchtime 1x -count 3 -cpu 1,2 . > "$out/corpusseg.txt"
printf "%-12s %-8s %10s %10s %12s %s\n" corpus workers "wall s" "MB/s" "bare seg s" "dedup/segment"
for corpus in zh_news en_reuters; do
	in="$corpora/$corpus.jsonl.gz"
	mb=$(zcat "$in" | python3 -c 'import sys,json; print(sum(len(json.loads(l)["text"].encode()) for l in sys.stdin)/1e6)')
	for w in 1 2; do
		times=()
		for r in 1 2 3; do
			s=$(date +%s.%N)
			"$out/neardup" dedup --workers "$w" --pairs "$out/pairs.jsonl" "$in" 2>/dev/null
			e=$(date +%s.%N)
			times+=("$(echo "$e - $s" | bc)")
		done
		med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
		# Bare segmentation of the same texts with as many goroutines:
		# the median ns/op of BenchmarkCorpusSegment.
		lang=${corpus%%_*}
		suffix=$([ "$w" = 1 ] && echo "" || echo "-$w")
		seg=$(awk -v n="BenchmarkCorpusSegment/$lang$suffix" '$1==n {print $3/1e9}' "$out/corpusseg.txt" | sort -n | sed -n 2p)
		ratio=$( [ -n "$seg" ] && echo "scale=2; $med / $seg" | bc || echo "?")
		printf "%-12s %-8s %10.2f %10.2f %12s %s\n" "$corpus" "$w" "$med" "$(echo "$mb / $med" | bc -l)" "${seg:-?}" "${ratio}x"
	done
done

echo
echo "## 3. Index: ingest and Near at 1M fingerprints"
go test -run '^$' -bench 'BenchmarkAdd|BenchmarkNear' -benchtime 1x ./index | grep -E '^Benchmark' || true
