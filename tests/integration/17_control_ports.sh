#!/usr/bin/env bash
# Control-plane ports (issue 28): a TAP per port in routerd's namespace,
# with the port's MAC, MTU, state and addresses; packets for the router
# that routerd does not answer itself reach Linux there (punt), and what
# Linux sends leaves through routerd (inject); the router's own packets
# to where only routerctl's routes lead go by routerd's FIB.
. "$(dirname "$0")/lib.sh"
two_hosts
ns_exec h2 ip addr add 203.0.113.1/32 dev lo
ns_exec h2 ip addr add 2001:db8:bb::1/128 dev lo
cat >>"$WORK/startup" <<EOS
route add 203.0.113.0/24 via 198.51.100.2
route add 2001:db8:bb::/48 via 2001:db8:2::2
EOS
start_router

rx() { ip netns exec "$RT_NS" "$@"; }
mac_of() { rc -j link show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["address"])'; }

check "port0's TAP exists" rx ip link show port0
check "port1's TAP exists" rx ip link show port1
check "it carries the port's MAC" bash -c "ip netns exec $RT_NS ip link show port0 | grep -qi '$(mac_of port0)'"
expect_out "it is up, without ARP" "NOARP.*UP|UP.*NOARP" rx ip link show port0
expect_out "the port's IPv4 address on it" "inet 192.0.2.1/24" rx ip -4 addr show port0
expect_out "the port's IPv6 addresses on it" "inet6 2001:db8:1::1/64" rx ip -6 addr show port0
expect_out "and its link-local one, routerd's" "inet6 fe80::" rx ip -6 addr show port0
expect_out "one link-local address only (none of the kernel's making)" "^1$" \
	bash -c "ip netns exec $RT_NS ip -6 addr show port0 scope link | grep -c inet6"
expect_out "link show names it" "control-plane port0" rc link show port0

# Punt and inject: the router's namespace reaches the hosts through its
# ports, both families, and the hosts reach a service in it.
check "h1's ping to the router is answered once (the namespace's own stack never sees the veth)" \
	bash -c "o=\$(ip netns exec $(ns_host h1) ping -c 3 -i 0.2 -W 2 192.0.2.1) && ! grep -q DUP <<<\"\$o\""
check "a shell in the router's namespace pings h1" rx ping -c 2 -i 0.2 -W 2 192.0.2.2
check "and h2, on the other side" rx ping -c 2 -i 0.2 -W 2 198.51.100.2
check "and over IPv6" rx ping -6 -c 2 -i 0.2 -W 2 2001:db8:2::2
check "and h1's link-local address, through port0" \
	bash -c "ip netns exec $RT_NS ping -6 -c 2 -i 0.2 -W 2 \"\$(ip netns exec $(ns_host h1) ip -6 addr show h1-r scope link | awk '/inet6/ {sub(\"/.*\", \"\", \$2); print \$2}')%port0\""

# Beyond the connected networks: Linux knows none of routerctl's routes,
# and sends by its default route through a TAP what routerd then routes.
expect_out "Linux has a default route of routerd's for the router's own packets" \
	"^default dev port0 proto 247 .*metric 4294967295" rx ip route show default
check "the shell reaches h2's 203.0.113.1, by routerctl's route" rx ping -c 2 -i 0.2 -W 2 203.0.113.1
check "and 2001:db8:bb::1" rx ping -6 -c 2 -i 0.2 -W 2 2001:db8:bb::1
check "the mirror leaves that route to Linux" bash -c "! $BUILD/app/routerctl -S $SOCK route show default | grep -q ."
rc link set port0 down
expect_out "port0 down: the default goes by port1's TAP" "^default dev port1 proto 247" rx ip route show default
check "... and still leads there" rx ping -c 2 -i 0.2 -W 2 203.0.113.1
rc link set port0 up
expect_out "port0 up: back by port0" "^default dev port0 proto 247" rx ip route show default
rc link set port1 mtu 1400
expect_out "a DF packet too large for port1, sent by Linux through port0's TAP: frag needed, mtu 1400" \
	"mtu ?= ?1400" rx ping -M do -s 1450 -c 3 -i 0.3 -W 1 203.0.113.1
expect_out "... and Linux keeps it for the path" "mtu 1400" rx ip route get 203.0.113.1
check "the router's namespace still reaches 203.0.113.1 within it" \
	rx ping -M do -s 1300 -c 2 -i 0.2 -W 2 203.0.113.1
rc link set port1 mtu 1500
expect_out "the TAP kept its IPv6 addresses through down and up" "inet6 2001:db8:1::1/64" \
	rx ip -6 addr show port0
expect_out "... its link-local one too" "inet6 fe80::" rx ip -6 addr show port0
check "... and their routes" rx ping -6 -c 2 -i 0.2 -W 2 2001:db8:1::2

# A TCP service in the router's namespace (BGP's port), reached by h1.
rx python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", 179)); s.listen(4); s.settimeout(10)
for _ in range(2):
    c, a = s.accept(); c.sendall(c.recv(100).upper()); c.close()
' &
BG+=($!)
sleep 0.5
tcp_echo() {
	ns_exec "$1" python3 -c '
import socket, sys
c = socket.create_connection((sys.argv[1], 179), timeout=5)
c.sendall(b"open"); print(c.recv(100).decode())' "$2"
}
expect_out "h1 opens a TCP session to the router's address (IPv4)" "^OPEN$" tcp_echo h1 192.0.2.1
expect_out "h2 opens one to its address (IPv6)" "^OPEN$" tcp_echo h2 2001:db8:2::1
wait_bg
check "a closed TCP port: Linux refuses it at once" \
	ns_exec h1 python3 "$ROOT/tests/integration/closed_ports.py" tcp 192.0.2.1
check "a closed UDP port: Linux answers port unreachable" \
	ns_exec h1 python3 "$ROOT/tests/integration/closed_ports.py" udp 2001:db8:1::1

check "punted packets counted" test "$(stat port port0.cport_punted)" -gt 0
check "injected packets counted" test "$(stat port port0.cport_injected)" -gt 0

# The router's addresses and states follow.
rc addr add 203.0.113.1/24 dev port1
expect_out "an address added is mirrored" "inet 203.0.113.1/24" rx ip -4 addr show port1
rc addr del 203.0.113.1/24 dev port1
check "and removed" bash -c "! ip netns exec $RT_NS ip -4 addr show port1 | grep -q 203.0.113.1"
rc link set port1 down
expect_out "a port set down: its TAP is down" "state DOWN|,UP" rx ip link show port1
check "... not UP" bash -c "! ip netns exec $RT_NS ip link show port1 | grep -q '[<,]UP[,>]'"
rc link set port1 up
check "and up again" bash -c "ip netns exec $RT_NS ip link show port1 | grep -q '[<,]UP[,>]'"
check "the router's namespace reaches h2 again" rx ping -c 2 -i 0.2 -W 2 198.51.100.2

# Link-local multicast (OSPF's 224.0.0.5) reaches the TAP.
rx python3 -c '
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("224.0.0.5", 5000))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, struct.pack("4s4s", socket.inet_aton("224.0.0.5"), socket.inet_aton("192.0.2.1")))
s.settimeout(5)
print(s.recv(100).decode())' >"$WORK/mcast" &
BG+=($!)
sleep 0.5
ns_exec h1 python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("192.0.2.2"))
for _ in range(5):
    s.sendto(b"hello", ("224.0.0.5", 5000)); time.sleep(0.2)'
wait_bg
expect_out "224.0.0.5 from h1 reaches a listener on port0's TAP" "hello" cat "$WORK/mcast"

# A flood at the router's address: bounded by the punt rate, counted.
rc stats reset
ns_exec h1 python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + 2
while time.time() < end:
    for p in range(100):
        s.sendto(b"x", ("192.0.2.1", 40000 + p))'
check "the flood's excess is counted as rate-limited" test "$(stat port port0.cport_punt_limited)" -gt 0
check "the router's namespace still reaches h1" rx ping -c 2 -i 0.2 -W 2 192.0.2.2
done_tests
