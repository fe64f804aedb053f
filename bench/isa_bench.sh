#!/usr/bin/env bash
# One binary for any x86-64 against one built for this processor: the
# baseline build (x86-64-v3, the default: its AVX-512 lookups and stages
# chosen at run time, lib/fib/isa.h) against a -march=native build, in
# turns, REPS pairs (default 11), each figure the other's in the same
# pair. Keys, rates (native's cycles over the baseline's; goal >= 0.95):
#   lookup4_b64_generic_vs_native  fib_bench, the real IPv4 table, bursts of 64
#   lookup6_b64_generic_vs_native  the same for IPv6
#   pipeline4_generic_vs_native    pipeline_bench: the worker's IPv4 stage, full table
# Each the median of the pairs' ratios, with their range, and each
# build's median cycles. Both builds are made here (no tests) if missing.
#
#   bench/isa_bench.sh [GENERIC_BUILD NATIVE_BUILD]   (build-v3, build-native)
set -euo pipefail
cd "$(dirname "$0")/.."
gen=${1:-build-v3}
nat=${2:-build-native}
for b in "$gen:x86-64-v3" "$nat:native"; do
	dir=${b%%:*}
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" -Dmarch="${b#*:}" -Dtests=false >/dev/null
	fi
	ninja -C "$dir" bench/fib_bench bench/pipeline_bench >/dev/null
done
mem=$(cat build/eal-mem.opts 2>/dev/null || echo "--no-huge -m 4096")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# key BUILD PROGRAM ARGS...: PROGRAM's summary "key value" lines.
fib() {
	# shellcheck disable=SC2086
	"$1/bench/fib_bench" -l 1 $mem --no-pci --no-telemetry --file-prefix=isab \
		--log-level=lib.eal:error -- --only "$2" --ours-only --runs 7 --burst 64 --burst2 0
}
pipe() {
	"$1/bench/pipeline_bench" -l 1 --no-huge -m 1024 --no-pci --no-telemetry \
		--file-prefix=isap --vdev=net_null0 --vdev=net_null1 --log-level=lib.eal:error
}
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
for r in $(seq "${REPS:-11}"); do
	# turns alternate which build goes first
	order=("$gen" "$nat")
	[ $((r % 2)) = 0 ] && order=("$nat" "$gen")
	for b in "${order[@]}"; do
		tag=$([ "$b" = "$gen" ] && echo gen || echo nat)
		fib "$b" 4 >"$work/$tag.4"
		fib "$b" 6 >"$work/$tag.6"
		pipe "$b" >"$work/$tag.p"
	done
	echo "$r $(value lookup4_cycles "$work/gen.4") $(value lookup4_cycles "$work/nat.4")" \
		"$(value lookup6_cycles "$work/gen.6") $(value lookup6_cycles "$work/nat.6")" \
		"$(value pipeline4_cycles "$work/gen.p") $(value pipeline4_cycles "$work/nat.p")" |
		tee -a "$work/pairs"
done
python3 - "$work/pairs" <<'PY'
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1])]
for i, key in enumerate(["lookup4_b64", "lookup6_b64", "pipeline4"]):
    g = [r[2 * i] for r in rows]
    n = [r[2 * i + 1] for r in rows]
    ratios = [b / a for a, b in zip(g, n)]
    print("%s_generic_vs_native %.3f (%.3f-%.3f; cycles: generic %.2f, native %.2f)" % (
        key, statistics.median(ratios), min(ratios), max(ratios),
        statistics.median(g), statistics.median(n)))
PY
