#!/usr/bin/env bash
# Neighbour aging under traffic, with short timers (reachable 1 s,
# collection after 2 s): a neighbour in use goes STALE, then DELAY and
# PROBE, is confirmed and stays; no packet of a steady stream is lost to
# it. One that traffic stops using is collected.
. "$(dirname "$0")/lib.sh"
two_hosts
start_router --set neigh-reachable-ms=1000 --set neigh-gc-stale-ms=2000
check "h2 reachable" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
expect_out "8 s of pings at 10/s, none lost" " 0% packet loss" \
	ns_exec h1 ping -c 80 -i 0.1 -W 1 198.51.100.2
expect_out "the neighbour is still there" "198.51.100.2 dev port1 lladdr .* (REACHABLE|STALE|DELAY|PROBE)" \
	rc neigh show
check "it was probed (unicast) and confirmed" test "$(stat neigh failed)" -eq 0
# DELAY 5 s, probe, REACHABLE 1 s, once more as it was used in the last
# 5 s, then STALE and collected 2 s later: about 15 s.
sleep 18
check "unused, it is collected" bash -c "! $BUILD/app/routerctl -S $SOCK neigh show | grep -q '198.51.100.2 '"
check "and resolved again when needed" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
done_tests
