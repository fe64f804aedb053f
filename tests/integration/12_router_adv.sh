#!/usr/bin/env bash
# Router advertisements: a Linux host with no IPv6 default route and
# accept_ra on gets the router as its default router, an address in the
# port's /64 by SLAAC and the port's MTU from them, and reaches the far
# host; a solicitation is answered with the advertisement's every field
# as configured, the M and O flags and the router's lifetime too;
# `ra off` sends a last one that withdraws the router.
. "$(dirname "$0")/lib.sh"
two_hosts
start_router
h1() { ns_exec h1 "$@"; }
h1 ip -6 route del default
# No solicitations of the host's own (it sends a few after its link
# comes up): the test's one must be the only one, for the timing and the
# counts below.
for k in router_solicitations=0 accept_ra=1 autoconf=1 accept_ra_defrtr=1 accept_ra_pinfo=1 \
	accept_ra_mtu=1; do
	h1 sysctl -qw "net.ipv6.conf.h1-r.$k"
done
ll=$(rc -6 addr show port0 | awk '$1 == "inet6" && $2 ~ /^fe80/ { sub("/.*", "", $2); print $2 }')
mac=$(rc -j link show port0 | grep -o '"address":"[^"]*"' | cut -d'"' -f4 | tr 'A-F' 'a-f')
check "no IPv6 default route on h1 to begin with" bash -c "! ip netns exec $(ns_host h1) ip -6 route show default | grep -q ."
# Wait for CMD to succeed, for up to 5 s.
until_ok() {
	for _ in $(seq 50); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	"$@"
}

echo "ra on, and a solicitation"
rc link set port0 mtu 1400
check "link set port0 rdnss (two DNS servers)" rc link set port0 rdnss 2001:db8:1::53,2001:db8:2::53
expect_out "a multicast DNS server refused" "is multicast" \
	bash -c "! $BUILD/app/routerctl -S $SOCK link set port0 rdnss ff02::1"
expect_out "at most three" "at most 3" \
	bash -c "! $BUILD/app/routerctl -S $SOCK link set port0 rdnss ::1,::2,::3,::4"
sent=$(stat control ra_sent)
check "link set port0 ra on" rc link set port0 ra on
expect_out "shown by link show" "driver net_af_packet ra on rdnss 2001:db8:1::53,2001:db8:2::53$" \
	rc link show port0
# The first advertisement goes at once, the next 16 s later; a
# solicitation 3.2 s after the first (past the 3 s the router keeps
# between two) must be answered within the 0.5 s RFC 4861 allows.
sleep 3.2
h1 python3 "$ROOT/tests/integration/rs_ra.py" h1-r 5 >"$WORK/ra"
sed 's/^/    /' "$WORK/ra"
check "answered within 0.5 s (and a little)" \
	awk 'BEGIN { rc = 1 } /^after / { rc = !($2 < 0.7) } END { exit rc }' "$WORK/ra"
expect_out "from the link-local address, hop limit 255, lifetime 1800" \
	"^from $ll hoplimit 255 lifetime 1800 curhoplimit 64 flags 0$" cat "$WORK/ra"
expect_out "the port's MAC" "^slla $mac$" cat "$WORK/ra"
expect_out "the port's MTU" "^mtu 1400$" cat "$WORK/ra"
expect_out "the port's prefix, on-link and autonomous" \
	"^prefix 2001:db8:1::/64 flags 0xc0 valid 2592000 preferred 604800$" cat "$WORK/ra"
check "one prefix only (no link-local, no other port's)" test "$(grep -c '^prefix' "$WORK/ra")" -eq 1
expect_out "the DNS servers (RFC 8106), lifetime 1200" \
	"^rdnss 2001:db8:1::53,2001:db8:2::53 lifetime 1200$" cat "$WORK/ra"
check "counted: rs_received" test "$(stat control rs_received)" -eq 1
check "counted: ra_sent, the first and the answer" test "$(($(stat control ra_sent) - sent))" -eq 2
check "the soliciting host learnt as a neighbour" \
	until_ok bash -c "$BUILD/app/routerctl -S $SOCK -6 neigh show dev port0 | grep -q '^fe80'"
check "no advertisements on port1" bash -c "! $BUILD/app/routerctl -S $SOCK link show port1 | grep -q 'ra on'"

echo "the host configures itself from them"
check "h1's default route: the router's link-local address, from the RA" \
	until_ok bash -c "ip netns exec $(ns_host h1) ip -6 route show default | grep -q 'via $ll dev h1-r proto ra'"
check "h1 formed an address in 2001:db8:1::/64" \
	until_ok bash -c "ip netns exec $(ns_host h1) ip -6 addr show dev h1-r | grep -q 'inet6 2001:db8:1:0:.*/64 scope global dynamic'"
check "h1 took the MTU, 1400" test "$(h1 sysctl -n net.ipv6.conf.h1-r.mtu)" -eq 1400
check "h1 reaches h2 by it" h1 ping -6 -c 2 -i 0.2 -W 2 2001:db8:2::2
slaac=$(h1 ip -6 addr show dev h1-r | awk '$2 ~ /^2001:db8:1:0:/ && /dynamic/ { sub("/.*", "", $2); print $2 }')
check "... from its SLAAC address too" h1 ping -6 -c 2 -i 0.2 -W 2 -I "$slaac" 2001:db8:2::2

check "a prefix added to the port" rc addr add 2001:db8:77::1/64 dev port0
check "is advertised within seconds: h1 forms an address in it" \
	until_ok bash -c "ip netns exec $(ns_host h1) ip -6 addr show dev h1-r | grep -q 'inet6 2001:db8:77:0:.*/64 scope global dynamic'"

check "the prefix removed" rc addr del 2001:db8:77::1/64 dev port0
check "is advertised with lifetimes 0: h1's address in it deprecated within seconds" \
	until_ok bash -c "ip netns exec $(ns_host h1) ip -6 addr show dev h1-r | grep -A1 'inet6 2001:db8:77:0:' | grep -q 'deprecated\\|preferred_lft 0sec'"
check "... and the port's own prefix not" \
	bash -c "! ip netns exec $(ns_host h1) ip -6 addr show dev h1-r | grep 'inet6 2001:db8:1:0:' | grep -q deprecated"

echo "options: the M and O flags, the router's lifetime"
expect_out "a lifetime below the longest interval refused" "or 600..9000 seconds" \
	bash -c "! $BUILD/app/routerctl -S $SOCK link set port0 ra-lifetime 300"
expect_out "ra-managed takes on or off" "'ra-managed on|off' expected" \
	bash -c "! $BUILD/app/routerctl -S $SOCK link set port0 ra-managed yes"
check "link set port0 ra-managed on ra-other on ra-lifetime 900" \
	rc link set port0 ra-managed on ra-other on ra-lifetime 900
expect_out "shown by link show" "ra on ra-managed on ra-other on ra-lifetime 900 rdnss" rc link show port0
expect_out "and in JSON" '"ra_managed":true,"ra_other":true,"ra_lifetime":900' rc -j link show port0
# The change is advertised at once; 3.2 s later a solicitation is
# answered again (or an advertisement of the first few comes first).
sleep 3.2
h1 python3 "$ROOT/tests/integration/rs_ra.py" h1-r 20 >"$WORK/ra2"
expect_out "advertised: flags M and O (0xc0), lifetime 900" \
	"^from $ll hoplimit 255 lifetime 900 curhoplimit 64 flags 192$" cat "$WORK/ra2"
expect_out "the DNS servers keep their lifetime" "^rdnss .* lifetime 1200$" cat "$WORK/ra2"
# h1's default route has at most $1 seconds left.
default_expires_at_most() {
	local s
	s=$(ip netns exec "$(ns_host h1)" ip -6 route show default | grep -o 'expires [0-9]*' | grep -o '[0-9]*$')
	[ -n "$s" ] && [ "$s" -le "$1" ]
}
check "h1's default route expires within 900 s now" until_ok default_expires_at_most 900
check "ra-lifetime 0: not a default router" rc link set port0 ra-lifetime 0
check "h1 drops the default route" \
	until_ok bash -c "! ip netns exec $(ns_host h1) ip -6 route show default | grep -q ."
check "... and keeps its address, the prefix still advertised" \
	bash -c "ip netns exec $(ns_host h1) ip -6 addr show dev h1-r | grep 'inet6 2001:db8:1:0:' | grep -vq deprecated"
check "back to the defaults" rc link set port0 ra-managed off ra-other off ra-lifetime 1800
expect_out "none shown" "ra on rdnss 2001:db8:1::53,2001:db8:2::53$" rc link show port0
expect_out "JSON: the default lifetime" '"ra_managed":false,"ra_other":false,"ra_lifetime":1800' \
	rc -j link show port0
check "h1 takes the router again" \
	until_ok bash -c "ip netns exec $(ns_host h1) ip -6 route show default | grep -q 'via $ll'"

echo "ra off"
check "link set port0 ra off" rc link set port0 ra off
check "h1 dropped the default route at once (a last RA, lifetime 0)" \
	until_ok bash -c "! ip netns exec $(ns_host h1) ip -6 route show default | grep -q ."
expect_out "a refused value" "'ra on\\|off' expected" bash -c "! $BUILD/app/routerctl -S $SOCK link set port0 ra maybe"
rc link set port0 mtu 1500

echo "routerd stops"
rc link set port0 ra on
check "h1 takes the router again" \
	until_ok bash -c "ip netns exec $(ns_host h1) ip -6 route show default | grep -q 'via $ll'"
stop_router
check "routerd stopping sent a last advertisement: h1 dropped the router at once" \
	until_ok bash -c "! ip netns exec $(ns_host h1) ip -6 route show default | grep -q ."

done_tests
