#!/usr/bin/env bash
# routerctl monitor, as ip monitor: a client that asked for events gets a
# line for each change, as the show commands print the object (deletions
# prefixed "Deleted", objects tagged when several are watched), including
# the neighbour table's own resolutions; one that watches routes only sees
# no other kind; a monitor that never reads does not stall the daemon.
. "$(dirname "$0")/lib.sh"
two_hosts
start_router
"$BUILD/app/routerctl" -S "$SOCK" monitor >"$WORK/all" 2>&1 &
mon_all=$!
"$BUILD/app/routerctl" -S "$SOCK" monitor route >"$WORK/routes" 2>&1 &
mon_route=$!
"$BUILD/app/routerctl" -S "$SOCK" -j monitor route neigh >"$WORK/json" 2>&1 &
mon_json=$!
sleep 0.3

rc route add 10.50.0.0/16 via 198.51.100.2 proto static
rc route del 10.50.0.0/16
rc addr add 10.51.0.1/24 dev port1
rc addr del 10.51.0.1/24 dev port1
rc link set port1 mtu 1400
rc link set port1 mtu 1500
rc rule add priority 100 from 192.0.2.0/24 table 100
rc rule del priority 100 from 192.0.2.0/24 table 100
rc nexthop add id 7 via 198.51.100.2 dev port1
rc nexthop del id 7
rc neigh add 198.51.100.77 lladdr 02:00:00:00:00:77 dev port1
rc neigh del 198.51.100.77 dev port1
ns_exec h1 ping -c 1 -W 2 198.51.100.2 >/dev/null # the router resolves h2
sleep 0.5
kill "$mon_all" "$mon_route" "$mon_json" 2>/dev/null
wait "$mon_all" "$mon_route" "$mon_json" 2>/dev/null
sed 's/^/    /' "$WORK/all"

expect_out "a route added" "^\[ROUTE\] 10.50.0.0/16 via 198.51.100.2 dev port1 proto static$" cat "$WORK/all"
expect_out "... and deleted" "^\[ROUTE\] Deleted 10.50.0.0/16 via 198.51.100.2 dev port1 proto static$" \
	cat "$WORK/all"
expect_out "an address added" "^\[ADDR\] 1: port1    inet 10.51.0.1/24 scope global$" cat "$WORK/all"
expect_out "... and deleted" "^\[ADDR\] Deleted 1: port1    inet 10.51.0.1/24 scope global$" \
	cat "$WORK/all"
expect_out "a link changed" "^\[LINK\] 1: port1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1400 state UP" cat "$WORK/all"
expect_out "a rule added" "^\[RULE\] 100:	from 192.0.2.0/24 lookup 100$" cat "$WORK/all"
expect_out "... and deleted" "^\[RULE\] Deleted 100:	from 192.0.2.0/24 lookup 100$" cat "$WORK/all"
expect_out "a nexthop added" "^\[NEXTHOP\] id 7 via 198.51.100.2 dev port1$" cat "$WORK/all"
expect_out "... and deleted" "^\[NEXTHOP\] Deleted id 7 via 198.51.100.2 dev port1$" cat "$WORK/all"
expect_out "a neighbour added" "^\[NEIGH\] 198.51.100.77 dev port1 lladdr 02:00:00:00:00:77 PERMANENT$" \
	cat "$WORK/all"
expect_out "... and deleted" "^\[NEIGH\] Deleted 198.51.100.77 dev port1$" cat "$WORK/all"
check "each once" test "$(grep -c '198.51.100.77' "$WORK/all")" -eq 2
expect_out "a neighbour the router resolved itself" \
	"^\[NEIGH\] 198.51.100.2 dev port1 lladdr ([0-9a-f]{2}:){5}[0-9a-f]{2} REACHABLE$" cat "$WORK/all"
expect_out "monitor route: routes, untagged" "^10.50.0.0/16 via 198.51.100.2 dev port1 proto static$" \
	cat "$WORK/routes"
check "... and nothing else" test "$(wc -l <"$WORK/routes")" -eq 2
# -j: one JSON object a line, {"kind", "deleted", "data"}, data as
# -j show lists the object.
check "monitor -j: every line one JSON object" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no events"
for l in lines:
    e = json.loads(l)
    assert set(e) == {"kind", "deleted", "data"}, e
    assert e["kind"] in ("route", "neigh"), e
' "$WORK/json"
check "monitor -j: the route added, as route show -j lists it" python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
add = [e for e in ev if e["kind"] == "route" and not e["deleted"]]
d = add[0]["data"]
assert d["dst"] == "10.50.0.0/16" and d["gateway"] == "198.51.100.2", d
assert d["dev"] == "port1" and d["protocol"] == "static", d
assert any(e["kind"] == "route" and e["deleted"] and e["data"]["dst"] == "10.50.0.0/16" for e in ev)
' "$WORK/json"
check "monitor -j: a neighbour deleted names it" python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert any(e["kind"] == "neigh" and e["deleted"] and e["data"] == {"dst": "198.51.100.77", "dev": "port1"} for e in ev), ev
' "$WORK/json"
expect_out "an unknown object refused" "unknown object 'routes2'" \
	bash -c "! $BUILD/app/routerctl -S $SOCK monitor routes2"

echo "a monitor that never reads"
# A client that asks for events and never reads them: its socket buffer
# fills, routerd queues up to its limit, then drops it; other clients and
# forwarding are not held up meanwhile.
python3 - "$SOCK" <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b"monitor route\n")
time.sleep(20)
EOF
stuck=$!
sleep 0.3
start=$(date +%s%N)
zcat "$ROOT/bench/data/prefixes-v4.txt.gz" | head -100000 |
	awk '{ print "route add " $1 " via 198.51.100.2 table 200" }' >"$WORK/many"
check "100,000 routes added while it does not read" rc -b "$WORK/many"
end=$(date +%s%N)
echo "  in $(((end - start) / 1000000)) ms"
check "other clients served" rc route show table 200 root 1.0.0.0/8
check "forwarding goes on" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
kill "$stuck" 2>/dev/null
wait "$stuck" 2>/dev/null

done_tests
