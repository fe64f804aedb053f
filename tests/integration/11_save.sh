#!/usr/bin/env bash
# routerctl save: a router configured every way the CLI allows, saved,
# restarted with the saved file as its start-up file, saved again. The
# two files are the same, every table, rule, nexthop, permanent
# neighbour, address and port shows the same, and traffic flows.
. "$(dirname "$0")/lib.sh"
two_hosts
start_router

echo "configure"
cfg() { check "$*" rc "$@"; }
cfg link set port1 mtu 1400
cfg addr add 10.9.0.1/16 dev port0
cfg addr add 2001:db8:9::1/64 dev port1
ll1=$(rc -6 addr show port1 | awk '$1 == "inet6" && $2 ~ /^fe80/ { print $2 }')
cfg addr del "$ll1" dev port1
cfg neigh add 198.51.100.7 lladdr 02:00:00:00:00:07 dev port1 permanent
cfg neigh add 2001:db8:2::7 lladdr 02:00:00:00:00:17 dev port1 permanent
cfg nexthop add id 1 via 198.51.100.2 dev port1
cfg nexthop add id 2 via 198.51.100.3 dev port1
cfg nexthop add id 3 blackhole
cfg nexthop add id 4 dev port1
cfg nexthop add id 10 group 1/2,3
cfg nexthop add id 5 via 198.51.100.4 dev port1 # added after group 10
cfg nexthop add id 11 group 5,2/1 # a group whose member is newer than it
cfg route add 10.10.0.0/16 via 198.51.100.2
cfg route add 10.10.0.0/16 via 198.51.100.3 metric 20
cfg route add 10.11.0.0/16 nhid 10 proto bgp
cfg route add 10.12.0.0/16 nhid 11 table 100
cfg route add 10.13.0.0/16 nexthop via 198.51.100.2 weight 3 nexthop via 198.51.100.3 proto static
cfg route add 10.14.0.0/16 via 203.0.113.9 dev port1 onlink
cfg route add 10.15.0.0/16 dev port1 metric 5
cfg route add blackhole 10.16.0.0/16 table 4000000000
cfg route add unreachable 10.17.0.0/16 metric 7
cfg route add prohibit 10.18.0.0/16 proto 200
cfg route add throw 10.12.128.0/17 table 100
cfg route add 0.0.0.0/0 via 198.51.100.2 table 100
cfg route add 2001:db8:10::/48 via 2001:db8:2::2
cfg route add 2001:db8:11::/48 via 2001:db8:2::2 metric 0
cfg route add ::/0 via fe80::1 dev port1 table 100
cfg rule add priority 100 from 192.0.2.0/24 table 100
cfg rule add priority 200 to 10.99.0.0/16 iif port0 dscp 10 ipproto udp dport 53 blackhole
cfg rule add priority 300 ipproto tcp sport 1000-2000 unreachable
cfg rule add priority 50 from 10.0.0.0/8 goto 300
cfg -6 rule add priority 100 from 2001:db8:1::/64 table 100
cfg route add 10.19.0.0/16 via 198.51.100.2 table default
cfg rule del priority 32767 lookup default
cfg rule add priority 32766 to 10.98.0.0/16 prohibit
cfg rule del priority 32766 lookup main
cfg rule add priority 32766 lookup main # now behind the prohibit
cfg -6 rule add priority 40000 lookup main
cfg -6 rule del priority 32766 lookup main
cfg link set port0 mtu 1500
cfg link set port0 ra on
cfg link set port0 rdnss 2001:db8:1::53,2001:db8:1::54
cfg link set port0 ra-other on ra-lifetime 0

rc save >"$WORK/saved"
snapshot >"$WORK/before"
echo "  saved $(wc -l <"$WORK/saved") lines"
expect_out "the deleted link-local address stays deleted" "^addr del fe80:" cat "$WORK/saved"
expect_out "a multipath route on one line" "^route add 10.13.0.0/16 nexthop via 198.51.100.2 dev port1 weight 3 nexthop via 198.51.100.3 dev port1 proto static metric 0$" \
	cat "$WORK/saved"
expect_out "a deleted default rule" "^rule del priority 32767 table 253$" cat "$WORK/saved"
check "main's rule, behind another of its priority: deleted, then added back behind it" \
	test "$(grep -E '^rule (del|add) priority 32766 ' "$WORK/saved" | cut -c1-40 | tr '\n' '|')" \
	= "rule del priority 32766 table 254|rule add priority 32766 to 10.98.0.0/16 |rule add priority 32766 table 254|"
expect_out "IPv6's main rule moved" "^-6 rule add priority 40000 table 254$" cat "$WORK/saved"
expect_out "... and deleted where it was" "^-6 rule del priority 32766 table 254$" cat "$WORK/saved"
check "no route of the router's own" bash -c "! grep -q 'proto kernel' '$WORK/saved'"
expect_out "router advertisements" "^link set port0 ra on$" cat "$WORK/saved"
expect_out "their DNS servers" "^link set port0 rdnss 2001:db8:1::53,2001:db8:1::54$" cat "$WORK/saved"
expect_out "their options" "^link set port0 ra-other on ra-lifetime 0$" cat "$WORK/saved"
check "save takes no options" bash -c "! $BUILD/app/routerctl -S $SOCK -j save"

echo "restart from the saved file"
stop_router
cp "$WORK/saved" "$WORK/startup"
start_router
rc save >"$WORK/saved2"
snapshot >"$WORK/after"
check "saved again: the same file" diff "$WORK/saved" "$WORK/saved2"
check "every table, rule, nexthop, neighbour, address and port the same" \
	diff "$WORK/before" "$WORK/after"
expect_out "a port set down is saved as such" "^link set port1 down$" bash -c \
	"rc() { $BUILD/app/routerctl -S $SOCK \"\$@\"; }; rc link set port1 down; rc save; rc link set port1 up"
check "traffic flows" ns_exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.2

echo "save FILE: whole or not at all"
check "save FILE writes what save prints" bash -c "$BUILD/app/routerctl -S $SOCK save $WORK/file && diff $WORK/file $WORK/saved2"
expect_out "... its first line says what wrote it" "^# routerd configuration, written by routerctl save$" \
	head -1 "$WORK/file"
expect_out "... its last that it is whole" "^# end of routerd configuration$" tail -1 "$WORK/file"
chmod 600 "$WORK/file"
rc save "$WORK/file"
expect_out "... a file saved again keeps its mode" "^600$" command stat -c %a "$WORK/file"
check "... no temporary file left beside it" test "$(ls "$WORK" | grep -c '^file')" -eq 1
cp "$WORK/file" "$WORK/file.before"
check "save FILE with routerd gone fails" bash -c "! $BUILD/app/routerctl -S $WORK/nosock save $WORK/file"
check "... and leaves the file as it was" cmp "$WORK/file" "$WORK/file.before"
# A file save wrote, cut short (a 'routerctl save > f' stopped halfway):
# routerd refuses it instead of starting with what it has (rules and
# ports set down come last).
head -n 20 "$WORK/file" >"$WORK/cut"
stop_router
cp "$WORK/cut" "$WORK/startup"
started=no
RT_OUT=$WORK/cut.log ns_start_router "$BUILD" "$SOCK" "$WORK/startup" && started=yes
st=0
wait "$RT_PID" 2>/dev/null || st=$?
RT_PID=
check "a saved file cut short: routerd refuses to start (status 2)" test "$started/$st" = no/2
expect_out "... saying why" "startup: written by routerctl save but cut short \\(its last line is not" \
	cat "$WORK/cut.log"

done_tests
