#!/usr/bin/env bash
# A memif peer that comes and goes under load: routerd (memif server on
# port0, net_null on port1, the full IPv4 table through port1) while
# bench/pkt_gen connects as the memif client, sends as fast as it can
# (or RATE packets a second) for UP seconds, and is killed (SIGKILL, as a
# crash or a pulled cable), COUNT times. routerd must notice each carrier
# change (link show), stay alive and keep forwarding. Prints one line a
# round and a summary:
#   reconnects N, carrier_changes N, routerd alive yes|no, forwarded N
#
#   bench/memif_reconnect.sh [BUILD_DIR]       (COUNT=200 UP=0.5 RATE=0)
# Needs hugepages for full rates; works without. BLIND=1 does not ask
# routerd about its carrier (for a routerd that does not follow it): it
# waits 1 s after starting the peer and 0.2 s after killing it. GEN=PATH
# takes another build's pkt_gen. BACK=1 routes the traffic back out of
# the memif port (the peer receives it): routerd then transmits on the
# port too as the peer leaves. SIG=INT stops the peer gracefully (it
# tells routerd it is leaving) instead of killing it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
COUNT=${COUNT:-200}
UP=${UP:-0.5}
RATE=${RATE:-0}
work=$(mktemp -d)
sock=$work/memif.sock
rsock=$work/router.sock
mac=02:00:00:00:99:01
mem=$(cat "$build/eal-mem.opts" 2>/dev/null || echo "--no-huge -m 512")
[ -n "$mem" ] || mem="-m 512"
rpid=
gpid=
cleanup() {
	[ -n "$gpid" ] && kill -KILL "$gpid" 2>/dev/null
	[ -n "$rpid" ] && kill -INT "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
rc() { "$build/app/routerctl" -S "$rsock" "$@"; }
oper() { rc -j link show port0 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["operstate"])'; }
# wait_oper STATE: until port0's operstate is STATE (5 s at most).
wait_oper() {
	if [ -n "${BLIND:-}" ]; then
		sleep "$([ "$1" = UP ] && echo 1 || echo 0.2)"
		return 0
	fi
	for _ in $(seq 500); do
		[ "$(oper)" = "$1" ] && return 0
		sleep 0.01
	done
	return 1
}

zcat bench/data/prefixes-v4.txt.gz | awk "NR <= 100000" >"$work/table"
out=port1
[ -n "${BACK:-}" ] && out=port0
{
	echo "addr add 10.0.0.1/24 dev $out"
	echo "neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev $out"
	awk '{ print "route add " $1 " via 10.0.0.2" }' "$work/table"
} >"$work/startup"
# shellcheck disable=SC2086
"$build/app/routerd" -l 0,1 $mem --no-pci --no-telemetry --file-prefix=mrc-r \
	--log-level=lib.eal:error \
	"--vdev=net_memif0,role=server,socket=$sock,socket-abstract=no,mac=$mac" \
	--vdev=net_null0 -- --no-control-ports --socket "$rsock" --startup "$work/startup" >"$work/routerd.log" 2>&1 &
rpid=$!
for _ in $(seq 300); do
	[ -S "$rsock" ] && break
	sleep 0.1
done
[ -S "$rsock" ] || { cat "$work/routerd.log" >&2; exit 1; }

done_rounds=0
for i in $(seq "$COUNT"); do
	# shellcheck disable=SC2086
	"${GEN:-$build/bench/pkt_gen}" -l 0 $mem --no-pci --no-telemetry --file-prefix=mrc-g \
		--log-level=lib.eal:error \
		"--vdev=net_memif0,role=client,socket=$sock,socket-abstract=no" -- \
		--table "$work/table" --dmac "$mac" --rate "$RATE" --seconds 600 \
		>"$work/gen.log" 2>&1 &
	gpid=$!
	if ! wait_oper UP; then
		echo "round $i: no carrier after 5 s" >&2
		break
	fi
	sleep "$UP"
	kill -"${SIG:-KILL}" "$gpid"
	wait "$gpid" 2>/dev/null || true
	gpid=
	kill -0 "$rpid" 2>/dev/null || break
	if ! wait_oper DOWN; then
		echo "round $i: carrier still up after 5 s" >&2
		break
	fi
	done_rounds=$i
	[ $((i % 20)) = 0 ] && echo "round $i: $(rc stats | awk '$1 == "total" && $2 == "forwarded" { print "forwarded " $3 }')"
done
alive=no
kill -0 "$rpid" 2>/dev/null && alive=yes
changes=$(rc -j link show port0 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)[0].get("carrier_changes", "-"))' 2>/dev/null || echo -)
fwd=$(rc stats 2>/dev/null | awk '$1 == "total" && $2 == "forwarded" { print $3 }')
echo "reconnects $done_rounds"
echo "carrier_changes $changes"
echo "routerd alive $alive"
echo "forwarded ${fwd:-0}"
if [ "$alive" != yes ]; then
	tail -20 "$work/routerd.log" >&2
	exit 1
fi
[ "$done_rounds" = "$COUNT" ]
