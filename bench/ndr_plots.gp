# Plots of one run of bench/ndr.sh or bench/pktgen.sh, from the files
# bench/ndr_plot.sh leaves in `dir`; `duts` the devices they hold, `haslat`
# whether lat.dat has rows:
#   ndr.dat      dut family size_bytes ndr_mpps l1_gbps   (IMIX as 362)
#   lat.dat      dut family size load_pct p50_us p99_us
set terminal pngcairo size 900,480 font ",10"

set output dir."/ndr_by_size.png"
set title "zero-loss rate by frame size over memif (bench/ndr.sh)"
set xlabel "frame bytes (IMIX at its mean, 362)"
set ylabel "Mpps"
set y2label "Gbit/s on the wire"
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set grid
set key top right
plot for [d in duts] for [f in "4 6"] dir."/ndr.dat" \
	using (strcol(1) eq d && $2 == f ? $3 : 1/0):4 with linespoints lw 2 \
	title d." IPv".f." Mpps", \
     for [d in duts] dir."/ndr.dat" \
	using (strcol(1) eq d && $2 == 4 ? $3 : 1/0):5 axes x1y2 with linespoints dt 2 \
	title d." IPv4 Gbit/s"

# no latency rows (pktgen's runs): no latency plot
if (haslat) {
	reset
	set terminal pngcairo size 900,480 font ",10"
	set output dir."/latency_by_load.png"
	set title "latency by load, 64-byte IPv4 frames (bench/ndr.sh)"
	set xlabel "load, % of the zero-loss rate"
	set ylabel "microseconds"
	set logscale y
	set grid
	set key top left
	plot for [d in duts] dir."/lat.dat" \
		using (strcol(1) eq d && $2 == 4 && strcol(3) eq "64" ? $4 : 1/0):6 with linespoints lw 2 \
		title d." p99", \
	     for [d in duts] dir."/lat.dat" \
		using (strcol(1) eq d && $2 == 4 && strcol(3) eq "64" ? $4 : 1/0):5 with linespoints dt 2 \
		title d." median"
}
