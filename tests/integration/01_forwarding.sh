#!/usr/bin/env bash
# Forwarding between two Linux hosts, both families, with neighbours
# resolved dynamically (ARP, ND); the router's own addresses (IPv6
# link-local ones too) and their closed ports; TTL and hop limit 1; the
# unreachable route types; MTU; the router's own packets routed back by
# the table, not to where they came from. As the kernel's router.sh and pmtu.sh do it: hosts in
# namespaces, real ping and traceroute. Without control-plane ports:
# the closed ports are routerd's own answers, as a port whose TAP is off
# keeps them (17_control_ports.sh has Linux answer instead).
. "$(dirname "$0")/lib.sh"
# Ports that hand routerd each frame as it came, fragments too
# (scripts/netns.sh): the large pings below are reassembled by routerd.
# net_pcap has no link interrupt: its carrier is polled, here once a
# second (link-poll-ms), so that the idle check below sees the control
# core's own sleep.
RT_PMD=pcap
two_hosts
start_router --no-control-ports --set link-poll-ms=1000

echo "forwarding"
check "IPv4 h1 -> h2" ns_exec h1 ping -c 3 -i 0.2 -W 2 198.51.100.2
check "IPv6 h1 -> h2" ns_exec h1 ping -6 -c 3 -i 0.2 -W 2 2001:db8:2::2
check "IPv4 h2 -> h1" ns_exec h2 ping -c 2 -i 0.2 -W 2 192.0.2.2
check "IPv6 h2 -> h1" ns_exec h2 ping -6 -c 2 -i 0.2 -W 2 2001:db8:1::2
expect_out "neighbours resolved by ARP and ND" \
	"198.51.100.2 dev port1 lladdr ([0-9a-f]{2}:){5}[0-9a-f]{2} (REACHABLE|STALE|DELAY)" rc neigh show
expect_out "IPv6 neighbour" "2001:db8:2::2 dev port1 lladdr .* (REACHABLE|STALE|DELAY)" rc neigh show
expect_out "neighbours in JSON" '"dst":"192.0.2.2","dev":"port0","lladdr":"[0-9a-f:]{17}","state"' \
	rc -j neigh show
check "forwarded counter" test "$(stat total forwarded)" -ge 10
check "no packet dropped" test "$(stat total dropped)" -eq 0

echo "the router's own addresses"
check "ping 192.0.2.1" ns_exec h1 ping -c 2 -i 0.2 -W 2 192.0.2.1
check "ping 198.51.100.1 across" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.1
check "ping 2001:db8:1::1" ns_exec h1 ping -6 -c 2 -i 0.2 -W 2 2001:db8:1::1

echo "the control core sleeps until something is due; a punted packet wakes it"
# Idle, it wakes for its timers and the CLI's requests, not every
# millisecond (2 s of that would be over 1,800 wake-ups). The carrier
# of af_packet ports comes from the kernel's link announcements, not a
# poll every 10 ms (200 wake-ups in 2 s); about 3 a second were measured
# (bench/ctl_wake.sh).
w0=$(stat control wakeups)
sleep 2
w=$(($(stat control wakeups) - w0))
echo "  (idle 2 s: $w wake-ups)"
check "idle 2 s: under 100 wake-ups" test "$w" -lt 100
p0=$(stat control wakeups_punt)
check "ping 192.0.2.1 after the quiet spell" ns_exec h1 ping -c 3 -i 0.3 -W 2 192.0.2.1
check "... its requests woke the control core" test $(($(stat control wakeups_punt) - p0)) -ge 1

echo "closed ports on the router's addresses, answered as Linux answers them"
closed() { ns_exec h1 python3 "$ROOT/tests/integration/closed_ports.py" "$@"; }
# The last line of a traceroute run one probe at a time (-N 1: a burst
# of probes would spend h1's ICMP allowance, which later checks need).
last_hop() { ns_exec h1 traceroute -N 1 -n -q 1 -w 2 -m 5 "$@" | tail -1; }
resets=$(stat control tcp_resets)
check "UDP to 192.0.2.1: port unreachable" closed udp 192.0.2.1
check "TCP to 192.0.2.1: refused (reset)" closed tcp 192.0.2.1
check "protocol 253 to 192.0.2.1: protocol unreachable from it" closed proto 192.0.2.1
check "UDP to 2001:db8:1::1: port unreachable" closed udp 2001:db8:1::1
check "TCP to 2001:db8:1::1: refused (reset)" closed tcp 2001:db8:1::1
check "next header 253 to 2001:db8:1::1: parameter problem from it" closed proto 2001:db8:1::1
check "... behind hop-by-hop options: pointing at their next header" closed hbh 2001:db8:1::1
check "resets counted" test $(($(stat control tcp_resets) - resets)) -eq 2
expect_out "traceroute to the router's far address ends there, one hop" "^ 1  198.51.100.1 " \
	last_hop 198.51.100.1
expect_out "the same for IPv6" "^ 1  2001:db8:2::1 " last_hop -6 2001:db8:2::1
# Up to four of h1's six ICMP errors a burst were spent here; they come back at
# one a second, and the TTL and unreachable checks below need them all.
sleep 4

echo "large pings to the router: reassembled, answered in fragments"
# The fragments arrive as sent: routerd reassembles them, and fragments
# its replies.
f0=$(stat control fragments)
r0=$(stat control reasm_oks)
check "IPv4 ping -s 1600 to the router" ns_exec h1 ping -c 2 -i 0.2 -W 2 -s 1600 192.0.2.1
check "IPv6 ping -s 3000 to the router" ns_exec h1 ping -6 -c 2 -i 0.2 -W 2 -s 3000 2001:db8:1::1
check "requests reassembled, counted" test "$(($(stat control reasm_oks) - r0))" -eq 4
check "replies in fragments, counted" test "$(($(stat control fragments) - f0))" -eq 10

echo "the router's IPv6 link-local addresses"
expect_out "every port has one, from its MAC" "inet6 fe80::[0-9a-f:]+/64 scope link" rc addr show dev port1
ll=$(rc -j addr show dev port1 | grep -o '"local":"fe80[^"]*"' | cut -d'"' -f4)
check "ping it ($ll)" ns_exec h2 ping -6 -c 1 -W 2 "$ll%h2-r"
ns_exec h2 ip -6 route add 2001:db8:1::2/128 via "$ll" dev h2-r
check "h2 -> h1 with the router's link-local address as next hop" \
	ns_exec h2 ping -6 -c 2 -i 0.2 -W 2 2001:db8:1::2
ns_exec h2 ip -6 route del 2001:db8:1::2/128 via "$ll" dev h2-r
# A source beyond the link gets an error from a global address, never a
# link-local one (RFC 6724's scope rule), even where the link-local one
# shares more leading bits (fd00:: and fe80:: share six).
ns_exec h1 ip -6 addr add fd00::2/128 dev h1-r nodad
rc route add fd00::/64 via 2001:db8:1::2
expect_out "ICMPv6 error to a ULA source: from the global address" "From 2001:db8:1::1 .*Time exceeded" \
	ns_exec h1 ping -6 -c 1 -W 2 -t 1 -I fd00::2 2001:db8:2::2
rc route del fd00::/64

echo "TTL and hop limit"
expect_out "IPv4 TTL 1: time exceeded from 192.0.2.1" "From 192.0.2.1 .*Time to live exceeded" \
	ns_exec h1 ping -c 1 -W 2 -t 1 198.51.100.2
expect_out "IPv6 hop limit 1: time exceeded" "From 2001:db8:1::1 .*Time exceeded" \
	ns_exec h1 ping -6 -c 1 -W 2 -t 1 2001:db8:2::2
expect_out "traceroute shows the router" "^ 1  192.0.2.1 .*\$" \
	ns_exec h1 traceroute -n -q 1 -w 2 198.51.100.2
rc neigh flush dev port1 # TTL is checked before the neighbour is resolved
expect_out "IPv4 TTL 1 to an unresolved on-link host: time exceeded" \
	"From 192.0.2.1 .*Time to live exceeded" ns_exec h1 ping -c 1 -W 2 -t 1 198.51.100.2
expect_out "IPv6 hop limit 1 to an unresolved on-link host: time exceeded" \
	"From 2001:db8:1::1 .*Time exceeded" ns_exec h1 ping -6 -c 1 -W 2 -t 1 2001:db8:2::2
check "time exceeded counted" test "$(stat punt ttl_exceeded)" -ge 2

echo "unreachable destinations"
rc route add unreachable 10.1.0.0/16
rc route add prohibit 10.2.0.0/16
rc route add blackhole 10.3.0.0/16
rc route add unreachable 2001:db8:dead::/48
expect_out "no route: net unreachable" "Destination Net Unreachable" ns_exec h1 ping -c 1 -W 2 10.9.9.9
expect_out "unreachable route: host unreachable" "Destination Host Unreachable" \
	ns_exec h1 ping -c 1 -W 2 10.1.1.1
expect_out "prohibit route: code 13" "Packet filtered|Communication administratively prohibited" \
	ns_exec h1 ping -c 1 -W 2 10.2.1.1
expect_out "blackhole: nothing comes back" "1 packets transmitted, 0 received, 100% packet loss" \
	ns_exec h1 ping -c 1 -W 1 10.3.1.1
expect_out "IPv6 no route" "No route|Destination unreachable" ns_exec h1 ping -6 -c 1 -W 2 2001:db9::1
expect_out "IPv6 unreachable route: address unreachable" "Address unreachable" \
	ns_exec h1 ping -6 -c 1 -W 2 2001:db8:dead::1
check "counted: no route" test "$(stat punt no_route)" -ge 2
check "counted: unreachable" test "$(stat punt unreachable)" -ge 2
check "counted: prohibit" test "$(stat punt prohibit)" -ge 1
check "counted: blackhole" test "$(stat drop blackhole)" -ge 1

echo "MTU"
rc link set port1 mtu 1280
expect_out "IPv4 DF too big: fragmentation needed with the MTU" "mtu = 1280" \
	ns_exec h1 ping -c 1 -W 2 -M "do" -s 1400 198.51.100.2
expect_out "IPv6 too big: packet too big with the MTU" "mtu ?= ?1280" \
	ns_exec h1 ping -6 -c 1 -W 2 -s 1400 2001:db8:2::2
check "small packets still pass" ns_exec h1 ping -c 1 -W 2 -s 1000 198.51.100.2
# DF clear: fragmented on the way, as Linux does. h2's side of the link
# gets the same MTU (routerd set its own veth's: a larger frame from h2
# would not cross the veth); h2 reassembles, answers in fragments.
ns_exec h2 ip link set h2-r mtu 1280
# (h1 forgets the path MTU the DF check above taught it, or it would cut
# the packets itself.)
ns_exec h1 ip -4 route flush cache
f0=$(stat control fragments)
check "IPv4 DF clear too big: forwarded in fragments" \
	ns_exec h1 ping -c 2 -i 0.2 -W 2 -M dont -s 1400 198.51.100.2
check "two fragments a packet, counted" test "$(($(stat control fragments) - f0))" -eq 4
check "the punts counted" test "$(stat punt fragment)" -ge 2
ns_exec h2 ip link set h2-r mtu 1500
rc link set port1 mtu 1500

echo "link down and up"
nr0=$(stat punt no_route)
check "link set port1 down" rc link set port1 down
# As Linux, which deletes a device's routes when it goes down: the
# connected route leaves the lookups, so h2's network has no route.
# (Two pings 1.2 s apart: the errors to h1 are limited to one a second,
# and the checks before sent it some.)
expect_out "port down: its routes withdrawn, net unreachable" "Destination Net Unreachable" \
	ns_exec h1 ping -c 2 -i 1.2 -W 2 198.51.100.2
check "counted: no_route" test "$(($(stat punt no_route) - nr0))" -ge 1
expect_out "the route kept, shown as linkdown" "198.51.100.0/24 dev port1 .*linkdown" rc route show
expect_out "and in JSON" '"dst":"198.51.100.0/24".*"flags":\["linkdown"\]' rc -j route show
check "link set port1 up" rc link set port1 up
check "port up: forwarded again" ns_exec h1 ping -c 1 -W 2 198.51.100.2
check "no longer linkdown" bash -c "! $BUILD/app/routerctl -S $SOCK route show | grep -q linkdown"

echo "the router's own packets take the route back"
# h1 sends from 10.77.0.2 and 2001:db8:77::2, which the router routes via
# h2: the errors and replies must go to h2 (which holds the addresses too
# and counts what it gets), not back to h1 where the packets came from.
ns_exec h1 ip addr add 10.77.0.2/32 dev h1-r
ns_exec h2 ip addr add 10.77.0.2/32 dev h2-r
ns_exec h1 ip -6 addr add 2001:db8:77::2/128 dev h1-r nodad
ns_exec h2 ip -6 addr add 2001:db8:77::2/128 dev h2-r nodad
rc route add 10.77.0.0/24 via 198.51.100.2
rc route add 2001:db8:77::/64 via 2001:db8:2::2
h2_icmp() { ns_exec h2 nstat -az "$1" | awk -v k="$1" '$1 == k { print $2 }'; }
no_answer() { ! "$@" 2>&1 | grep -Eq "exceeded|bytes from"; }
te4=$(h2_icmp IcmpInTimeExcds)
rep4=$(h2_icmp IcmpInEchoReps)
te6=$(h2_icmp Icmp6InTimeExcds)
rc neigh flush dev port1 # the error waits for h2's address to resolve
check "IPv4 TTL 1 from a source routed via h2: nothing back to h1" \
	no_answer ns_exec h1 ping -c 1 -W 1 -t 1 -I 10.77.0.2 198.51.100.2
check "... the time exceeded reached h2" test "$(h2_icmp IcmpInTimeExcds)" -eq $((te4 + 1))
check "echo reply to a source routed via h2: nothing back to h1" \
	no_answer ns_exec h1 ping -c 1 -W 1 -I 10.77.0.2 192.0.2.1
check "... the echo reply reached h2" test "$(h2_icmp IcmpInEchoReps)" -eq $((rep4 + 1))
check "IPv6 hop limit 1 from a source routed via h2: nothing back to h1" \
	no_answer ns_exec h1 ping -6 -c 1 -W 1 -t 1 -I 2001:db8:77::2 2001:db8:2::2
check "... the time exceeded reached h2" test "$(h2_icmp Icmp6InTimeExcds)" -eq $((te6 + 1))
rc route del 10.77.0.0/24
lost=$(stat control out_no_route)
check "no route back: no error sent" \
	no_answer ns_exec h1 ping -c 1 -W 1 -t 1 -I 10.77.0.2 198.51.100.2
check "... counted: out_no_route" test "$(stat control out_no_route)" -eq $((lost + 1))
check "... and h2 got nothing more" test "$(h2_icmp IcmpInTimeExcds)" -eq $((te4 + 1))
# A rule with iif lo routes the router's own packets alone (Linux's
# loopback): the error finds its way back through table 100, while
# packets from h1 to 10.77.0.2 still have no route.
rc rule add iif lo table 100
rc route add 10.77.0.0/24 via 198.51.100.2 table 100
expect_out "rule iif lo shown" "from all iif lo lookup 100" rc rule show
expect_out "route get: the router's own packet takes it" "^10.77.0.2 via 198.51.100.2 dev port1" \
	rc route get 10.77.0.2
expect_out "route get iif port0: a forwarded one does not" "Network is unreachable" \
	rc route get 10.77.0.2 iif port0
check "iif lo: the time exceeded reached h2 through table 100" \
	no_answer ns_exec h1 ping -c 1 -W 1 -t 1 -I 10.77.0.2 198.51.100.2
check "... counted there" test "$(h2_icmp IcmpInTimeExcds)" -eq $((te4 + 2))
rc rule del iif lo table 100
rc route del 10.77.0.0/24 table 100
rc route del 2001:db8:77::/64

echo "ICMP errors limited per destination"
before=$(stat control icmp_ratelimited)
answered=$(ns_exec h1 ping -n -c 20 -i 0.01 -t 1 -W 1 198.51.100.2 2>&1 | grep -c "Time to live exceeded" || true)
check "20 expiring in 0.2 s: at most a burst of 6 answered ($answered)" test "$answered" -le 6
check "counted: icmp_ratelimited" test $(($(stat control icmp_ratelimited) - before)) -ge 14

done_tests
