#!/usr/bin/env bash
# Malformed packets from a host: bad checksum, short IHL, a total length
# past the frame, TTL 0, a truncated header, a bad IPv6 payload length;
# IPv4 options; unicast packets in link-layer group frames; subnet
# broadcast addresses; an IPv6 link-local source; an IPv6 fragment of a
# length RFC 8200 refuses; a flood of fragments that never complete.
# Each is dropped (or, for TTL 0, answered with time exceeded) and
# counted by reason, and good traffic keeps flowing.
. "$(dirname "$0")/lib.sh"
# Ports that hand routerd each frame as it came (scripts/netns.sh).
RT_PMD=pcap
two_hosts
start_router
check "forwarding before" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
mac=$(rc -j link show | grep -o '"ifname":"port0"[^}]*"address":"[^"]*"' | sed 's/.*"address":"//; s/"//')
send() { ns_exec h1 python3 "$ROOT/tests/integration/send_frames.py" h1-r "$mac" "$@"; }
send bad_checksum 5
send short_ihl 5
send long_total 5
send ttl0 5
send truncated 5
send bad_ip6_plen 5
sleep 0.5
check "bad checksum: 5 dropped" test "$(stat drop bad_checksum)" -eq 5
check "IHL 4: 5 dropped" test "$(stat drop bad_ihl)" -eq 5
check "truncated header: 5 dropped" test "$(stat drop truncated)" -eq 5
check "length past the frame, both families: 10 dropped" test "$(stat drop bad_length)" -eq 10
check "TTL 0: 5 answered with time exceeded" test "$(stat punt ttl_exceeded)" -eq 5
# An IPv6 fragment to the router whose length is not a multiple of 8
# while more follow: refused with a parameter problem (RFC 8200 4.5).
icmp0=$(stat control icmp_sent)
send frag6_unaligned 1
sleep 0.3
check "IPv6 unaligned fragment: refused, counted" test "$(stat control reasm_fails)" -eq 1
check "... answered with a parameter problem" test "$(($(stat control icmp_sent) - icmp0))" -eq 1
# A flood of first fragments that never complete, from one host: it
# holds at most its share of the reassembly table (128 datagrams), each
# one past that evicts its own oldest, counted; forwarding and the mbuf
# pool are unaffected (21_hostile floods from many sources).
fails0=$(stat control reasm_fails)
reqds0=$(stat control reasm_reqds)
send frag6_first 1000
sleep 0.5
# (Counted from what reached the reassembly: a loaded machine may drop
# some of the flood before.)
check "fragment flood: 128 held, the rest evicted and counted" \
	test "$(($(stat control reasm_reqds) - reqds0 - $(stat control reasm_fails) + fails0))" -eq 128
check "... pending: 128" test "$(stat control reasm_pending)" -eq 128
before=$(stat total forwarded)
send good 20
sleep 0.5
check "good packets still forwarded" test "$(($(stat total forwarded) - before))" -ge 20
# IPv4 options are forwarded untouched, and their header's checksum is
# verified like any other; a frame padded past its packet is forwarded.
before=$(stat total forwarded)
send options 5
send options_bad_checksum 5
send padded 5
sleep 0.5
check "IHL 6 and padded frames: 10 forwarded" test "$(($(stat total forwarded) - before))" -ge 10
check "none of them dropped for its length" test "$(stat drop bad_length)" -eq 10
check "IHL 6, bad checksum: 5 more dropped" test "$(stat drop bad_checksum)" -eq 10
# Unicast packets in link-layer broadcast or multicast frames are not
# forwarded (as Linux's ip_forward); one to the router itself is
# delivered.
send_to() { ns_exec h1 python3 "$ROOT/tests/integration/send_frames.py" h1-r "$@"; }
local_before=$(stat punt local)
send_to ff:ff:ff:ff:ff:ff good 5
send_to 33:33:00:00:00:02 good6 5
send_to ff:ff:ff:ff:ff:ff local4 3
sleep 0.5
# (A dropped packet is freed: counted there, it was not forwarded.)
check "unicast in group frames, both families: 10 dropped" test "$(stat drop link_layer_group)" -eq 10
check "to the router in a broadcast frame: delivered" \
	test "$(($(stat punt local) - local_before))" -ge 3
# Subnet broadcast addresses are the router's (Linux's broadcast routes):
# delivered, in a broadcast frame or a unicast one, never forwarded and
# never resolved as a host.
local_before=$(stat punt local)
connected_before=$(stat punt resolve_connected)
fwd_before=$(stat total forwarded)
send_to ff:ff:ff:ff:ff:ff bcast4 3
send dbcast4 3
sleep 0.5
check "subnet broadcasts, broadcast and unicast frames: 6 delivered" \
	test "$(($(stat punt local) - local_before))" -ge 6
check "... none forwarded" test "$(stat total forwarded)" -eq "$fwd_before"
check "... none resolved as a host" test "$(stat punt resolve_connected)" -eq "$connected_before"
expect_out "route get: broadcast" "^broadcast 198.51.100.255" rc route get 198.51.100.255
expect_out "shown in table local" "^broadcast 198.51.100.255 dev port1 proto kernel scope link src 198.51.100.1" \
	rc route show table local
# A link-local source never leaves its link (RFC 4291 2.5.6): not
# forwarded, answered with unreachable, beyond scope (ICMPv6 1/2).
h1_unreach6() { ns_exec h1 nstat -az Icmp6InDestUnreachs | awk '$1 == "Icmp6InDestUnreachs" { print $2 }'; }
# (The frames' UDP checksum is 0, which IPv6 refuses: h2 counts each one
# it gets in Udp6InErrors.)
h2_udp6() { ns_exec h2 nstat -az Udp6InErrors | awk '$1 == "Udp6InErrors" { print $2 }'; }
ns_exec h1 ping -6 -c 1 -W 2 2001:db8:2::2 >/dev/null # h2 resolved: this is not about ND
unreach_before=$(h1_unreach6)
udp_before=$(h2_udp6)
send ll_src6 3
sleep 1
check "link-local source: 3 not forwarded" test "$(stat punt beyond_scope)" -eq 3
check "... none reached h2" test "$(h2_udp6)" -eq "$udp_before"
check "... h1 told: destination unreachable" test "$(h1_unreach6)" -ge $((unreach_before + 1))
check "forwarding after" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
done_tests
