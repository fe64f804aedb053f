#!/usr/bin/env bash
# routerctl: every command's success path (checked through -j), error
# paths (one line, non-zero exit, nothing applied), and the full real
# IPv4 table loaded with -b, with route get spot checks.
. "$(dirname "$0")/lib.sh"
two_hosts
RT_OUT=$WORK/routerd.out start_router

echo "log"
expect_out "startup logged: ports" "routerd main: port1: net_af_packet, ([0-9a-f]{2}:){5}[0-9a-f]{2}, mtu 1500" \
	cat "$WORK/routerd.out"
expect_out "startup logged: ready" "routerd main: 2 ports, 1 workers, socket" cat "$WORK/routerd.out"
# The instruction set of the lookups and stages, chosen at start from the
# processor (lib/fib/isa.c), whatever the build's target.
avx512=0
grep -q avx512bw /proc/cpuinfo && grep -q avx512vl /proc/cpuinfo && avx512=1
isa=$([ $avx512 = 1 ] && echo avx512 || echo base)
expect_out "startup logged: the lookups' instruction set, the processor's best ($isa)" \
	"routerd main: burst lookups and stages: $isa \\(SIMD width limit 512, the processor's best\\)" \
	cat "$WORK/routerd.out"
check "... shown in stats" test "$(stat worker isa_avx512)" -eq $avx512
expect_out "... and in telemetry" "\"isa\": \"$isa\"" \
	bash -c "echo /router/workers | dpdk-telemetry.py -f $NS_PREFIX"
expect_out "log types and their levels" "router.neigh +notice" rc log show
check "log level router.* debug" rc log level 'router.*' debug
expect_out "levels changed" '"router.main":"debug","router.control":"debug","router.neigh":"debug"' \
	rc -j log show
expect_out "an unknown level refused" "unknown level 'loud'" \
	bash -c "! $BUILD/app/routerctl -S $SOCK log level router.main loud"
ns_exec h1 ping -c 1 -W 2 198.51.100.2 >/dev/null
rc link set port1 mtu 1400
rc link set port1 mtu 1500
sleep 0.2
expect_out "a neighbour resolved, at debug" "routerd neigh: 198.51.100.2 on port1: lladdr ([0-9a-f]{2}:){5}" \
	cat "$WORK/routerd.out"
expect_out "a command, at debug" "routerd control: 'link set port1 mtu 1400': ok" cat "$WORK/routerd.out"
expect_out "an MTU change, at notice" "routerd control: port1: mtu 1500 -> 1400" cat "$WORK/routerd.out"
check "back to notice" rc log level 'router.*' notice

echo "success paths"
check "route add via" rc route add 10.10.0.0/16 via 198.51.100.2 metric 10
expect_out "route in JSON" '"dst":"10.10.0.0/16","gateway":"198.51.100.2","dev":"port1","protocol":"boot","metric":10' \
	rc -j route show
check "route replace" rc route replace 10.10.0.0/16 via 198.51.100.3 metric 10
expect_out "replaced" '"dst":"10.10.0.0/16","gateway":"198.51.100.3"' rc -j route show
check "same prefix, another metric" rc route add 10.10.0.0/16 via 198.51.100.2 metric 20
expect_out "lowest metric used" "10.10.1.1 via 198.51.100.3 dev port1" rc route get 10.10.1.1
check "route del by metric" rc route del 10.10.0.0/16 metric 10
expect_out "next metric takes over" "10.10.1.1 via 198.51.100.2" rc route get 10.10.1.1
check "route in table 100" rc route add 10.20.0.0/16 via 198.51.100.2 table 100
expect_out "table 100 shown" '"dst":"10.20.0.0/16".*"table":"100"' rc -j route show table 100
rc route show table all >"$WORK/all"
expect_out "table all: table 100's routes" "^10.20.0.0/16 via 198.51.100.2 dev port1 table 100$" cat "$WORK/all"
expect_out "table all: main's" "^10.10.0.0/16 via 198.51.100.2 dev port1 metric 20$" cat "$WORK/all"
expect_out "table all: local routes, named as Linux names them" \
	"^local 192.0.2.1 dev port0 table local proto kernel scope host src 192.0.2.1$" cat "$WORK/all"
echo "route show and flush selectors, as ip route's"
rc route add 10.21.0.0/16 via 198.51.100.3 table 100
rc route add 10.21.1.0/24 via 192.0.2.2 table 100
rc route add blackhole 10.22.0.0/16 table 100
expect_out "show via; as ip, the table asked for is not named" "^10.21.0.0/16 via 198.51.100.3 dev port1$" \
	rc route show table 100 via 198.51.100.3
check "show via: only that gateway's" test "$(rc route show table 100 via 198.51.100.3 | wc -l)" -eq 1
check "show dev port1: two routes" test "$(rc route show table 100 dev port1 | wc -l)" -eq 2
check "show root 10.21.0.0/16: the /16 and the /24" \
	test "$(rc route show table 100 root 10.21.0.0/16 | wc -l)" -eq 2
expect_out "show match 10.21.1.7: the routes holding it, the /16 among them" \
	"^10.21.0.0/16 via" rc route show table 100 match 10.21.1.7
check "... and not the blackhole" \
	test "$(rc route show table 100 match 10.21.1.7 | grep -c blackhole)" -eq 0
check "show type blackhole" test "$(rc route show table 100 type blackhole)" = \
	"blackhole 10.22.0.0/16"
expect_out "show proto kernel: the connected routes, with their src" \
	"^192.0.2.0/24 dev port0 proto kernel scope link src 192.0.2.1$" \
	rc route show proto kernel
expect_out "flush without a selector refused" "a selector is needed" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route flush"
check "flush via, in table 100" rc route flush table 100 via 198.51.100.3
check "... that gateway's route gone, the three others kept" \
	test "$(rc route show table 100 via 198.51.100.3 | wc -l)$(rc route show table 100 | wc -l)" = 03
check "flush root 10.21.0.0/16 in table 100" rc route flush table 100 root 10.21.0.0/16
check "... the rest of the prefix gone; 10.20.0.0/16 and the blackhole kept" \
	test "$(rc route show table 100 root 10.21.0.0/16 | wc -l)$(rc route show table 100 | wc -l)" = 02
check "route flush cache: accepted, as in ip" rc route flush cache
check "a routing daemon's routes: proto bgp" rc route add 10.23.0.0/16 via 198.51.100.2 proto bgp
check "proto 99 by number" rc route add 10.24.0.0/16 via 198.51.100.2 proto 99
expect_out "shown with their proto" "^10.23.0.0/16 via 198.51.100.2 dev port1 proto bgp$" \
	rc route show proto bgp
expect_out "... in JSON" '"dst":"10.24.0.0/16".*"protocol":"99"' rc -j route show
check "flush proto bgp: its routes alone" rc route flush proto bgp
check "... gone, proto 99's kept" \
	test "$(rc route show root 10.23.0.0/15 | wc -l)$(rc route show 10.24.0.0/16 | wc -l)" = 01
rc route del 10.24.0.0/16
rc route del blackhole 10.22.0.0/16 table 100
check "IPv6 route" rc -6 route add 2001:db8:99::/48 via 2001:db8:2::2
expect_out "IPv6 route in JSON" '"dst":"2001:db8:99::/48","gateway":"2001:db8:2::2","dev":"port1","protocol":"boot","metric":1024' \
	rc -j -6 route show
check "default takes the gateway's family" rc route add default via 2001:db8:2::2
expect_out "an IPv6 default route" '"dst":"default","gateway":"2001:db8:2::2","dev":"port1","protocol":"boot","metric":1024' \
	rc -j -6 route show
check "a link-local gateway with dev" rc -6 route add 2001:db8:77::/48 via fe80::1 dev port1
expect_out "a link-local gateway needs dev" "link-local gateway needs 'dev PORT'" \
	bash -c "! $BUILD/app/routerctl -S $SOCK -6 route add 2001:db8:78::/48 via fe80::1"
check "nexthop add" rc nexthop add id 10 via 198.51.100.2 dev port1
check "nexthop add 2" rc nexthop add id 11 via 198.51.100.3 dev port1
check "nexthop group" rc nexthop add id 20 group 10/11,2
expect_out "nexthops in JSON" '"id":20,"group":\[\{"id":10,"weight":1\},\{"id":11,"weight":2\}\]' \
	rc -j nexthop show
check "route via nhid" rc route add 10.30.0.0/16 nhid 20
expect_out "route shows nhid" '"dst":"10.30.0.0/16","nhid":20' rc -j route show
check "nexthop in use refused" bash -c "! $BUILD/app/routerctl -S $SOCK nexthop del id 20"
check "route del, then nexthop del" rc route del 10.30.0.0/16
check "nexthop del" rc nexthop del id 20
check "rule add" rc rule add priority 100 from 192.0.2.0/24 table 100
expect_out "rule in JSON" '"priority":100,"src":"192.0.2.0/24","table":"100"' rc -j rule show
expect_out "local rule listed first, as ip rule lists it" '^0:	from all lookup local$' rc rule show
expect_out "... in JSON too" '^\[{"priority":0,"src":"all","table":"local"},' rc -j rule show
expect_out "main rule listed" '32766:	from all lookup main' rc rule show
check "... once: IPv4's, as ip rule lists them" test "$(rc rule show | grep -c 'lookup main')" -eq 1
expect_out "-6 rule show: IPv6's" '32766:	from all lookup main' rc -6 rule show
check "rule del" rc rule del priority 100 from 192.0.2.0/24 table 100
expect_out "default rule listed last, as ip rule lists it" '^32767:	from all lookup default$' \
	rc rule show
check "-6 rule show: none for IPv6, as in Linux" \
	test "$(rc -6 rule show | grep -c 'lookup default')" -eq 0
check "route add table default" rc route add 198.18.5.0/24 via 198.51.100.9 table default
expect_out "route show table default" '^198.18.5.0/24 via 198.51.100.9 dev port1' \
	rc route show table default
expect_out "table default looked up after main, with no custom rule (and named, as ip names it)" \
	'via 198.51.100.9 dev port1 table default' rc route get 198.18.5.1
expect_out "... in JSON" '"table":"default"' rc -j route get 198.18.5.1
expect_out "route get fibmatch: the route, and its table" \
	'^198.18.5.0/24 via 198.51.100.9 dev port1 table default' rc route get fibmatch 198.18.5.1
check "rule del priority 32767" rc rule del priority 32767 lookup default
expect_out "... then not" "Network is unreachable" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route get 198.18.5.1"
check "rule add back" rc rule add priority 32767 lookup default
check "route add in main" rc route add 198.18.7.0/24 via 198.51.100.9
expect_out "route get fibmatch: main's route, no table named" '^198.18.7.0/24 via 198.51.100.9 dev port1 *$' \
	rc route get fibmatch 198.18.7.1
expect_out "... JSON" '^\[\{"type":"unicast","dst":"198.18.7.0/24","gateway":"198.51.100.9"' \
	rc -j route get fibmatch 198.18.7.1
check "rule del lookup main (no priority: the first that matches, 32766)" rc rule del lookup main
expect_out "... main's routes no longer used" "Network is unreachable" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route get 198.18.7.1"
expect_out "... a rule add without priority goes before the first rule left" '^32766:	from all lookup 100$' \
	bash -c "$BUILD/app/routerctl -S $SOCK rule add lookup 100 && $BUILD/app/routerctl -S $SOCK rule show"
check "... deleted again" rc rule del priority 32766 lookup 100
check "main's rule added back" rc rule add priority 32766 lookup main
expect_out "... and main's routes used again (no table named for main)" 'via 198.51.100.9 dev port1 src' \
	rc route get 198.18.7.1
check "the two routes deleted" rc route del 198.18.7.0/24
rc route del 198.18.5.0/24 table default
check "neigh add" rc neigh add 198.51.100.77 lladdr 02:00:00:00:00:77 dev port1
expect_out "route get fibmatch of a neighbour: its connected route, as Linux has no host route" \
	'^198.51.100.0/24 dev port1 proto kernel scope link src 198.51.100.1' \
	rc route get fibmatch 198.51.100.77
expect_out "... of the router's own address: its local route" \
	'^local 198.51.100.1 dev port1 table local proto kernel scope host src 198.51.100.1' \
	rc route get fibmatch 198.51.100.1
expect_out "... of no route: as ip's" "Network is unreachable" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route get fibmatch 240.0.0.1"
expect_out "neigh permanent in JSON" '"dst":"198.51.100.77","dev":"port1","lladdr":"02:00:00:00:00:77","state":\["PERMANENT"\]' \
	rc -j neigh show
expect_out "neigh show nud permanent" "^198.51.100.77 dev port1 lladdr 02:00:00:00:00:77 PERMANENT$" \
	rc neigh show nud permanent
check "... nud reachable: not that one" \
	test "$(rc neigh show nud reachable | grep -c 198.51.100.77)" -eq 0
expect_out "nud with an unknown state refused" "unknown nud state 'sleepy'" \
	bash -c "! $BUILD/app/routerctl -S $SOCK neigh show nud sleepy"
check "neigh del" rc neigh del 198.51.100.77 dev port1
check "neigh flush" rc neigh flush dev port1
check "neigh flush all" rc neigh flush all
check "addr add" rc addr add 203.0.113.1/24 dev port1
expect_out "addr in JSON" '"family":"inet","local":"203.0.113.1","prefixlen":24' rc -j addr show dev port1
check "addr del" rc addr del 203.0.113.1/24 dev port1
check "addr add two more" rc addr add 203.0.113.1/24 dev port1
rc addr add 2001:db8:113::1/64 dev port1
expect_out "addr show PORT, as ip addr show eth0" "inet 203.0.113.1/24" rc addr show port1
check "-4 addr flush dev port1 scope global" rc -4 addr flush dev port1 scope global
check "... its IPv4 addresses gone, IPv6 kept" \
	test "$(rc addr show port1 | grep -c 'inet ')$(rc addr show port1 | grep -c 2001:db8:113::1)" = 01
check "... their routes with them" test "$(rc route show 203.0.113.0/24 | wc -l)" -eq 0
rc addr del 2001:db8:113::1/64 dev port1
rc addr add 198.51.100.1/24 dev port1 # flushed above; later checks route through it
check "link set dev PORT, as ip link set dev eth0" rc link set dev port1 mtu 9000
expect_out "link in JSON, flags as ip -j link's" \
	'"ifname":"port1","flags":\["BROADCAST","MULTICAST","UP","LOWER_UP"\],"mtu":9000,"operstate":"UP"' \
	rc -j link show
expect_out "link show: flags and state as ip link's" \
	"^1: port1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 state UP speed " rc link show port1
check "link show PORT: that port alone" test "$(rc -j link show dev port1 | grep -o ifname | wc -l)" -eq 1
check "route change: an existing route's gateway" rc route change 10.20.0.0/16 via 198.51.100.3 table 100
expect_out "... changed" "^10.20.0.0/16 via 198.51.100.3 dev port1$" \
	rc route show table 100 10.20.0.0/16
expect_out "route change of an absent route fails, as ip's" "no such route 10.42.0.0/16" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route change 10.42.0.0/16 via 198.51.100.3"
expect_out "counters in DPDK telemetry" '"/router/stats": \{"rx": [0-9]+, "forwarded": [0-9]+' \
	bash -c "echo /router/stats | dpdk-telemetry.py -f $NS_PREFIX"
expect_out "control and neighbour counters in telemetry as in stats" \
	'"local_unhandled": [0-9]+.*"reasm_oks": [0-9]+.*"neigh_entries": [0-9]+' \
	bash -c "echo /router/stats | dpdk-telemetry.py -f $NS_PREFIX"
expect_out "worker load in DPDK telemetry" '"/router/workers": \{"isa": "[a-z0-9]+", "worker0": \{"lcore": 1, "rx": [0-9]+, "forwarded": [0-9]+, "rounds": [1-9][0-9]*, "busy_rounds": [0-9]+, "busy_cycles": [0-9]+' \
	bash -c "echo /router/workers | dpdk-telemetry.py -f $NS_PREFIX"
check "stats reset" rc stats reset
# The reset shows in the forwarded count (one forwarded above); rx may
# already count a stray frame from a host (once, two frames on port1,
# delivered locally and unhandled, came between the reset and the read).
expect_out "stats in JSON" '"total.rx":[0-9]+,"total.forwarded":0,' rc -j stats
expect_out "the devices' own drop counters, per port, from the reset, and the TX backlog's" \
	'"port.port0.rx_missed":0,"port.port0.rx_nombuf":0,"port.port0.rx_errors":0,"port.port0.tx_errors":0,"port.port0.tx_held":0,"port.port0.tx_backlog":0' \
	rc -j stats
rc route add 10.30.0.0/16 via 198.51.100.2 table 300
rc route add blackhole 2001:db8:300::/48 table 300
expect_out "a table's routes and memory in stats" \
	'^fib +table300.routes4 +1$' rc stats
bytes300() { rc -j stats | grep -o '"fib.table300.bytes":[0-9]*' | cut -d: -f2; }
# A table other than main starts small: 2^16-entry first levels, 128 KiB
# for IPv4 and 256 KiB for IPv6 (docs/fib.md, "Tables").
check "... its first levels among them (small: 384 KiB to 1 MiB)" \
	test "$(bytes300)" -ge $((384 << 10)) -a "$(bytes300)" -lt $((1 << 20))
# /24s in 5,120 /16s need more than its 4,096 groups: the table grows
# to the full first level (32 MiB); deleting all but 8 of them takes it
# back to the small one (docs/fib.md).
for a in $(seq 20 39); do for b in $(seq 0 255); do
	echo "route add $a.$b.7.0/24 via 198.51.100.3 table 300"
done; done >"$WORK/grow300"
check "5,120 routes in table 300" rc -b "$WORK/grow300"
check "... grown: a full first level" test "$(bytes300)" -ge $((32 << 20))
sed -e 's/^route add/route del/' -e '/^route del 20\.[0-7]\.7\.0/d' "$WORK/grow300" >"$WORK/shrink300"
check "all but 8 deleted" rc -b "$WORK/shrink300"
expect_out "... 8 left, and the /16" '^fib +table300.routes4 +9$' rc stats
# (first levels, groups and RIB together: 1.8 MiB when written)
check "... small again (under 4 MiB, where its full first level alone was 32)" \
	test "$(bytes300)" -lt $((4 << 20))
rc rule add priority 300 from 10.30.99.0/24 table 300
expect_out "... and its lookups still answer" "20.7.7.1 from 10.30.99.1 via 198.51.100.3 dev port1" \
	rc route get 20.7.7.1 from 10.30.99.1 iif port0
rc rule del priority 300 from 10.30.99.0/24 table 300
rc route flush table 300
check "a flushed table gives its memory back (0 bytes)" test "$(bytes300)" -eq 0
expect_out "... and shows no routes" '"fib.table300.routes4":0,"fib.table300.routes6":0,' \
	rc -j stats

echo "error paths: one line, non-zero, nothing applied"
expect_out "invalid prefix" "^error: route add: invalid prefix '10.0.0.300/8'$" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route add 10.0.0.300/8 via 198.51.100.2"
expect_out "host bits set" "invalid prefix for its length" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route add 10.0.0.1/8 via 198.51.100.2"
expect_out "unknown port" "unknown port 'port9'" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route add 10.40.0.0/16 via 198.51.100.2 dev port9"
expect_out "gateway off-link" "gateway not on a connected network" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route add 10.40.0.0/16 via 10.99.0.1"
expect_out "deleting an absent route" "no such route 10.41.0.0/16" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route del 10.41.0.0/16"
expect_out "duplicate route" "File exists" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route add 10.10.0.0/16 via 198.51.100.2 metric 20"
expect_out "malformed MAC" "invalid MAC address '02:00:00:zz:00:01'" \
	bash -c "! $BUILD/app/routerctl -S $SOCK neigh add 198.51.100.9 lladdr 02:00:00:zz:00:01 dev port1"
expect_out "unknown command" "route: unknown command 'frobnicate'" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route frobnicate"
check "nothing applied" bash -c "! $BUILD/app/routerctl -S $SOCK route show | grep -q 10.40.0.0"

echo "the full IPv4 table with -b"
zcat "$ROOT/bench/data/prefixes-v4.txt.gz" |
	awk 'NR % 2 { print "route add " $1 " via 198.51.100.2"; next } { print "route add " $1 " via 198.51.100.3" }' \
		>"$WORK/table"
start=$(date +%s.%N)
rc -b "$WORK/table" >"$WORK/load" 2>&1
end=$(date +%s.%N)
echo "  loaded $(wc -l <"$WORK/table") routes in $(echo "$end - $start" | bc) s"
expect_out "one duplicate refused, by line number" "line 543742: error: .*215.0.0.0/16 exists" cat "$WORK/load"
check "every other line applied" test "$(grep -c error "$WORK/load")" -eq 1
# Spot checks: the first address of 300 random prefixes must go via the
# gateway that prefix was given.
awk 'BEGIN { srand(7) } rand() < 0.0006 { split($3, a, "/"); print a[1], $5 }' "$WORK/table" |
	head -300 >"$WORK/spots"
bad=0
while read -r addr gw; do
	rc route get "$addr" | grep -q "via $gw " || { echo "  $addr: not via $gw"; bad=$((bad + 1)); }
done <"$WORK/spots"
check "route get spot checks ($(wc -l <"$WORK/spots") addresses)" test "$bad" -eq 0
# JSON answers are one line, here about 70 MB: routerctl once kept only
# the last 64 KiB of a line; and routerd once closed a connection whose
# answer took several seconds to send (its once-a-second check read a
# progress made in the same round as one 2^64 ms old): three times.
lines=$(rc -4 route show | wc -l)
json_routes() { rc -j -4 route show | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
for i in 1 2 3; do
	check "route show in JSON, the whole table: every route, parsed ($i)" \
		test "$(json_routes)" -eq "$lines"
done
check "still forwarding" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2

echo "link show -s, as ip -s link"
# A counter of `rc -j -s link show PORT`: DIR (rx|tx) and KEY.
link_stat() {
	rc -j -s link show "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['stats64']['$2']['$3'])"
}
expect_out "RX and TX lines, in ip's layout" "^    RX:  bytes packets errors dropped  missed  nombuf$" \
	rc -s link show port0
rx0=$(link_stat port0 rx packets) tx1=$(link_stat port1 tx packets) drop0=$(link_stat port0 rx dropped)
ns_exec h1 ping -c 5 -i 0.2 -W 2 198.51.100.2 >/dev/null
check "port0 received the 5 requests" test "$(($(link_stat port0 rx packets) - rx0))" -ge 5
check "port1 sent them on" test "$(($(link_stat port1 tx packets) - tx1))" -ge 5
ns_exec h1 python3 "$ROOT/tests/integration/send_frames.py" h1-r \
	"$(rc -j link show port0 | grep -o '"address":"[^"]*"' | cut -d'"' -f4)" bad_checksum 3
sleep 0.3
check "3 bad checksums: port0's RX dropped" test "$(($(link_stat port0 rx dropped) - drop0))" -ge 3
expect_out "the old socket option explained" "the socket option is -S" \
	bash -c "! $BUILD/app/routerctl -s $SOCK route show"

echo "the instruction set limited by DPDK's option"
stop_router
RT_LCORES="-l 0,1 --force-max-simd-bitwidth=64" RT_OUT=$WORK/forced.out start_router
expect_out "--force-max-simd-bitwidth=64: the build's own lookups and stages" \
	"routerd main: burst lookups and stages: base \\(SIMD width limit 64, forced\\)" \
	cat "$WORK/forced.out"
check "... shown in stats" test "$(stat worker isa_avx512)" -eq 0
check "... forwarding" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
check "... both families" ns_exec h1 ping -6 -c 2 -i 0.2 -W 2 2001:db8:2::2

done_tests
