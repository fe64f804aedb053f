#!/usr/bin/env bash
# Routes from the kernel (issue 28): what is written into the kernel's
# tables in routerd's namespace through its control-plane ports (as a
# routing daemon writes them, here with ip route and ip nexthop) is
# mirrored into routerd's FIB and forwarded by the workers; changes and
# deletions follow; routes routerd cannot take are skipped and counted;
# an operator's own routes are never touched; only the tables named by
# kernel-tables are followed.
. "$(dirname "$0")/lib.sh"
two_hosts
ns_exec h2 ip addr add 203.0.113.1/32 dev lo
ns_exec h2 ip addr add 2001:db8:99::1/128 dev lo
ns_exec h1 ip addr add 203.0.114.1/32 dev lo
start_router --set kernel-tables=main,100

rx() { ip netns exec "$RT_NS" "$@"; }
# routes COUNT: how many routes routerd shows for a selector.
routes() { rc "$@" | grep -c . || true; }
# within_1s CMD...: CMD succeeds within a second (polled).
within_1s() {
	for _ in $(seq 20); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	"$@"
}
has() { rc route show "$@" | grep -q .; }
hasnt() { ! rc route show "$@" | grep -q .; }

check "the kernel's own connected routes are not copied (routerd's four only)" \
	test "$(routes route show proto kernel)" -eq 4
rx ip route add 203.0.113.0/24 via 198.51.100.2 dev port1 proto static metric 20
check "a static route reaches routerd" within_1s has 203.0.113.0/24 proto static
expect_out "with its gateway, port, protocol and metric" \
	"203.0.113.0/24 via 198.51.100.2 dev port1 proto static metric 20" rc route show 203.0.113.0/24
fwd0=$(stat total forwarded)
check "h1 reaches 203.0.113.1 through routerd" ns_exec h1 ping -c 2 -i 0.2 -W 2 203.0.113.1
check "... forwarded by the workers" test "$(($(stat total forwarded) - fwd0))" -ge 2
rx ip -6 route add 2001:db8:99::/48 via 2001:db8:2::2 dev port1 proto bird
check "an IPv6 route too" within_1s bash -c "$BUILD/app/routerctl -S $SOCK -6 route show 2001:db8:99::/48 proto bird | grep -q ."
check "h1 reaches 2001:db8:99::1" ns_exec h1 ping -6 -c 2 -i 0.2 -W 2 2001:db8:99::1

rx ip route replace 203.0.113.0/24 via 192.0.2.2 dev port0 proto static metric 20
check "a replace follows" within_1s bash -c "$BUILD/app/routerctl -S $SOCK route show 203.0.113.0/24 | grep -q 'via 192.0.2.2 dev port0'"
rx ip route del 203.0.113.0/24 proto static metric 20
check "a delete follows within a second" within_1s hasnt 203.0.113.0/24

rx ip route add 203.0.113.0/24 proto bird metric 5 nexthop via 198.51.100.2 dev port1 weight 1 \
	nexthop via 192.0.2.2 dev port0 weight 3
check "a multipath route becomes a group" within_1s has 203.0.113.0/24 proto bird
expect_out "with its weights" "nexthop via 198.51.100.2 dev port1 weight 1" rc route show 203.0.113.0/24
expect_out "... both" "nexthop via 192.0.2.2 dev port0 weight 3" rc route show 203.0.113.0/24
rx ip route del 203.0.113.0/24 proto bird metric 5

rx ip route add blackhole 10.66.0.0/16 proto static
rx ip route add unreachable 10.67.0.0/16 proto static
check "blackhole kept" within_1s bash -c "$BUILD/app/routerctl -S $SOCK route show 10.66.0.0/16 | grep -q '^blackhole'"
check "unreachable kept" within_1s bash -c "$BUILD/app/routerctl -S $SOCK route show 10.67.0.0/16 | grep -q '^unreachable'"
rx ip route add 203.0.113.0/24 via 198.51.100.2 dev port1 proto static table 101
rx ip route add 203.0.113.0/24 via 198.51.100.2 dev port1 proto static table 100
check "table 100 is routerd's table 100" within_1s has table 100 203.0.113.0/24
check "table 101, which kernel-tables does not name, is not followed" hasnt table 101 203.0.113.0/24

# Nexthop objects, as FRR uses them.
if rx ip nexthop add id 10 via 198.51.100.2 dev port1 2>/dev/null; then
	rx ip nexthop add id 11 via 192.0.2.2 dev port0
	rx ip nexthop add id 20 group 10/11
	rx ip route add 203.0.115.0/24 nhid 10 proto zebra
	rx ip route add 203.0.116.0/24 nhid 20 proto zebra
	check "a route by nexthop object" within_1s bash -c "$BUILD/app/routerctl -S $SOCK route show 203.0.115.0/24 | grep -q 'via 198.51.100.2 dev port1'"
	check "a route by group object" within_1s bash -c "$BUILD/app/routerctl -S $SOCK route show 203.0.116.0/24 | grep -q 'nexthop via 192.0.2.2'"
	rx ip nexthop replace id 10 via 192.0.2.2 dev port0
	check "the object replaced: its route follows" within_1s bash -c "$BUILD/app/routerctl -S $SOCK route show 203.0.115.0/24 | grep -q 'via 192.0.2.2 dev port0'"
	check "... and the group's, whose two members are now alike: one path" \
		within_1s bash -c "$BUILD/app/routerctl -S $SOCK route show 203.0.116.0/24 | grep -q '^203.0.116.0/24 via 192.0.2.2 dev port0'"
	check "no route was refused for want of room" test "$(stat mirror skipped_full)" -eq 0
	rx ip nexthop del id 20
	check "the group deleted: its route goes" within_1s hasnt 203.0.116.0/24
else
	echo "  (no nexthop objects in this kernel: skipped)"
fi

# What routerd cannot take, and what is not its business.
rx ip link add vx0 type veth peer name vx1
rx ip link set vx0 up
rx ip link set vx1 up
rx ip addr add 172.31.0.1/24 dev vx0
check "(a route out of another interface, in the kernel)" rx ip route add 172.30.0.0/16 via 172.31.0.2 dev vx0 proto static
sleep 0.3
check "a route out of another interface is not followed" hasnt 172.30.0.0/16
rc route add 198.18.0.0/24 via 198.51.100.2 metric 7
rx ip route add 198.18.0.0/24 via 192.0.2.2 dev port0 proto static metric 7
sleep 0.3
expect_out "an operator's route at the same metric wins" "^198.18.0.0/24 via 198.51.100.2 dev port1 metric 7" \
	rc route show 198.18.0.0/24
check "... the kernel's counted as skipped" test "$(stat mirror skipped_conflict)" -ge 1
rx ip route del 198.18.0.0/24 proto static metric 7
sleep 0.3
check "... and the operator's left alone when the kernel's goes" has 198.18.0.0/24 proto boot

# Many at once: 5,000 routes from one batch, then removed.
for i in $(seq 0 4999); do
	echo "route add 100.$((64 + i / 250)).$((i % 250)).0/24 via 198.51.100.2 dev port1 proto bird"
done >"$WORK/batch"
added0=$(stat mirror added)
rx ip -batch "$WORK/batch"
for _ in $(seq 50); do
	[ "$(($(stat mirror added) - added0))" -ge 5000 ] && break
	sleep 0.1
done
check "5,000 routes from a batch, all mirrored" test "$(($(stat mirror added) - added0))" -eq 5000
batch_routes() { rc route show proto bird | grep -c '^100\.' || true; }
check "... and shown as bird's" test "$(batch_routes)" -eq 5000
sed 's/^route add/route del/' "$WORK/batch" >"$WORK/unbatch"
rx ip -batch "$WORK/unbatch"
for _ in $(seq 50); do
	[ "$(batch_routes)" -eq 0 ] && break
	sleep 0.1
done
check "... and all withdrawn" test "$(batch_routes)" -eq 0
check "no message was malformed" test "$(stat mirror malformed)" -eq 0
done_tests
