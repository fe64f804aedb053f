#!/usr/bin/env bash
# BIRD beside routerd (issue 28): BIRD runs in routerd's namespace with
# config/bird.conf, peers over the control-plane ports, and drives
# routerd's FIB through the kernel.
#  1. eBGP with h2 (BIRD, AS 65002), which announces 2,000 prefixes and a
#     /32 it holds on lo: the session comes up through punt and inject,
#     the routes reach routerd as proto bird, and h1 reaches the /32
#     through the workers; the same over IPv6 (its own session, 100
#     prefixes and a /128);
#  2. h2 withdraws a prefix: routerd drops it within a second; the
#     router's BIRD stops: its routes go from the kernel and routerd; it
#     starts again: they come back; a flow to h2's own address is not
#     interrupted meanwhile;
#  3. OSPF with h1 (BIRD): the adjacency reaches Full over port0
#     (multicast hellos both ways), and h1's loopback, learnt by OSPF, is
#     forwarded by routerd; OSPFv3 too (link-local addresses and next
#     hops, ff02::5);
#  4. a flood at the router's addresses while the session and a flow run
#     (UDP from the BGP peer itself, SYNs from h1): the session stays up,
#     the flow keeps its rate, the excess is counted.
. "$(dirname "$0")/lib.sh"
if ! command -v bird >/dev/null; then
	echo "  FAIL bird is not installed (make setup installs bird2)"
	exit 1
fi
two_hosts
ns_exec h1 ip addr add 10.200.0.1/32 dev lo
ns_exec h2 ip addr add 203.0.113.1/32 dev lo
ns_exec h1 ip addr add 2001:db8:aa::1/128 dev lo
ns_exec h2 ip addr add 2001:db8:bb::1/128 dev lo
start_router

# bird_start NS NAME CONF: BIRD in namespace NS (the router's: "-"), its
# control socket $WORK/NAME.ctl.
bird_start() {
	daemon "$1" "$WORK/$2.log" bird -f -c "$3" -s "$WORK/$2.ctl"
	eval "BIRD_$2=$LAST"
}
birdc_() { birdc -s "$WORK/$1.ctl" "${@:2}"; }
bird_routes() { rc route show proto bird | grep -c "${1:-.}" || true; }
bird_routes6() { rc -6 route show proto bird | grep -c "${1:-.}" || true; }
# Conditions re-evaluated at each poll of until_s.
routes_ge() { [ "$(bird_routes)" -ge "$1" ]; }
routes_eq() { [ "$(bird_routes "${2:-.}")" -eq "$1" ]; }
routes6_ge() { [ "$(bird_routes6 "${2:-.}")" -ge "$1" ]; }
routes6_eq() { [ "$(bird_routes6 "${2:-.}")" -eq "$1" ]; }

# The peer: 2,000 prefixes (100.64.0.0/24 ... 100.71.207.0/24) and its
# /32; over IPv6, 100 (2001:db8:1000::/48 ... 2001:db8:1063::/48) and its
# /128.
{
	echo "router id 198.51.100.2;"
	echo "protocol device { scan time 5; }"
	echo "protocol static announced { ipv4;"
	for i in $(seq 0 1999); do
		echo "  route 100.$((64 + i / 256)).$((i % 256)).0/24 unreachable;"
	done
	echo "  route 203.0.113.1/32 unreachable;"
	echo "}"
	echo "protocol bgp peer1 { local 198.51.100.2 as 65002; neighbor 198.51.100.1 as 65001;"
	echo "  hold time 30; keepalive time 10; connect retry time 2; error wait time 1, 5;"
	echo "  ipv4 { import none; export all; }; }"
	echo "protocol static announced6 { ipv6;"
	for i in $(seq 0 99); do
		echo "  route 2001:db8:$((1000 + i))::/48 unreachable;"
	done
	echo "  route 2001:db8:bb::1/128 unreachable;"
	echo "}"
	echo "protocol bgp peer6 { local 2001:db8:2::2 as 65002; neighbor 2001:db8:2::1 as 65001;"
	echo "  hold time 30; keepalive time 10; connect retry time 2; error wait time 1, 5;"
	echo "  ipv6 { import none; export all; }; }"
} >"$WORK/peer.conf"
sed 's|  route 100.64.5.0/24 unreachable;||' "$WORK/peer.conf" >"$WORK/peer-less.conf"
cat >"$WORK/ospf-peer.conf" <<EOF
router id 192.0.2.2;
protocol device { scan time 5; }
protocol direct { ipv4; interface "lo"; }
protocol direct direct6 { ipv6; interface "lo"; }
protocol ospf v2 { ipv4 { import none; export where source = RTS_DEVICE; };
  area 0 { interface "h1-r" { type broadcast; hello 1; dead 4; }; }; }
protocol ospf v3 { ipv6 { import none; export where source = RTS_DEVICE; };
  area 0 { interface "h1-r" { type broadcast; hello 1; dead 4; }; }; }
EOF
cp "$WORK/peer.conf" "$WORK/peer-now.conf"
bird_start h2 peer "$WORK/peer-now.conf"
bird_start - rtr "$ROOT/config/bird.conf"
bird_start h1 ospfpeer "$WORK/ospf-peer.conf"

echo "eBGP"
check "the session is Established within 20 s" \
	until_s 20 bash -c "birdc -s $WORK/rtr.ctl show protocols upstream | grep -q Established"
check "2,001 routes reach routerd as proto bird" until_s 20 routes_ge 2001
expect_out "... in JSON too, with their gateway" '"dst":"100.64.5.0/24","gateway":"198.51.100.2"' \
	rc -j route show proto bird
fwd0=$(stat total forwarded)
check "h1 reaches h2's /32 through routerd" ns_exec h1 ping -c 3 -i 0.2 -W 2 203.0.113.1
check "... forwarded by the workers" test "$(($(stat total forwarded) - fwd0))" -ge 4
check "the IPv6 session is Established too" \
	until_s 20 bash -c "birdc -s $WORK/rtr.ctl show protocols upstream6 | grep -q Established"
check "its 101 routes reach routerd" until_s 20 routes6_ge 101 '^2001:db8:\(10\|bb::1 \)'
fwd0=$(stat total forwarded)
check "h1 reaches h2's /128 through routerd" ns_exec h1 ping -6 -c 3 -i 0.2 -W 2 2001:db8:bb::1
check "... forwarded by the workers" test "$(($(stat total forwarded) - fwd0))" -ge 4

echo "withdraw and failure"
receive h2 5000 40
background flows send 198.51.100.2 5000 1 30000 - 1000 >"$WORK/sent"
sleep 1
cp "$WORK/peer-less.conf" "$WORK/peer-now.conf"
birdc_ peer configure >/dev/null
check "a withdrawn prefix leaves routerd within a second" \
	until_s 1 bash -c "! $BUILD/app/routerctl -S $SOCK route show 100.64.5.0/24 | grep -q ."
kill "$BIRD_rtr"
wait "$BIRD_rtr" 2>/dev/null
check "BIRD stopped: its routes leave routerd" until_s 10 routes_eq 0
check "... IPv6 ones too" until_s 10 routes6_eq 0
bird_start - rtr "$ROOT/config/bird.conf"
t0=$SECONDS
check "BIRD started again: they come back" until_s 30 routes_ge 2000
check "... the IPv6 ones too" until_s 30 routes6_ge 100 '^2001:db8:10'
echo "  back in $((SECONDS - t0)) s"
drain_bg
sent=30000
got=$(wc -l <"$WORK/h2.rx")
echo "  a flow to h2 meanwhile: $got of $sent packets"
check "it was not interrupted (at most 10 lost)" test "$got" -ge $((sent - 10))

echo "OSPF"
check "the adjacency is Full within 30 s" \
	until_s 30 bash -c "birdc -s $WORK/rtr.ctl show ospf neighbors | grep -q Full"
check "h1's loopback, by OSPF, reaches routerd" until_s 10 routes_eq 1 '^10.200.0.1 '
check "h2 reaches it through routerd" ns_exec h2 ping -c 2 -i 0.2 -W 2 10.200.0.1
check "the OSPFv3 adjacency is Full within 30 s" \
	until_s 30 bash -c "birdc -s $WORK/rtr.ctl show ospf neighbors ospf6 | grep -q Full"
check "h1's IPv6 loopback, by OSPFv3, reaches routerd via h1's link-local address" \
	until_s 10 routes6_eq 1 '^2001:db8:aa::1 via fe80:.* dev port0'
check "h2 reaches it through routerd" ns_exec h2 ping -6 -c 2 -i 0.2 -W 2 2001:db8:aa::1

echo "a flood at the router's address"
# since: the IPv4 session's state and since when. An empty answer (birdc
# read nothing, as it did once under the sanitizers right after a read
# that gave the time) is asked again, up to three times.
since() {
	local s i
	for i in 1 2 3; do
		s=$(birdc -s "$WORK/rtr.ctl" show protocols upstream | awk '/upstream/ {print $4, $5}')
		[ -n "$s" ] && break
		sleep 0.2
	done
	echo "$s"
}
# same_since A B: the same state since the same moment. BIRD prints the
# moment from its monotonic clock through the wall clock, to the
# millisecond, and two reads of one moment have differed by 1 ms: within
# a second is the same (a session that went down and up again during the
# 8-second flood would be later by seconds).
same_since() {
	[ "${1%% *}" = "${2%% *}" ] || return 1
	local a b
	a=$(date -d "${1#* }" +%s.%N 2>/dev/null) b=$(date -d "${2#* }" +%s.%N 2>/dev/null)
	[ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d < 1 && d > -1) }'
}
# retrans NS: segments the BGP connection over IPv4 retransmitted in NS
# (the router's: "-"), from the kernel's TCP info.
retrans() {
	local where=(ip netns exec "$RT_NS")
	[ "$1" != - ] && where=(ip netns exec "$(ns_host "$1")")
	"${where[@]}" ss -tin state established '( sport = :179 or dport = :179 )' |
		awk '/retrans:/ { for (i = 1; i <= NF; i++) if ($i ~ /^retrans:/) { split($i, a, "/"); n += a[2] } }
			END { printf "%d\n", n }'
}
up0=$(since)
rt0=$(retrans -) pr0=$(retrans h2)
rc stats reset
receive h2 5000 12
background flows send 198.51.100.2 5000 1 8000 - 1000 >"$WORK/sent"
# UDP from the BGP peer itself, at the port the session runs on; SYNs
# (BGP's port among them) from h1, on the other port.
background ns_exec h2 python3 -c '
import socket, time
end = time.time() + 8
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while time.time() < end:
    for p in range(200):
        u.sendto(b"x" * 32, ("198.51.100.1", 40000 + p))'
ns_exec h1 python3 -c '
import socket, time
end = time.time() + 8
while time.time() < end:
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    t.setblocking(False)
    try:
        t.connect(("192.0.2.1", 179))
    except BlockingIOError:
        pass
    t.close()'
drain_bg
got=$(wc -l <"$WORK/h2.rx")
echo "  the flow under the flood: $got of 8000; punts refused: $(stat port port1.cport_punt_limited) on port1, $(stat port port0.cport_punt_limited) on port0"
echo "  the BGP sessions' TCP retransmits meanwhile: $(($(retrans -) - rt0)) by the router, $(($(retrans h2) - pr0)) by the peer"
check "the flow kept its rate (95%)" test "$got" -ge 7600
up1=$(since)
echo "  the IPv4 session's state since $up0 before the flood, since $up1 after it"
check "the session stayed up" bash -c "birdc -s $WORK/rtr.ctl show protocols upstream | grep -q Established"
check "... without going down (the same since)" same_since "$up1" "$up0"
check "the excess was counted" test "$(stat port port1.cport_punt_limited)" -gt 0
check "no BGP segment was refused by the punt buckets" \
	test "$(stat port port1.cport_punt_limited_proto)" -eq 0
check "... nor by the exception path" test "$(stat port port1.exc_drop_proto)" -eq 0

echo "spoofed BGP segments from strangers"
# TCP segments with BGP's port and no SYN, from addresses the router's
# stack never talked BGP with: they take the rest's ring and bucket, not
# the session's (docs/control-plane.md, "The routing protocols' class").
check "the BGP peers were learnt from what the router sent them" \
	test "$(stat control proto_peers)" -ge 2
up0=$(since)
rt0=$(retrans -) pr0=$(retrans h2)
rc stats reset
out=$(ns_exec h1 python3 "$ROOT/tests/integration/hostile.py" h1-r "$(rc -j link show |
	grep -o '"ifname":"port0"[^}]*"address":"[^"]*"' | sed 's/.*"address":"//; s/"//')" \
	bgp_flood 8 192.0.2.1)
echo "  $out spoofed BGP segments in 8 s; $(stat port port0.proto_strangers) taken as strangers'; punts refused: $(stat port port0.cport_punt_limited) by the rest's bucket, $(stat port port0.cport_punt_limited_proto) by the protocols'"
echo "  the BGP sessions' TCP retransmits meanwhile: $(($(retrans -) - rt0)) by the router, $(($(retrans h2) - pr0)) by the peer"
check "the flood was taken as strangers'" test "$(stat port port0.proto_strangers)" -ge 100000
check "... none in the protocols' bucket or ring" \
	test "$(($(stat port port0.cport_punt_limited_proto) + $(stat port port0.exc_drop_proto)))" -eq 0
up1=$(since)
check "the session stayed up, without going down" same_since "$up1" "$up0"
check "no BGP segment of the session refused" \
	test "$(($(stat port port1.cport_punt_limited_proto) + $(stat port port1.exc_drop_proto)))" -eq 0
done_tests
