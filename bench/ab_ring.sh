#!/usr/bin/env bash
# Two routerd-loop builds against each other in the ring loop, with l3fwd
# LPM as the yardstick, interleaved: each repetition runs l3fwd, build A's
# routerd-loop, then build B's, on l3fwd's own routes, RUNS one-second
# intervals each. For changes too small for bench/fwd_bench.sh to show
# between runs minutes apart (docs/performance.md, "What was tried").
#   bench/ab_ring.sh BUILD_A BUILD_B [4|6]       (REPS=8 RUNS=3 by default)
# Prints per repetition: l3fwd Mpps, A Mpps, B Mpps, A/l3fwd, B/l3fwd.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 2,9p "$0" >&2; exit 1; }
build_a=$(realpath "$1")
build_b=$(realpath "$2")
fam=${3:-4}
REPS=${REPS:-8}
RUNS=${RUNS:-3}
build=$build_a # ring_lib.sh's helpers (ring_loop, l3fwd) come from A
work=$build_a/ab-ring
mkdir -p "$work"
l3fwd=$(bench/build_l3fwd.sh "$build_a/l3fwd")
# shellcheck source=ring_lib.sh
. bench/ring_lib.sh
trap ring_stop EXIT
ring_check_hugepages
ring_tables
measure() {
	ring_loop_run --fill "$work/small$fam" --count 256 --runs "$RUNS" |
		awk '$1 == "mpps_median" { print $2 }'
}
for rep in $(seq "$REPS"); do
	ring_start_l3fwd lpm
	l=$(measure)
	ring_stop
	build=$build_a ring_start_routerd "$work/small$fam" "$fam"
	a=$(measure)
	ring_stop
	build=$build_b ring_start_routerd "$work/small$fam" "$fam"
	b=$(measure)
	ring_stop
	build=$build_a
	awk -v r="$rep" -v l="$l" -v a="$a" -v b="$b" 'BEGIN {
		printf "rep %d: l3fwd %.2f A %.2f B %.2f A/l3fwd %.3f B/l3fwd %.3f\n", r, l, a, b, a / l, b / l }'
done
