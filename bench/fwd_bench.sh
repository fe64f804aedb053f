#!/usr/bin/env bash
# Packets a second on one worker core, routerd beside DPDK's l3fwd, in the
# ring loop (issue 6, part 2, "CPU cost"): two net_ring ports, each looping
# back to itself, filled once by bench/ring_loop (a DPDK secondary) with
# 256 packets a port; the packets then circulate and the rate is the
# forwarder's own cost. routerd runs as routerd-loop, which refills an
# expiring TTL to 64 as packets come round (bench/ttl_refill.c);
# l3fwd does not check the TTL at all, so its packets circulate anyway.
#
#   bench/fwd_bench.sh [BUILD_DIR]         (REPS=3 RUNS=5 by default)
#
# Each scenario is started, filled, measured for RUNS one-second
# intervals (median), stopped; the whole set is repeated REPS times,
# interleaved. Each Mpps figure is the median over the repetitions; each
# ratio the median of the repetitions' ratios.
# Prints one "scenario mpps" line per result, the ratios as "name value"
# lines, and appends rows to bench/out/fwd.csv. Needs hugepages: the
# secondary process shares the forwarder's memory through them.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
REPS=${REPS:-3}
RUNS=${RUNS:-5}
SIZES=${SIZES:-1000 10000 100000}
work=$build/fwd-bench
mkdir -p "$work" bench/out
l3fwd=$(bench/build_l3fwd.sh "$build/l3fwd")
# shellcheck source=ring_lib.sh
. bench/ring_lib.sh
trap ring_stop EXIT
ring_check_hugepages
ring_tables
for f in 4 6; do
	for n in $SIZES; do head -n "$n" "$work/full$f" >"$work/n$n-$f"; done
done

# Fill the loop with packets to TABLE's prefixes, measure; prints Mpps.
measure() {
	local out
	out=$(ring_loop_run --fill "$1" --count 256 --runs "$RUNS")
	echo "$out" >>"$work/ring_loop.log"
	if ! echo "$out" | grep -q '^lost 0$'; then
		echo "fwd_bench: packets left the loop:" >&2
		echo "$out" >&2
		exit 1
	fi
	echo "$out" | awk '$1 == "mpps_median" { print $2 }'
}

declare -A res
scenario() { # NAME START-COMMAND... ; table in $table
	local name=$1
	shift
	"$@"
	res[$name]+="$(measure "$table") "
	ring_stop
}

: >"$work/ring_loop.log"
for rep in $(seq "$REPS"); do
	echo "repetition $rep of $REPS" >&2
	table=$work/small4 scenario testpmd_io ring_start_testpmd
	for f in 4 6; do
		# Compared scenarios run next to each other (see ratio below).
		table=$work/small$f scenario "l3fwd_lpm$f" ring_start_l3fwd lpm
		table=$work/small$f scenario "routerd_small$f" ring_start_routerd "$work/small$f" $f
		table=$work/small$f scenario "l3fwd_fib$f" ring_start_l3fwd fib
		table=$work/full$f scenario "routerd_full$f" ring_start_routerd "$work/full$f" $f
		for n in $SIZES; do
			table=$work/n$n-$f scenario "routerd_n$n-$f" ring_start_routerd "$work/n$n-$f" $f
		done
	done
done

declare -A med
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
[ -s bench/out/fwd.csv ] || echo "time,scenario,family,routes,mpps" >bench/out/fwd.csv
for k in "${!res[@]}"; do
	med[$k]=$(echo "${res[$k]}" | tr ' ' '\n' | grep . | median)
	fam=${k: -1}
	case $k in
	*small*) n=2 ;;
	*full*) n=$(wc -l <"$work/full$fam") ;;
	routerd_n*) n=${k#routerd_n}; n=${n%-*} ;;
	testpmd*) n=0 fam=- ;;
	*) n=2 ;;
	esac
	echo "$stamp,$k,$fam,$n,${med[$k]}" >>bench/out/fwd.csv
done
for k in $(echo "${!med[@]}" | tr ' ' '\n' | sort); do
	printf '%-22s %8s Mpps  (%s)\n' "$k" "${med[$k]}" "${res[$k]% }"
done
ratio() { paired_ratio "${res[$1]}" "${res[$2]}"; }
echo "fwd4_vs_l3fwd_lpm $(ratio routerd_small4 l3fwd_lpm4)"
echo "fwd4_vs_l3fwd_fib $(ratio routerd_small4 l3fwd_fib4)"
echo "fwd6_vs_l3fwd_lpm $(ratio routerd_small6 l3fwd_lpm6)"
echo "fwd6_vs_l3fwd_fib $(ratio routerd_small6 l3fwd_fib6)"
echo "fwd4_full_vs_small $(ratio routerd_full4 routerd_small4)"
echo "fwd6_full_vs_small $(ratio routerd_full6 routerd_small6)"
echo "fwd4_full_mpps ${med[routerd_full4]}"
echo "ring_io_mpps ${med[testpmd_io]}"
echo "fwd6_full_mpps ${med[routerd_full6]}"
