#!/usr/bin/env bash
# What the control-plane ports cost the worker (issue 28): the ring loop
# of bench/fwd_bench.sh, routerd-loop with 100,000 IPv4 routes of the
# vendored table, run with its control-plane ports off (as the other
# benchmarks run it) and on (a TAP a port and the kernel mirror, in a
# namespace of its own), interleaved REPS (5) times, RUNS (5) one-second
# intervals each:
#   fwd4_mpps_cports_off, fwd4_mpps_cports_on  medians, Mpps;
#   fwd4_cports_on_vs_off  the median of the repetitions' on/off ratios
#       (1.00: the workers do not pay for the ports).
# pipeline4_cycles (bench/pipeline_bench) runs the worker's stages alone,
# where the ports do not exist: the code a packet runs is the same
# either way (a TAP is the control core's), which this measures end to
# end.
#
#   bench/cport_cost.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
REPS=${REPS:-5}
RUNS=${RUNS:-5}
work=$build/cport-bench
mkdir -p "$work"
ns=cpb-rtr
# shellcheck source=ring_lib.sh
. bench/ring_lib.sh
trap 'ring_stop; ip netns del $ns 2>/dev/null || true' EXIT
ring_check_hugepages
ring_tables
head -n 100000 "$work/full4" >"$work/t4"
ip netns del $ns 2>/dev/null || true
ip netns add $ns
ip -n $ns link set lo up

measure() {
	local out
	ring_start_routerd "$work/t4" 4
	out=$(ring_loop_run --fill "$work/t4" --count 256 --runs "$RUNS")
	ring_stop
	echo "$out" >>"$work/ring_loop.log"
	echo "$out" | grep -q '^lost 0$' || { echo "cport_cost: packets left the loop" >&2; exit 1; }
	echo "$out" | awk '$1 == "mpps_median" { print $2 }'
}
off=() on=()
for i in $(seq "$REPS"); do
	off+=("$(RING_CPORTS_NS= measure)")
	on+=("$(RING_CPORTS_NS=$ns measure)")
	echo "# rep $i: off ${off[-1]} Mpps, on ${on[-1]} Mpps"
done
echo "fwd4_mpps_cports_off $(printf '%s\n' "${off[@]}" | median)"
echo "fwd4_mpps_cports_on $(printf '%s\n' "${on[@]}" | median)"
echo "fwd4_cports_on_vs_off $(paired_ratio "${on[*]}" "${off[*]}")"
