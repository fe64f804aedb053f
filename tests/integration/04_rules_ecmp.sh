#!/usr/bin/env bash
# Policy routing by source and by protocol and port, table default after
# main, a throw route's hole in a table, and ECMP over two gateways with a resilient nexthop group:
# many UDP flows split within 15% of half each, every flow on one path
# only, nothing lost.
. "$(dirname "$0")/lib.sh"
three_hosts
start_router
# Resolve both gateways first, so that no flow waits in a queue.
check "h2 reachable" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
check "h3 reachable" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.18.0.2

# two_sends PORT2 PORT3 DST PORT SRC DST PORT SRC: h2 and h3 receive on
# PORT2 and PORT3 while h1 sends five flows of four packets to each
# (DST, PORT) from SRC; each section then counts what arrived where.
two_sends() {
	receive h2 "$1" 4
	receive h3 "$2" 4
	flows send "$3" "$4" 5 4 "$5" 200 >/dev/null
	flows send "$6" "$7" 5 4 "$8" 200 >/dev/null
	drain_bg
}

echo "a policy rule by source"
rc route add 203.0.113.0/24 via 198.51.100.2
rc route add 203.0.113.0/24 via 198.18.0.2 table 100
check "rule from 192.0.2.3 lookup 100" rc rule add priority 100 from 192.0.2.3/32 table 100
two_sends 5000 5000 203.0.113.1 5000 192.0.2.2 203.0.113.1 5000 192.0.2.3
check "h2 got 192.0.2.2's packets, all of them" test "$(grep -c '^192.0.2.2 ' "$WORK/h2.rx")" -eq 20
check "h3 got 192.0.2.3's packets, all of them" test "$(grep -c '^192.0.2.3 ' "$WORK/h3.rx")" -eq 20
check "and not the other's" test "$(grep -c '^192.0.2.3 ' "$WORK/h2.rx"; grep -c '^192.0.2.2 ' "$WORK/h3.rx")" = "$(printf '0\n0')"
check "rule del" rc rule del priority 100 from 192.0.2.3/32 table 100

echo "table default: looked up after main with no custom rule, as Linux's rule 32767"
check "route add table default" rc route add 203.0.114.0/24 via 198.18.0.2 table default
ns_exec h3 ip addr add 203.0.114.1/32 dev lo
two_sends 5000 5000 203.0.113.1 5000 192.0.2.2 203.0.114.1 5000 192.0.2.2
check "main's packets to h2, all of them" test "$(grep -c '^192.0.2.2 ' "$WORK/h2.rx")" -eq 20
check "table default's to h3, all of them" test "$(grep -c '^192.0.2.2 ' "$WORK/h3.rx")" -eq 20
ns_exec h3 ip addr del 203.0.114.1/32 dev lo
rc route del 203.0.114.0/24 table default

echo "throw: a hole in a table, the lookup going on to the next rule"
rc rule add priority 100 table 100
check "route add throw 203.0.113.128/25 table 100" rc route add throw 203.0.113.128/25 table 100
expect_out "shown as ip route shows it" "^throw 203.0.113.128/25$" rc route show table 100
expect_out "route get: thrown on to main" "203.0.113.129 from 192.0.2.2 via 198.51.100.2" \
	rc route get 203.0.113.129 from 192.0.2.2 iif port0
expect_out "route get: the rest by table 100, named" "203.0.113.1 from 192.0.2.2 via 198.18.0.2 dev port2 table 100" \
	rc route get 203.0.113.1 from 192.0.2.2 iif port0
ns_exec h2 ip addr add 203.0.113.129/32 dev lo
two_sends 5000 5000 203.0.113.129 5000 192.0.2.2 203.0.113.1 5000 192.0.2.2
check "the hole's packets by main to h2, all of them" test "$(grep -c '^192.0.2.2 ' "$WORK/h2.rx")" -eq 20
check "the rest by table 100 to h3, all of them" test "$(grep -c '^192.0.2.2 ' "$WORK/h3.rx")" -eq 20
ns_exec h2 ip addr del 203.0.113.129/32 dev lo
rc rule del priority 100 table 100
check "route del throw" rc route del throw 203.0.113.128/25 table 100
check "a throw in main, no rule after it" rc route add throw 203.0.113.64/26
expect_out "route get: network unreachable, as ip's" "Network is unreachable" \
	bash -c "! $BUILD/app/routerctl -S $SOCK route get 203.0.113.65"
rc route del throw 203.0.113.64/26

echo "goto: a rule that jumps over others"
# 100 sends everything to table 100 (h3); 90 makes 192.0.2.3 jump over
# it to main (h2); tos is ip's older name for the DSCP selector.
rc rule add priority 100 table 100
check "rule add from 192.0.2.3 goto 32766" rc rule add priority 90 from 192.0.2.3/32 goto 32766
check "rule add tos 0x28 (dscp 10) goto 32766" rc rule add priority 91 tos 0x28 goto 32766
expect_out "shown as ip rule shows it" "^90:	from 192.0.2.3 goto 32766$" rc rule show
expect_out "tos shown as its DSCP" "^91:	from all dscp 10 goto 32766$" rc rule show
expect_out "a backward goto refused" "goto 50 is not after the rule's priority 95" \
	bash -c "! $BUILD/app/routerctl -S $SOCK rule add priority 95 goto 50"
expect_out "ECN bits refused in tos" "has ECN bits set" \
	bash -c "! $BUILD/app/routerctl -S $SOCK rule add priority 96 tos 0x29 goto 32766"
two_sends 5000 5000 203.0.113.1 5000 192.0.2.2 203.0.113.1 5000 192.0.2.3
check "192.0.2.3 jumped to main: h2, all of it" test "$(grep -c '^192.0.2.3 ' "$WORK/h2.rx")" -eq 20
check "192.0.2.2 by rule 100: h3, all of it" test "$(grep -c '^192.0.2.2 ' "$WORK/h3.rx")" -eq 20
check "rule del goto" rc rule del priority 90 from 192.0.2.3/32 goto 32766
expect_out "without it, 192.0.2.3 follows rule 100" "203.0.113.1 from 192.0.2.3 via 198.18.0.2" \
	rc route get 203.0.113.1 from 192.0.2.3 iif port0
rc rule del priority 91 tos 0x28 goto 32766
rc rule del priority 100 table 100

echo "a policy rule by protocol and port"
check "rule ipproto udp dport 5001 lookup 100" \
	rc rule add priority 110 ipproto udp dport 5001 table 100
expect_out "shown as ip rule shows it" "110:	from all ipproto udp dport 5001 lookup 100" rc rule show
expect_out "in JSON" '"priority":110,"src":"all","ipproto":"udp","dport":"5001","table":"100"' \
	rc -j rule show
expect_out "route get with the port" "203.0.113.1 from 192.0.2.2 via 198.18.0.2 dev port2" \
	rc route get 203.0.113.1 from 192.0.2.2 iif port0 ipproto udp dport 5001
expect_out "route get with another port" "203.0.113.1 from 192.0.2.2 via 198.51.100.2 dev port1" \
	rc route get 203.0.113.1 from 192.0.2.2 iif port0 ipproto udp dport 5000
expect_out "ports need a protocol that has them" "sport and dport need ipproto" \
	bash -c "! $BUILD/app/routerctl -S $SOCK rule add dport 22 table 100"
two_sends 5000 5001 203.0.113.1 5000 192.0.2.2 203.0.113.1 5001 192.0.2.2
check "port 5000 by main to h2, all of it" test "$(grep -c '^192.0.2.2 ' "$WORK/h2.rx")" -eq 20
check "port 5001 by the rule to h3, all of it" test "$(grep -c '^192.0.2.2 ' "$WORK/h3.rx")" -eq 20
check "rule del" rc rule del ipproto udp dport 5001 table 100

echo "ECMP over two gateways"
rc nexthop add id 1 via 198.51.100.2 dev port1
rc nexthop add id 2 via 198.18.0.2 dev port2
check "group of two" rc nexthop add id 10 group 1/2
check "route through the group" rc route replace 203.0.113.0/24 nhid 10
ecmp_flows 400 3
check "h2's share within 15% of half" test "$FLOWS2" -ge 170 -a "$FLOWS2" -le 230
check "h3's share within 15% of half" test "$FLOWS3" -ge 170 -a "$FLOWS3" -le 230
# route get with a flow's fields names the path its packets took.
agree=0
for sport in $(seq 20000 20019); do
	via=$(rc route get 203.0.113.1 from 192.0.2.2 ipproto udp sport "$sport" dport 5000 |
		sed -n 's/.* via \([0-9.]*\) .*/\1/p')
	took=198.18.0.2
	grep -q " $sport\$" "$WORK/h2.rx" && took=198.51.100.2
	[ "$via" = "$took" ] && agree=$((agree + 1))
done
check "route get names each flow's path ($agree of 20)" test "$agree" -eq 20
done_tests
