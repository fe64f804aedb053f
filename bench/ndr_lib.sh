# The RFC 2544 search and its device under test, shared by bench/ndr.sh
# (the own generator) and bench/pktgen.sh (pktgen-dpdk). Source it after
# bench/ring_lib.sh, with build, work and SMOKE set, and with the
# tester's functions defined by the caller:
#   tester_open TABLE           before a device's sizes (TABLE: its routes)
#   tester_close                after them
#   tester_size N|imix
#   tester_trial RATE SECONDS   prints "result rate_pps R offered O sent S
#                               received X ... lat_min_ns .. lat_p50_ns ..
#                               lat_p99_ns .. lat_max_ns .." (bench/pkt_gen.c)
# The device's memif ports are servers on $work/m0.sock and $work/m1.sock.
# shellcheck shell=bash

# The settings (bench/ndr.sh's header), where the caller has not set them.
: "${DUTS:=testpmd small full}" "${FAMILIES:=4 6}" "${SIZES:=64 128 256 512 1024 1280 1518 imix}"
: "${TRIAL_S:=10}" "${FINAL_S:=0}" "${LOSS_TOL:=0}" "${RES:=0.01}" "${REPS:=1}" "${LAT_LOADS=10 50 90}"
: "${LAT_TRIALS:=3}" "${LAT_PPS=}" "${WARMUP_S:=1}" "${LAT_INTERLEAVE:=1}"

dut_pid=
# (telemetry on: ethdev_counts reads the device's port counters through it)
dut_eal=(-l 0,1 --no-pci --file-prefix=ndrd --log-level=lib.eal:error
	--force-max-simd-bitwidth=512
	"--vdev=net_memif0,role=server,socket=$work/m0.sock,socket-abstract=no,mac=02:00:00:00:00:01,rsize=${MEMIF_RSIZE:-14}"
	"--vdev=net_memif1,role=server,socket=$work/m1.sock,socket-abstract=no,mac=02:00:00:00:00:03,rsize=${MEMIF_RSIZE:-14}")

dut_stop() {
	stop_pid "$dut_pid"
	dut_pid=
	rm -f /dev/hugepages/ndrdmap_* "$work/m0.sock" "$work/m1.sock"
}

# dut_start testpmd|slow|small|full TABLE
# slow is bench/slow_fwd, SLOW_CYCLES (1500) TSC cycles a packet: a
# device slower than either tester, whose zero-loss rate is its own, to
# hold the two testers' searches against each other.
dut_start() {
	rm -f "$work/m0.sock" "$work/m1.sock"
	local cmd
	case $1 in
	slow) cmd=("$build/bench/slow_fwd" -l 1 "${dut_eal[@]:2}" -- --cycles "${SLOW_CYCLES:-1500}") ;;
	# testpmd forwards in routerd's bursts (64, not its default of 32):
	# over memif a packet costs less in a larger burst, and the I/O limit
	# must not be slower than the device it is held against.
	testpmd) cmd=(dpdk-testpmd "${dut_eal[@]}" -- --forward-mode=io --nb-cores=1 --auto-start
		--total-num-mbufs=32768 --stats-period=100 "--burst=${TESTPMD_BURST:-64}") ;;
	*)
		# What a queue towards the tester refuses waits in routerd's
		# backlog (tx-backlog, docs/operations.md), as deep as the memif
		# ring (DUT_BACKLOG, 16384), with the mbufs it takes.
		local bl=${DUT_BACKLOG:-16384}
		ROUTERD_SET="--set tx-backlog=$bl --set mbufs=$((bl * 8 > 8192 ? bl * 8 - 1 : 8191))" \
			memif_start_routerd "$work/dut.log" "$2" "${dut_eal[@]}"
		dut_pid=$memif_pid
		return
		;;
	esac
	"${cmd[@]}" </dev/null >"$work/dut.log" 2>&1 &
	dut_pid=$!
	log=$work/dut.log wait_up "$dut_pid" test -S "$work/m1.sock"
}

# dut_table DUT FAMILY: the routes a device is loaded with, and the
# tester's destinations: l3fwd's two for small, the vendored table else.
dut_table() { if [ "$1" = small ]; then echo "$work/small$2"; else echo "$work/full$2"; fi; }

# dut_cycles: routerd's worker counters "rx busy_cycles busy_rounds"
# (testpmd: "0 0 0").
dut_cycles() {
	grep -q "^routerd" "$work/dut.log" || { echo 0 0 0; return; }
	"$build/app/routerctl" -S "$work/sock" stats | awk '
		$2 == "worker0.rx" { rx = $3 } $2 == "worker0.busy_cycles" { c = $3 }
		$2 == "worker0.busy_rounds" { b = $3 }
		END { printf "%.0f %.0f %.0f\n", rx, c, b }'
}

# dut_drops: routerd's drops so far, summed over its ports, as
# "rx_dropped rx_missed rx_nombuf tx_dropped" (-s link show: dropped by
# routerd, not taken for want of RX descriptors or mbufs, refused by a
# full TX queue); testpmd: "- - - -".
dut_drops() {
	grep -q "^routerd" "$work/dut.log" || { echo - - - -; return; }
	# No counters read ("- - - -", said on stderr) rather than zeros.
	"$build/app/routerctl" -S "$work/sock" -s link show | awk '
		prev ~ /RX: +bytes/ { d += $4; m += $5; nb += $6; seen = 1 }
		prev ~ /TX: +bytes/ { t += $4 }
		{ prev = $0 }
		END { if (seen) printf "%.0f %.0f %.0f %.0f\n", d, m, nb, t
			else { print "- - - -"; print "dut_drops: no counters from routerctl" >"/dev/stderr" } }'
}

# dut_ports: the packets the device received on port0 and sent on
# port1, "IN OUT", from its ethdev counters (bench/ethdev_counts.py);
# "- -" without them.
dut_ports() {
	local c
	read -ra c <<<"$(bench/ethdev_counts.py ndrd 0 1 || echo - - - -)"
	echo "${c[0]} ${c[3]}"
}

# field LINE NAME: the value after NAME in a result line.
# With several lines, the value in each, a line each.
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); next } }' <<<"$1"; }
# us: nanoseconds a line (stdin) as microseconds.
us() { awk '{ printf "%.2f\n", $1 / 1000 }'; }

# lost LINE: the frames a trial offered and did not get back.
lost() { echo $(($(field "$1" offered) - $(field "$1" received))); }

# passes LINE: the trial lost at most LOSS_TOL of what it offered.
passes() {
	awk -v o="$(field "$1" offered)" -v r="$(field "$1" received)" -v t="$LOSS_TOL" \
		'BEGIN { exit !(o > 0 && o - r <= t * o) }'
}

# trial RATE SECONDS: one trial, logged; its result line in $last.
trial() {
	last=$(tester_trial "$1" "$2")
	[[ "$last" == result* ]] || { echo "tester: ${last:-no answer}" >&2; exit 1; }
	echo "  offered $(awk -v r="$1" 'BEGIN { if (r > 0) printf "%.3f Mpps", r / 1e6; else printf "unpaced" }'):" \
		"lost $(lost "$last")" \
		"of $(field "$last" offered), p99 $(field "$last" lat_p99_ns) ns" >&2
	echo "$last" >>"$work/trials.log"
}

ndr_out() { if [ -n "${SMOKE:-}" ]; then echo "$work"; else echo bench/out; fi; }

# The CSV files' header lines. A file from before a column was added is
# moved aside (FILE.old) rather than given rows its header does not name.
NDR_HEAD=time,gen,dut,family,size,rep,trial_s,final_s,loss_tol,max_pps,ndr_pps,ndr_l1_gbps,frame_bytes,trials,cycles_per_pkt,mean_burst,max_loss,max_rx_dropped,max_rx_missed,max_rx_nombuf,max_tx_dropped,tester_bound,max_lost_before,max_lost_in,max_lost_after
LAT_HEAD=time,gen,dut,family,size,rep,load_pct,rate_pps,lost,lat_min_us,lat_p50_us,lat_p99_us,lat_max_us,lat_trials,lat_p99_each_us,tester_away_ms_each
csv_head() { # FILE HEADER
	if [ -s "$1" ] && [ "$(head -1 "$1")" != "$2" ]; then
		mv "$1" "$1.old"
		echo "$1: older columns, moved to $1.old" >&2
	fi
	[ -s "$1" ] || echo "$2" >"$1"
}

# try RATE SECONDS: a trial of the search, counted in n; when it passes,
# it is the best so far ($best, offered at $best_at). Fails when it lost.
try() {
	trial "$1" "$2"
	n=$((n + 1))
	passes "$last" || return 1
	best=$last
	best_at=$1
}

# bisect LO HI SECONDS: the binary search between a rate that passed (LO;
# 0 for none yet) and one that failed (HI), with trials of SECONDS, until
# the interval is narrower than RES x max (try records the best).
bisect() {
	local lo=$1 hi=$2 mid
	while awk -v l="$lo" -v h="$hi" -v m="$max" -v r="$RES" 'BEGIN { exit !(h - l > r * m) }'; do
		mid=$(awk -v l="$lo" -v h="$hi" 'BEGIN { printf "%.0f", (l + h) / 2 }')
		if try "$mid" "$3"; then
			lo=$mid
		else
			hi=$mid
		fi
	done
}

# confirm RATE: the final phase, with trials of FINAL_S. RATE (what the
# short trials found) is tried first; while a trial loses, the next is
# lower by a step that doubles each time (RES x max first), but by half
# the rate at most, so that a host losing frames at every rate near the
# top still has the rates below tried, down to RES x max (below which
# the result is 0); once one passes, bisect narrows the gap to the last
# that failed. The result rests on full-length trials only; on a machine
# whose short trials predict its long ones, that costs one trial.
confirm() {
	local rate=$1 fail='' step floor
	step=$(awk -v m="$max" -v r="$RES" 'BEGIN { printf "%.0f", m * r }')
	floor=$step
	best=''
	while [ "$rate" -ge "$floor" ] && [ "$rate" -gt 0 ]; do
		try "$rate" "$FINAL_S" && break
		fail=$rate
		if [ "$step" -gt $((rate / 2)) ]; then rate=$((rate / 2)); else rate=$((rate - step)); fi
		step=$((step * 2))
	done
	[ -z "$best" ] || [ -z "$fail" ] || bisect "$rate" "$fail" "$FINAL_S"
}

# ndr_search GEN DUT FAMILY SIZE REP: the search and the latency trials
# for one case, appended to ndr.csv and ndr_lat.csv.
ndr_search() {
	local gen=$1 dut=$2 fam=$3 size=$4 rep=$5 max max_loss best='' best_at=0 bytes n=1 out
	out=$(ndr_out)
	local c0 c1 cpp=- burst=- d0 d1 drops=-,-,-,- p0 p1 where=-,-,-
	read -ra c0 <<<"$(dut_cycles)"
	read -ra d0 <<<"$(dut_drops)"
	read -ra p0 <<<"$(dut_ports)"
	trial 0 "$TRIAL_S"
	read -ra c1 <<<"$(dut_cycles)"
	read -ra d1 <<<"$(dut_drops)"
	read -ra p1 <<<"$(dut_ports)"
	# where the unpaced trial's losses went, inside routerd
	[ "${d0[0]}" = - ] || drops="$((d1[0] - d0[0])),$((d1[1] - d0[1])),$((d1[2] - d0[2])),$((d1[3] - d0[3]))"
	# and for either device, by its ports' counters: lost before it
	# received them (sent by the tester, never taken), in it (received,
	# not sent), after it (sent, never counted by the tester)
	if [ "${p0[0]}" != - ] && [ "${p1[0]}" != - ]; then
		local din=$((p1[0] - p0[0])) dout=$((p1[1] - p0[1]))
		where="$(($(field "$last" offered) - din)),$((din - dout)),$((dout - $(field "$last" received)))"
	fi
	# routerd's busy TSC cycles a packet at the tester's full rate, memif
	# included, and the packets a busy round: the cycles are a packet's
	# cost only when the bursts are full (the worker saturated); with
	# small ones, they are mostly rounds waiting on the tester
	if [ "${c1[0]}" != "${c0[0]}" ]; then
		cpp=$(awk -v p=$((c1[0] - c0[0])) -v c=$((c1[1] - c0[1])) 'BEGIN { printf "%.1f", c / p }')
		burst=$(awk -v p=$((c1[0] - c0[0])) -v b=$((c1[2] - c0[2])) 'BEGIN { printf "%.1f", p / b }')
	fi
	max=$(awk -v s="$(field "$last" received)" -v t="$(field "$last" seconds)" 'BEGIN { printf "%.0f", s / t }')
	# the share lost at the tester's full rate (the goal: no more than testpmd io's)
	max_loss=$(awk -v o="$(field "$last" offered)" -v r="$(field "$last" received)" \
		'BEGIN { printf "%.2e", (o > 0 ? (o - r) / o : 0) }')
	bytes=$(field "$last" frame_bytes)
	# The unpaced trial is no zero-loss trial, even when it lost nothing:
	# the ring held the tester back whenever the device fell behind (a
	# stall of its CPU), where a constant rate would have overflowed it.
	# So MAX is offered paced, and the search goes below it if that loses.
	# When the paced trial at MAX passes and the own generator's unpaced
	# one lost nothing, the device took all the tester could send: the
	# result is a lower bound set by the tester (ndr_table.py marks it).
	# Not so for a tester that retries what the ring refuses (pktgen,
	# TESTER_RETRIES=1): its unpaced trial loses nothing at the device's
	# own speed too.
	local bound=0 unpaced_ok=0
	[ -n "${TESTER_RETRIES:-}" ] || ! passes "$last" || unpaced_ok=1
	if try "$max" "$TRIAL_S"; then
		bound=$unpaced_ok
	else
		bisect 0 "$max" "$TRIAL_S"
	fi
	local ndr=0
	[ -z "$best" ] || ndr=$(field "$best" rate_pps)
	if [ "$ndr" != 0 ] && awk -v f="$FINAL_S" -v t="$TRIAL_S" 'BEGIN { exit !(f > t) }'; then
		confirm "$best_at"
		[ -n "$best" ] && [ "$best_at" = "$max" ] || bound=0
		ndr=0
		[ -z "$best" ] || ndr=$(field "$best" rate_pps)
	fi
	csv_head "$out/ndr.csv" "$NDR_HEAD"
	# L1 rate: each frame with its 8-byte preamble and 12-byte gap
	echo "$stamp,$gen,$dut,$fam,$size,$rep,$TRIAL_S,$FINAL_S,$LOSS_TOL,$max,$ndr,$(awk -v p="$ndr" -v b="$bytes" \
		'BEGIN { printf "%.3f", p * (b + 20) * 8 / 1e9 }'),$bytes,$n,$cpp,$burst,$max_loss,$drops,$bound,$where" >>"$out/ndr.csv"
	echo "  $dut IPv$fam $size: zero-loss $(awk -v p="$ndr" 'BEGIN { printf "%.3f", p / 1e6 }') Mpps" \
		"(unpaced $(awk -v p="$max" 'BEGIN { printf "%.3f", p / 1e6 }'), $n trials; $cpp cycles a packet in bursts of $burst;" \
		"unpaced drops in routerd: rx dropped, missed, nombuf, tx dropped ${drops//,/ };" \
		"lost before, in, after the device ${where//,/ })" >&2
	csv_head "$out/ndr_lat.csv" "$LAT_HEAD"
	lat_ndr["$dut,$fam,$size,$rep"]=$ndr
	[ "$LAT_INTERLEAVE" = 1 ] || [ "$ndr" = 0 ] ||
		ndr_latency "$ndr" "$gen,$dut,$fam,$size,$rep" >>"$out/ndr_lat.csv"
}
# Each case's zero-loss rate, "DUT,FAMILY,SIZE,REP", for the latency trials.
declare -A lat_ndr=()

# lat_interleaved GEN REP FAMILY: the latency trials of a repetition and
# family once every device's search is done, the devices taking turns:
# each turn starts a device afresh and runs one trial at each load of
# each size, and the order of the devices is reversed every other turn
# (A B B A A B). This host runs the same code at two speeds, and
# periods of long tails come and go over minutes (load-testing.md), so
# trials of one device after the other's compare two periods; in turns
# both see the same ones, and the ratio of their p99 is the devices'.
lat_interleaved() {
	local gen=$1 rep=$2 f=$3 t d s l key order any
	local -A lines=()
	[ -n "$LAT_LOADS$LAT_PPS" ] || return 0
	for t in $(seq "$LAT_TRIALS"); do
		order=$DUTS
		[ $((t % 2)) = 1 ] || order=$(tr ' ' '\n' <<<"$DUTS" | grep . | tac | paste -sd ' ')
		for d in $order; do
			any=0
			for s in $SIZES; do [ "${lat_ndr["$d,$f,$s,$rep"]:-0}" = 0 ] || any=1; done
			[ "$any" = 1 ] || continue
			echo "latency, turn $t/$LAT_TRIALS: $d IPv$f" >&2
			dut_start "$d" "$(dut_table "$d" "$f")"
			tester_open "$(dut_table "$d" "$f")"
			for s in $SIZES; do
				[ "${lat_ndr["$d,$f,$s,$rep"]:-0}" != 0 ] || continue
				tester_size "$s"
				warm_up
				for l in $LAT_LOADS $LAT_PPS; do
					trial "$(lat_rate "${lat_ndr["$d,$f,$s,$rep"]}" "$l")" "$TRIAL_S"
					lines["$d,$s,$l"]+=$last$'\n'
				done
			done
			tester_close
			dut_stop
		done
	done
	for d in $DUTS; do
		for s in $SIZES; do
			for l in $LAT_LOADS $LAT_PPS; do
				key="$d,$s,$l"
				[ -n "${lines[$key]:-}" ] || continue
				echo "$stamp,$gen,$d,$f,$s,$rep,$l,$(lat_row "${lines[$key]}")" >>"$(ndr_out)/ndr_lat.csv"
			done
		done
	done
}

# ndr_latency NDR CASE (LAT_INTERLEAVE=0): right after a case's search,
# LAT_TRIALS trials at each of LAT_LOADS of the
# zero-loss rate NDR (load_pct, in %), then at each of the packet rates
# LAT_PPS, the same for every device (load_pct is the rate, above 100);
# a row of ndr_lat.csv for each, CASE its gen to rep columns.
ndr_latency() {
	local l lines rate
	for l in $LAT_LOADS $LAT_PPS; do
		rate=$(lat_rate "$1" "$l")
		lines=
		for _ in $(seq "$LAT_TRIALS"); do
			trial "$rate" "$TRIAL_S"
			lines+=$last$'\n'
		done
		echo "$stamp,$2,$l,$(lat_row "$lines")"
	done
}

# lat_rate NDR LOAD: the packet rate of a latency load: LOAD % of the
# zero-loss rate NDR, or LOAD itself above 100 (LAT_PPS).
lat_rate() { awk -v p="$1" -v l="$2" 'BEGIN { printf "%.0f", (l > 100 ? l : p * l / 100) }'; }

# lat_row LINES: from the result lines of one load's trials, its
# columns from rate_pps on: the rate offered and the p50 and p99 as
# medians over the trials, the frames lost summed, min the least and max
# the most, then the number of trials, each trial's p99 (in µs) and the
# time the tester's loop was away from its CPU in each (ms). A trial's
# p99 is set by the few longest stalls of either CPU in it: 1% of its
# frames is 100 ms of a 10-second trial, so a tester away for longer
# than that (another program on its CPU) makes the p99 the tester's
# (load-testing.md); the median of several trials is the figure that
# repeats.
lat_row() {
	printf '%.0f,%d,%s,%s,%s,%s,%d,%s,%s\n' "$(field "$1" rate_pps | median)" \
		"$(paste <(field "$1" offered) <(field "$1" received) | awk '{ s += $1 - $2 } END { print s }')" \
		"$(field "$1" lat_min_ns | sort -g | head -1 | us)" "$(field "$1" lat_p50_ns | us | median)" \
		"$(field "$1" lat_p99_ns | us | median)" "$(field "$1" lat_max_ns | sort -g | tail -1 | us)" \
		"$(field "$1" rate_pps | wc -l)" "$(field "$1" lat_p99_ns | us | paste -sd ' ')" \
		"$(field "$1" away_us | awk '{ printf "%.1f\n", $1 / 1000 }' | paste -sd ' ')"
}

# ndr_cases FN [ARG...]: FN ARG... DEVICE FAMILY SIZE REP for every case
# of DUTS, FAMILIES and SIZES, REPS times; each device is started once
# for all its sizes, with the tester open on its table. After the devices
# of a repetition and family, $after_family REP FAMILY if it is set.
ndr_cases() {
	local rep f d s table
	for rep in $(seq "$REPS"); do
		for f in $FAMILIES; do
			for d in $DUTS; do
				table=$(dut_table "$d" "$f")
				dut_start "$d" "$table"
				tester_open "$table"
				for s in $SIZES; do
					tester_size "$s"
					warm_up
					"$@" "$d" "$f" "$s" "$rep"
				done
				tester_close
				dut_stop
			done
			[ -z "${after_family:-}" ] || $after_family "$rep" "$f"
		done
	done
}

# warm_up: one unpaced trial of WARMUP_S seconds, not counted, before a size's
# trials (RFC 2544's learning frames, for another reason; pktgen
# connects anew for each size, bench/pktgen.sh): the first
# time each of the memif rings' buffers passes through the device, the
# device's process takes a page fault on it (the regions are shared 4 KiB
# pages, each side mapping them on first touch), and a first trial
# stalled by thousands of them lost frames at any rate
# (load-testing.md, "This machine").
warm_up() {
	local line
	[ "$WARMUP_S" != 0 ] || return 0
	line=$(tester_trial 0 "$WARMUP_S")
	[[ "$line" == result* ]] || { echo "tester: ${line:-no answer}" >&2; exit 1; }
}

# ndr_run GEN: the search and latency trials of every case.
ndr_run() {
	stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	local after_family=
	[ "$LAT_INTERLEAVE" != 1 ] || after_family="lat_interleaved $1"
	ndr_cases search_case "$1"
}
search_case() { # GEN DEVICE FAMILY SIZE REP
	echo "rep $5/$REPS: $1, $2 IPv$3 $4 bytes" >&2
	ndr_search "$@"
}

# ndr_seq: no search; for each case, one trial at each rate of SEQ in
# turn (0: unpaced), each line saying its p50 and p99 and routerd's TX
# backlog counters after it: to see what a sequence of trials leaves
# behind (the latency after the search, say).
ndr_seq() { ndr_cases seq_case; }
seq_case() { # DEVICE FAMILY SIZE REP
	local r
	for r in $SEQ; do
		trial "$r" "$TRIAL_S"
		echo "seq $1 IPv$2 $3 rate $(field "$last" rate_pps) lost $(lost "$last")" \
			"p50_us $(field "$last" lat_p50_ns | us)" \
			"p99_us $(field "$last" lat_p99_ns | us) tester_away_us $(field "$last" away_us)" \
			"away_max_us $(field "$last" away_max_us)" "$(dut_backlog)"
	done
}

# dut_backlog: routerd's tx_held and tx_backlog counters, as "KEY=VALUE..."
dut_backlog() {
	grep -q "^routerd" "$work/dut.log" || return 0
	"$build/app/routerctl" -S "$work/sock" stats | awk '$2 ~ /\.tx_(held|backlog)$/ { printf "%s=%s ", $2, $3 }'
}

# The CSV files' columns are read by their names in the header line
# (NDR_COLS, in awk: $c["name"]), so that columns added later move none.
NDR_COLS='NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }'

# ndr_value GEN DUT FAMILY SIZE REP COLUMN: from this run's rows.
ndr_value() {
	awk -F, -v t="$stamp" -v g="$1" -v d="$2" -v f="$3" -v s="$4" -v r="$5" -v k="$6" "$NDR_COLS"'
		$c["time"] == t && $c["gen"] == g && $c["dut"] == d && $c["family"] == f &&
		$c["size"] == s && $c["rep"] == r { print $c[k] }' "$(ndr_out)/ndr.csv"
}
ndr_lat() { # GEN DUT FAMILY SIZE REP LOAD COLUMN
	awk -F, -v t="$stamp" -v g="$1" -v d="$2" -v f="$3" -v s="$4" -v r="$5" -v l="$6" -v k="$7" "$NDR_COLS"'
		$c["time"] == t && $c["gen"] == g && $c["dut"] == d && $c["family"] == f &&
		$c["size"] == s && $c["rep"] == r && $c["load_pct"] == l { print $c[k] }' \
		"$(ndr_out)/ndr_lat.csv"
}

# ndr_summary GEN: the table of this run and the summary keys.
ndr_summary() {
	local g=$1 d f s r a b key
	python3 bench/ndr_table.py "$(ndr_out)" "$g" "$stamp"
	# ratio of routerd (full table) to testpmd io, median over repetitions
	for key in 4:64 6:64 4:imix 6:imix; do
		f=${key%:*} s=${key#*:} a='' b=''
		for r in $(seq "$REPS"); do
			a+="$(ndr_value "$g" full "$f" "$s" "$r" ndr_pps) "
			b+="$(ndr_value "$g" testpmd "$f" "$s" "$r" ndr_pps) "
		done
		if [ -n "${a// /}" ] && [ -n "${b// /}" ]; then
			echo "ndr${f}_${s}_vs_testpmd_io $(paired_ratio "$a" "$b")"
		fi
	done
	a='' b=''
	for r in $(seq "$REPS"); do
		a+="$(ndr_lat "$g" full 4 64 "$r" 50 lat_p99_us) "
		b+="$(ndr_lat "$g" testpmd 4 64 "$r" 50 lat_p99_us) "
	done
	if [ -n "${a// /}" ]; then
		echo "lat4_p99_us_at_50pct $(echo "$a" | tr ' ' '\n' | grep . | median)"
		[ -z "${b// /}" ] || echo "lat4_p99_at_50pct_vs_testpmd_io $(paired_ratio "$a" "$b")"
	fi
}

# ndr_smoke_check GEN: every trial accounted for its frames (none received
# that was not offered), the search found a rate above zero, routerd's
# drop counters were read, and the final phase's trials were as long as
# FINAL_S.
ndr_smoke_check() {
	awk '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		if (v["received"] > v["offered"] || v["sent"] > v["offered"]) { print "bad trial: " $0; bad = 1 } }
		END { exit bad }' "$work/trials.log"
	awk -F, "$NDR_COLS"'$c["ndr_pps"] > 0 { ok = 1 } END { exit !ok }' "$work/ndr.csv" ||
		{ echo "the search found no rate without loss" >&2; exit 1; }
	awk -F, "$NDR_COLS"'$c["dut"] != "testpmd" && $c["max_tx_dropped"] == "-" { bad = 1 }
		END { exit bad }' "$work/ndr.csv" || { echo "routerd's drop counters were not read" >&2; exit 1; }
	awk -F, "$NDR_COLS"'$c["max_lost_in"] == "-" { bad = 1 } END { exit bad }' "$work/ndr.csv" ||
		{ echo "the device's port counters were not read (telemetry)" >&2; exit 1; }
	# every load's latency trials were run, each with frames timed
	awk -F, -v n="$LAT_TRIALS" "$NDR_COLS"'$c["lat_trials"] != n || split($c["lat_p99_each_us"], e, " ") != n { bad = 1 }
		END { exit bad || NR < 2 }' "$work/ndr_lat.csv" ||
		{ echo "a load's latency row does not hold its $LAT_TRIALS trials" >&2; exit 1; }
	awk '$1 == "result" { for (i = 1; i < NF; i++) if ($i == "lat_n" && $(i + 1) == 0) bad = 1 }
		END { exit bad }' "$work/trials.log" || { echo "a trial timed no frame" >&2; exit 1; }
	# a tester that offers refused frames again sent all it offered
	[ -z "${TESTER_RETRIES:-}" ] || awk '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		if (v["sent"] != v["offered"]) { print "refused frames not sent again: " $0; bad = 1 } }
		END { exit bad }' "$work/trials.log" || exit 1
	awk '$1 == "result" && !/ away_us [0-9]+ away_max_us [0-9]+/ { bad = 1 } END { exit bad }' \
		"$work/trials.log" || { echo "a trial did not say how long the tester was away" >&2; exit 1; }
	# the final phase ran its longer trials
	[ "$FINAL_S" = 0 ] || awk -v f="$FINAL_S" '{ for (i = 1; i < NF; i++) if ($i == "seconds" && $(i + 1) >= 0.9 * f) ok = 1 }
		END { exit !ok }' "$work/trials.log" || { echo "no trial of FINAL_S=$FINAL_S seconds" >&2; exit 1; }
	# and the docs' tables can be printed from its rows
	python3 bench/ndr_table.py "$work" "$1"
}
