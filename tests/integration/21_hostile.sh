#!/usr/bin/env bash
# A hostile host on one of the router's links, on ports that hand routerd
# each frame as it came (net_pcap on the veths: af_packet's fanout would
# let Linux reassemble IPv4 first, as no NIC does): fragment trains whose
# rebuilt length wraps, trains of random shape, a flood of first
# fragments from spoofed sources, one from a single source, and a flood
# of expiring packets from random sources while path MTU discovery goes
# on. routerd stays up, counts what it refused, and keeps answering and
# forwarding; fragmented pings to it are answered within 3 s of a flood.
. "$(dirname "$0")/lib.sh"
RT_PMD=pcap
two_hosts
echo "link set port1 mtu 1280" >>"$WORK/startup"
start_router
alive() { kill -0 "$RT_PID"; }
mac=$(rc -j link show | grep -o '"ifname":"port0"[^}]*"address":"[^"]*"' | sed 's/.*"address":"//; s/"//')
hostile() { ns_exec h1 python3 "$ROOT/tests/integration/hostile.py" h1-r "$mac" "$@"; }
ping4_big() { ns_exec h1 ping -c 1 -s 3000 -W 1 192.0.2.1; }
ping6_big() { ns_exec h1 ping -6 -c 1 -s 3000 -W 1 2001:db8:1::1; }
# Fragmented pings to the router, both families, answered within 3 s.
big_pings() {
	check "$1: a fragmented ping answered within 3 s" until_s 3 ping4_big
	check "$1: a fragmented IPv6 ping answered within 3 s" until_s 3 ping6_big
}

check "forwarding before" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
big_pings "before"
# Each datagram is reassembled by routerd itself: the fragments are
# counted, 3 a ping.
check "routerd reassembles (3 fragments a ping)" test "$(stat control reasm_reqds)" -ge 6

# The train that wrapped the rebuilt length to 3 (and made the echo
# answer checksum 4 GB): three orders, then IPv6's alike.
fails0=$(stat control reasm_fails)
hostile wrap4 192.0.2.1
hostile wrap6 2001:db8:1::2 2001:db8:1::1
sleep 1
check "length-wrapping trains: routerd alive" alive
check "... every train given up, counted" test "$(($(stat control reasm_fails) - fails0))" -ge 6
check "... none answered" test "$(stat control reasm_oks)" -le 4
big_pings "after the trains"

# Trains of every shape: options and extension headers, sizes to and
# past 64 KiB, overlaps, duplicates, any order.
hostile shapes 1 400 192.0.2.1 2001:db8:1::1 2001:db8:1::2
sleep 1
check "400 trains of random shape: routerd alive" alive
big_pings "after the shapes"

# A slot flood: first fragments that never complete, each from its own
# spoofed source, more than the table holds. The oldest are evicted, the
# memory stays within its bound, and a datagram after them is rebuilt.
ev0=$(stat control reasm_evicted)
hostile slots 4 2000 192.0.2.1
hostile slots 6 2000 2001:db8:1::1
big_pings "after a flood of 4,000 spoofed first fragments"
check "... the oldest evicted, counted" test "$(($(stat control reasm_evicted) - ev0))" -ge 1000
check "... at most 1,024 pending" test "$(stat control reasm_pending)" -le 1024
check "... their data within 4 MiB" test "$(stat control reasm_bytes)" -le $((4 << 20))

# One host alone holds at most an eighth of the table: its own flood
# evicts its own, and a datagram from another host is rebuilt.
sev0=$(stat control reasm_src_evicted)
req0=$(stat control reasm_reqds)
send_frames() { ns_exec h1 python3 "$ROOT/tests/integration/send_frames.py" h1-r "$mac" "$@"; }
send_frames frag6_first 1000
sleep 0.5
# (Counted from what reached the reassembly: the local class's ring
# drops some of a burst of 1,000.)
reached=$(($(stat control reasm_reqds) - req0))
echo "  one host's flood: $reached of 1000 first fragments reached the reassembly"
# (At least: datagrams of the spoofed flood left pending may share the
# host's hash bucket, and go first.)
check "one host's flood: 128 kept, each one after evicting its own oldest" \
	test "$(($(stat control reasm_src_evicted) - sev0))" -ge $((reached - 128))
check "another host's fragmented ping answered" \
	until_s 3 ns_exec h2 ping -6 -c 1 -s 3000 -W 1 2001:db8:2::1

# Path MTU discovery under a flood of packets whose hop limit runs out,
# from random sources: the time exceeded errors use up the global ICMP
# budget, and the too-big errors, which have their own, still come (one
# every 50 ms is sent too big for port1's MTU of 1280).
ns_exec h2 true
too_big6() { ns_exec h1 nstat -az Icmp6InPktTooBigs | awk '$1 == "Icmp6InPktTooBigs" { print $2 }'; }
frag_needed() { ns_exec h1 nstat -az IcmpInDestUnreachs | awk '$1 == "IcmpInDestUnreachs" { print $2 }'; }
limited0=$(stat control icmp_ratelimited)
ptb0=$(too_big6)
read -r sent big < <(hostile ttl_flood 6 2 2001:db8:2::2 2001:db8:2::2 2001:db8:1::2)
sleep 0.5
got=$(($(too_big6) - ptb0))
echo "  IPv6: $sent packets with hop limit 1, $big too big; $got packet too big back"
check "... the flood was limited" test "$(($(stat control icmp_ratelimited) - limited0))" -ge 100
check "... every packet too big answered" test "$got" -ge $((big * 9 / 10))
limited0=$(stat control icmp_ratelimited)
fn0=$(frag_needed)
read -r sent big < <(hostile ttl_flood 4 2 198.51.100.2 198.51.100.2 192.0.2.2)
sleep 0.5
got=$(($(frag_needed) - fn0))
echo "  IPv4: $sent packets with TTL 1, $big too big with DF; $got unreachable back"
check "... the flood was limited" test "$(($(stat control icmp_ratelimited) - limited0))" -ge 100
check "... every one too big answered: fragmentation needed" test "$got" -ge $((big * 9 / 10))

check "routerd alive at the end" alive
check "forwarding after" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
done_tests
