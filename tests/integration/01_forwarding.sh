#!/usr/bin/env bash
# Forwarding between two Linux hosts, both families, with neighbours
# resolved dynamically (ARP, ND); the router's own addresses; TTL and hop
# limit 1; the unreachable route types; MTU. As the kernel's router.sh and
# pmtu.sh do it: hosts in namespaces, real ping and traceroute.
. "$(dirname "$0")/lib.sh"
two_hosts
start_router

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
rc link set port1 mtu 1500

echo "link down and up"
check "link set port1 down" rc link set port1 down
expect_out "port down: nothing gets through" "100% packet loss" \
	ns_exec h1 ping -c 1 -W 1 198.51.100.2
check "counted: port_down" test "$(stat drop port_down)" -ge 1
check "link set port1 up" rc link set port1 up
check "port up: forwarded again" ns_exec h1 ping -c 1 -W 2 198.51.100.2

echo "ICMP errors limited per destination"
before=$(stat control icmp_ratelimited)
answered=$(ns_exec h1 ping -n -c 20 -i 0.01 -t 1 -W 1 198.51.100.2 2>&1 | grep -c "Time to live exceeded" || true)
check "20 expiring in 0.2 s: at most a burst of 6 answered ($answered)" test "$answered" -le 6
check "counted: icmp_ratelimited" test $(($(stat control icmp_ratelimited) - before)) -ge 14

done_tests
