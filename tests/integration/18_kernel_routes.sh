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
rx ip route add 198.18.0.0/24 via 192.0.2.2 dev port0 proto static metric 7
sleep 0.3
rc route del 198.18.0.0/24 metric 7
check "the operator's deleted: the kernel's, which it kept out, is followed now" \
	within_1s has 198.18.0.0/24 proto static
rx ip route del 198.18.0.0/24 proto static metric 7

# An operator's change to a route the mirror follows is refused: the
# kernel's routes change in Linux (docs/control-plane.md).
rx ip route add 198.19.0.0/24 via 198.51.100.2 dev port1 proto bgp metric 20
check "(a BGP route in the kernel)" within_1s has 198.19.0.0/24 proto bgp
for cmd in "route del 198.19.0.0/24" "route del 198.19.0.0/24 metric 20" \
	"route replace 198.19.0.0/24 via 192.0.2.2 metric 20" \
	"route change 198.19.0.0/24 via 192.0.2.2 metric 20" \
	"route add 198.19.0.0/24 via 192.0.2.2 metric 20"; do
	expect_out "$cmd: refused, saying whose it is" \
		"^error: ${cmd%% 198*}: 198.19.0.0/24 \\(table main, metric 20\\) is the kernel's" rc $cmd
done
expect_out "... in one line naming the kernel" "is the kernel's route \\(proto bgp\\), followed from Linux" \
	rc route del 198.19.0.0/24
rc route flush root 198.19.0.0/16
expect_out "route flush leaves it (and the route is untouched)" \
	"^198.19.0.0/24 via 198.51.100.2 dev port1 proto bgp metric 20" rc route show 198.19.0.0/24
check "save leaves it out" bash -c "! $BUILD/app/routerctl -S $SOCK save | grep -q 198.19"
rx ip route del 198.19.0.0/24 proto bgp metric 20
check "the kernel's delete still removes it (the mirror's record intact)" within_1s hasnt 198.19.0.0/24

# A replace into what the mirror does not take withdraws the old route.
rx ip route add 198.20.0.0/24 via 198.51.100.2 dev port1 proto static
check "(a route through port1)" within_1s has 198.20.0.0/24
rx ip route replace 198.20.0.0/24 via 172.31.0.2 dev vx0 proto static
check "replaced by one out of another interface: withdrawn" within_1s hasnt 198.20.0.0/24
rx ip route replace 198.20.0.0/24 via 198.51.100.2 dev port1 proto static
check "(back through port1)" within_1s has 198.20.0.0/24
rx ip route replace 198.20.0.0/24 via 10.255.0.1 dev port1 onlink proto static
check "replaced by one via an off-link gateway: followed as onlink" within_1s \
	bash -c "$BUILD/app/routerctl -S $SOCK route show 198.20.0.0/24 | grep -q 'via 10.255.0.1'"
rx ip route replace 198.20.0.0/24 encap mpls 100 via 198.51.100.2 dev port1 proto static 2>/dev/null &&
	check "replaced by one with an encapsulation: withdrawn" within_1s hasnt 198.20.0.0/24
rx ip route del 198.20.0.0/24 2>/dev/null

# 40 paths (routerd's groups hold 64), and more than 64: skipped, counted.
paths() { for i in $(seq 10 $((9 + $1))); do printf ' nexthop via 198.51.100.%d dev port1' "$i"; done; }
# shellcheck disable=SC2046
rx ip route add 198.21.0.0/24 proto static $(paths 40)
check "a route of 40 paths followed" within_1s bash -c \
	"[ \$($BUILD/app/routerctl -S $SOCK route show 198.21.0.0/24 | grep -c 'nexthop via') -eq 40 ]"
full0=$(stat mirror skipped_full)
# shellcheck disable=SC2046
rx ip route replace 198.21.0.0/24 proto static $(paths 70)
check "replaced by one of 70: withdrawn" within_1s hasnt 198.21.0.0/24
check "... counted as no room, not malformed" test "$(stat mirror skipped_full)" -gt "$full0"
rx ip route del 198.21.0.0/24

# IPv6 deletes a multipath route one path at a time.
rx ip -6 route add 2001:db8:77::/48 proto static nexthop via 2001:db8:2::2 dev port1 \
	nexthop via 2001:db8:1::2 dev port0 nexthop via 2001:db8:2::3 dev port1
check "(an IPv6 route of three paths)" within_1s bash -c \
	"[ \$($BUILD/app/routerctl -S $SOCK -6 route show 2001:db8:77::/48 | grep -c 'nexthop via') -eq 3 ]"
rx ip -6 route del 2001:db8:77::/48 via 2001:db8:1::2 dev port0
check "one path deleted in the kernel: the route keeps the other two" within_1s bash -c \
	"[ \$($BUILD/app/routerctl -S $SOCK -6 route show 2001:db8:77::/48 | grep -c 'nexthop via 2001:db8:2::') -eq 2 ]"
check "... and not the one deleted" bash -c "! $BUILD/app/routerctl -S $SOCK -6 route show 2001:db8:77::/48 | grep -q 2001:db8:1::2"
rx ip -6 route del 2001:db8:77::/48 via 2001:db8:2::2 dev port1
expect_out "... down to one: a plain route" "^2001:db8:77::/48 via 2001:db8:2::3 dev port1" \
	rc -6 route show 2001:db8:77::/48
rx ip -6 route del 2001:db8:77::/48
check "... and the last: gone" within_1s hasnt -6 2001:db8:77::/48

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

# A control-plane port deleted by hand: noticed, made again, its routes
# followed again once a daemon writes them; the control core does not
# spin on the dead descriptor.
rx ip route add 198.22.0.0/24 via 198.51.100.2 dev port1 proto static
check "(a route through port1's TAP)" within_1s has 198.22.0.0/24
rx ip link del port1
check "port1's TAP deleted: its route withdrawn" within_1s hasnt 198.22.0.0/24
w0=$(stat control wakeups)
sleep 0.5
check "... the control core not spinning (under 50 wake-ups in 0.5 s)" \
	test $(($(stat control wakeups) - w0)) -lt 50
check "... the TAP made again within 2 s" until_s 2 rx ip link show port1
check "... with its address" until_s 2 bash -c "ip netns exec $RT_NS ip addr show port1 | grep -q 198.51.100.1/24"
check "... counted" test "$(stat port port1.cport_remade)" -eq 1
rx ip route add 198.22.0.0/24 via 198.51.100.2 dev port1 proto static
check "... routes through it followed again" within_1s has 198.22.0.0/24
check "forwarding through it" ns_exec h1 ping -c 1 -W 2 198.51.100.2

# save writes the operator's configuration alone, and a router started
# from it starts, whatever the kernel's tables hold: a blackhole route
# (no interface: it outlives routerd's TAPs) is the kernel's again.
rc route add 198.23.0.0/24 via 198.51.100.2 metric 5
rx ip route add blackhole 198.24.0.0/24 proto static
check "(the kernel's blackhole followed)" within_1s has 198.24.0.0/24
rc save "$WORK/saved"
check "save: the operator's route" grep -q "^route add 198.23.0.0/24 via 198.51.100.2 dev port1 metric 5" "$WORK/saved"
check "... none of the kernel's" bash -c "! grep -Eq '198.2[24]|proto (static|bird|bgp|zebra)' $WORK/saved"
stop_router
cp "$WORK/saved" "$WORK/startup"
start_router --set kernel-tables=main,100
check "restarted from the saved file" rc link show
expect_out "the kernel's blackhole is the kernel's again" "^blackhole 198.24.0.0/24 proto static" \
	rc route show 198.24.0.0/24
check "... refused to the operator" bash -c "! $BUILD/app/routerctl -S $SOCK route del 198.24.0.0/24"
check "the operator's route is the operator's" has 198.23.0.0/24 proto boot
rx ip route del blackhole 198.24.0.0/24 proto static
check "the kernel's delete removes the kernel's" within_1s hasnt 198.24.0.0/24
done_tests
