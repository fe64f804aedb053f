#!/usr/bin/env bash
# The whole forwarding benchmark (issue 6), about 15 minutes:
#   1. pipeline cost: bench/pipeline_bench, cycles a packet (median of 7);
#   2. ring loop beside l3fwd: bench/fwd_bench.sh (also Mpps by table size);
#      end to end over memif beside testpmd io: bench/memif_bench.sh;
#   3. the Linux kernel: bench/kernel_bench.sh;
#   4. churn under load: bench/churn_bench.sh;
#   5. a neighbour flood: bench/flood_bench.sh;
#   6. the RFC 2544 zero-loss rate and latency over memif, routerd with the
#      full table beside testpmd io, 64 bytes and IMIX: bench/ndr.sh.
# Then the summary, one "name value" a line, kept with every part's output
# in bench/out/forwarding-TIME/, CSV rows in bench/out/*.csv, and the
# plots (gnuplot) in that directory.
#
#   bench/forwarding.sh [BUILD_DIR]       (make bench-fwd)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
out=bench/out/forwarding-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
[ -x "$build/app/routerd-loop" ] || { echo "build first: make build" >&2; exit 1; }

part() { echo "== $1" >&2; }

part "pipeline cost"
"$build/bench/pipeline_bench" -l 1 --no-pci --no-telemetry --file-prefix=pb \
	--vdev=net_null0 --vdev=net_null1 --log-level=lib.eal:error -- --runs 7 | tee "$out/pipeline.txt"
part "ring loop beside l3fwd"
bench/fwd_bench.sh "$build" | tee "$out/fwd.txt"
part "memif end to end beside testpmd io"
bench/memif_bench.sh "$build" | tee "$out/memif.txt"
part "the Linux kernel"
bench/kernel_bench.sh "$build" | tee "$out/kernel.txt"
part "churn under load"
bench/churn_bench.sh "$build" | tee "$out/churn.txt"
part "neighbour flood"
bench/flood_bench.sh "$build" | tee "$out/flood.txt"
part "RFC 2544 zero-loss rate"
DUTS=${DUTS:-testpmd full} SIZES=${SIZES:-64 imix} bench/ndr.sh "$build" | tee "$out/ndr.txt"

val() { awk -v k="$2" '$1 == k { print $2 }' "$out/$1.txt" | tail -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
{
	echo "pipeline4_cycles $(val pipeline pipeline4_cycles)"
	echo "pipeline6_cycles $(val pipeline pipeline6_cycles)"
	for k in fwd4_vs_l3fwd_lpm fwd4_vs_l3fwd_fib fwd6_vs_l3fwd_lpm fwd6_vs_l3fwd_fib \
		fwd4_full_vs_small fwd6_full_vs_small; do
		echo "$k $(val fwd $k)"
	done
	echo "e2e4_vs_testpmd_io $(val memif e2e4_vs_testpmd_io)"
	echo "e2e6_vs_testpmd_io $(val memif e2e6_vs_testpmd_io)"
	# the same in the receivers' busy cycles a packet (generator-independent)
	echo "e2e4_cycles_vs_testpmd_io $(val memif e2e4_cycles_vs_testpmd_io)"
	echo "e2e6_cycles_vs_testpmd_io $(val memif e2e6_cycles_vs_testpmd_io)"
	echo "fwd4_vs_kernel $(ratio "$(val fwd fwd4_full_mpps)" "$(val kernel kernel_fwd4_mpps_per_busy_core)")"
	echo "load4_vs_kernel $(val kernel load4_vs_kernel)"
	echo "churn_lost $(val churn churn_lost)"
	echo "churn_throughput_ratio $(val churn churn_throughput_ratio)"
	for k in neigh_flood_cycles_per_pkt_1k neigh_flood_cycles_per_pkt_16k \
		neigh_flood_cycles_per_pkt_256k flood_legit_rate_ratio; do
		echo "$k $(val flood $k)"
	done
	for k in ndr4_64_vs_testpmd_io ndr6_64_vs_testpmd_io ndr4_imix_vs_testpmd_io \
		ndr6_imix_vs_testpmd_io lat4_p99_us_at_50pct lat4_p99_at_50pct_vs_testpmd_io; do
		echo "$k $(val ndr $k)"
	done
} | tee "$out/summary.txt"

# CSV of this run's figures, then the plots.
awk -v t="$(basename "$out")" '/cycles\/packet/ {
	v = $(NF - 1); sub(/ +[0-9.]+ cycles\/packet$/, "")
	printf "%s,\"%s\",%s\n", t, $0, v }' "$out/pipeline.txt" >"$out/pipeline.csv"
last=$(tail -1 bench/out/fwd.csv | cut -d, -f1)
awk -F, -v t="$last" '$1 == t && $2 ~ /^routerd_/ { print $3, $4, $5 }' bench/out/fwd.csv |
	sort -k1,1n -k2,2n >"$out/mpps_by_routes.dat"
if command -v gnuplot >/dev/null; then
	gnuplot -e "dir='$out'" bench/plots.gp
	echo "plots: $out/pipeline_cycles.png $out/mpps_by_routes.png" >&2
	bench/ndr_plot.sh "$out" own >&2
else
	echo "gnuplot not installed: no plots" >&2
fi
