#!/usr/bin/env bash
# `make test`'s check that the ring-loop benchmark still runs, on a tiny
# workload: routerd-loop with l3fwd's two routes, 16 packets a port,
# one short interval; the packets must all stay in the loop and move.
# Skipped (77) without free hugepages: the driver is a DPDK secondary.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:?usage: smoke_ring.sh BUILD_DIR}")
work=$(mktemp -d)
# shellcheck source=ring_lib.sh
. bench/ring_lib.sh
prefix=ringsmoke
eal=(--no-pci --file-prefix=$prefix --log-level=lib.eal:error --no-telemetry
	--vdev=net_ring0 --vdev=net_ring1 -m 512)
trap 'ring_stop; rm -rf "$work"' EXIT
free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [ "${free:-0}" -lt 300 ]; then
	echo "skipped: ${free:-0} free hugepages"
	exit 77
fi
printf '198.18.0.0/24 0\n198.18.1.0/24 1\n' >"$work/small4"
ring_start_routerd "$work/small4" 4
out=$(ring_loop_run --fill "$work/small4" --count 16 --runs 1 --interval 0.2)
echo "$out"
echo "$out" | grep -q '^lost 0$'
echo "$out" | awk '$1 == "mpps_median" && $2 > 0 { ok = 1 } END { exit !ok }'
ring_stop
signal_check
