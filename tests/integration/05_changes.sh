#!/usr/bin/env bash
# Changes under traffic: a route replaced in the middle of a stream moves
# the traffic to the new nexthop with nothing lost but what was in flight;
# a neighbour that changes its MAC is followed after a gratuitous ARP or
# an unsolicited neighbour advertisement.
. "$(dirname "$0")/lib.sh"
three_hosts
start_router
check "h2 reachable" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
check "h3 reachable" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.18.0.2
rc route add 203.0.113.0/24 via 198.51.100.2

echo "route replace during a stream"
receive h2 5000 7
receive h3 5000 7
background flows send 203.0.113.1 5000 1 3000 - 1000 >"$WORK/sent"
# The replace once h2 has had 600 (the sender may be slow to start).
for _ in $(seq 100); do
	[ "$(wc -l <"$WORK/h2.rx")" -ge 600 ] && break
	sleep 0.05
done
check "replace" rc route replace 203.0.113.0/24 via 198.18.0.2
drain_bg
sent=$(cat "$WORK/sent")
a=$(wc -l <"$WORK/h2.rx")
b=$(wc -l <"$WORK/h3.rx")
echo "  $sent sent: $a via h2 before the replace, $b via h3 after"
check "traffic moved to the new nexthop" test "$a" -gt 500 -a "$b" -gt 500
check "nothing lost beyond what was in flight (<= 5)" test $((sent - a - b)) -le 5

echo "a neighbour changes its MAC"
check "h2 forwarded to" ns_exec h1 ping -c 1 -W 2 198.51.100.2
ns_exec h2 ip link set h2-r address 02:00:00:00:22:22
check "gratuitous ARP sent" ns_exec h2 python3 -c "
import socket, struct
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(('h2-r', 0))
mac = bytes.fromhex('020000002222'); ip = socket.inet_aton('198.51.100.2')
arp = struct.pack('!HHBBH', 1, 0x0800, 6, 4, 1) + mac + ip + bytes(6) + ip
s.send(b'\xff' * 6 + mac + b'\x08\x06' + arp)"
sleep 0.3
expect_out "router follows the new MAC" "198.51.100.2 dev port1 lladdr 02:00:00:00:22:22" rc neigh show
check "forwarding to h2 again" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
check "IPv6 h2 forwarded to" ns_exec h1 ping -6 -c 1 -W 2 2001:db8:2::2
ns_exec h2 ip link set h2-r address 02:00:00:00:33:33
check "unsolicited NA sent" ns_exec h2 python3 -c "
import socket, struct
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(('h2-r', 0))
mac = bytes.fromhex('020000003333')
src = socket.inet_pton(socket.AF_INET6, '2001:db8:2::2'); dst = socket.inet_pton(socket.AF_INET6, 'ff02::1')
na = struct.pack('!BBHI', 136, 0, 0, 0x20000000) + src + struct.pack('!BB', 2, 1) + mac
ph = src + dst + struct.pack('!I', len(na)) + b'\0\0\0\x3a'
d = ph + na
c = sum(struct.unpack('!%dH' % (len(d) // 2), d))
while c >> 16: c = (c & 0xffff) + (c >> 16)
na = na[:2] + struct.pack('!H', ~c & 0xffff) + na[4:]
ip6 = struct.pack('!IHBB', 6 << 28, len(na), 58, 255) + src + dst
s.send(bytes.fromhex('333300000001') + mac + b'\x86\xdd' + ip6 + na)"
sleep 0.3
expect_out "router follows the new MAC (IPv6)" "2001:db8:2::2 dev port1 lladdr 02:00:00:00:33:33" rc neigh show
check "forwarding to h2 again (IPv6)" ns_exec h1 ping -6 -c 2 -i 0.2 -W 2 2001:db8:2::2
done_tests
