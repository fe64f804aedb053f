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
#  4. bgpd is killed: zebra withdraws its routes, and routerd follows;
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
established() {
	[ "$(vty 'show bgp summary json' | python3 -c '
import json, sys
s = json.load(sys.stdin)["ipv4Unicast"]["peers"]
print(sum(1 for p in s.values() if p["state"] == "Established"))')" -eq "$1" ]
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
	echo "  ipv4 { import none; export all; }; }"
}
peer_conf 198.51.100.2 198.51.100.1 >"$WORK/h2.conf"
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
	wait_bg
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

echo "bgpd killed"
kill -9 "$BGPD"
wait "$BGPD" 2>/dev/null
check "zebra withdraws its routes, and routerd follows" until_s 20 routes_eq 0
start_bgpd
check "bgpd again: the routes come back" until_s 60 routes_ge 2001
done_tests
