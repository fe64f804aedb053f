#!/usr/bin/env bash
# Instructions a packet in the worker's per-packet code (dp_burst), per
# pipeline_bench variant, counted by callgrind: repeatable where TSC
# cycles on this shared machine are not. Needs valgrind (apt-get install
# valgrind) at build time too, for <valgrind/callgrind.h>.
#   bench/callgrind_pipeline.sh [BUILD_DIR] [PACKETS]
# valgrind 3.19 cannot decode AVX-512, so BUILD_DIR (default build-cg) is
# set up with -Dmarch=x86-64-v3: the FIB lookups take their portable
# prefetch path there, not the gathers routerd uses on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-cg}
packets=${2:-32768}
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
[ -f /usr/include/valgrind/callgrind.h ] || { echo "no valgrind/callgrind.h" >&2; exit 1; }
[ -d "$build" ] || meson setup "$build" -Dmarch=x86-64-v3 -Dtests=false >/dev/null
ninja -C "$build" bench/pipeline_bench >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Collection only inside dp_burst; each variant ends with a labelled dump.
valgrind --tool=callgrind --collect-atstart=no --toggle-collect=dp_burst \
	--callgrind-out-file="$out/cg" "$build/bench/pipeline_bench" -l 0 --no-huge -m 512 \
	--no-pci --no-telemetry --file-prefix=cg --vdev=net_null0 --vdev=net_null1 \
	--log-level=lib.eal:error -- --runs 1 --packets "$packets" >"$out/log" 2>&1 ||
	{ cat "$out/log" >&2; exit 1; }
for f in "$out"/cg.*; do
	awk '/^desc: Trigger: Client Request:/ { name = $5; split($6, p, "="); pk = p[2] }
	     /^totals:/ { printf "%-24s %8.1f instructions/packet\n", name, $2 / pk }' "$f"
done | sort
