#!/usr/bin/env bash
# Plots of the last run in bench/out/ndr.csv and ndr_lat.csv (or of the
# run stamped STAMP), by gnuplot, into DIR:
#   bench/ndr_plot.sh DIR [GEN [STAMP]]      (GEN: own or pktgen)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: ndr_plot.sh DIR [GEN [STAMP]]}
gen=${2:-own}
stamp=${3:-$(awk -F, -v g="$gen" '$2 == g { t = $1 } END { print t }' bench/out/ndr.csv)}
mkdir -p "$dir"
# one row a case: the first repetition's
awk -F, -v t="$stamp" -v g="$gen" '$1 == t && $2 == g && $6 == 1 {
	print $3, $4, ($5 == "imix" ? 362 : $5), $10 / 1e6, $11 }' bench/out/ndr.csv |
	sort -k1,1 -k2,2n -k3,3n >"$dir/ndr.dat"
awk -F, -v t="$stamp" -v g="$gen" '$1 == t && $2 == g && $6 == 1 {
	print $3, $4, $5, $7, $11, $12 }' bench/out/ndr_lat.csv |
	sort -k1,1 -k2,2n -k3,3 -k4,4n >"$dir/lat.dat"
command -v gnuplot >/dev/null || { echo "gnuplot not installed: no plots" >&2; exit 0; }
gnuplot -e "dir='$dir'" bench/ndr_plots.gp
echo "plots: $dir/ndr_by_size.png $dir/latency_by_load.png"
