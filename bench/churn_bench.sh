#!/usr/bin/env bash
# Route churn under load (issue 6, part 4), in the ring loop of
# bench/fwd_bench.sh: routerd-loop with the full IPv4 table forwards at
# its maximum rate while bench/churn_gen.py replaces, deletes and re-adds
# RATE routes a second (default 10,000) and changes neighbours, for
# SECONDS (default 30).
#
#   bench/churn_bench.sh [BUILD_DIR]
#
# The loop holds a fixed set of packets (512, in a pool of their own), so
# every packet routerd drops or punts goes back to that pool: "lost" is
# exact. Packets to a route that is deleted while they circulate are
# punted as no_route, or follow a covering route; the first kind is
# the loss the issue allows (in flight to a deleted route), so
#   churn_lost = packets lost - no_route punts during the churn,
# and the replaced routes must lose nothing. The rate with churn is the
# median of the churn's one-second intervals, against the median of as
# many intervals without churn, half just before it and half just after
# (same process, same packets), so that drift in the machine's speed
# over the minute shows in both.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
RATE=${RATE:-10000}
SECONDS_CHURN=${SECONDS_CHURN:-30}
work=$build/churn-bench
mkdir -p "$work"
# shellcheck source=ring_lib.sh
. bench/ring_lib.sh
trap ring_stop EXIT
ring_check_hugepages
ring_tables

neighbours=()
for n in $(seq 10 19); do
	neighbours+=("neigh add 192.0.2.$n lladdr 02:00:00:00:00:$n dev port0")
done
ring_start_routerd "$work/full4" 4 "${neighbours[@]}"
rc() { "$build/app/routerctl" -S "$work/sock" "$@"; }
stat() { rc stats | awk -v g="$1" -v n="$2" '$1 == g && $2 == n { print $3 }'; }

intervals=$((SECONDS_CHURN - 4))
half=$(((intervals + 1) / 2))
quiet=$(ring_loop_run --fill "$work/full4" --count 256 --runs "$half")
echo "$quiet" >"$work/quiet.log"
lost0=$(echo "$quiet" | awk '$1 == "lost" { print $2 }')
noroute0=$(stat punt no_route)

python3 bench/churn_gen.py "$work/full4" "$RATE" "$SECONDS_CHURN" 2>"$work/churn.err" |
	rc -b - >"$work/churn.out" 2>&1 &
churn_pid=$!
sleep 2
busy=$(ring_loop_run --runs "$intervals")
echo "$busy" >"$work/busy.log"
wait "$churn_pid" || { echo "routerctl -b reported errors:" >&2; grep -v '^ok\|progress' "$work/churn.out" | head >&2; }
sleep 0.5
end=$(ring_loop_run --runs "$half")
echo "$end" >>"$work/quiet.log"
lost1=$(echo "$end" | awk '$1 == "lost" { print $2 }')
noroute1=$(stat punt no_route)

q=$(printf '%s\n%s\n' "$quiet" "$end" | awk '$1 == "run" { print $4 }' | median)
b=$(echo "$busy" | awk '$1 == "mpps_median" { print $2 }')
lost=$((lost1 - lost0))
noroute=$((noroute1 - noroute0))
cat "$work/churn.err"
echo "rate without churn $q Mpps, with churn $b Mpps"
echo "packets lost during churn $lost, of which punted as no_route $noroute"
echo "routes after churn: $(rc route show | grep -c via)"
echo "churn_lost $((lost - noroute))"
awk -v a="$b" -v q="$q" 'BEGIN { printf "churn_throughput_ratio %.3f\n", a / q }'
