#!/usr/bin/env bash
# bench/shared.sh: deduplicating ingest into one shared archive by 1, 2
# and 4 worker processes on a local 3-master Redis Cluster, against one
# process over Badger and in memory, in the same run (see
# bench/sharedingest). Needs Debian's redis-server and redis-tools.
#
#   bench/shared.sh [N [RUNS [WORKERS]]]     defaults: 20000 3 1,2,4
#
# The cluster is started with scripts/redis-cluster on free ports in a
# temporary directory and stopped by its pidfiles at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000} runs=${2:-3} workers=${3:-1,2,4}
tmp=$(mktemp -d)
trap 'scripts/redis-cluster stop "$tmp/rc" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
ports=()
while ((${#ports[@]} < 3)); do
	p=$((20000 + RANDOM % 20000))
	if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && ! (exec 3<>/dev/tcp/127.0.0.1/$((p + 10000))) 2>/dev/null; then
		ports+=("$p")
	fi
done
addrs=$(scripts/redis-cluster start "$tmp/rc" "${ports[@]}")
go build -o "$tmp/sharedingest" ./bench/sharedingest
"$tmp/sharedingest" -url "redis://${addrs%%,*}/bench" -n "$n" -runs "$runs" -workers "$workers"
