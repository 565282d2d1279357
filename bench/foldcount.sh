#!/usr/bin/env bash
# bench/foldcount.sh: instructions (valgrind's callgrind) that the analysis
# of a fixed set of articles takes with the fold of traditional Chinese
# (the default) and without it (Options.KeepTraditional), which, unlike
# times, do not depend on the load of the machine.
#
#   bench/foldcount.sh [CORPUS [N [SIMPLIFIED]]]
#
# CORPUS is a JSONL corpus (default ../shared/corpora/zh_docs.jsonl.gz), N
# the number of its first articles analysed (default 50), SIMPLIFIED
# whether to leave out those with a character of segment.TradChars
# (default true). bench/foldcount is built with -tags callgrind, so that it
# tells callgrind to count only the analyses (one pass, after an uncounted
# one that loads everything). Go's GC is off, asynchronous preemption too
# (callgrind cannot follow its signals), one P. Printed: the instructions
# of a pass each way, their ratio, and where the fold's pass spends more
# (functions whose instructions differ by more than 0.1% of the pass).
# Needs valgrind (apt-get install valgrind) and cgo.
set -euo pipefail
cd "$(dirname "$0")/.."
corpora=${NEARDUP_CORPORA:-$(cd .. && pwd)/shared/corpora}
corpus=${1:-$corpora/zh_docs.jsonl.gz}
n=${2:-50}
simplified=${3:-true}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -tags callgrind -o "$out/foldcount" ./bench/foldcount
for keep in false true; do
	GODEBUG=asyncpreemptoff=1 GOGC=off GOMAXPROCS=1 valgrind --tool=callgrind \
		--callgrind-out-file="$out/cg.$keep" "$out/foldcount" -keep="$keep" -simplified="$simplified" -n "$n" "$corpus" \
		>"$out/stdout.$keep" 2>"$out/stderr.$keep" || { cat "$out/stderr.$keep" >&2; exit 1; }
	echo "keep=$keep: $(cat "$out/stdout.$keep"); a pass: $(awk '/^totals:/ {print $2}' "$out/cg.$keep.1") instructions"
done
# Self instructions per function of a dump (cost lines after a calls=
# line are a callee's, not the function's own; "f'2", callgrind's name
# for f in a cycle, which varies from run to run, counts as f). The C
# allocator's counts (malloc, free, …) vary by about 1% of a pass from run
# to run with the heap's state; Go code's do not.
self() {
	awk 'function id(l) { return substr(l, index(l, "(") + 1, index(l, ")") - index(l, "(") - 1) }
		function named(l) { n=l; sub(/^c?fn=\([0-9]+\) ?/, "", n); sub(/'"'"'[0-9]+$/, "", n); if (n != "") name[id(l)]=n }
		/^cfn=/ { named($0); next }
		/^fn=/ { named($0); cur=name[id($0)]; next }
		/^calls=/ { skip=1; next }
		/^[0-9+*-]/ { if (skip) { skip=0; next } if (cur != "") c[cur]+=$2 }
		END { for (k in c) print c[k] "\t" k }' "$1"
}
self "$out/cg.false.1" | sort -t$'\t' -k2 >"$out/self.false"
self "$out/cg.true.1" | sort -t$'\t' -k2 >"$out/self.true"
f=$(awk '/^totals:/ {print $2}' "$out/cg.false.1")
k=$(awk '/^totals:/ {print $2}' "$out/cg.true.1")
echo "fold/keep instructions: $(echo "scale=4; $f / $k" | bc)"
echo "functions that differ (fold - keep, instructions):"
join -t$'\t' -1 2 -2 2 -a 1 -a 2 -e 0 -o 0,1.1,2.1 "$out/self.false" "$out/self.true" |
	awk -F'\t' -v k="$k" '{ d=$2-$3; if (d > k/1000 || d < -k/1000) printf "%+12d  %s\n", d, $1 }' | sort -rn | cut -c1-150
