#!/usr/bin/env bash
# The CLI socket under misbehaving clients: an endless line, a client that
# never reads its answers, one that disconnects mid-command, many at once,
# thousands of requests in one write, idle ones, more than there are
# places. None stalls the daemon or another client. Peer credentials: a
# reading group (--socket-group) reads and changes nothing.
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

# Pipelined requests in one write are run only while the client reads
# what they answer: 2,048 `route show` of 20,000 routes (about 1 MB
# each) from a client that never reads keep routerd's memory within the
# output cap, and the others are served meanwhile.
for i in $(seq 0 19999); do echo "route add 10.$((i / 256 + 120)).$((i % 256)).0/24 via 198.51.100.2"; done |
	rc -b - >/dev/null
rss() { awk '/VmRSS/ {print $2}' "/proc/$RT_PID/status"; }
rss0=$(rss)
python3 -c "
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b'route show\n' * 2048)
time.sleep(4)" "$SOCK" &
slow=$!
sleep 2
start=$(date +%s%N)
check "2,048 pipelined route shows, never read: others served" rc link show
check "... quickly (under 1 s)" test $((($(date +%s%N) - start) / 1000000)) -lt 1000
rss1=$(rss)
echo "  routerd's memory: ${rss0} KiB before, ${rss1} KiB with the unread answers"
check "... routerd's memory grew by less than 64 MiB" test $((rss1 - rss0)) -lt 65536
rc neigh flush dev port1 >/dev/null
check "... neighbours resolve meanwhile" ns_exec h1 ping -c 1 -W 2 198.51.100.2
wait "$slow" 2>/dev/null
rc route flush root 10.0.0.0/8 >/dev/null

# Who may do what: routerd again, with a group that may read (nogroup,
# Debian's), its socket where others can reach it, clients idle for 2 s
# closed.
stop_router
chmod 711 "$WORK"
mkdir -m 755 "$WORK/pub"
SOCK=$WORK/pub/router.sock
start_router --socket-group nogroup --set cli-idle-timeout=2
expect_out "the socket: mode 660, group nogroup, from its creation" "^srw-rw---- nogroup$" \
	command stat -c "%A %G" "$SOCK"
as() { # as UID GID LINE...: a client of that user sends LINEs, prints the answers
	python3 - "$SOCK" "$@" <<'PY'
import os, socket, sys
path, uid, gid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.setgroups([]); os.setgid(gid); os.setuid(uid)
try:
    s = socket.socket(socket.AF_UNIX); s.connect(path)
except OSError as e:
    print("connect:", e.strerror); sys.exit(1)
s.settimeout(5)
for line in sys.argv[4:]:
    s.sendall(line.encode() + b"\n")
    buf = b""
    while not (buf.endswith(b".ok\n") or b"\n.err" in b"\n" + buf):
        d = s.recv(65536)
        if not d: break
        buf += d
    sys.stdout.write(buf.decode())
PY
}
expect_out "a member of the group reads" '^\.ok$' as 65534 65534 "link show"
expect_out "... and may not change" "^\.err permission denied: 'route add' changes the router" \
	as 65534 65534 "route add 10.99.0.0/16 via 198.51.100.2"
check "... nothing changed" bash -c "! $BUILD/app/routerctl -S $SOCK route show | grep -q 10.99"
expect_out "... nor stats reset, nor log level" "permission denied: 'log level'" \
	as 65534 65534 "stats reset" "log level router.* debug"
expect_out "... monitor is reading" '^\.ok$' as 65534 65534 "monitor route"
expect_out "a user outside the group cannot connect" "connect: Permission denied" \
	as 65533 65533 "link show"
check "root changes" rc route add 10.99.0.0/16 via 198.51.100.2
# Every place but the operator's: 56 readers connected and idle.
python3 - "$SOCK" <<'PY' >"$WORK/held" &
import os, socket, sys, time
os.setgroups([]); os.setgid(65534); os.setuid(65534)
held = []
for i in range(60):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); held.append(s)
    time.sleep(0.005) # accepted in turn
time.sleep(0.3)
refused = []
for i, s in enumerate(held):
    s.setblocking(False)
    try:
        line = s.recv(200).decode()
    except BlockingIOError:
        continue
    refused.append("%d %s" % (i + 1, line.strip()))
print("\n".join(refused), flush=True)
time.sleep(1)
PY
hold=$!
sleep 1.5
expect_out "readers fill the places they may have: the 57th refused, in one line" \
	"^57 \.err routerd: too many clients connected" cat "$WORK/held"
check "... and the 58th to 60th" test "$(wc -l <"$WORK/held")" -eq 4
check "... root still gets in" rc link show
wait "$hold" 2>/dev/null
# An idle connection goes after cli-idle-timeout (2 s); a monitor stays.
check "an idle client is closed after the idle timeout" python3 -c "
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(6)
t = time.time()
assert s.recv(10) == b'', 'data'
assert 1.5 < time.time() - t < 4.5, time.time() - t" "$SOCK"
check "... a monitor is not" python3 -c "
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(4)
s.sendall(b'monitor\n'); assert s.recv(10) == b'.ok\n'
try:
    d = s.recv(10); assert False, d
except socket.timeout:
    pass" "$SOCK"
# A second routerd on the same socket refuses to start; the first keeps it.
check "a second routerd on the same socket refuses to start" bash -c "! ip netns exec $RT_NS \
	$BUILD/app/routerd -l 0,1 --no-huge -m 256 --no-pci --file-prefix=${NS_PREFIX}2 \
	--log-level=lib.eal:error --vdev=net_null0 -- --no-control-ports --socket $SOCK \
	>$WORK/second.log 2>&1"
expect_out "... saying why" "another routerd answers on it" cat "$WORK/second.log"
check "... the first still answers" rc link show
done_tests
