#!/usr/bin/env bash
# A neighbour flood's costs (issue 27; docs/neigh.md):
#   neigh_flood_cycles_per_pkt_{1,16,256}k  the control core's cycles a
#       flood packet through the exception path, by neighbour table size
#       (bench/neigh_flood, median of 5 runs of 262,144 packets each);
#   flood_legit_rate_ratio  a resolved flow's packets delivered while a
#       host floods 100,000 unresolvable addresses a family, over the same
#       flow's without the flood: tests/integration/16_neigh_flood.sh's
#       item 3, median of RUNS (3) runs of that test.
#
#   bench/flood_bench.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
RUNS=${RUNS:-3}
"$build/bench/neigh_flood" -l 1 --no-huge -m 1024 --no-pci --no-telemetry \
	--file-prefix=neigh_flood --vdev=net_null0 --vdev=net_null1 --log-level=lib.eal:error
ratios=()
for i in $(seq "$RUNS"); do
	log=$(bash tests/integration/16_neigh_flood.sh "$build" 2>&1 | grep -E '^  (the flow|.*checks passed)')
	echo "$log" | sed "s/^/# run $i:/"
	base=$(echo "$log" | awk '/without the flood/ {print $6}')
	under=$(echo "$log" | awk '/under the flood/ {print $6}')
	ratios+=("$(awk -v a="$under" -v b="$base" 'BEGIN { printf "%.4f", a / b }')")
done
echo "flood_legit_rate_ratio $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')"
