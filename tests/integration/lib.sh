# Helpers for the integration tests: a topology from scripts/netns.sh,
# routerd started on it, and check/expect helpers that count failures.
# shellcheck shell=bash
set -uo pipefail

BUILD=$(realpath "${1:-build}")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NS_PREFIX=${NS_PREFIX:-it}
# shellcheck source=../../scripts/netns.sh
. "$ROOT/scripts/netns.sh"
WORK=$(mktemp -d)
SOCK=$WORK/router.sock
FAILS=0
CHECKS=0

DAEMON_PIDS=()
# daemon NS LOG CMD...: CMD in the background in namespace NS (the
# router's: "-"), its output appended to LOG; its pid in LAST, and kept so
# that finish stops it.
daemon() {
	local where=(ip netns exec "$RT_NS") log=$2
	[ "$1" != - ] && where=(ip netns exec "$(ns_host "$1")")
	shift 2
	"${where[@]}" "$@" >>"$log" 2>&1 &
	DAEMON_PIDS+=($!)
	LAST=$!
}
stop_daemons() {
	for p in "${DAEMON_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	DAEMON_PIDS=()
}

# KEEP_LOGS=DIR keeps the test's work directory (logs, configurations).
finish() {
	stop_daemons
	[ -z "${KEEP_LOGS:-}" ] || cp -r "$WORK" "$KEEP_LOGS"
	ns_cleanup
	rm -rf "$WORK"
}
trap finish EXIT
ns_cleanup # what an interrupted earlier run may have left

rc() { "$BUILD/app/routerctl" -S "$SOCK" "$@"; }

check() {
	local what=$1
	shift
	CHECKS=$((CHECKS + 1))
	if "$@" >"$WORK/out" 2>&1; then
		echo "  ok   $what"
	else
		FAILS=$((FAILS + 1))
		echo "  FAIL $what"
		sed 's/^/       /' "$WORK/out" | head -20
	fi
}

# expect_out WHAT PATTERN CMD...: CMD's output (stdout+stderr) matches.
expect_out() {
	local what=$1 pat=$2
	shift 2
	CHECKS=$((CHECKS + 1))
	"$@" >"$WORK/out" 2>&1
	if grep -Eq -- "$pat" "$WORK/out"; then
		echo "  ok   $what"
	else
		FAILS=$((FAILS + 1))
		echo "  FAIL $what (wanted /$pat/)"
		sed 's/^/       /' "$WORK/out" | head -20
	fi
}

# Everything an operator configures, as routerd shows it: for comparing
# a router with itself restarted from a saved file.
snapshot() {
	for what in "link show" "addr show" "route show table all" "-6 route show table all" \
		"rule show" "-6 rule show" "nexthop show" "neigh show nud permanent"; do
		echo "== $what"
		# shellcheck disable=SC2086
		rc $what
	done
}

# until SECONDS CMD...: CMD succeeds within SECONDS (polled every 0.2 s);
# CMD's last try shows its output.
until_s() {
	local end=$((SECONDS + $1))
	shift
	while [ $SECONDS -lt "$end" ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	"$@"
}

# A counter from `stats` (e.g. "drop bad_checksum").
stat() { rc stats | awk -v g="$1" -v n="$2" '$1 == g && $2 == n { print $3 }'; }

# The usual topology: h1 -- port0 [router] port1 -- h2, both families.
two_hosts() {
	ns_two_hosts
	cat >"$WORK/startup" <<EOS
addr add 192.0.2.1/24 dev port0
addr add 198.51.100.1/24 dev port1
addr add 2001:db8:1::1/64 dev port0
addr add 2001:db8:2::1/64 dev port1
EOS
}

start_router() {
	if ! ns_start_router "$BUILD" "$SOCK" "$WORK/startup" "$@"; then
		echo "  FAIL routerd did not start"
		exit 1
	fi
}

# A routerd that dies, by a signal or an exit of its own, fails the test
# even when no check came after: the last one running is stopped here
# and must have lived to the end and exited 0; stop_router does the same
# for one a test stops on the way (to restart it).
stop_router() {
	local pid=$RT_PID
	[ -n "$pid" ] || return 0
	check "routerd (PID $pid) alive until stopped" kill -0 "$pid"
	ns_stop_router
	check "routerd (PID $pid) exited cleanly (status $RT_STATUS)" test "$RT_STATUS" -eq 0
}

done_tests() {
	stop_router
	echo "  $((CHECKS - FAILS)) of $CHECKS checks passed"
	[ "$FAILS" -eq 0 ]
}

# Three hosts: h1 on port0, h2 on port1, h3 on port2. h2 and h3 both hold
# 203.0.113.1 (on lo) and route back through the router: two paths to one
# destination, as the kernel's router_multipath.sh builds them.
three_hosts() {
	two_hosts
	ns_link h3
	ns_addr h3 198.18.0.2/24 198.18.0.1
	ns_addr h1 192.0.2.3/24
	for h in h2 h3; do
		ns_exec $h ip addr add 203.0.113.1/32 dev lo
	done
	cat >>"$WORK/startup" <<EOS
addr add 198.18.0.1/24 dev port2
EOS
}

flows() { ns_exec h1 python3 "$ROOT/tests/integration/udp_flows.py" "$@"; }

# receive HOST PORT SECONDS: start a UDP receiver in the background;
# its records go to $WORK/HOST.rx. wait_bg waits for the receivers and
# senders started since (a bare `wait` would wait for routerd too).
BG=()
receive() {
	rm -f "$WORK/$1.rx.stop"
	ns_exec "$1" python3 "$ROOT/tests/integration/udp_flows.py" recv "$2" "$WORK/$1.rx" "$3" &
	BG+=($!)
	sleep 0.5
}

# drain_bg: once the senders are done (those started in the background
# are waited for), a second for what is still on its way, then the
# receivers are told to stop (each has written every datagram as it
# came) and waited for; they would otherwise run their SECONDS to the end.
drain_bg() {
	local p
	for p in "${SENDERS[@]}"; do
		wait "$p" 2>/dev/null
	done
	SENDERS=()
	sleep 1
	local f
	for f in "$WORK"/*.rx; do
		[ -e "$f" ] && touch "$f.stop"
	done
	wait_bg
}

SENDERS=()
background() {
	"$@" &
	BG+=($!)
	SENDERS+=($!)
}

wait_bg() {
	for p in "${BG[@]}"; do
		wait "$p" 2>/dev/null
	done
	BG=() SENDERS=()
}

# ecmp_flows NFLOWS NPKTS: send NFLOWS UDP flows of NPKTS packets each
# from h1 to 203.0.113.1 while h2 and h3 receive, then set SENT, GOT
# (packets), FLOWS2, FLOWS3 (the distinct flows each host got) and
# SHARED (flows seen on both), and check that nothing was lost and that
# every flow kept to one path.
ecmp_flows() {
	receive h2 5000 8
	receive h3 5000 8
	SENT=$(flows send 203.0.113.1 5000 "$1" "$2" - 2000)
	drain_bg
	FLOWS2=$(awk '{print $2}' "$WORK/h2.rx" | sort -u | wc -l)
	FLOWS3=$(awk '{print $2}' "$WORK/h3.rx" | sort -u | wc -l)
	SHARED=$(cat <(awk '{print $2}' "$WORK/h2.rx" | sort -u) \
		<(awk '{print $2}' "$WORK/h3.rx" | sort -u) | sort | uniq -d | wc -l)
	GOT=$(($(wc -l <"$WORK/h2.rx") + $(wc -l <"$WORK/h3.rx")))
	echo "  $SENT sent, $GOT received; flows: $FLOWS2 via h2, $FLOWS3 via h3, $SHARED on both"
	check "nothing lost" test "$GOT" -eq "$SENT"
	check "each flow on one path" test "$SHARED" -eq 0
}
