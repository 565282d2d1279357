#!/usr/bin/env bash
# bench/blockcheck.sh: what the Badger store's check of the blocks each
# read touched costs whole commands (issue 19): `check` of the first
# 1,000 zh_news articles against an archive of the other 4,868 (opened
# read-only), and `dedup --index` of all 5,868 into a new archive, by a
# baseline binary built from BASE (a git revision without the check) and
# one built from the work tree, alternating, the order swapped every
# round. Prints the median wall and CPU (user+sys) seconds of each, the
# ratio of the medians and the median of the per-round ratios. Needs
# ../shared/corpora (or NEARDUP_CORPORA).
#
#   bench/blockcheck.sh BASE [ROUNDS]     default ROUNDS: 7
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1 rounds=${2:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
git archive "$base" | tar -x -C "$tmp/src"
(cd "$tmp/src" && go build -o "$tmp/neardup-base" ./cmd/neardup)
go build -o "$tmp/neardup-new" ./cmd/neardup
corpora=${NEARDUP_CORPORA:-$(cd .. && pwd)/shared/corpora}
zcat "$corpora/zh_news.jsonl.gz" >"$tmp/all.jsonl"
head -n 1000 "$tmp/all.jsonl" >"$tmp/q.jsonl"
tail -n +1001 "$tmp/all.jsonl" >"$tmp/arch.jsonl"
"$tmp/neardup-base" add --index "$tmp/arch" "$tmp/arch.jsonl" >/dev/null
for i in $(seq "$rounds"); do
	if ((i % 2)); then order="base new"; else order="new base"; fi
	for b in $order; do
		/usr/bin/time -f "$b check %e %U %S" -a -o "$tmp/times" "$tmp/neardup-$b" check --index "$tmp/arch" "$tmp/q.jsonl" >/dev/null || true
	done
	for b in $order; do
		rm -rf "$tmp/d-$b"
		/usr/bin/time -f "$b dedup %e %U %S" -a -o "$tmp/times" "$tmp/neardup-$b" dedup --index "$tmp/d-$b" --pairs "$tmp/p-$b" "$tmp/all.jsonl" 2>/dev/null
	done
done
cmp "$tmp/p-base" "$tmp/p-new"
grep -v '^Command' "$tmp/times" | awk '
	{ k = $2; if ($1 == "base") { nb[k]++; wb[k, nb[k]] = $3; cb[k, nb[k]] = $4 + $5 } else { nn[k]++; wn[k, nn[k]] = $3; cn[k, nn[k]] = $4 + $5 } }
	function med(a, k, n,   i, j, t, v) { for (i = 1; i <= n; i++) v[i] = a[k, i]; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }; return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
	END {
		for (k in nb) {
			n = nb[k]
			for (i = 1; i <= n; i++) { rw[k, i] = wn[k, i] / wb[k, i]; rc[k, i] = cn[k, i] / cb[k, i] }
			printf "%s: wall %.2f s -> %.2f s (medians; %.3f), per-round median %.3f; CPU %.2f s -> %.2f s (%.3f), per-round median %.3f; %d rounds\n", k, med(wb, k, n), med(wn, k, n), med(wn, k, n) / med(wb, k, n), med(rw, k, n), med(cb, k, n), med(cn, k, n), med(cn, k, n) / med(cb, k, n), med(rc, k, n), n
		}
	}'
