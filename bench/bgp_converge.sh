#!/usr/bin/env bash
# A full table by BGP (issue 28; docs/control-plane.md): an upstream
# (BIRD in host h2, 198.51.100.2, AS 65002) announces the vendored IPv4
# table (564,580 prefixes) to the router's daemon in routerd's namespace,
# BIRD with config/bird.conf or FRR (zebra and bgpd) with config/frr.conf.
# Times from the session's Established (polled every 0.1 s):
#   bgp_converge4_<daemon>_kernel_s   to the last prefix in the kernel's
#       table (/proc/net/fib_triestat's count, sampled every 0.1 s with
#       routerd's, until neither moves: the first sample at its final
#       count): the daemon's and the kernel's work;
#   bgp_converge4_<daemon>_routerd_s  to the last prefix in routerd's FIB
#       (mirror added), where it forwards;
#   bgp_converge4_<daemon>_lag  routerd's extra time over the kernel's
#       ((routerd_s - kernel_s) / kernel_s; the goal is at most 0.10).
# Medians of RUNS (3) runs a daemon; each run a fresh routerd and daemon.
#
#   bench/bgp_converge.sh [BUILD_DIR] [bird|frr ...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
shift || true
daemons=("${@:-bird}")
[ $# -eq 0 ] && daemons=(bird frr)
RUNS=${RUNS:-3}
NS_PREFIX=${NS_PREFIX:-bc}
# shellcheck source=../scripts/netns.sh
. scripts/netns.sh
work=$(mktemp -d)
pids=()
stop_all() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	pids=()
	ns_cleanup
}
trap 'stop_all; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
ns_cleanup
zcat bench/data/prefixes-v4.txt.gz | awk '!seen[$1]++ { print $1 }' >"$work/prefixes"
np=$(wc -l <"$work/prefixes")
{
	echo "router id 198.51.100.2;"
	echo "protocol device { scan time 5; }"
	echo "protocol static table4 { ipv4;"
	awk '{ print "  route " $1 " unreachable;" }' "$work/prefixes"
	echo "}"
	echo "protocol bgp rtr { local 198.51.100.2 as 65002; neighbor 198.51.100.1 as 65001;"
	echo "  hold time 240; keepalive time 80; connect retry time 1;"
	echo "  ipv4 { import none; export all; }; }"
} >"$work/peer.conf"
mkdir -p "$work/frr"
chown frr:frr "$work/frr" 2>/dev/null || true
chmod 711 "$work"

rc() { "$build/app/routerctl" -S "$work/sock" "$@"; }
added() { rc stats | awk '$1 == "mirror" && $2 == "added" { print $3 }'; }
kernel_prefixes() { ip netns exec "$RT_NS" awk '/^Main:/ { m = 1 } m && /Prefixes:/ { print $2; exit }' /proc/net/fib_triestat; }
established() {
	case $1 in
	bird) [[ "$(birdc -s "$work/rtr.ctl" show protocols upstream 2>/dev/null)" == *Established* ]] ;;
	frr) [[ "$(ip netns exec "$RT_NS" vtysh --vty_socket "$work/frr" \
		-c 'show bgp neighbors 198.51.100.2 json' 2>/dev/null)" == *'"bgpState":"Established"'* ]] ;;
	esac
}
start_daemon() {
	case $1 in
	bird)
		ip netns exec "$RT_NS" bird -f -c config/bird.conf -s "$work/rtr.ctl" >>"$work/daemon.log" 2>&1 &
		pids+=($!)
		;;
	frr)
		local o=(-f "$PWD/config/frr.conf" -z "$work/frr/zserv.api" --vty_socket "$work/frr"
			--log "file:$work/frr/frr.log")
		ip netns exec "$RT_NS" /usr/lib/frr/zebra "${o[@]}" -i "$work/frr/zebra.pid" >>"$work/daemon.log" 2>&1 &
		pids+=($!)
		for _ in $(seq 50); do [ -S "$work/frr/zserv.api" ] && break; sleep 0.1; done
		ip netns exec "$RT_NS" /usr/lib/frr/bgpd "${o[@]}" -i "$work/frr/bgpd.pid" >>"$work/daemon.log" 2>&1 &
		pids+=($!)
		;;
	esac
}
now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for d in "${daemons[@]}"; do
	ks=() rs=() lags=()
	for i in $(seq "$RUNS"); do
		ns_two_hosts
		printf 'addr add 192.0.2.1/24 dev port0\naddr add 198.51.100.1/24 dev port1\n' >"$work/startup"
		RT_OUT=$work/routerd.log ns_start_router "$build" "$work/sock" "$work/startup" || {
			cat "$work/routerd.log" >&2
			exit 1
		}
		ip netns exec "$(ns_host h2)" bird -f -c "$work/peer.conf" -s "$work/peer.ctl" >>"$work/peer.log" 2>&1 &
		pids+=($!)
		# The peer has its table before the session starts.
		until [[ "$(birdc -s "$work/peer.ctl" show route count 2>/dev/null)" == *"$np of $np"* ]]; do
			sleep 0.5
		done
		base=$(kernel_prefixes)
		start_daemon "$d"
		until established "$d"; do sleep 0.1; done
		t0=$(now)
		# Both counts a sample, until routerd has the table and the
		# kernel's count has not moved for a second; then each side's
		# time is its first sample at its final count.
		: >"$work/series"
		last= same=0
		while :; do
			k=$(($(kernel_prefixes) - base)) a=$(added)
			echo "$(now) $k $a" >>"$work/series"
			[ "$k" = "$last" ] && same=$((same + 1)) || same=0
			last=$k
			[ "$a" -ge "$np" ] && [ $same -ge 10 ] && break
			sleep 0.1
		done
		tk=$(awk -v f="$k" '$2 >= f { print $1; exit }' "$work/series")
		tr=$(awk -v f="$a" '$3 >= f { print $1; exit }' "$work/series")
		k=$(echo "$tk - $t0" | bc) r=$(echo "$tr - $t0" | bc)
		ks+=("$k") rs+=("$r")
		lags+=("$(awk -v k="$k" -v r="$r" 'BEGIN { printf "%.3f", (r - k) / k }')")
		step=$(awk 'NR == 1 { a = $1 } { b = $1; c = NR } END { printf "%.2f", (b - a) / (c - 1) }' "$work/series")
		echo "# $d run $i: kernel ${k} s, routerd ${r} s after Established (a sample every $step s); resyncs $(rc stats | awk '$1 == "mirror" && $2 == "resyncs" { print $3 }')"
		stop_all
	done
	echo "bgp_converge4_${d}_kernel_s $(median "${ks[@]}")"
	echo "bgp_converge4_${d}_routerd_s $(median "${rs[@]}")"
	echo "bgp_converge4_${d}_lag $(median "${lags[@]}")"
done
