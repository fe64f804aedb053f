#!/usr/bin/env bash
# The kernel mirror against the kernel, differentially: 10,000 random
# `ip route` and `ip nexthop` operations in routerd's namespace (add,
# replace, append, delete, multipath, nexthop objects and groups, the
# kinds the mirror skips; tests/integration/mirror_diff.py), in chunks of
# 500, with a control-plane port set down and up and another deleted on
# the way; after each chunk settles, the routes routerd follows in the
# kernel's tables and routerd's mirrored routes, normalised, must not
# differ at all. Then an overrun: routerd stopped (SIGSTOP) while 400,000
# changes go by, so that notifications are lost (ENOBUFS), and the same
# comparison once it has resynchronised. The operator's routes, some at
# the kernel's keys, are untouched throughout.
. "$(dirname "$0")/lib.sh"
two_hosts
start_router
rx() { ip netns exec "$RT_NS" "$@"; }
diffpy() { python3 "$ROOT/tests/integration/mirror_diff.py" "$@"; }
# Another interface: routes out of it are not routerd's business.
rx ip link add vx0 type veth peer name vx1
rx ip link set vx0 up
rx ip link set vx1 up
rx ip addr add 172.31.0.1/24 dev vx0
rx ip -6 addr add 2001:db8:ff::1/64 dev vx0 nodad
# The operator's routes, three of them at keys the operations use.
rc route add 10.0.0.0/24 via 192.0.2.2 metric 10
rc route add 10.30.0.0/16 via 198.51.100.2
rc -6 route add 2001:db8:a0::/48 via 2001:db8:1::2
rc route add 10.200.0.0/16 via 198.51.100.3 metric 5
rc -j route show proto boot >"$WORK/operator0"

# same: the kernel's followed routes and routerd's mirrored ones agree,
# within 5 s of the last change; the differences shown otherwise.
same() {
	local end=$((SECONDS + 5))
	while :; do
		rx ip -j route show table all >"$WORK/k4"
		rx ip -6 -j route show table all >"$WORK/k6"
		rc -j route show table all >"$WORK/rd"
		diffpy compare "$WORK/k4" "$WORK/k6" "$WORK/rd" >"$WORK/diff" && break
		[ $SECONDS -ge $end ] && break
		sleep 0.3
	done
	cat "$WORK/diff" | tail -12
	grep -q ' 0 differences$' "$WORK/diff"
}

ops=0
for chunk in $(seq 1 20); do
	diffpy gen "$chunk" 500 >"$WORK/ops"
	rx ip -batch "$WORK/ops" -force >/dev/null 2>&1
	ops=$((ops + 500))
	case $chunk in
	7) # Linux sets a TAP down: it drops the routes through it, IPv4's
	   # without a word
		rx ip link set port0 down
		sleep 0.3
		rx ip link set port0 up ;;
	14) # a TAP deleted by hand: made again by routerd a second later
		rx ip link del port1
		until_s 5 rx ip link show port1 >/dev/null
		until_s 3 bash -c "ip netns exec $RT_NS ip addr show port1 | grep -q 198.51.100.1/24" ;;
	esac
	check "after $ops operations: the mirror equals the kernel" same
done
expect_out "... routes the mirror follows remained at the end" "[1-9][0-9]* routes followed" \
	cat "$WORK/diff"

# The overrun: 400,000 changes while routerd is stopped. 200,000 /32s
# through port1 added and 200,000 of the same deleted or replaced, in
# one batch; the notifications pass the socket's buffer.
python3 - "$WORK/big" <<'PY'
import random, sys
rnd = random.Random(4)
out = []
for i in range(200000):
    out.append("route add 100.%d.%d.%d/32 via 198.51.100.%d dev port1 proto bird"
               % (64 + i // 65536, i // 256 % 256, i % 256, 2 + i % 3))
for i in rnd.sample(range(200000), 200000):
    if i % 4:
        out.append("route del 100.%d.%d.%d/32 proto bird" % (64 + i // 65536, i // 256 % 256, i % 256))
    else:
        out.append("route replace 100.%d.%d.%d/32 via 198.51.100.5 dev port1 proto bird"
                   % (64 + i // 65536, i // 256 % 256, i % 256))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
resyncs0=$(stat mirror resyncs)
resynced() { test "$(stat mirror resyncs)" -gt "$resyncs0"; }
kill -STOP "$RT_PID"
rx ip -batch "$WORK/big" -force >/dev/null 2>&1
kill -CONT "$RT_PID"
check "400,000 changes while routerd was stopped: notifications lost, a resynchronisation" \
	until_s 20 resynced
echo "  notifications dropped unread after the loss: $(stat mirror dropped) datagrams"
check "... then the mirror equals the kernel" same
expect_out "... with the 50,000 /32s that stayed" "[0-9]{5,} routes followed" cat "$WORK/diff"
rx ip route flush proto bird >/dev/null 2>&1
check "... and after they are flushed" same

rc -j route show proto boot >"$WORK/operator1"
check "the operator's routes untouched throughout" cmp "$WORK/operator0" "$WORK/operator1"
check "no message was malformed" test "$(stat mirror malformed)" -eq 0
done_tests
