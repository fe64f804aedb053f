# The ring loop's helpers, shared by bench/fwd_bench.sh and
# bench/churn_bench.sh: tables, routerd-loop or l3fwd on two looped
# net_ring ports, and bench/ring_loop to fill and measure; and routerd
# between two memif ports for the end-to-end runs. Source it after
# setting build (absolute) and work; it defines functions and variables.
# shellcheck shell=bash

prefix=ringb
pid=
eal=(--no-pci --file-prefix=$prefix --log-level=lib.eal:error --no-telemetry
	--vdev=net_ring0 --vdev=net_ring1 --force-max-simd-bitwidth=512)

# The processes of this run that died by a signal nobody sent them
# ("NAME:SIGNAL"): a DPDK process that crashes (a driver's segfault)
# must fail the run, not pass unseen because the figures were in.
SIGNALLED=()

# reap PID [SENT [NAME]]: wait for PID (ours) and record it in SIGNALLED
# if it died by a signal other than SENT (a number; SIGINT is what
# stop_pid sends, and testpmd raises it again on itself to die by it).
reap() {
	local st=0 name=${3:-}
	[ -n "$name" ] || name=$(cat /proc/"$1"/comm 2>/dev/null || echo process)
	wait "$1" 2>/dev/null || st=$?
	# (127: not our child; 255 and below 129: an exit status)
	if [ "$st" -gt 128 ] && [ "$st" -lt 255 ] && [ "$((st - 128))" != "${2:-0}" ]; then
		echo "$name (PID $1) died by signal $((st - 128))" >&2
		SIGNALLED+=("$name:$((st - 128))")
	fi
}

# signal_check: exit 1 if any process of the run died by a signal.
signal_check() {
	[ ${#SIGNALLED[@]} -eq 0 ] && return 0
	echo "died by a signal: ${SIGNALLED[*]}" >&2
	exit 1
}

# stop_pid PID: SIGINT, then poll until it is gone (a subshell cannot
# wait for its parent's children); SIGKILL after 10 s, so that a process
# stuck in its shutdown cannot hold the run (and its EAL file prefix)
# for ever; then reap it if it is ours (one that was gone already, or
# dies by another signal than the one sent, is in SIGNALLED).
stop_pid() {
	[ -n "$1" ] || return 0
	local sent=0 name
	name=$(cat /proc/"$1"/comm 2>/dev/null || echo process)
	if kill -0 "$1" 2>/dev/null; then
		sent=2
		kill -INT "$1"
		for _ in $(seq 100); do
			kill -0 "$1" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$1" 2>/dev/null; then
			echo "PID $1 ($(cat /proc/"$1"/comm 2>/dev/null)) did not stop in 10 s: killed" >&2
			kill -KILL "$1" 2>/dev/null || true
			sent=9
		fi
	fi
	reap "$1" "$sent" "$name"
}

# wait_up PID TEST...: until TEST succeeds (10 s at most, and only while
# PID lives); on failure show LOG ($work/log unless given) and exit.
wait_up() {
	local p=$1
	shift
	for _ in $(seq 100); do
		"$@" && return 0
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	cat "${log:-$work/log}" >&2
	exit 1
}

ring_stop() {
	stop_pid "$pid"
	pid=
	rm -f /dev/hugepages/${prefix}map_* 2>/dev/null || true
}

ring_check_hugepages() {
	local free
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	if [ "${free:-0}" -lt 600 ]; then
		echo "needs about 600 free 2 MiB hugepages (scripts/setup.sh reserves them); ${free:-0} free" >&2
		exit 1
	fi
}

# Tables in $work: "PREFIX/LEN PORT". l3fwd's own routes on its two ports
# (small4, small6), and the vendored real tables (full4, full6),
# duplicates dropped, routes alternating between the ports.
ring_tables() {
	printf '198.18.0.0/24 0\n198.18.1.0/24 1\n' >"$work/small4"
	printf '2001:200::/64 0\n2001:200:0:1::/64 1\n' >"$work/small6"
	for f in 4 6; do
		zcat "bench/data/prefixes-v$f.txt.gz" | awk '!seen[$1]++ { print $1, NR % 2 }' >"$work/full$f"
	done
}

# routerd's routes for TABLE FAMILY: via a neighbour on the port, whose
# link address is the port's own (00:00:... on net_ring), so the
# rewritten frame is accepted again when it comes round.
ring_routes() {
	awk -v f="$2" '{
		gw = f == 4 ? ($2 ? "198.51.100.2" : "192.0.2.2") : ($2 ? "2001:db8:2::2" : "2001:db8:1::2")
		print "route add " $1 " via " gw
	}' "$1"
}

# ring_start_routerd TABLE FAMILY [startup lines...]
# With RING_CPORTS_NS set, routerd-loop runs in that network namespace
# with its control-plane ports (TAPs, kernel mirror) on, as by default;
# otherwise without them (it runs in the root namespace).
ring_start_routerd() {
	local table=$1 fam=$2 in=() cports=(--no-control-ports)
	shift 2
	if [ -n "${RING_CPORTS_NS:-}" ]; then
		in=(ip netns exec "$RING_CPORTS_NS")
		cports=()
	fi
	{
		cat <<-EOS
			addr add 192.0.2.1/24 dev port0
			addr add 198.51.100.1/24 dev port1
			addr add 2001:db8:1::1/64 dev port0
			addr add 2001:db8:2::1/64 dev port1
			neigh add 192.0.2.2 lladdr 00:00:00:00:00:00 dev port0
			neigh add 198.51.100.2 lladdr 00:00:00:00:00:00 dev port1
			neigh add 2001:db8:1::2 lladdr 00:00:00:00:00:00 dev port0
			neigh add 2001:db8:2::2 lladdr 00:00:00:00:00:00 dev port1
		EOS
		printf '%s\n' "$@"
	} >"$work/startup"
	rm -f "$work/sock"
	"${in[@]}" "$build/app/routerd-loop" -l 0,1 "${eal[@]}" -- "${cports[@]}" --socket "$work/sock" \
		--startup "$work/startup" --set idle-backoff=off >"$work/log" 2>&1 &
	pid=$!
	wait_up "$pid" test -S "$work/sock"
	ring_routes "$table" "$fam" | "$build/app/routerctl" -S "$work/sock" -b - >/dev/null
}

# memif_start_routerd LOG TABLE EAL...: routerd on the EAL's two ports
# (port0 from the generator, port1 towards the sink), every route of TABLE
# via a neighbour on port1, without control-plane ports or idle backoff;
# its PID in memif_pid, its socket $work/sock. bench/memif_bench.sh and
# bench/ndr_lib.sh.
memif_start_routerd() {
	local out=$1 table=$2
	shift 2
	cat >"$work/startup" <<-EOS
		addr add 192.0.2.1/24 dev port0
		addr add 198.51.100.1/24 dev port1
		addr add 2001:db8:1::1/64 dev port0
		addr add 2001:db8:2::1/64 dev port1
		neigh add 198.51.100.2 lladdr 02:00:00:00:00:02 dev port1
		neigh add 2001:db8:2::2 lladdr 02:00:00:00:00:02 dev port1
	EOS
	rm -f "$work/sock"
	# shellcheck disable=SC2086 # ROUTERD_SET: words of --set KEY=VALUE
	"$build/app/routerd" "$@" -- --no-control-ports --socket "$work/sock" --startup "$work/startup" \
		--set idle-backoff=off ${ROUTERD_SET:-} >"$out" 2>&1 &
	memif_pid=$!
	log=$out wait_up "$memif_pid" test -S "$work/sock"
	awk '{ print "route add " $1 " via " ($1 ~ /:/ ? "2001:db8:2::2" : "198.51.100.2") }' "$table" |
		"$build/app/routerctl" -S "$work/sock" -b - >/dev/null
}

# ring_start_l3fwd lpm|fib: l3fwd on lcore 1 alone, both ports, its
# built-in routes.
ring_start_l3fwd() {
	"$l3fwd" -l 1 "${eal[@]}" -- -p 0x3 --config="(0,0,1),(1,0,1)" --parse-ptype \
		--lookup="$1" >"$work/log" 2>&1 &
	pid=$!
	wait_up "$pid" grep -q "entering main loop" "$work/log"
}

# ring_start_testpmd: testpmd io on lcore 1, each port back to itself:
# the ring loop's own cost, with no forwarding work at all.
ring_start_testpmd() {
	dpdk-testpmd -l 0,1 "${eal[@]}" -- --forward-mode=io --port-topology=loop --nb-cores=1 \
		--auto-start --stats-period=100 </dev/null >"$work/log" 2>&1 &
	pid=$!
	wait_up "$pid" grep -q "forwards packets on" "$work/log"
}

# ring_loop_run [ring_loop options...]: the driver, attached to the
# running forwarder; its output on stdout.
ring_loop_run() {
	"$build/bench/ring_loop" --proc-type=secondary -l 0 --no-pci --file-prefix=$prefix \
		--log-level=lib.eal:error --no-telemetry -- "$@"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# paired_ratio "A values" "B values": the median of A[i] / B[i] over
# repetitions i, two decimals. The two figures of a pair are measured
# seconds apart, while this machine's speed drifts by up to 2x over
# minutes, so a ratio of medians would mix different minutes.
paired_ratio() {
	local r
	# A pair whose second figure is 0 (a search that found no zero-loss
	# rate) has no ratio; with none left, "-".
	r=$(paste <(echo "$1" | tr ' ' '\n' | grep .) <(echo "$2" | tr ' ' '\n' | grep .) |
		awk '$2 > 0 { print $1 / $2 }')
	if [ -n "$r" ]; then echo "$r" | median | awk '{ printf "%.2f\n", $1 }'; else echo -; fi
}
