# Plots of bench/forwarding.sh, from the files it leaves in `dir`:
#   gnuplot -e "dir='bench/out/forwarding-...'" bench/plots.gp
set terminal pngcairo size 900,480 font ",10"

set output dir."/pipeline_cycles.png"
set title "routerd pipeline: TSC cycles a packet by scenario (bench/pipeline\\_bench, median of 7)"
set datafile separator ","
set style data histograms
set style fill solid 0.7 border -1
set boxwidth 0.8
set xtics rotate by -30 nomirror
set ylabel "cycles / packet"
set yrange [0:*]
set grid ytics
unset key
plot dir."/pipeline.csv" using 3:xtic(2) linecolor rgb "#3060a0", \
     "" using 0:3:(sprintf("%.1f", $3)) with labels offset 0,0.7 notitle

reset
set output dir."/mpps_by_routes.png"
set title "routerd in the ring loop: Mpps on one worker core by table size (bench/fwd\\_bench.sh)"
set logscale x
set xlabel "routes in the table (random destinations across them)"
set ylabel "Mpps"
set yrange [0:*]
set grid
set key bottom left
plot dir."/mpps_by_routes.dat" using ($1 == 4 ? $2 : 1/0):3 with linespoints lw 2 pt 7 title "IPv4", \
     "" using ($1 == 6 ? $2 : 1/0):3 with linespoints lw 2 pt 5 title "IPv6"
