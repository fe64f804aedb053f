#!/usr/bin/env bash
# Runs the FIB benchmark on the full vendored tables and keeps its output.
#   bench/run.sh [BUILD_DIR] [extra fib_bench options...]
# The figures in docs/performance.md come from this script.
set -euo pipefail
build=${1:-build}
shift || true
cd "$(dirname "$0")/.."
[ -x "$build/bench/fib_bench" ] || { echo "build first: make build" >&2; exit 1; }
mem=$(cat "$build/eal-mem.opts" 2>/dev/null || echo "--no-huge -m 4096")
mkdir -p bench/out
out=bench/out/fib-$(date -u +%Y%m%dT%H%M%SZ).txt
# Core 1 for the measurement; AVX-512 allowed so rte_fib and rte_fib6 run
# their fastest lookups. Telemetry off: its thread would share the core.
# shellcheck disable=SC2086
"$build/bench/fib_bench" -l 1 $mem --no-pci --no-telemetry --file-prefix=fib_bench \
	--log-level=lib.eal:error --force-max-simd-bitwidth=512 -- "$@" | tee "$out"
echo "output kept in $out"
