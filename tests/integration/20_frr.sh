#!/usr/bin/env bash
# FRR beside routerd (issue 28): zebra and bgpd run in routerd's
# namespace with config/frr.conf and drive routerd's FIB through the
# kernel (protocol bgp, through FRR's nexthop objects).
#  1. eBGP with three upstreams in AS 65002: h2 (port1) and h3 (port2),
#     the two of config/frr.conf, and h4 (port3), added by vtysh; each
#     runs BIRD and announces the same 2,000 prefixes and 203.0.113.1/32,
#     which each holds on lo. The sessions come up through punt and
#     inject, and the routes reach routerd as proto bgp;
#  2. maximum-paths: routerd installs one group of three for all of them
#     (FRR's one nexthop object), and 1,500 flows from h1 to 203.0.113.1
#     split across h2, h3 and h4 within 15% of even, each on one path;
#  3. h3's BIRD stops: its flows move to h2 and h4, and no flow of
#     theirs moves;
#  4. BGP over link-local addresses (unnumbered, RFC 5549): a session
#     from the TAP's fe80:: address to h2's, with the extended next hop
#     capability; h2 announces 50 IPv4 and 50 IPv6 prefixes through it,
#     and routerd forwards both families to h2's link-local address;
#  5. bgpd is killed: zebra withdraws its routes, and routerd follows;
#     bgpd started again: they come back.
. "$(dirname "$0")/lib.sh"
FRR=/usr/lib/frr
for b in "$FRR/zebra" "$FRR/bgpd" vtysh bird; do
	if ! command -v "$b" >/dev/null; then
		echo "  FAIL $b is not installed (make setup installs frr and bird2)"
		exit 1
	fi
done
three_hosts
ns_link h4
ns_addr h4 198.19.0.2/24 198.19.0.1
ns_exec h4 ip addr add 203.0.113.1/32 dev lo
echo "addr add 198.19.0.1/24 dev port3" >>"$WORK/startup"
start_router

# FRR drops to its own user (frr, of group frrvty for its vty sockets),
# so its directory is its own.
mkdir -p "$WORK/frr"
chown frr:frr "$WORK/frr"
chmod 711 "$WORK"
frr_opts=(-f "$ROOT/config/frr.conf" -z "$WORK/frr/zserv.api" --vty_socket "$WORK/frr"
	--log "file:$WORK/frr/frr.log")
start_zebra() {
	daemon - "$WORK/daemons.log" "$FRR/zebra" "${frr_opts[@]}" -i "$WORK/frr/zebra.pid"
	ZEBRA=$LAST
	until_s 10 test -S "$WORK/frr/zserv.api"
}
start_bgpd() {
	daemon - "$WORK/daemons.log" "$FRR/bgpd" "${frr_opts[@]}" -i "$WORK/frr/bgpd.pid"
	BGPD=$LAST
}
vty() { ip netns exec "$RT_NS" vtysh --vty_socket "$WORK/frr" -c "$@"; }
# Routes, not lines: a multipath route's nexthops follow it, indented.
bgp_routes() { rc route show proto bgp | grep -c "^${1:-[0-9]}" || true; }
routes_ge() { [ "$(bgp_routes)" -ge "$1" ]; }
routes_eq() { [ "$(bgp_routes "${2:-.}")" -eq "$1" ]; }
# established N [ll]: N upstreams' sessions are up (ll: the link-local one).
established() {
	[ "$(vty 'show bgp summary json' | python3 -c '
import json, sys
s = json.load(sys.stdin)["ipv4Unicast"]["peers"]
ll = sys.argv[1] == "ll"
print(sum(1 for a, p in s.items() if p["state"] == "Established" and a.startswith("fe80:") == ll))' "${2:-}")" -eq "$1" ]
}

# The upstreams: the same 2,000 prefixes and 203.0.113.1/32 from each.
peer_conf() {
	echo "router id $1;"
	echo "protocol device { scan time 5; }"
	echo "protocol static announced { ipv4;"
	for i in $(seq 0 1999); do
		echo "  route 100.$((64 + i / 256)).$((i % 256)).0/24 unreachable;"
	done
	echo "  route 203.0.113.1/32 unreachable;"
	echo "}"
	echo "protocol bgp rtr { local $1 as 65002; neighbor $2 as 65001;"
	echo "  hold time 30; keepalive time 10; connect retry time 2; error wait time 1, 5;"
	echo "  ipv4 { import none; export where proto = \"announced\"; }; }"
}
peer_conf 198.51.100.2 198.51.100.1 >"$WORK/h2.conf"
# h2's session over link-local addresses, with prefixes of its own:
# 100.80.0.0/24 ... 100.80.49.0/24 (h2 holds 100.80.0.1) and
# 2001:db8:2000::/48 ... 2001:db8:2049::/48 (h2 holds 2001:db8:2000::1).
lladdr() { awk '/inet6 fe80/ { sub("/.*", "", $2); print $2; exit }'; }
rtr_ll=$(ip netns exec "$RT_NS" ip -6 addr show port1 | lladdr)
h2_ll=$(ns_exec h2 ip -6 addr show h2-r | lladdr)
ns_exec h2 ip addr add 100.80.0.1/32 dev lo
ns_exec h2 ip addr add 2001:db8:2000::1/128 dev lo
{
	echo "protocol static ll4 { ipv4;"
	for i in $(seq 0 49); do echo "  route 100.80.$i.0/24 unreachable;"; done
	echo "}"
	echo "protocol static ll6 { ipv6;"
	for i in $(seq 0 49); do echo "  route 2001:db8:$((2000 + i))::/48 unreachable;"; done
	echo "}"
	echo "protocol bgp ll { local as 65002; neighbor $rtr_ll % 'h2-r' as 65001; interface \"h2-r\";"
	echo "  hold time 30; keepalive time 10; connect retry time 2; error wait time 1, 5;"
	echo "  ipv4 { import none; export where proto = \"ll4\"; extended next hop on; };"
	echo "  ipv6 { import none; export where proto = \"ll6\"; }; }"
} >>"$WORK/h2.conf"
peer_conf 198.18.0.2 198.18.0.1 >"$WORK/h3.conf"
peer_conf 198.19.0.2 198.19.0.1 >"$WORK/h4.conf"
for h in h2 h3 h4; do
	daemon $h "$WORK/daemons.log" bird -f -c "$WORK/$h.conf" -s "$WORK/$h.ctl"
	eval "BIRD_$h=$LAST"
done
start_zebra
start_bgpd
until_s 10 vty 'show bgp summary' >/dev/null
vty 'configure terminal' -c 'router bgp 65001' -c 'neighbor 198.19.0.2 peer-group upstream'
vty 'configure terminal' -c 'router bgp 65001' -c "neighbor $h2_ll remote-as 65002" \
	-c "neighbor $h2_ll interface port1" -c "neighbor $h2_ll capability extended-nexthop" \
	-c "neighbor $h2_ll timers 10 30" -c "neighbor $h2_ll timers connect 5" \
	-c 'address-family ipv4 unicast' -c "neighbor $h2_ll route-map to-upstream out" \
	-c 'address-family ipv6 unicast' -c "neighbor $h2_ll activate" \
	-c "neighbor $h2_ll route-map from-upstream in" -c "neighbor $h2_ll route-map to-upstream out"
# path_lines N: routerd's bgp routes have N paths in all.
path_lines() { [ "$(rc route show proto bgp | grep -c 'nexthop via')" -eq "$1" ]; }

echo "eBGP with three upstreams"
check "the three sessions are Established within 30 s" until_s 30 established 3
check "2,001 routes reach routerd as proto bgp" until_s 30 routes_ge 2001
check "... each by the three" until_s 30 path_lines 6003
check "zebra installed them through nexthop objects" \
	bash -c "ip netns exec $RT_NS ip route show 100.64.5.0/24 | grep -q nhid"
check "... all 2,001 through one shared group" until_s 10 bash -c "$BUILD/app/routerctl -S $SOCK stats | grep -E '^mirror +groups +1$'"
fwd0=$(stat total forwarded)
check "h1 reaches 203.0.113.1 through routerd" ns_exec h1 ping -c 3 -i 0.2 -W 2 203.0.113.1
check "... forwarded by the workers" test "$(($(stat total forwarded) - fwd0))" -ge 3

# three_flows: 1,500 flows of 3 packets from h1 to 203.0.113.1; the
# source ports each upstream got into $WORK/HOST.flows; nothing lost.
three_flows() {
	local h
	for h in h2 h3 h4; do
		receive $h 5000 8
	done
	sent=$(flows send 203.0.113.1 5000 1500 3 - 3000)
	drain_bg
	for h in h2 h3 h4; do
		awk '{print $2}' "$WORK/$h.rx" | sort -u >"$WORK/$h.flows"
	done
	got=$(cat "$WORK"/h[234].rx | wc -l)
	echo "  $sent sent, $got received; flows: $(wc -l <"$WORK/h2.flows") via h2," \
		"$(wc -l <"$WORK/h3.flows") via h3, $(wc -l <"$WORK/h4.flows") via h4"
	check "nothing lost" test "$got" -eq "$sent"
	check "each flow on one path" test "$(cat "$WORK"/h[234].flows | sort | uniq -d | wc -l)" -eq 0
}

echo "maximum-paths: flows split across the three"
three_flows
for h in h2 h3 h4; do
	n=$(wc -l <"$WORK/$h.flows")
	check "$h's share within 15% of even ($n of 1500)" test "$n" -ge 425 -a "$n" -le 575
	cp "$WORK/$h.flows" "$WORK/$h.before"
done

echo "one upstream down"
kill "$BIRD_h3"
wait "$BIRD_h3" 2>/dev/null
check "h3's session goes" until_s 40 established 2
check "routerd's routes leave by h2 and h4 alone" until_s 10 path_lines 4002
three_flows
check "no flow by h3 now" test "$(wc -l <"$WORK/h3.flows")" -eq 0
for h in h2 h4; do
	stayed=$(comm -12 "$WORK/$h.before" "$WORK/$h.flows" | wc -l)
	check "all of $h's flows stayed ($stayed of $(wc -l <"$WORK/$h.before"))" \
		test "$stayed" -eq "$(wc -l <"$WORK/$h.before")"
done

echo "BGP over link-local addresses (RFC 5549)"
check "the session from port1's fe80:: address is Established" until_s 30 established 1 ll
check "h2's IPv4 prefixes reach routerd via its link-local address" \
	until_s 20 bash -c "[ \$($BUILD/app/routerctl -S $SOCK route show proto bgp | grep -c '^100\.80\..* via $h2_ll dev port1') -eq 50 ]"
check "... and its IPv6 prefixes" \
	until_s 20 bash -c "[ \$($BUILD/app/routerctl -S $SOCK -6 route show proto bgp | grep -c '^2001:db8:20.* via $h2_ll dev port1') -eq 50 ]"
fwd0=$(stat total forwarded)
check "h1 reaches 100.80.0.1 through them" ns_exec h1 ping -c 3 -i 0.2 -W 2 100.80.0.1
check "... and 2001:db8:2000::1" ns_exec h1 ping -6 -c 3 -i 0.2 -W 2 2001:db8:2000::1
check "... forwarded by the workers" test "$(($(stat total forwarded) - fwd0))" -ge 12
check "the mirror knew every attribute zebra's routes and objects carried" \
	test "$(stat mirror unknown_attrs)" -eq 0

echo "bgpd killed"
kill -9 "$BGPD"
wait "$BGPD" 2>/dev/null
check "zebra withdraws its routes, and routerd follows" until_s 20 routes_eq 0
start_bgpd
check "bgpd again: the routes come back" until_s 60 routes_ge 2001
done_tests
