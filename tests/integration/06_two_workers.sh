#!/usr/bin/env bash
# Two workers sharing the ports (net_af_packet spreads flows over two queue
# pairs, as RSS would): both forward, each with its own nexthop lines, and
# routes churn under QSBR with two readers while traffic flows.
. "$(dirname "$0")/lib.sh"
three_hosts
# Three lcores on the two CPUs: the control core alone, two workers.
RT_LCORES="--lcores=0@0,1@1,2@1" RT_QPAIRS=2 start_router
check "h2 reachable" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
check "h3 reachable" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.18.0.2
check "IPv6 across" ns_exec h1 ping -6 -c 2 -i 0.2 -W 2 2001:db8:2::2
expect_out "two workers" "worker1.rx" rc stats
rc route add 203.0.113.0/24 via 198.51.100.2
receive h2 5000 8
receive h3 5000 8
background flows send 203.0.113.1 5000 200 10 - 1500 >"$WORK/sent"
# Churn: move the route between the two gateways while the flows run.
for i in $(seq 40); do
	if [ $((i % 2)) -eq 0 ]; then gw=198.51.100.2; else gw=198.18.0.2; fi
	rc route replace 203.0.113.0/24 via $gw
	rc route add 10.$i.0.0/16 via $gw
	sleep 0.05
done
drain_bg
sent=$(cat "$WORK/sent")
got=$(($(wc -l <"$WORK/h2.rx") + $(wc -l <"$WORK/h3.rx")))
echo "  $sent sent, $got received"
w0=$(stat worker worker0.forwarded)
w1=$(stat worker worker1.forwarded)
echo "  worker0 forwarded $w0, worker1 $w1"
check "both workers forwarded" test "$w0" -gt 100 -a "$w1" -gt 100
# The load counters: every round counted, busy ones among them, a mean
# burst between 1 and the RX burst, and cycles spent on the busy rounds.
for w in worker0 worker1; do
	rx=$(stat worker $w.rx)
	rounds=$(stat worker $w.rounds)
	busy=$(stat worker $w.busy_rounds)
	cycles=$(stat worker $w.busy_cycles)
	echo "  $w: $rx packets in $busy busy rounds of $rounds, $cycles busy cycles"
	check "$w counts its busy rounds" test "$busy" -gt 0 -a "$busy" -le "$rounds"
	check "$w mean burst at most 64" test "$rx" -le $((busy * 64))
	check "$w counts its busy cycles" test "$cycles" -gt "$busy"
done
check "nothing lost beyond what was in flight at 40 changes (<= 40)" test $((sent - got)) -le 40
check "still forwarding" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
done_tests
