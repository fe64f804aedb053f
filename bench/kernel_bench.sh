#!/usr/bin/env bash
# The Linux kernel as a baseline (issue 6, part 3).
#
#   bench/kernel_bench.sh [BUILD_DIR]        (RUNS=7 by default)
#
# Forwarding: a namespace kb-rt acting as the router, with the full IPv4
# table loaded, between a generator namespace and a sink namespace, veth
# pairs on both sides:
#   kb-gen [pkt_gen on kg0] -- kr0 [kb-rt] kr1 -- ks0 [kb-sink]
# pkt_gen (bench/pkt_gen.c, DPDK on net_af_packet, pinned to CPU 0) sends
# 64-byte UDP frames to random addresses in random prefixes of the table,
# the ring loop's pattern. RPS puts kr0's receive processing, that is the
# kernel's whole forwarding path, on CPU 1. The sink drops every frame
# with an XDP program on ks0 (bench/xdp_drop.py: two BPF instructions
# loaded through bpf(2), no clang needed), as issue 6 asks, so it costs
# next to nothing; veth runs it on the transmitting CPU, CPU 1, at the
# cost of a driver-level drop. SINK=ip drops in the sink's IP layer
# instead (forwarding off, no route to the destinations), with RPS
# putting that on CPU 0; it is also the fallback when XDP cannot be
# attached. The rate is kr1's transmitted packets a second
# (median of RUNS one-second intervals). The generator on one core may
# not saturate CPU 1, so CPU 1's busy share (/proc/stat) is read too and
# the rate is also given per busy core (rate / busy share), an upper
# bound of what the kernel would do with CPU 1 saturated.
# fwd4_vs_kernel divides routerd's ring-loop rate on the same table
# (bench/fwd_bench.sh) by that upper bound.
#
# Route loading: the full IPv4 table with `ip -batch` into kb-rt, against
# `routerctl -b` into routerd (two net_ring ports), same routes, same
# gateway; each timed with `date +%s.%N` around the command, median of 3.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
RUNS=${RUNS:-7}
work=$build/kernel-bench
mkdir -p "$work"
gen_pid='' rt_pid=''
cleanup() {
	for p in $gen_pid $rt_pid; do
		kill -INT "$p" 2>/dev/null && wait "$p" 2>/dev/null || true
	done
	for ns in kb-gen kb-rt kb-sink; do ip netns del "$ns" 2>/dev/null || true; done
	rm -f /dev/hugepages/kbmap_* /dev/hugepages/kbgmap_* 2>/dev/null || true
}
trap cleanup EXIT
cleanup

zcat bench/data/prefixes-v4.txt.gz | awk '!seen[$1]++ { print $1, 0 }' >"$work/full4"
awk '{ print "route add " $1 " via 198.51.100.2" }' "$work/full4" >"$work/batch"
routes=$(wc -l <"$work/full4")

for ns in kb-gen kb-rt kb-sink; do
	ip netns add "$ns"
	ip netns exec "$ns" ip link set lo up
done
ip link add kg0 netns kb-gen type veth peer name kr0 netns kb-rt
ip link add kr1 netns kb-rt type veth peer name ks0 netns kb-sink
for pair in kb-gen:kg0 kb-rt:kr0 kb-rt:kr1 kb-sink:ks0; do
	ns=${pair%:*} dev=${pair#*:}
	ip netns exec "$ns" ip link set "$dev" up
	ip netns exec "$ns" ethtool -K "$dev" tx off rx off tso off gso off gro off >/dev/null 2>&1 || true
done
ip netns exec kb-rt sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
	net.ipv4.conf.kr0.rp_filter=0 net.ipv4.icmp_ratelimit=1000
ip netns exec kb-rt ip addr add 192.0.2.1/24 dev kr0
ip netns exec kb-rt ip addr add 198.51.100.1/24 dev kr1
ip netns exec kb-sink ip addr add 198.51.100.2/24 dev ks0
sink_mac=$(ip netns exec kb-sink cat /sys/class/net/ks0/address)
ip netns exec kb-rt ip neigh replace 198.51.100.2 lladdr "$sink_mac" dev kr1 nud permanent
ip netns exec kb-rt sh -c 'echo 2 > /sys/class/net/kr0/queues/rx-0/rps_cpus'
ip netns exec kb-sink sh -c 'echo 1 > /sys/class/net/ks0/queues/rx-0/rps_cpus'
sink=ip
if [ "${SINK:-xdp}" = xdp ]; then
	if ip netns exec kb-sink python3 bench/xdp_drop.py ks0 >&2; then
		sink=xdp
	else
		echo "kernel_bench: XDP not attached; the sink drops in its IP layer" >&2
	fi
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }

# Route loading, kernel: into kb-rt (flushed between runs).
kt=()
for _ in 1 2 3; do
	ip netns exec kb-rt ip route flush proto static 2>/dev/null || true
	ip netns exec kb-rt ip route flush proto boot 2>/dev/null || true
	t0=$(now)
	ip netns exec kb-rt ip -batch "$work/batch"
	t1=$(now)
	kt+=("$(echo "$t1 - $t0" | bc -l)")
done
kernel_load=$(printf '%s\n' "${kt[@]}" | median)
echo "kernel_routes $(ip netns exec kb-rt ip route show | wc -l)"

# Route loading, routerd: a fresh daemon each run, two net_ring ports.
rt=()
for _ in 1 2 3; do
	rm -f "$work/sock"
	printf 'addr add 192.0.2.1/24 dev port0\naddr add 198.51.100.1/24 dev port1\n' >"$work/startup"
	"$build/app/routerd" -l 0,1 --no-pci --file-prefix=kb --log-level=lib.eal:error \
		--no-telemetry --vdev=net_ring0 --vdev=net_ring1 -- --no-control-ports --socket "$work/sock" \
		--startup "$work/startup" >"$work/routerd.log" 2>&1 &
	rt_pid=$!
	for _ in $(seq 100); do [ -S "$work/sock" ] && break; sleep 0.1; done
	t0=$(now)
	"$build/app/routerctl" -S "$work/sock" -b "$work/batch" >/dev/null
	t1=$(now)
	rt+=("$(echo "$t1 - $t0" | bc -l)")
	"$build/app/routerctl" -S "$work/sock" route show | wc -l >"$work/routerd_routes"
	kill -INT "$rt_pid"
	wait "$rt_pid" 2>/dev/null || true
	rt_pid=
done
routerd_load=$(printf '%s\n' "${rt[@]}" | median)
echo "routerd_routes $(cat "$work/routerd_routes")"

# Forwarding.
rt_mac=$(ip netns exec kb-rt cat /sys/class/net/kr0/address)
ip netns exec kb-gen "$build/bench/pkt_gen" -l 0 --no-pci --no-huge -m 256 --file-prefix=kbg \
	--log-level=lib.eal:error --no-telemetry --vdev=net_af_packet0,iface=kg0,qpairs=1 -- \
	--table "$work/full4" --dmac "$rt_mac" --seconds $((RUNS + 3)) >"$work/gen.log" 2>&1 &
gen_pid=$!
sleep 2
txp() { ip netns exec kb-rt cat /sys/class/net/kr1/statistics/tx_packets; }
rxp() { ip netns exec kb-rt cat /sys/class/net/kr0/statistics/rx_packets; }
# CPU 1's busy and total jiffies (/proc/stat: user nice system idle
# iowait irq softirq steal).
cpu1() { awk '$1 == "cpu1" { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
rates=() caps=()
for _ in $(seq "$RUNS"); do
	a=$(txp) r0=$(rxp) t0=$(now)
	read -r busy0 all0 < <(cpu1)
	sleep 1
	b=$(txp) r1=$(rxp) t1=$(now)
	read -r busy1 all1 < <(cpu1)
	fwd=$(echo "($b - $a) / ($t1 - $t0) / 1000000" | bc -l)
	util=$(echo "($busy1 - $busy0) / ($all1 - $all0)" | bc -l)
	rates+=("$fwd")
	caps+=("$(echo "$fwd / $util" | bc -l)")
	printf 'interval: forwarded %.3f Mpps, received %.3f Mpps, CPU 1 busy %.0f%%\n' "$fwd" \
		"$(echo "($r1 - $r0) / ($t1 - $t0) / 1000000" | bc -l)" "$(echo "$util * 100" | bc -l)" >&2
done
wait "$gen_pid" || true
gen_pid=
grep '^sent ' "$work/gen.log" >&2 || cat "$work/gen.log" >&2
kernel_mpps=$(printf '%s\n' "${rates[@]}" | median)
kernel_cap=$(printf '%s\n' "${caps[@]}" | median)

echo "kernel_sink $sink"
printf 'kernel_fwd4_mpps %.3f\n' "$kernel_mpps"
printf 'kernel_fwd4_mpps_per_busy_core %.3f\n' "$kernel_cap"
printf 'kernel_load4_seconds %.2f\n' "$kernel_load"
printf 'routerd_load4_seconds %.2f\n' "$routerd_load"
printf 'load4_routes %d\n' "$routes"
printf 'load4_vs_kernel %.2f\n' "$(echo "$kernel_load / $routerd_load" | bc -l)"
