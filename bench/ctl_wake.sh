#!/usr/bin/env bash
# What an idle routerd's control core costs the CPU it shares, and how
# soon it answers a packet for itself, on the integration tests' topology
# (h1 -- port0 [routerd] port1 -- h2, af_packet ports, idle backoff on):
#   ctl_wakeups_per_s   the control thread's wake-ups a second, idle
#                       (the kernel's count of its runs, /proc schedstat)
#   ctl_cpu_ms_per_s    its time on a CPU, ms a second, idle
#   ping_router_ms      h1's mean round trip to 192.0.2.1 (routerd's own
#                       address: the control core answers)
#   ping_through_ms     h1's mean round trip to h2 (forwarded both ways:
#                       the workers alone), the peer in the same run
#   ping_router_vs_through  the two, as a ratio
# Each a median over REPS (3) repetitions; pings are PINGS (50) a
# repetition, 0.1 s apart, so that each finds the control core asleep.
# With BASE=DIR (another build's directory, an earlier revision's say),
# that build's routerd runs too, interleaved, its keys prefixed "base_".
#
#   bench/ctl_wake.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
PINGS=${PINGS:-50}
IDLE_S=${IDLE_S:-5}
builds=("$(realpath "${1:-build}")")
[ -n "${BASE:-}" ] && builds+=("$(realpath "$BASE")")
# lib.sh takes its build directory from $1 and cleans up on exit.
set -- "${builds[0]}"
# shellcheck disable=SC2034 # lib.sh's: namespaces cw-*
NS_PREFIX=cw
# shellcheck source=tests/integration/lib.sh
. tests/integration/lib.sh
set +u # lib.sh's ns helpers read unset variables

# rtt HOST ADDR: the mean round trip, ms, of PINGS pings.
rtt() {
	ns_exec h1 ping -q -c "$PINGS" -i 0.1 -W 2 "$1" | awk -F/ '/^rtt/ { print $5 }'
}

# measure BUILD: one repetition; prints "wakeups cpu_ms router_ms through_ms".
measure() {
	# shellcheck disable=SC2034 # start_router's
	BUILD=$1
	{
		two_hosts
		start_router --no-control-ports
		ns_exec h1 ping -c 1 -W 2 198.51.100.2 # neighbours resolved
	} >&2
	sleep 1
	local a b
	read -ra a <"/proc/$RT_PID/schedstat"
	sleep "$IDLE_S"
	read -ra b <"/proc/$RT_PID/schedstat"
	local router through
	router=$(rtt 192.0.2.1)
	through=$(rtt 198.51.100.2)
	ns_stop_router >&2
	ns_cleanup >&2
	echo "$(((b[2] - a[2]) / IDLE_S)) $(awk -v x="$((b[0] - a[0]))" -v s="$IDLE_S" 'BEGIN { printf "%.2f", x / s / 1e6 }')" \
		"$router $through"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

out=$WORK/ctl_wake
: >"$out"
for rep in $(seq "$REPS"); do
	for i in "${!builds[@]}"; do
		tag=$([ "$i" = 0 ] && echo this || echo base)
		read -r w c pr pt <<<"$(measure "${builds[$i]}")"
		echo "rep $rep, $tag build: wakeups/s $w, cpu ms/s $c, ping router $pr ms, through $pt ms" >&2
		echo "$tag $w $c $pr $pt" >>"$out"
	done
done
for tag in this base; do
	[ "$tag" = base ] && [ ${#builds[@]} = 1 ] && break
	key=
	[ "$tag" = base ] && key=base_
	col() { awk -v t="$tag" -v k="$1" '$1 == t { print $(k + 1) }' "$out" | median; }
	echo "${key}ctl_wakeups_per_s $(col 1)"
	echo "${key}ctl_cpu_ms_per_s $(col 2)"
	echo "${key}ping_router_ms $(col 3)"
	echo "${key}ping_through_ms $(col 4)"
	echo "${key}ping_router_vs_through $(awk -v t="$tag" '$1 == t { print $4 / $5 }' "$out" | median | xargs printf "%.2f")"
done
