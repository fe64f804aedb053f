#!/usr/bin/env bash
# The kernel route mirror's rate (issue 28; docs/control-plane.md):
#   kernel4_routes_per_s  the vendored IPv4 table (564,580 prefixes) added
#       to the kernel's main table in routerd's namespace by one
#       `ip -batch` (via a gateway on routerd's port0 TAP, proto bird),
#       prefixes over the seconds `ip` took;
#   mirror4_routes_per_s  the same prefixes over the seconds from the
#       batch's start until routerd's mirror had added them all (routerd
#       follows while the kernel installs; polled every 50 ms);
#   mirror4_vs_kernel  the second over the first: 1.00 when routerd keeps
#       up and the kernel is the bottleneck;
#   kernel4_alone_routes_per_s  the same batch into a namespace of its own
#       with nobody listening (a veth's gateway), and with `ip monitor
#       route` listening (kernel4_listened_routes_per_s): what the
#       notifications cost the kernel, whoever reads them;
#   mirror4_vs_kernel_alone  mirror4_routes_per_s over the first;
#   mirror4_del_routes_per_s, kernel4_del_routes_per_s  the same for
#       `ip route flush proto bird`;
#   mirror4_resync_s  with the table in place, a resynchronisation (port1,
#       which has no routes, set down: the tables dumped and reconciled),
#       from the command to `mirror resyncs` counting it; meanwhile h1
#       pings the router's port0 100 times a second:
#       mirror4_resync_ping_max_ms, its worst round trip, and
#       mirror4_resync_ping_lost.
# Medians of RUNS (3) runs, in one routerd (ports on, idle backoff on: a
# routerd as an operator runs it). mirror resyncs counts lost
# notifications (each a dump of the tables).
#
#   bench/mirror_bench.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
RUNS=${RUNS:-3}
NS_PREFIX=${NS_PREFIX:-mb}
# shellcheck source=../scripts/netns.sh
. scripts/netns.sh
work=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
ns_cleanup
zcat bench/data/prefixes-v4.txt.gz |
	awk '{ print "route add " $1 " via 10.0.0.2 dev port0 proto bird" }' >"$work/add"
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }
now() { date +%s.%N; }
# The kernel alone: port0 a veth of its own in another namespace.
kns=${NS_PREFIX}-kernel
ip netns add "$kns"
ip -n "$kns" link add port0 type veth peer name peer0
ip -n "$kns" link set port0 up
ip -n "$kns" link set peer0 up
ip -n "$kns" addr add 10.0.0.1/24 dev port0
k_alone=() k_heard=()
for i in $(seq "$RUNS"); do
	for listen in 0 1; do
		mon=
		if [ $listen -eq 1 ]; then
			ip -n "$kns" monitor route >/dev/null &
			mon=$!
			sleep 0.2
		fi
		t0=$(now)
		ip -n "$kns" -force -batch "$work/add" 2>/dev/null || true
		t1=$(now)
		n=$(ip -n "$kns" route show proto bird | wc -l)
		if [ -n "$mon" ]; then
			kill "$mon"
			wait "$mon" 2>/dev/null || true
			k_heard+=("$(rate "$n" "$t0" "$t1")")
		else
			k_alone+=("$(rate "$n" "$t0" "$t1")")
		fi
		ip -n "$kns" route flush proto bird
	done
done
ip netns del "$kns"
ns_router
ns_link h1
ns_link h2
ns_addr h1 10.0.0.2/24
printf 'addr add 10.0.0.1/24 dev port0\naddr add 10.0.1.1/24 dev port1\n' >"$work/startup"
RT_OUT=$work/log ns_start_router "$build" "$work/sock" "$work/startup" || {
	cat "$work/log" >&2
	exit 1
}
rc() { "$build/app/routerctl" -S "$work/sock" "$@"; }
mstat() { rc stats | awk -v n="$1" '$1 == "mirror" && $2 == n { print $3 }'; }
# until_count NAME TARGET: poll routerd's mirror counter NAME up to TARGET.
until_count() {
	local end=$((SECONDS + 600))
	while [ "$(mstat "$1")" -lt "$2" ] && [ $SECONDS -lt $end ]; do
		sleep 0.05
	done
}
k_add=() m_add=() k_del=() m_del=() resync=() pmax=() plost=()
for i in $(seq "$RUNS"); do
	added=$(mstat added)
	deleted=$(mstat deleted)
	t0=$(now)
	ip -n "$RT_NS" -force -batch "$work/add" 2>"$work/batch.err" || true
	t1=$(now)
	# n: what the same batch left in the kernel alone (counting the
	# kernel's routes now would take a second of the time measured).
	until_count added $((added + n))
	t2=$(now)
	got=$(($(mstat added) - added))
	kn=$(ip -n "$RT_NS" route show proto bird | wc -l)
	[ "$kn" -eq "$n" ] || { echo "the kernel has $kn routes, not $n" >&2; exit 1; }
	# A resynchronisation with the table in place (port1, without
	# routes, set down: a full dump), while h1 pings the router.
	r0=$(mstat resyncs)
	ip netns exec "$(ns_host h1)" ping -q -i 0.01 -c 200 10.0.0.1 >"$work/ping" 2>&1 &
	ping=$!
	sleep 0.3
	t6=$(now)
	rc link set port1 down
	while [ "$(mstat resyncs)" -le "$r0" ]; do sleep 0.01; done
	t7=$(now)
	rc link set port1 up
	while [ "$(mstat resyncs)" -le $((r0 + 1)) ]; do sleep 0.01; done
	wait "$ping" || true
	resync+=("$(echo "$t7 - $t6" | bc)")
	pmax+=("$(awk -F/ '/^rtt/ { print $7 }' "$work/ping")")
	plost+=("$(awk '/transmitted/ { print $1 - $4 }' "$work/ping")")
	t3=$(now)
	ip -n "$RT_NS" route flush proto bird
	t4=$(now)
	until_count deleted $((deleted + n))
	t5=$(now)
	k_add+=("$(rate "$n" "$t0" "$t1")") m_add+=("$(rate "$n" "$t0" "$t2")")
	k_del+=("$(rate "$n" "$t3" "$t4")") m_del+=("$(rate "$n" "$t3" "$t5")")
	echo "# run $i: $n routes in the kernel in $(echo "$t1 - $t0" | bc) s, $got in routerd" \
		"after $(echo "$t2 - $t0" | bc) s; flushed in $(echo "$t4 - $t3" | bc) s," \
		"routerd after $(echo "$t5 - $t3" | bc) s; resyncs $(mstat resyncs)"
	[ "$got" -eq "$n" ] || { echo "routerd has $got of $n routes" >&2; exit 1; }
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ka=$(median "${k_add[@]}") ma=$(median "${m_add[@]}") kalone=$(median "${k_alone[@]}")
echo "kernel4_alone_routes_per_s $kalone"
echo "kernel4_listened_routes_per_s $(median "${k_heard[@]}")"
echo "kernel4_routes_per_s $ka"
echo "mirror4_routes_per_s $ma"
echo "mirror4_vs_kernel $(awk -v a="$ma" -v b="$ka" 'BEGIN { printf "%.2f", a / b }')"
echo "mirror4_vs_kernel_alone $(awk -v a="$ma" -v b="$kalone" 'BEGIN { printf "%.2f", a / b }')"
echo "kernel4_del_routes_per_s $(median "${k_del[@]}")"
echo "mirror4_del_routes_per_s $(median "${m_del[@]}")"
echo "mirror4_resync_s $(median "${resync[@]}")"
echo "mirror4_resync_ping_max_ms $(median "${pmax[@]}")"
echo "mirror4_resync_ping_lost $(median "${plost[@]}")"
