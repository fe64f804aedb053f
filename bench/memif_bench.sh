#!/usr/bin/env bash
# End to end over shared memory (issue 6, part 2, "end to end"):
#   bench/pkt_gen (CPU 0) --net_memif--> port0 [forwarder] port1 net_null,no-rx=1
# The forwarder is routerd (worker on CPU 1, control core on CPU 0 and
# idle) or, as the I/O bound, dpdk-testpmd in io mode (forwarding core
# on CPU 1). pkt_gen sends 64-byte UDP frames to random addresses in
# random prefixes of the table; memif pushes back when the receiver
# falls behind (its TX takes fewer packets), so the generator's sent rate
# is the receiver's rate; routerd's own forwarded counter is printed
# beside it as a check.
#
#   bench/memif_bench.sh [BUILD_DIR]          (REPS=3 SECONDS_RUN=8)
#   SCENARIOS="testpmd small" FAMILIES=4 bench/memif_bench.sh [BUILD_DIR]
#     a subset (of testpmd l3fwd small full; families 4 6), e.g. to
#     compare two builds' routerd in turn
#   PROFILE=1 bench/memif_bench.sh [BUILD_DIR]
#     also samples the forwarder's core (perf, cpu-clock) for 3 seconds of
#     each scenario's first run and prints where its time went, by
#     library and by function: the forwarder against the memif and null
#     drivers. The sampling slows that run a little.
#
# Scenarios: testpmd io; l3fwd (LPM) for scale; routerd with l3fwd's two
# routes; routerd with the full table; IPv4 and IPv6. Each is the median of the one-second
# rates after the first two seconds; the set is repeated REPS times,
# interleaved; each figure is the median over repetitions, each ratio
# the median of the repetitions' ratios.
# Needs hugepages: memif without them carries 3-4 Mpps here.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
REPS=${REPS:-3}
SECONDS_RUN=${SECONDS_RUN:-8}
SCENARIOS=${SCENARIOS:-testpmd l3fwd small full}
FAMILIES=${FAMILIES:-4 6}
work=$build/memif-bench
[ -z "${PROFILE:-}" ] || command -v perf >/dev/null ||
	{ echo "PROFILE=1 needs perf (apt-get install linux-perf)" >&2; exit 1; }
mkdir -p "$work"
# shellcheck source=ring_lib.sh
. bench/ring_lib.sh
ring_check_hugepages
ring_tables
l3fwd=$(bench/build_l3fwd.sh "$build/l3fwd")
printf '198.18.1.0/24 1\n' >"$work/port1_4"
printf '2001:200:0:1::/64 1\n' >"$work/port1_6"
sock=$work/memif.sock
mac=02:00:00:00:00:01
rx_eal=(-l 0,1 --no-pci --file-prefix=memb --log-level=lib.eal:error --no-telemetry
	--force-max-simd-bitwidth=512 "--vdev=net_memif0,role=server,socket=$sock,socket-abstract=no,mac=$mac"
	--vdev=net_null0,no-rx=1)
rx_pid=
stop_rx() {
	stop_pid "$rx_pid"
	rx_pid=
	rm -f /dev/hugepages/membmap_* /dev/hugepages/memgmap_* "$sock"
}
trap stop_rx EXIT

start_testpmd() {
	dpdk-testpmd "${rx_eal[@]}" -- --forward-mode=io --nb-cores=1 --auto-start \
		--stats-period=1 --record-burst-stats --record-core-cycles </dev/null >"$work/rx.log" 2>&1 &
	rx_pid=$!
	log=$work/rx.log wait_up "$rx_pid" test -S "$sock"
}

# l3fwd (LPM, its built-in routes) on lcore 1 alone: l3fwd opens a TX
# queue per lcore, and two TX queues on the memif server against the
# generator's one halved its rate. The generator's table is then l3fwd's
# route to port 1, the sink, alone.
start_l3fwd() {
	"$l3fwd" -l 1 "${rx_eal[@]:2}" -- -p 0x3 --config="(0,0,1),(1,0,1)" --parse-ptype \
		--lookup=lpm >"$work/rx.log" 2>&1 &
	rx_pid=$!
	log=$work/rx.log wait_up "$rx_pid" grep -q "entering main loop" "$work/rx.log"
}

# start_routerd TABLE: routes via a gateway on port1 (the sink).
start_routerd() {
	memif_start_routerd "$work/rx.log" "$1" "${rx_eal[@]}"
	rx_pid=$memif_pid
}

# forwarded: routerd's forwarded count, then its worker's rx, busy rounds
# and busy cycles (rx / busy rounds is the mean burst: near the RX burst
# of 64 the worker is saturated, well below it the worker waits for the
# generator; busy cycles / rx is the cost of a packet, drivers included).
forwarded() {
	"$build/app/routerctl" -S "$work/sock" stats | awk '
		$1 == "total" && $2 == "forwarded" { f = $3 }
		$2 == "worker0.rx" { rx = $3 }
		$2 == "worker0.busy_rounds" { b = $3 }
		$2 == "worker0.busy_cycles" { c = $3 }
		END { printf "%.0f %.0f %.0f %.0f\n", f, rx, b, c }'
}

# profile_report NAME: the forwarder core's samples by library, then the
# forwarder's own functions above 0.5%.
profile_report() {
	echo "profile $1 (share of the forwarder core's samples):"
	perf report -i "$work/perf.data" --no-children --sort dso --stdio 2>/dev/null |
		awk '/^ +[0-9]/ && $1 + 0 >= 0.5 { printf "  %-8s %s\n", $1, $2 }'
	perf report -i "$work/perf.data" --no-children --sort sym --stdio 2>/dev/null |
		awk '/^ +[0-9]/ && $1 + 0 >= 0.5 && $3 !~ /^0x/ { printf "  %-8s   %s\n", $1, $3 }'
}

# gen TABLE NAME: run the generator; prints the median Mpps it sent, and
# writes the receiver's TSC cycles a busy packet to $work/cpp (routerd's
# busy_cycles, testpmd's --record-core-cycles; "-" for l3fwd). The
# receiver is stopped before the generator: DPDK 22.11's memif driver
# can fault in the receiver's RX when the peer disconnects under load
# (reproduced with testpmd's peer as with routerd; see docs/performance.md),
# so the generator, which only sends, is the one left to see the
# disconnect.
gen() {
	local f0=(0 0 0 0) f1=(0 0 0 0) is_routerd=0 g
	grep -q "^routerd" "$work/rx.log" 2>/dev/null && is_routerd=1
	[ $is_routerd = 1 ] && read -ra f0 <<<"$(forwarded)"
	"$build/bench/pkt_gen" -l 0 --no-pci --file-prefix=memg --log-level=lib.eal:error \
		--no-telemetry "--vdev=net_memif0,role=client,socket=$sock,socket-abstract=no" -- --table "$1" \
		--dmac "$mac" --seconds $((SECONDS_RUN + 30)) >"$work/gen.log" 2>&1 &
	g=$!
	if [ -n "${PROFILE:-}" ] && [ "$rep" = 1 ]; then
		sleep 3
		perf record -q -e cpu-clock -F 20000 -C 1 -o "$work/perf.data" -- sleep 3 2>/dev/null
		sleep $((SECONDS_RUN > 6 ? SECONDS_RUN - 6 : 0))
		profile_report "$2" >&2
	else
		sleep "$SECONDS_RUN"
	fi
	[ $is_routerd = 1 ] && read -ra f1 <<<"$(forwarded)"
	stop_rx
	kill -INT "$g" 2>/dev/null || true
	wait "$g" 2>/dev/null || true
	echo - >"$work/cpp"
	if [ $is_routerd = 1 ]; then
		awk -v p=$((f1[1] - f0[1])) -v c=$((f1[3] - f0[3])) 'BEGIN { printf "%.1f\n", c / p }' >"$work/cpp"
		echo "  routerd forwarded $(((f1[0] - f0[0]) / 1000000))M packets in ${SECONDS_RUN} s," \
			"mean burst $(awk -v p=$((f1[1] - f0[1])) -v b=$((f1[2] - f0[2])) 'BEGIN { printf "%.1f", p / b }')," \
			"$(cat "$work/cpp") cycles a packet" >&2
	elif grep -q "^testpmd" "$work/rx.log"; then
		sed -n 's/.*CPU cycles\/packet=\([0-9.]*\).*/\1/p' "$work/rx.log" | tail -1 >"$work/cpp"
		echo "  testpmd io $(cat "$work/cpp") cycles a packet," \
			"$(grep -m1 "RX-bursts" "$work/rx.log" | sed 's/^ *//')" >&2
	fi
	# seconds 3.. of the run (the receiver was stopped after SECONDS_RUN)
	awk -v s="$SECONDS_RUN" '$1 == "sent_mpps" { n++; if (n > 2 && n < s) print $2 }' "$work/gen.log" | median
}

declare -A res cpp
# run NAME TABLE: one scenario (its receiver started), into res and cpp.
run() {
	res[$1]+="$(gen "$2" "$1") "
	cpp[$1]+="$(cat "$work/cpp") "
}
has() { [[ " $SCENARIOS " == *" $1 "* ]]; }
for rep in $(seq "$REPS"); do
	echo "repetition $rep of $REPS" >&2
	for f in $FAMILIES; do
		if has testpmd; then
			start_testpmd
			run testpmd_io$f "$work/full$f"
		fi
		if has l3fwd; then
			start_l3fwd
			run l3fwd_lpm$f "$work/port1_$f"
		fi
		if has small; then
			start_routerd "$work/small$f"
			run routerd_small$f "$work/small$f"
		fi
		if has full; then
			start_routerd "$work/full$f"
			run routerd_full$f "$work/full$f"
		fi
	done
done
declare -A med
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
[ -s bench/out/memif.csv ] || echo "time,scenario,family,mpps" >bench/out/memif.csv
for k in $(echo "${!res[@]}" | tr ' ' '\n' | sort); do
	med[$k]=$(echo "${res[$k]}" | tr ' ' '\n' | grep . | median)
	echo "$stamp,$k,${k: -1},${med[$k]}" >>bench/out/memif.csv
	printf '%-16s %8s Mpps  (%s)\n' "$k" "${med[$k]}" "${res[$k]% }"
done
# ratios of the scenarios run (a subset leaves the others "-")
ratio() { if [ -n "${res[$1]:-}" ] && [ -n "${res[$2]:-}" ]; then paired_ratio "${res[$1]}" "${res[$2]}"; else echo -; fi; }
echo "e2e4_vs_testpmd_io $(ratio routerd_small4 testpmd_io4)"
echo "e2e4_full_vs_testpmd_io $(ratio routerd_full4 testpmd_io4)"
echo "e2e6_vs_testpmd_io $(ratio routerd_small6 testpmd_io6)"
echo "e2e6_full_vs_testpmd_io $(ratio routerd_full6 testpmd_io6)"
echo "l3fwd_e2e4_vs_testpmd_io $(ratio l3fwd_lpm4 testpmd_io4)"
echo "l3fwd_e2e6_vs_testpmd_io $(ratio l3fwd_lpm6 testpmd_io6)"
# The same comparison in the receivers' busy cycles a packet (testpmd's
# over routerd's, so that higher is better as above): independent of how
# fast the generator happens to run on the other core.
for k in testpmd_io4 routerd_small4 routerd_full4 testpmd_io6 routerd_small6 routerd_full6; do
	[ -n "${cpp[$k]:-}" ] || continue
	printf '%-16s %8s cycles/packet  (%s)\n' "$k" "$(echo "${cpp[$k]}" | tr ' ' '\n' | grep . | median)" "${cpp[$k]% }"
done
cratio() { if [ -n "${cpp[$1]:-}" ] && [ -n "${cpp[$2]:-}" ]; then paired_ratio "${cpp[$2]}" "${cpp[$1]}"; else echo -; fi; }
echo "e2e4_cycles_vs_testpmd_io $(cratio routerd_small4 testpmd_io4)"
echo "e2e4_full_cycles_vs_testpmd_io $(cratio routerd_full4 testpmd_io4)"
echo "e2e6_cycles_vs_testpmd_io $(cratio routerd_small6 testpmd_io6)"
echo "e2e6_full_cycles_vs_testpmd_io $(cratio routerd_full6 testpmd_io6)"
