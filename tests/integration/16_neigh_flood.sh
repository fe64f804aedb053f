#!/usr/bin/env bash
# A neighbour flood (issue 27): h1 (port0) sprays UDP as fast as it can at
# 100,000 unresolvable addresses in the /16 connected on port1 and as many
# in port1's /64. Meanwhile, with the flood running:
#  1. h3's neighbour entry (port2) is flushed and h3 is reached again from
#     h2, 20 times: one ping resolves it within 1 s every time, and none
#     of the packets h2 sends (port1) is dropped at the exception path,
#     whatever the flood's packets (port0) lose there;
#  2. a new address of h2 on the flooded port1 is reached from h3, 20
#     times (both families): it resolves within 2 s at least 19 times;
#  3. a flow h2 -> h3 keeps at least 95% of the rate it had without the
#     flood (measured both ways);
#  4. the table, routerd's memory and the ARP/NS requests seen on the
#     flooded link stay within their configured bounds;
#  5. routerctl answers within its usual time throughout.
. "$(dirname "$0")/lib.sh"

FLOOD_S=${FLOOD_S:-300} # at most: it is stopped once the checks are done
two_hosts
ns_link h3
ns_addr h3 198.18.0.2/24 198.18.0.1
ns_addr h3 2001:db8:3::2/64 2001:db8:3::1
cat >>"$WORK/startup" <<EOS
addr add 10.99.0.1/16 dev port1
addr add 198.18.0.1/24 dev port2
addr add 2001:db8:3::1/64 dev port2
EOS
ns_exec h2 ip route add 10.99.0.0/16 dev h2-r # its new addresses' replies
start_router

check "h1 reaches the router" ns_exec h1 ping -c 1 -W 2 192.0.2.1
check "h2 and h3 reach each other" ns_exec h2 ping -c 2 -i 0.2 -W 2 198.18.0.2
check "and over IPv6" ns_exec h2 ping -6 -c 2 -i 0.2 -W 2 2001:db8:3::2
router_mac=$(ns_exec h1 ip neigh show 192.0.2.1 | awk '{for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1)}')

# The flow's rate without the flood: 2,000 packets a second for 5 s.
flow_rate() {
	receive h3 7000 7
	ns_exec h2 python3 "$ROOT/tests/integration/udp_flows.py" send 198.18.0.2 7000 1 10000 \
		198.51.100.2 2000 >"$WORK/flow.sent"
	wait_bg
	wc -l <"$WORK/h3.rx"
}
base=$(flow_rate)
echo "  the flow without the flood: $base of $(cat "$WORK/flow.sent") packets"

rss() { awk '/VmRSS/ {print $2}' "/proc/$RT_PID/status"; }
rss0=$(rss)
rc stats reset
ns_exec h2 timeout $((FLOOD_S + 30)) tcpdump -l -n -i h2-r -c 1000000 \
	'arp[6:2] = 1 or (icmp6 and ip6[40] = 135)' >"$WORK/requests" 2>/dev/null &
tcpdump_pid=$!
sleep 1
FLOOD_PIDFILE=$WORK/flood.pid ns_exec h1 python3 "$ROOT/tests/integration/flood.py" h1-r "$router_mac" "$FLOOD_S" 10.99 \
	2001:db8:2:0 100000 >"$WORK/flood.sent" &
flood_pid=$!
start=$(date +%s.%N)
sleep 3

# 5. routerctl's answers, timed all along (usually a few milliseconds).
(
	while kill -0 $flood_pid 2>/dev/null; do
		t0=$(date +%s%N)
		"$BUILD/app/routerctl" -S "$SOCK" stats >/dev/null || echo "failed"
		echo $((($(date +%s%N) - t0) / 1000000))
		sleep 0.5
	done
) >"$WORK/cli_ms" &
cli_pid=$!

# 1. Another port's neighbour, flushed 20 times.
ok=0
for i in $(seq 20); do
	rc neigh flush dev port2
	if [ $((i % 2)) -eq 0 ]; then
		ns_exec h2 ping -c 1 -W 1 198.18.0.2 >/dev/null && ok=$((ok + 1))
	else
		ns_exec h2 ping -6 -c 1 -W 1 2001:db8:3::2 >/dev/null && ok=$((ok + 1))
	fi
done
echo "  port2's neighbour resolved $ok times of 20"
check "another port's neighbour resolves within 1 s every time" test $ok -eq 20

# 2. New neighbours on the flooded port.
ok=0
for i in $(seq 20); do
	if [ $((i % 2)) -eq 0 ]; then
		a=10.99.200.$i
		ns_exec h2 ip addr add $a/32 dev h2-r
		ns_exec h3 ping -c 1 -W 2 $a >/dev/null && ok=$((ok + 1))
	else
		a=2001:db8:2::200:$i
		ns_exec h2 ip addr add $a/128 dev h2-r nodad
		ns_exec h3 ping -6 -c 1 -W 2 $a >/dev/null && ok=$((ok + 1))
	fi
done
echo "  new neighbours on the flooded port resolved $ok times of 20"
check "a new neighbour on the flooded port resolves within 2 s (19 of 20)" test $ok -ge 19

# 3. The flow, under the flood.
under=$(flow_rate)
echo "  the flow under the flood: $under of $(cat "$WORK/flow.sent") packets"
check "the flow keeps 95% of its rate" test $((under * 100)) -ge $((base * 95))
check "the flood was still on" kill -0 $flood_pid

# 4. Bounds, read while the flood runs.
sleep 2
rc -j stats >"$WORK/stats.json"
kill "$(cat "$WORK/flood.pid")"
wait $flood_pid
end=$(date +%s.%N)
wait $cli_pid
sleep 1
kill "$tcpdump_pid" 2>/dev/null
wait "$tcpdump_pid" 2>/dev/null
sent=$(cat "$WORK/flood.sent")
secs=$(echo "$end - $start" | bc)
reqs=$(grep -c . "$WORK/requests")
echo "  flood: $sent frames in ${secs}s; $reqs ARP requests and NS seen on port1's link"
python3 - "$WORK/stats.json" <<'EOF' >"$WORK/bounds"
import json, sys
s = json.load(open(sys.argv[1]))
print("entries", s["neigh.entries"], "incomplete", s["port.port1.neigh_incomplete"],
      "replaced", s["port.port1.neigh_replaced"], "rate_limited",
      s["port.port1.neigh_rate_limited"], "requests", s["port.port1.neigh_requests"],
      "exc_drop_data", s["port.port0.exc_drop_data"], "exc_drop_other",
      sum(v for k, v in s.items() if "exc_drop" in k and not k.startswith("port.port0.")),
      "exc_drop_neigh",
      sum(v for k, v in s.items() if k.endswith("exc_drop_neigh")))
EOF
cat "$WORK/bounds" | sed 's/^/  /'
val() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' "$WORK/bounds"; }
check "the flood's packets were many" test "$sent" -ge 100000
check "the flood lasted at least 10 s" test "$(echo "$secs >= 10" | bc)" -eq 1
check "the table within neigh-max" test "$(val entries)" -le 1024
check "port1's resolutions within its budget" test "$(val incomplete)" -le 256
check "the flood replaced its own" test "$(val replaced)" -gt 0
check "no ARP or ND lost at the exception path" test "$(val exc_drop_neigh)" -eq 0
check "nothing from the other ports lost at the exception path" test "$(val exc_drop_other)" -eq 0
# The port's bound: a burst of 256, then 1,000 a second.
bound=$(echo "256 + 1000 * ($secs + 2)" | bc | cut -d. -f1)
check "requests on the flooded link within the port's rate ($reqs <= $bound)" \
	test "$reqs" -le "$bound"
check "and within the flooding source's share (100/s a family)" \
	test "$reqs" -le "$(echo "2 * (32 + 100 * ($secs + 2)) + 200" | bc | cut -d. -f1)"
rss1=$(rss)
echo "  routerd RSS: ${rss0} kB before, ${rss1} kB after"
check "routerd's memory did not grow (by more than 4 MiB)" test $((rss1 - rss0)) -le 4096
worst=$(grep -v failed "$WORK/cli_ms" | sort -n | tail -1)
echo "  routerctl: $(wc -l <"$WORK/cli_ms") calls, the slowest ${worst} ms"
check "routerctl answered every time" bash -c "! grep -q failed '$WORK/cli_ms'"
check "routerctl answered within 500 ms" test "${worst:-9999}" -le 500
check "after the flood, all resolves" ns_exec h2 ping -c 1 -W 1 198.18.0.2
done_tests
