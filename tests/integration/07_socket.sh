#!/usr/bin/env bash
# The CLI socket under misbehaving clients: an endless line, a client that
# never reads its answers, one that disconnects mid-command, many at once.
# None stalls the daemon or another client.
. "$(dirname "$0")/lib.sh"
two_hosts
start_router
py() { python3 -c "$1" "$SOCK"; }
check "an endless line closes that connection" py "
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.settimeout(5)
try:
    s.sendall(b'x' * 8192)
    assert s.recv(100) == b''
except (ConnectionResetError, BrokenPipeError):
    pass  # closed with our bytes unread: a reset"
# A client that sends and never reads: kept open in the background.
python3 -c "
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.setblocking(False)
try:
    for _ in range(200000):
        s.send(b'route show\n')
except BlockingIOError:
    pass
time.sleep(6)" "$SOCK" &
slow=$!
sleep 1
start=$(date +%s%N)
check "other clients are served meanwhile" rc link show
check "and quickly (under 1 s)" test $((($(date +%s%N) - start) / 1000000)) -lt 1000
check "a command cut by a disconnect applies nothing" py "
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b'route add 10.77.0.0/16 via 198.51')
s.close()"
check "... nothing" bash -c "! $BUILD/app/routerctl -S $SOCK route show | grep -q 10.77"
for i in $(seq 10); do background rc route add 10.$((100 + i)).0.0/16 via 198.51.100.2; done
wait_bg
check "ten clients at once" test "$(rc route show | grep -c '^10\.1[01][0-9]\.0\.0/16')" -eq 10
check "forwarding unaffected" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2
wait "$slow" 2>/dev/null
check "the daemon still answers" rc stats
done_tests
