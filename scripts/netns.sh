# Shared by the demo (scripts/run.sh) and the integration tests: a router
# namespace holding routerd, and host namespaces wired to it by veth pairs
# whose router ends are net_af_packet ports. Source it; it defines
# functions only. Names carry a prefix ($NS_PREFIX) so runs do not clash.
#
# On the router side of each veth: no kernel address, ARP off, IPv6 off,
# and a port of a bridge that stays down (rt-sink), so the namespace's own
# stack never sees its frames, as it would not see a NIC's bound to DPDK:
# routerd's af_packet socket takes each frame before the bridge drops it.
# Without that, the namespace's stack, which holds the router's addresses
# on the TAPs, would answer pings and take TCP segments beside routerd.
# Offloads off on both ends, so the packets on the wire are real.

NS_PREFIX=${NS_PREFIX:-rt}
RT_NS=${NS_PREFIX}-rtr
RT_PORTS=()
RT_VDEVS=()
RT_PID=

ns_host() { echo "${NS_PREFIX}-$1"; }

# ns_link HOST: a host namespace and its link to the router; the router
# port it gets is the next net_af_packet vdev.
ns_link() {
	local h=$1 hn rv hv
	hn=$(ns_host "$h")
	rv="r-$h"
	hv="$h-r"
	ip netns add "$hn"
	ip link add "$rv" type veth peer name "$hv"
	ip link set "$rv" netns "$RT_NS"
	ip link set "$hv" netns "$hn"
	ip netns exec "$RT_NS" sysctl -qw "net.ipv6.conf.$rv.disable_ipv6=1"
	ip netns exec "$RT_NS" ip link set "$rv" master rt-sink
	ip netns exec "$RT_NS" ip link set "$rv" arp off up
	ip netns exec "$RT_NS" ethtool -K "$rv" tx off rx off tso off gso off gro off >/dev/null 2>&1 || true
	ip netns exec "$hn" ip link set lo up
	ip netns exec "$hn" ip link set "$hv" up
	ip netns exec "$hn" ethtool -K "$hv" tx off rx off tso off gso off gro off >/dev/null 2>&1 || true
	ip netns exec "$hn" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
	RT_PORTS+=("$rv")
}

ns_router() {
	ip netns add "$RT_NS"
	ip netns exec "$RT_NS" ip link set lo up
	# Never set up: its ports drop what they receive (see the top).
	ip netns exec "$RT_NS" ip link add rt-sink type bridge
}

# ns_addr HOST ADDR/LEN [GATEWAY]: an address, and a default route via
# the router for its family.
ns_addr() {
	local hn fam=-4
	hn=$(ns_host "$1")
	case $2 in *:*) fam=-6 ;; esac
	ip netns exec "$hn" ip $fam addr add "$2" dev "$1-r" $([ $fam = -6 ] && echo nodad)
	[ -n "${3:-}" ] && ip netns exec "$hn" ip $fam route add default via "$3"
	return 0
}

# ns_two_hosts: the router and two hosts, h1 on port0 (192.0.2.2,
# 2001:db8:1::2) and h2 on port1 (198.51.100.2, 2001:db8:2::2), each with
# default routes via the router's .1 / ::1 on its link.
ns_two_hosts() {
	ns_router
	ns_link h1
	ns_link h2
	ns_addr h1 192.0.2.2/24 192.0.2.1
	ns_addr h1 2001:db8:1::2/64 2001:db8:1::1
	ns_addr h2 198.51.100.2/24 198.51.100.1
	ns_addr h2 2001:db8:2::2/64 2001:db8:2::1
}

ns_exec() {
	local hn
	hn=$(ns_host "$1")
	shift
	ip netns exec "$hn" "$@"
}

# ns_start_router BUILD SOCKET STARTUP [extra routerd options...]
# RT_LCORES (EAL lcores, default "-l 0,1"), RT_QPAIRS (queue pairs per
# port: one per worker, default 1), RT_VDEVS (an array of more EAL --vdev
# arguments: ports after the hosts' ones) and RT_OUT (a file for routerd's
# output and log, default stdout) may be set. RT_PMD=pcap makes the
# hosts' ports net_pcap on their veths instead of net_af_packet: the
# af_packet PMD joins a fanout group with PACKET_FANOUT_FLAG_DEFRAG, so
# Linux reassembles IPv4 fragments before routerd sees them, where a NIC
# would hand routerd each fragment as it came (docs/development.md).
ns_start_router() {
	local build=$1 sock=$2 startup=$3 vdevs=() i=0 mem
	shift 3
	for p in "${RT_PORTS[@]}"; do
		if [ "${RT_PMD:-af_packet}" = pcap ]; then
			vdevs+=("--vdev=net_pcap$i,iface=$p")
		else
			vdevs+=("--vdev=net_af_packet$i,iface=$p,qpairs=${RT_QPAIRS:-1}")
		fi
		i=$((i + 1))
	done
	for v in "${RT_VDEVS[@]}"; do
		vdevs+=("--vdev=$v")
	done
	mem=$(cat "$build/eal-mem.opts" 2>/dev/null || echo "--no-huge -m 512")
	[ -n "$mem" ] || mem="-m 512"
	rm -f "$sock"
	# shellcheck disable=SC2086
	ip netns exec "$RT_NS" "$build/app/routerd" ${RT_LCORES:--l 0,1} $mem --no-pci \
		--file-prefix="$NS_PREFIX" --log-level=lib.eal:error "${vdevs[@]}" -- \
		--socket "$sock" --startup "$startup" "$@" >>"${RT_OUT:-/dev/stdout}" 2>&1 &
	RT_PID=$!
	for _ in $(seq 100); do
		[ -S "$sock" ] && return 0
		kill -0 "$RT_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# ns_stop_router: SIGINT, and routerd's exit status in RT_STATUS (0 when
# it stopped as asked; a routerd that was gone already, or died by a
# signal, leaves its status there: 128 + the signal).
RT_STATUS=0
ns_stop_router() {
	RT_STATUS=0
	[ -n "$RT_PID" ] || return 0
	if kill -0 "$RT_PID" 2>/dev/null; then
		kill -INT "$RT_PID"
		for _ in $(seq 50); do
			kill -0 "$RT_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$RT_PID" 2>/dev/null || true
	fi
	wait "$RT_PID" 2>/dev/null || RT_STATUS=$?
	RT_PID=
}

ns_cleanup() {
	local n
	ns_stop_router
	for n in $(ip netns list | awk '{print $1}'); do
		case $n in "$NS_PREFIX"-*) ip netns del "$n" 2>/dev/null || true ;; esac
	done
	RT_PORTS=()
	# DPDK leaves a primary's hugepage files behind (for secondaries):
	# without this, every demo run kept its 512 MiB of hugepages.
	rm -f /dev/hugepages/"$NS_PREFIX"map_* 2>/dev/null || true
}
