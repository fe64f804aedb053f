#!/usr/bin/env bash
# Packets a second on one worker core, routerd beside DPDK's l3fwd, in the
# ring loop (issue 6, part 2, "CPU cost"): two net_ring ports, each looping
# back to itself, filled once by bench/ring_loop (a DPDK secondary) with
# 256 packets a port; the packets then circulate and the rate is the
# forwarder's own cost. routerd runs as routerd-loop, which refills an
# expiring TTL to 64 instead of punting the packet (app/router/dp.h);
# l3fwd does not check the TTL at all, so its packets circulate anyway.
#
#   bench/fwd_bench.sh [BUILD_DIR]         (REPS=3 RUNS=5 by default)
#
# Each scenario is started, filled, measured for RUNS one-second
# intervals (median), stopped; the whole set is repeated REPS times,
# interleaved, and each figure is the median over the repetitions.
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
prefix=fwdb
pid=

eal=(--no-pci --file-prefix=$prefix --log-level=lib.eal:error --no-telemetry
	--vdev=net_ring0 --vdev=net_ring1 --force-max-simd-bitwidth=512)
stop() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -INT "$pid"
		wait "$pid" 2>/dev/null || true
	fi
	pid=
	rm -f /dev/hugepages/${prefix}map_* 2>/dev/null || true
}
trap stop EXIT

free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [ "${free:-0}" -lt 600 ]; then
	echo "fwd_bench: needs about 600 free 2 MiB hugepages (scripts/setup.sh reserves them); $free free" >&2
	exit 1
fi

# Tables: "PREFIX/LEN PORT". l3fwd's own routes on its two ports, and the
# vendored real tables, duplicates dropped, routes alternating between
# the ports.
printf '198.18.0.0/24 0\n198.18.1.0/24 1\n' >"$work/small4"
printf '2001:200::/64 0\n2001:200:0:1::/64 1\n' >"$work/small6"
for f in 4 6; do
	zcat "bench/data/prefixes-v$f.txt.gz" | awk '!seen[$1]++ { print $1, NR % 2 }' >"$work/full$f"
	for n in $SIZES; do head -n "$n" "$work/full$f" >"$work/n$n-$f"; done
done

# routerd's routes for a table: via a neighbour on the port, whose link
# address is the port's own (00:00:... on net_ring), so the rewritten
# frame is accepted again when it comes round.
routes() {
	awk -v f="$2" '{
		gw = f == 4 ? ($2 ? "198.51.100.2" : "192.0.2.2") : ($2 ? "2001:db8:2::2" : "2001:db8:1::2")
		print "route add " $1 " via " gw
	}' "$1"
}

start_routerd() {
	cat >"$work/startup" <<-EOS
		addr add 192.0.2.1/24 dev port0
		addr add 198.51.100.1/24 dev port1
		addr add 2001:db8:1::1/64 dev port0
		addr add 2001:db8:2::1/64 dev port1
		neigh add 192.0.2.2 lladdr 00:00:00:00:00:00 dev port0
		neigh add 198.51.100.2 lladdr 00:00:00:00:00:00 dev port1
		neigh add 2001:db8:1::2 lladdr 00:00:00:00:00:00 dev port0
		neigh add 2001:db8:2::2 lladdr 00:00:00:00:00:00 dev port1
	EOS
	rm -f "$work/sock"
	"$build/app/routerd-loop" -l 0,1 "${eal[@]}" -- --socket "$work/sock" \
		--startup "$work/startup" --set idle-backoff=off >"$work/log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		[ -S "$work/sock" ] && break
		sleep 0.1
	done
	[ -S "$work/sock" ] || { cat "$work/log" >&2; exit 1; }
	routes "$1" "$2" | "$build/app/routerctl" -s "$work/sock" -b - >/dev/null
}

# l3fwd on lcore 1 alone, both ports, its built-in routes.
start_l3fwd() {
	"$l3fwd" -l 1 "${eal[@]}" -- -p 0x3 --config="(0,0,1),(1,0,1)" --parse-ptype \
		--lookup="$1" >"$work/log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q "entering main loop" "$work/log" && return 0
		sleep 0.1
	done
	cat "$work/log" >&2
	exit 1
}

# Fill the loop with packets to TABLE's prefixes, measure; prints Mpps.
measure() {
	local out
	out=$("$build/bench/ring_loop" --proc-type=secondary -l 0 --no-pci --file-prefix=$prefix \
		--log-level=lib.eal:error --no-telemetry -- --fill "$1" --count 256 --runs "$RUNS")
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
	stop
}

: >"$work/ring_loop.log"
for rep in $(seq "$REPS"); do
	echo "repetition $rep of $REPS" >&2
	for f in 4 6; do
		table=$work/small$f scenario "l3fwd_lpm$f" start_l3fwd lpm
		table=$work/small$f scenario "l3fwd_fib$f" start_l3fwd fib
		table=$work/small$f scenario "routerd_small$f" start_routerd "$work/small$f" $f
		table=$work/full$f scenario "routerd_full$f" start_routerd "$work/full$f" $f
		for n in $SIZES; do
			table=$work/n$n-$f scenario "routerd_n$n-$f" start_routerd "$work/n$n-$f" $f
		done
	done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A med
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
[ -s bench/out/fwd.csv ] || echo "time,scenario,family,routes,mpps" >bench/out/fwd.csv
for k in "${!res[@]}"; do
	med[$k]=$(echo "${res[$k]}" | median)
	fam=${k: -1}
	case $k in
	*small*) n=2 ;;
	*full*) n=$(wc -l <"$work/full$fam") ;;
	routerd_n*) n=${k#routerd_n}; n=${n%-*} ;;
	*) n=2 ;;
	esac
	echo "$stamp,$k,$fam,$n,${med[$k]}" >>bench/out/fwd.csv
done
for k in $(echo "${!med[@]}" | tr ' ' '\n' | sort); do
	printf '%-22s %8s Mpps  (%s)\n' "$k" "${med[$k]}" "${res[$k]% }"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", a / b }'; }
echo "fwd4_vs_l3fwd_lpm $(ratio "${med[routerd_small4]}" "${med[l3fwd_lpm4]}")"
echo "fwd4_vs_l3fwd_fib $(ratio "${med[routerd_small4]}" "${med[l3fwd_fib4]}")"
echo "fwd6_vs_l3fwd_lpm $(ratio "${med[routerd_small6]}" "${med[l3fwd_lpm6]}")"
echo "fwd6_vs_l3fwd_fib $(ratio "${med[routerd_small6]}" "${med[l3fwd_fib6]}")"
echo "fwd4_full_vs_small $(ratio "${med[routerd_full4]}" "${med[routerd_small4]}")"
echo "fwd6_full_vs_small $(ratio "${med[routerd_full6]}" "${med[routerd_small6]}")"
echo "fwd4_full_mpps ${med[routerd_full4]}"
echo "fwd6_full_mpps ${med[routerd_full6]}"
