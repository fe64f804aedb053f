#!/usr/bin/env bash
# Plots of the zero-loss runs in bench/out/ndr.csv and ndr_lat.csv (the
# latest figure of each case, or the run stamped STAMP), by gnuplot, into DIR:
#   bench/ndr_plot.sh DIR [GEN [STAMP]]      (GEN: own or pktgen)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: ndr_plot.sh DIR [GEN [STAMP]]}
gen=${2:-own}
stamp=${3:-}
mkdir -p "$dir"
# one row a case: the first repetition of the latest run that has it (or
# of the run stamped STAMP), so a run by frame size and one of 64 bytes
# and IMIX draw together
awk -F, -v t="$stamp" -v g="$gen" 'NR > 1 && (t == "" || $1 == t) && $2 == g && $6 == 1 {
	v[$3 FS $4 FS $5] = $3 " " $4 " " ($5 == "imix" ? 362 : $5) " " $10 / 1e6 " " $11 }
	END { for (k in v) print v[k] }' bench/out/ndr.csv | sort -k1,1 -k2,2n -k3,3n >"$dir/ndr.dat"
awk -F, -v t="$stamp" -v g="$gen" 'NR > 1 && (t == "" || $1 == t) && $2 == g && $6 == 1 {
	v[$3 FS $4 FS $5 FS $7] = $3 " " $4 " " $5 " " $7 " " $11 " " $12 }
	END { for (k in v) print v[k] }' bench/out/ndr_lat.csv | sort -k1,1 -k2,2n -k3,3 -k4,4n >"$dir/lat.dat"
command -v gnuplot >/dev/null || { echo "gnuplot not installed: no plots" >&2; exit 0; }
gnuplot -e "dir='$dir'" bench/ndr_plots.gp
echo "plots: $dir/ndr_by_size.png $dir/latency_by_load.png"
