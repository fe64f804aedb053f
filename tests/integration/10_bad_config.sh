#!/usr/bin/env bash
# Invalid settings and start-up files: routerd refuses to start, naming
# the file, the line and the problem, and opens no control socket
# (ROUTER.md, "Bad input"). No namespaces: two net_null ports suffice.
. "$(dirname "$0")/lib.sh"

# try_start OPTS...: routerd on net_null ports with the given options (not
# lib.sh's daemon, which runs a program in a namespace); its output in
# $WORK/daemon.out. @return its exit status (0 if it started: stopped).
try_start() {
	"$BUILD/app/routerd" -l 0,1 --no-huge -m 256 --no-pci --no-telemetry \
		--file-prefix="${NS_PREFIX}bad" --log-level=lib.eal:error \
		--vdev=net_null0 --vdev=net_null1 -- --socket "$SOCK" "$@" \
		>"$WORK/daemon.out" 2>&1 &
	local pid=$!
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		if [ -S "$SOCK" ]; then
			kill "$pid"
			wait "$pid"
			return 0
		fi
		sleep 0.1
	done
	wait "$pid"
}
refused() { ! try_start "$@" && [ ! -S "$SOCK" ]; }

printf 'idle-backoff on\nmbufs lots\n' >"$WORK/bad.conf"
check "a bad value: refused" refused --config "$WORK/bad.conf"
expect_out "... naming file, line, key and problem" "bad.conf:2: mbufs: expected 1023..16777216" \
	cat "$WORK/daemon.out"

printf '# settings\n\nno-such-key 1\n' >"$WORK/unknown.conf"
check "an unknown setting: refused" refused --config "$WORK/unknown.conf"
expect_out "... named with its line" "unknown.conf:3: no-such-key" cat "$WORK/daemon.out"

printf 'kernel-default-route maybe\n' >"$WORK/bool.conf"
check "an on/off setting given something else: refused" refused --config "$WORK/bool.conf"
expect_out "... saying what it takes" "bool.conf:1: kernel-default-route: expected on or off" \
	cat "$WORK/daemon.out"

printf 'kernel-tables main,local\n' >"$WORK/tables.conf"
check "kernel-tables naming local: refused" refused --config "$WORK/tables.conf"
expect_out "... saying local is routerd's own" "tables.conf:1: kernel-tables: .*local is routerd's own" \
	cat "$WORK/daemon.out"

check "a missing settings file: refused" refused --config "$WORK/absent.conf"
expect_out "... named" "absent.conf: No such file or directory" cat "$WORK/daemon.out"

printf 'addr add 192.0.2.1/24 dev port0\nroute add 10.0.0.0/8 via 192.0.2.300\n' \
	>"$WORK/bad.startup"
check "a bad start-up command: refused" refused --startup "$WORK/bad.startup"
expect_out "... naming file, line and problem" "bad.startup:2: .*192.0.2.300" cat "$WORK/daemon.out"

printf 'addr add 192.0.2.1/24 dev port0\n' >"$WORK/good.startup"
check "and a good one starts" try_start --startup "$WORK/good.startup"
done_tests
