#!/usr/bin/env bash
# Multipath routes as `ip route` writes them (router_multipath.sh): a
# weighted 2:1 split within 15%, flows on one path each; a path whose
# port goes down gives its flows to the other; the route's own nexthops
# go with it. A route whose port goes down leaves the lookups for the
# next route by metric, and comes back with the port.
. "$(dirname "$0")/lib.sh"
three_hosts
start_router
check "h2 reachable" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
check "h3 reachable" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.18.0.2
check "multipath route" rc route add 203.0.113.0/24 nexthop via 198.51.100.2 weight 2 \
	nexthop via 198.18.0.2 weight 1
expect_out "shown as ip route does" "nexthop via 198.51.100.2 dev port1 weight 2" rc route show
expect_out "and in JSON" '"nexthops":\[\{"gateway":"198.51.100.2","dev":"port1","weight":2\},\{"gateway":"198.18.0.2","dev":"port2","weight":1\}\]' \
	rc -j route show
ecmp_flows 600 2
check "2:1 within 15%: h2 340..460 of 600" test "$FLOWS2" -ge 340 -a "$FLOWS2" -le 460
check "2:1 within 15%: h3 170..230 of 600" test "$FLOWS3" -ge 170 -a "$FLOWS3" -le 230
echo "a path's port down: its flows move to the other path, none lost (as Linux)"
rc link set port2 down
ecmp_flows 200 2
check "every flow via h2" test "$FLOWS2" -eq 200 -a "$FLOWS3" -eq 0
expect_out "its path shown dead, as ip route does" \
	"nexthop via 198.18.0.2 dev port2 weight 1 dead linkdown" rc route show
rc link set port2 up
ecmp_flows 600 2
check "back up: 2:1 again, h3 170..230 of 600" test "$FLOWS3" -ge 170 -a "$FLOWS3" -le 230
check "route del" rc route del 203.0.113.0/24
check "no multipath route left" bash -c "! $BUILD/app/routerctl -S $SOCK route show | grep -q nexthop"

echo "a backup route: the preferred route's port down, the next metric takes the traffic"
check "preferred route, metric 10" rc route add 203.0.113.0/24 via 198.51.100.2 metric 10
check "backup route, metric 20" rc route add 203.0.113.0/24 via 198.18.0.2 metric 20
ecmp_flows 100 2
check "every flow via h2" test "$FLOWS2" -eq 100 -a "$FLOWS3" -eq 0
rc link set port1 down
ecmp_flows 100 2
check "port1 down: every flow via h3, none lost" test "$FLOWS3" -eq 100 -a "$FLOWS2" -eq 0
expect_out "the preferred route kept, linkdown" \
	"203.0.113.0/24 via 198.51.100.2 dev port1 metric 10 linkdown" rc route show
expect_out "route get: the backup" "via 198.18.0.2 dev port2" rc route get 203.0.113.1
rc link set port1 up
ecmp_flows 100 2
check "port1 up: every flow via h2 again" test "$FLOWS2" -eq 100 -a "$FLOWS3" -eq 0
check "route del, both metrics" rc route del 203.0.113.0/24 metric 10
rc route del 203.0.113.0/24 metric 20
check "the gateways still forwarded to" ns_exec h1 ping -c 1 -W 2 198.18.0.2
done_tests
