#!/usr/bin/env bash
# A cpu-clock profile of routerd-loop's worker in the ring loop
# (bench/fwd_bench.sh's setup): this VM has no hardware counters, but
# perf's cpu-clock sampling works.
#   bench/profile_loop.sh [BUILD_DIR] [small4|full4|small6|full6] [SECONDS]
# Prints the worker CPU's samples by symbol; perf.data is kept in
# BUILD_DIR/profile-loop/ for `perf annotate -s dp4_burst`.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
table=${2:-small4}
secs=${3:-3}
work=$build/profile-loop
mkdir -p "$work"
command -v perf >/dev/null || { echo "perf is not installed (linux-perf)" >&2; exit 1; }
# shellcheck source=ring_lib.sh
. bench/ring_lib.sh
trap ring_stop EXIT
ring_check_hugepages
ring_tables
ring_start_routerd "$work/$table" "${table: -1}"
ring_loop_run --fill "$work/$table" --count 256 --runs 1 >/dev/null
# The worker is lcore 1 (routerd-loop -l 0,1).
perf record -q -e cpu-clock -F 20000 -C 1 -o "$work/perf.data" -- sleep "$secs" 2>/dev/null
perf report -i "$work/perf.data" --no-children --sort sym --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -15
