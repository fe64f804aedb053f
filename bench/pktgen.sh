#!/usr/bin/env bash
# The RFC 2544 search of bench/ndr.sh with pktgen-dpdk as the tester:
#   pktgen port 0 --memif--> port0 [routerd | testpmd io] port1 --memif--> pktgen port 1
# pktgen replays bench/pkt_gen's frames (written as a pcap for each size:
# UDP to random addresses in random prefixes of the table, 4096 flows by
# source address and port, a fixed size or IMIX) at the rate the search asks, through
# bench/pktgen/router.lua, loaded and called over pktgen's Lua socket
# (TCP 22022 on localhost).
#
#   PKTGEN=/path/to/pktgen bench/pktgen.sh [BUILD_DIR]
# pktgen from $PKTGEN, else from PATH; without it, says how to build it
# and exits 0 ("skipped"). Settings as bench/ndr.sh's (DUTS, FAMILIES,
# SIZES, TRIAL_S, FINAL_S, LOSS_TOL, RES, REPS, MEMIF_RSIZE, DUT_BACKLOG); pktgen measures no
# latency here (bench/ndr.sh's own generator does). pktgen's two lcores
# share CPU 0, its console and timer threads in the idle class (PKTGEN_AUX,
# below); the device under test has CPU 1.
# With two 82599 ports cabled to two of routerd's, see docs/load-testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
PKTGEN=${PKTGEN:-$(command -v pktgen || true)}
if [ -z "$PKTGEN" ] || [ ! -x "$PKTGEN" ]; then
	echo "pktgen-dpdk not found: build release 23.03.0 as docs/load-testing.md says," \
		"then PKTGEN=/path/to/build/app/pktgen $0"
	echo skipped
	exit 0
fi
LAT_LOADS= # pktgen measures no latency here
TESTER_RETRIES=1 # a frame the memif ring refuses is sent again, not lost
SMOKE=
work=$build/pktgen
mkdir -p "$work" bench/out
# shellcheck source=ring_lib.sh
. bench/ring_lib.sh
# pktgen's own pools take about 1,000 hugepages beside the device's
free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [ "${free:-0}" -lt 1600 ]; then
	echo "pktgen.sh needs about 1,600 free 2 MiB hugepages, ${free:-0} free:" \
		"echo 2048 >/proc/sys/vm/nr_hugepages" >&2
	exit 1
fi
ring_tables
# shellcheck source=ndr_lib.sh
. bench/ndr_lib.sh

pg_pid=
pg_stop() {
	exec 5>&- 7>&-
	stop_pid "$pg_pid"
	pg_pid=
	rm -f /dev/hugepages/ndrgmap_*
}
# pktgen 23.03 runs two busy loops beside its worker lcore, both on its
# main lcore's CPU: the console (polling its input) and the display and
# statistics timer. With one CPU for the whole tester, as here, they took
# two thirds of it (perf: 66% of CPU 0 in threads named pktgen). They
# are given the idle scheduling class (PKTGEN_AUX=idle), or nice 19
# (nice), or left as they are (off), so that the worker lcore has the CPU.
pg_aux_sched() {
	local t
	for t in /proc/"$pg_pid"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = pktgen ] || continue
		case ${PKTGEN_AUX:-idle} in
		idle) chrt --idle -p 0 "${t##*/}" >/dev/null ;;
		nice) renice -n 19 -p "${t##*/}" >/dev/null ;;
		esac
	done
}
# pg_start PCAP: pktgen on the device's memif ports, its socket open on fd 5.
# Its console reads a FIFO this script holds open (fd 7): pktgen quits at
# the end of its input, and a process feeding it would outlive it.
pg_start() {
	rm -f "$work/console"
	mkfifo "$work/console"
	exec 7<>"$work/console"
	"$PKTGEN" --lcores=0@0,1@0 --no-pci --file-prefix=ndrg --log-level=lib.eal:error \
		--no-telemetry "--vdev=net_memif0,role=client,socket=$work/m0.sock,socket-abstract=no,rsize=${MEMIF_RSIZE:-14}" \
		"--vdev=net_memif1,role=client,socket=$work/m1.sock,socket-abstract=no,rsize=${MEMIF_RSIZE:-14}" \
		-- -P -G -m "1.[0-1]" -s "0:$1" <"$work/console" >"$work/pktgen.log" 2>&1 &
	pg_pid=$!
	log=$work/pktgen.log wait_up "$pg_pid" bash -c 'exec 6<>/dev/tcp/127.0.0.1/22022' 2>/dev/null
	pg_aux_sched
	exec 5<>/dev/tcp/127.0.0.1/22022
	# the socket's Lua state is its own: the script is loaded there
	echo 'dofile("bench/pktgen/router.lua")' >&5
}
frame_bytes=64
tester_size() {
	pg_stop
	"$build/bench/pkt_gen" -l 0 --no-pci --no-huge -m 256 --file-prefix=ndrp --log-level=lib.eal:error \
		--no-telemetry -- --pcap "$work/frames.pcap" --table "$table" --dmac 02:00:00:00:00:01 --size "$1"
	# the mean frame with its FCS, for pktgen's pacing
	frame_bytes=$(if [ "$1" = imix ]; then echo 361.8; else echo "$1"; fi)
	pg_start "$work/frames.pcap"
}
tester_trial() {
	rm -f "$work/result"
	echo "rt_trial($1, $2, $frame_bytes, \"$work/result\")" >&5
	for _ in $(seq $((($(printf '%.0f' "$2") + 30) * 10))); do
		[ -s "$work/result" ] && { cat "$work/result"; return; }
		sleep 0.1
	done
	echo "no answer from pktgen (see $work/pktgen.log)"
}

trap 'pg_stop; dut_stop' EXIT
tester_open() { table=$1; }
tester_close() { pg_stop; }
ndr_run pktgen
ndr_summary pktgen
