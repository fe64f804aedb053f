#!/usr/bin/env bash
# RFC 2544 throughput (the zero-loss rate, NDR) and latency over memif:
#   tester port 0 --memif--> port0 [device under test] port1 --memif--> tester port 1
# The tester is bench/pkt_gen in its trial mode (two memif clients, CPU 0),
# or pktgen-dpdk (bench/pktgen.sh, which sources this file's search). The
# device under test is dpdk-testpmd io (the I/O limit of the setup) or
# routerd with l3fwd's two routes (small) or the vendored table (full),
# on CPU 1, every route via a neighbour on port1; or bench/slow_fwd
# (slow), a forwarder slower than either tester, on which the two
# testers' searches are held against each other.
#
#   bench/ndr.sh [BUILD_DIR]
# Settings (environment):
#   DUTS="testpmd small full"  FAMILIES="4 6"  REPS=1  (or slow; SLOW_CYCLES=1500)
#   SIZES="64 128 256 512 1024 1280 1518 imix"  (bytes with the FCS)
#   TRIAL_S=10     seconds a trial of the search and of latency
#   FINAL_S=0      when longer than TRIAL_S, the final phase's trials
#                  (60 for a published run): the result is confirmed,
#                  or lowered, with trials this long (see below)
#   LOSS_TOL=0     share of the offered frames a trial may lose and pass
#   RES=0.01       the search stops when its interval is narrower than
#                  this share of the rate the device carried unpaced
#   LAT_LOADS="10 50 90"  latency trials, in % of the zero-loss rate
#   LAT_TRIALS=3   trials at each of those loads: a row gives their median
#                  p50 and p99 (a single trial's p99 is the host's luck)
#   LAT_PPS=       latency trials at these packet rates too (above 100;
#                  the same for every device): "1500000"
#   LAT_INTERLEAVE=1  the latency trials after every device's search, the
#                  devices taking turns (A B B A ...), each turn on a fresh
#                  start, so that all see the host's same periods; 0: each
#                  device's right after its search
#   MEMIF_RSIZE=14 log2 of the memif rings' size, both sides (see below)
#   DUT_BACKLOG=16384  routerd's tx-backlog: frames held behind a TX queue
#                  that refuses them, the memif ring's size (0: none)
#   TESTPMD_BURST=64  testpmd's burst: routerd's RX burst, so that testpmd
#                  io is not slowed by smaller bursts than routerd's
#   SMOKE=1        make test's run: one short search, checks it completed
#   WARMUP_S=1     an unpaced trial, not counted, before each size's
#                  trials (0: none; bench/ndr_lib.sh's warm_up)
#   SEQ="R..."     no search: a trial at each rate R in turn (0: unpaced),
#                  with each one's latency and routerd's TX backlog after it
#   TESTER_RETRIES=1  the tester offers again what the memif ring refuses
#                  (pkt_gen --retry), as pktgen-dpdk does, rather than
#                  counting it lost: rows of gen "own-retry", to hold the
#                  own generator's search against pktgen's on one device
#
# A search: one unpaced trial gives the rate the device carries when the
# tester pushes as hard as the memif ring lets it (MAX). The ring holds
# the tester back while the device is behind, so that trial is no
# zero-loss trial: MAX is then offered at a constant rate. If that
# passes, it is the result (a lower bound that is the tester's,
# tester_bound 1, when the unpaced trial lost nothing either); if not, a
# binary search over offered rates in [0, MAX] for the highest at which
# a trial loses at most LOSS_TOL, down to RES x MAX. The zero-loss rate
# is the offered rate of the best passing trial. With FINAL_S, a final phase
# offers that rate for FINAL_S; while such a trial loses, it steps down
# (RES x MAX, doubling each time, half the rate at most; none below
# RES x MAX) until one passes, then bisects up to
# the last that failed, so the result rests on FINAL_S trials alone
# (FD.io CSIT's MLRsearch works the same way: short trials to narrow,
# full-length ones to decide). Then LAT_TRIALS trials at each of
# LAT_LOADS of the zero-loss rate for latency, once every device's
# search of the repetition and family is done, in turns (LAT_INTERLEAVE). Rows go to bench/out/ndr.csv and
# bench/out/ndr_lat.csv; the summary lines ("name value") compare routerd
# with testpmd io, as the median over REPS of each repetition's ratio.
#
# Frames refused by a full memif ring count as lost: on a wire they
# would have been dropped at the receiver's full RX ring. This machine's
# cores stop for up to 7 ms a few times a minute whatever runs on them
# (the hypervisor's steal time; docs/load-testing.md, "This machine"):
# with memif's default 1024-frame rings every 10-second trial then loses
# frames at any rate above 0.3 Mpps, testpmd's as routerd's. The rings
# are 16384 frames by default here (the memif maximum), which absorbs a
# stall at the rates measured; 82599 rings hold at most 4096.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
if [ -n "${SMOKE:-}" ]; then
	DUTS=small FAMILIES=4 SIZES=64 TRIAL_S=0.5 FINAL_S=1 RES=0.1 LAT_LOADS=50 LAT_TRIALS=2 LAT_PPS=1000000 REPS=1
fi
work=$build/ndr
mkdir -p "$work" bench/out
# shellcheck source=ring_lib.sh
. bench/ring_lib.sh
if [ -n "${SMOKE:-}" ]; then
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	[ "${free:-0}" -ge 600 ] || { echo "skipped: ${free:-0} free hugepages"; exit 77; }
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
ring_tables
# shellcheck source=ndr_lib.sh
. bench/ndr_lib.sh

# The own generator as the tester, in a coprocess: gen_start TABLE.
gen_pid=
gen_start() {
	coproc GEN { "$build/bench/pkt_gen" -l 0 --no-pci --file-prefix=ndrg --log-level=lib.eal:error \
		--no-telemetry "--vdev=net_memif0,role=client,socket=$work/m0.sock,socket-abstract=no,rsize=${MEMIF_RSIZE:-14}" \
		"--vdev=net_memif1,role=client,socket=$work/m1.sock,socket-abstract=no,rsize=${MEMIF_RSIZE:-14}" -- --commands \
		--table "$1" --dmac 02:00:00:00:00:01 ${TESTER_RETRIES:+--retry} 2>"$work/gen.err"; }
	gen_pid=$GEN_PID
	local line
	read -r -t 30 line <&"${GEN[0]}" || true
	[ "$line" = ready ] || { cat "$work/gen.err" >&2; exit 1; }
}
gen_stop() {
	[ -n "$gen_pid" ] || return 0
	# (the coprocess's descriptors are gone if it has exited)
	[ -z "${GEN[1]:-}" ] || echo quit >&"${GEN[1]}" || true
	reap "$gen_pid"
	gen_pid=
	rm -f /dev/hugepages/ndrgmap_*
}
# tester_size N|imix; tester_trial RATE SECONDS prints the result line.
tester_size() {
	local line
	echo "size $1" >&"${GEN[1]}"
	read -r -t 30 line <&"${GEN[0]}"
	[ "$line" = ok ] || { echo "pkt_gen: $line" >&2; exit 1; }
}
tester_trial() {
	local line
	echo "trial $1 $2" >&"${GEN[1]}"
	read -r -t "$(awk -v s="$2" 'BEGIN { print int(s) + 30 }')" line <&"${GEN[0]}"
	echo "$line"
}

trap 'gen_stop; dut_stop; [ -z "${SMOKE:-}" ] || rm -rf "$work"' EXIT
tester_open() { gen_start "$1"; }
tester_close() { gen_stop; }
if [ -n "${SEQ:-}" ]; then
	ndr_seq
	exit
fi
gen=own${TESTER_RETRIES:+-retry}
ndr_run "$gen"
if [ -n "${SMOKE:-}" ]; then
	# the search ran: its trials accounted for every frame, and it found a
	# rate; and neither the tester nor a device died by a signal
	ndr_smoke_check "$gen"
	gen_stop
	dut_stop
	signal_check
	exit
fi
ndr_summary "$gen"
