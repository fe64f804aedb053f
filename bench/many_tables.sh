#!/usr/bin/env bash
# What many small tables (VRFs) cost routerd: N tables (default 1000),
# each given one IPv4 and one IPv6 route by `routerctl -b`; prints the
# load time, routerd's resident memory before and after, and what
# `routerctl stats` counts for the tables; then flushes them and prints
# the memory again. docs/fib.md ("Tables") quotes it.
#   bench/many_tables.sh [BUILD_DIR] [N]
# Uses the integration tests' namespaces (NS_PREFIX=mt), so never at the
# same time as `make test`.
NS_PREFIX=mt
. "$(dirname "$0")/../tests/integration/lib.sh"
n=${2:-1000}
two_hosts
start_router
pid=$(pgrep -f "routerd.*$SOCK" | head -1)
rss() { awk '/VmRSS/ { print $2 }' "/proc/$pid/status"; }
before=$(rss)
for i in $(seq 1000 $((999 + n))); do
	echo "route add blackhole 10.$((i % 200)).$((i / 200 % 256)).0/24 table $i"
	echo "route add blackhole 2001:db8:$(printf %x "$i")::/48 table $i"
done >"$WORK/many"
t0=$(date +%s.%N)
rc -b "$WORK/many" >"$WORK/load" 2>&1 || { cat "$WORK/load"; exit 1; }
t1=$(date +%s.%N)
echo "$((2 * n)) routes into $n tables: $(echo "$t1 - $t0" | bc) s"
echo "routerd resident: $before KiB before, $(rss) KiB after"
rc stats | awk '/^fib +table[0-9]+\.bytes/ && $2 != "table254.bytes" { s += $3; k++ }
	END { printf "stats: %d tables, %.0f bytes each (allocated, not all touched)\n", k, s / k }'
for i in $(seq 1000 $((999 + n))); do echo "route flush table $i"; done >"$WORK/flush"
rc -b "$WORK/flush" >"$WORK/load" 2>&1 || { cat "$WORK/load"; exit 1; }
sleep 1 # the grace periods: routerd reclaims from its control loop
echo "stats after flushing: $(rc stats | awk '/^fib +table[0-9]+\.bytes/ && $2 != "table254.bytes" { s += $3 } END { print s }') bytes in those tables"
echo "after flushing them: routerd resident $(rss) KiB"
ns_stop_router
