#!/usr/bin/env bash
# Carrier, as Linux treats it: a port whose link goes down (a memif port
# whose peer, bench/pkt_gen, is killed) says NO-CARRIER in link show and
# JSON; its routes become linkdown and a backup route by metric takes the
# flow within 100 ms of the loss; its learnt neighbours are flushed and
# the permanent one stays; traffic routed only through it is answered as
# unroutable, never counted as forwarded or as tx_full; an ECMP group's
# member on it stops taking flows while the other member's flows stay;
# when carrier returns, everything comes back. port2's control-plane
# TAP follows the carrier, so daemons see the link go as they would a
# NIC's. Set down, port2 takes nothing in. Then the peer reconnects
# twenty times under load, and routerd is alive and forwards. Last,
# port1 (af_packet on a veth, whose driver always reports a link) has
# the carrier of its veth: none while h2's end is down.
. "$(dirname "$0")/lib.sh"
two_hosts
MSOCK=$WORK/memif.sock
RT_VDEVS=("net_memif0,role=server,socket=$MSOCK,socket-abstract=no,mac=02:00:00:00:99:01")
ns_exec h2 ip addr add 10.99.0.1/32 dev lo
ns_exec h2 ip addr add 10.97.0.1/32 dev lo
cat >>"$WORK/startup" <<EOS
addr add 10.200.0.1/24 dev port2
neigh add 10.200.0.2 lladdr 02:00:00:00:99:02 dev port2
route add 10.99.0.0/16 via 10.200.0.2 metric 10
route add 10.99.0.0/16 via 198.51.100.2 metric 20
route add 10.98.0.0/16 via 10.200.0.2
route add blackhole 10.250.0.0/16
nexthop add id 1 via 10.200.0.2 dev port2
nexthop add id 2 via 198.51.100.2 dev port1
nexthop add id 10 group 1/2
route add 10.97.0.0/16 nhid 10
EOS
echo "10.250.0.0/16 x" >"$WORK/peer-table"
start_router
"$BUILD/app/routerctl" -S "$SOCK" -j monitor link >"$WORK/links" 2>&1 &
mon=$!

mem=$(cat "$BUILD/eal-mem.opts" 2>/dev/null || echo "--no-huge -m 512")
[ -n "$mem" ] || mem="-m 512"
PEER=
# peer_start RATE: the memif peer, sending RATE packets a second to a
# blackholed /16 (and taking what routerd sends it).
peer_start() {
	# shellcheck disable=SC2086
	"$BUILD/bench/pkt_gen" -l 0 $mem --no-pci --no-telemetry --file-prefix="$NS_PREFIX-peer" \
		--log-level=lib.eal:error "--vdev=net_memif0,role=client,socket=$MSOCK,socket-abstract=no" \
		-- --table "$WORK/peer-table" --dmac 02:00:00:00:99:01 --rate "$1" --seconds 600 \
		>>"$WORK/peer.log" 2>&1 &
	PEER=$!
}
peer_kill() {
	kill -KILL "$PEER" 2>/dev/null
	wait "$PEER" 2>/dev/null
	PEER=
}
oper() { rc -j link show "${1:-port2}" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["operstate"])'; }
# wait_oper STATE [PORT]: until PORT's (port2's) operstate is STATE (5 s at most).
wait_oper() {
	for _ in $(seq 500); do
		[ "$(oper "${2:-port2}")" = "$1" ] && return 0
		sleep 0.01
	done
	return 1
}
# The egress port `route get` names for 10.97.0.1 from 200 UDP flows.
ecmp_ports() {
	for s in $(seq 1000 1199); do
		echo "route get 10.97.0.1 from 192.0.2.2 iif port0 ipproto udp sport $s dport 5000"
	done | rc -b - | grep -o 'dev port[0-9]*' | awk '{ print $2 }'
}
counter() { rc -j stats | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

echo "no peer yet: no carrier"
expect_out "link show: NO-CARRIER, state DOWN" \
	"^2: port2: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 state DOWN" rc link show port2
expect_out "... in JSON: operstate DOWN, its flags" \
	'"flags":\["NO-CARRIER","BROADCAST","MULTICAST","UP"\],"mtu":1500,"operstate":"DOWN"' \
	rc -j link show port2
expect_out "its routes linkdown" "^10.99.0.0/16 via 10.200.0.2 dev port2 metric 10 linkdown$" \
	rc route show 10.99.0.0/16
expect_out "the backup by metric answers" "via 198.51.100.2 dev port1" rc route get 10.99.0.1
tap() { ip netns exec "$RT_NS" ip "$@"; }
expect_out "its TAP has no carrier either" "^[0-9]+: port2: <NO-CARRIER,.*UP> .*state DOWN" \
	tap link show port2
expect_out "... and Linux's route through it is linkdown" "^10.200.0.0/24 .*linkdown" \
	tap route show dev port2

echo "the peer connects: carrier"
peer_start 1000
check "carrier within 5 s" wait_oper UP
expect_out "link show: LOWER_UP, state UP" \
	"^2: port2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP" rc link show port2
expect_out "the route through port2 answers" "via 10.200.0.2 dev port2" rc route get 10.99.0.1
expect_out "its TAP has carrier" "^[0-9]+: port2: <.*LOWER_UP> .*state UP" tap link show port2
ecmp_ports >"$WORK/ecmp.before"
check "ECMP: both members take flows" test "$(sort -u "$WORK/ecmp.before" | wc -l)" -eq 2

echo "the peer dies under a flow: the backup takes it"
ns_exec h1 ping -c 1 -W 1 10.200.0.9 >/dev/null # a learnt (incomplete) neighbour on port2
expect_out "a learnt neighbour on port2" "^10.200.0.9 dev port2" rc neigh show dev port2 nud all
receive_t() {
	ns_exec "$1" python3 "$ROOT/tests/integration/udp_flows.py" recvt "$2" "$WORK/$1.rx" "$3" &
	BG+=($!)
	sleep 0.5
}
receive_t h2 5000 9
background flows send 10.99.0.1 5000 1 14000 - 2000 # 7 s at 2000 a second
sleep 1.5
t_down=$(date +%s.%N)
peer_kill
check "carrier lost within 1 s" wait_oper DOWN
expect_out "link show: NO-CARRIER again" "<NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 state DOWN" \
	rc link show port2
expect_out "its TAP too" "^[0-9]+: port2: <NO-CARRIER,.*UP> .*state DOWN" tap link show port2
expect_out "routes linkdown" "^10.99.0.0/16 via 10.200.0.2 dev port2 metric 10 linkdown$" \
	rc route show 10.99.0.0/16
check "learnt neighbours flushed" test "$(rc neigh show dev port2 nud all | grep -c 10.200.0.9)" -eq 0
expect_out "the permanent one kept" "^10.200.0.2 dev port2 lladdr 02:00:00:00:99:02 PERMANENT$" \
	rc neigh show dev port2
ecmp_ports >"$WORK/ecmp.down"
check "ECMP: every flow on port1 now" test "$(sort -u "$WORK/ecmp.down")" = port1
check "ECMP: the flows that were on port1 did not move" \
	test "$(paste "$WORK/ecmp.before" "$WORK/ecmp.down" | awk '$1 == "port1" && $2 != "port1"' | wc -l)" -eq 0
# Traffic routed only through port2: unroutable now (ICMP net
# unreachable, as Linux), not forwarded, not tx_full.
txfull0=$(counter drop.tx_full)
noroute0=$(counter punt.no_route)
ns_exec h1 python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(200):
    s.sendto(b"x" * 64, ("10.98.0.1", 6000))
    time.sleep(0.0005)'
sleep 0.3
check "traffic only through port2: no route" test $(($(counter punt.no_route) - noroute0)) -ge 200
check "... and no tx_full" test "$(counter drop.tx_full)" -eq "$txfull0"
sleep 1
t_up=$(date +%s.%N)
peer_start 1000
check "carrier back" wait_oper UP
t_upseen=$(date +%s.%N)
expect_out "the route through port2 answers again" "via 10.200.0.2 dev port2" rc route get 10.99.0.1
ecmp_ports >"$WORK/ecmp.after"
check "ECMP: flows on port1 throughout stay on port1" \
	test "$(paste "$WORK/ecmp.before" "$WORK/ecmp.after" | awk '$1 == "port1" && $2 != "port1"' | wc -l)" -eq 0
check "ECMP: port2 takes flows again" grep -q port2 "$WORK/ecmp.after"
wait_bg
python3 - "$WORK/h2.rx" "$t_down" "$t_up" "$t_upseen" >"$WORK/switch" <<'EOF'
import sys
t = [float(l.split()[0]) for l in open(sys.argv[1])]
down, up, seen = map(float, sys.argv[2:5])
before = [x for x in t if x < down]
during = [x for x in t if down <= x < up]
after = [x for x in t if x > seen + 0.1]
print("before %d" % len(before))
print("switch_ms %.1f" % ((during[0] - down) * 1000 if during else -1))
print("during %d" % len(during))
print("after %d" % len(after))
EOF
sed 's/^/    /' "$WORK/switch"
val() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/switch"; }
check "while port2 had carrier, the flow took it (h2 got none)" test "$(val before)" -eq 0
check "the backup took the flow within 100 ms of the loss" \
	python3 -c "import sys; v = float(sys.argv[1]); sys.exit(not 0 <= v <= 100)" "$(val switch_ms)"
check "... and carried it while carrier was down" test "$(val during)" -ge 1000
check "carrier back: the flow left the backup" test "$(val after)" -eq 0
check "the worker's forwarded and the total agree" python3 -c '
import json, sys
s = json.load(sys.stdin)
sys.exit(s["worker.worker0.forwarded"] != s["total.forwarded"])' < <(rc -j stats)

echo "port2 set down: what arrives on it is dropped"
# The peer goes on sending 1000 a second to the blackholed /16: taken in
# and blackholed while port2 is up, dropped as port_down while it is
# set down (Linux takes nothing in on a device that is down).
check "link set port2 down" rc link set port2 down
sleep 0.2
rx_dropped() { rc -s link show port2 | awk 'prev ~ /RX:/ { print $4 } { prev = $0 }'; }
bh0=$(counter drop.blackhole) pd0=$(counter drop.port_down) rd0=$(rx_dropped)
sleep 1
check "nothing from port2 reached the lookups" test "$(counter drop.blackhole)" -eq "$bh0"
pd=$(($(counter drop.port_down) - pd0)) rd=$(($(rx_dropped) - rd0))
check "... it was dropped as port_down" test "$pd" -ge 500
check "and counted in port2's RX dropped" test "$rd" -ge $((pd * 9 / 10))
check "link set port2 up" rc link set port2 up
bh1=$(counter drop.blackhole)
sleep 1
check "up again: taken in again" test $(($(counter drop.blackhole) - bh1)) -ge 500

echo "the peer reconnects twenty times under load"
peer_kill
wait_oper DOWN
for i in $(seq 20); do
	peer_start 200000
	wait_oper UP || break
	sleep 0.3
	peer_kill
	kill -0 "$RT_PID" 2>/dev/null || break
	wait_oper DOWN || break
done
check "routerd alive" kill -0 "$RT_PID"
check "and forwarding" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
check "carrier changes counted: 2 a reconnect and more" \
	test "$(rc -j link show port2 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["carrier_changes"])')" -ge 44
kill "$mon" 2>/dev/null
wait "$mon" 2>/dev/null
check "monitor -j: each carrier change a link event with its flags" \
	test "$(grep -c '"NO-CARRIER"' "$WORK/links")" -ge 22

echo "port1, af_packet on a veth: h2's end goes down and up"
ns_exec h2 ip link set h2-r down
check "no carrier within 1 s" wait_oper DOWN port1
expect_out "link show port1: NO-CARRIER" "<NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 state DOWN" \
	rc link show port1
expect_out "its routes linkdown" "^10.99.0.0/16 via 198.51.100.2 dev port1 metric 20 linkdown$" \
	rc route show 10.99.0.0/16
ns_exec h2 ip link set h2-r up
# (Linux dropped h2's default route with the link)
ns_exec h2 ip route replace default via 198.51.100.1
check "carrier back" wait_oper UP port1
check "and h2 answers through it" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
done_tests
