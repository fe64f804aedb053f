#!/usr/bin/env bash
# Plots of the zero-loss runs in ROWS/ndr.csv and ndr_lat.csv (ROWS:
# bench/out, or bench/results for the runs the docs cite; the latest
# figure of each case, or of the runs stamped STAMP, a list), by gnuplot,
# into DIR:
#   [ROWS=bench/results] bench/ndr_plot.sh DIR [GEN ["STAMP..."]]   (GEN: own or pktgen)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: ndr_plot.sh DIR [GEN ["STAMP..."]]}
gen=${2:-own}
stamp=${3:-}
rows=${ROWS:-bench/out}
mkdir -p "$dir"
# one row a case: the first repetition of the latest run that has it (or
# of the latest of the runs stamped STAMP...), so a run by frame size and
# one of 64 bytes and IMIX draw together
# (columns by their names in the header line)
cols='BEGIN { n = split(t, ts, " "); for (i = 1; i <= n; i++) want[ts[i]] = 1 }
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
(n == 0 || $c["time"] in want) && $c["gen"] == g && $c["rep"] == 1'
awk -F, -v t="$stamp" -v g="$gen" "$cols"' {
	d = $c["dut"]; f = $c["family"]; s = $c["size"]
	v[d FS f FS s] = d " " f " " (s == "imix" ? 362 : s) " " $c["ndr_pps"] / 1e6 " " $c["ndr_l1_gbps"] }
	END { for (k in v) print v[k] }' "$rows/ndr.csv" | sort -k1,1 -k2,2n -k3,3n >"$dir/ndr.dat"
awk -F, -v t="$stamp" -v g="$gen" "$cols"' && $c["load_pct"] <= 100 {
	d = $c["dut"]; f = $c["family"]; s = $c["size"]; l = $c["load_pct"]
	v[d FS f FS s FS l] = d " " f " " s " " l " " $c["lat_p50_us"] " " $c["lat_p99_us"] }
	END { for (k in v) print v[k] }' "$rows/ndr_lat.csv" | sort -k1,1 -k2,2n -k3,3 -k4,4n >"$dir/lat.dat"
command -v gnuplot >/dev/null || { echo "gnuplot not installed: no plots" >&2; exit 0; }
# the devices the rows have, in the plots' order: no legend for one absent
duts=$(for d in testpmd small full slow; do
	awk -v d="$d" '$1 == d { print d; exit }' "$dir/ndr.dat"
done | tr '\n' ' ')
haslat=$([ -s "$dir/lat.dat" ] && echo 1 || echo 0)
rm -f "$dir/latency_by_load.png"
gnuplot -e "dir='$dir'; duts='$duts'; haslat=$haslat" bench/ndr_plots.gp
echo "plots: $dir/ndr_by_size.png$([ "$haslat" = 0 ] || echo " $dir/latency_by_load.png")"
