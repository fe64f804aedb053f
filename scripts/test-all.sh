#!/usr/bin/env bash
# Runs every test suite and prints one summary line. Each phase is one or
# more "tests": meson tests count one each; script phases count one each.
# Exit status: 0 only when nothing failed.
set -uo pipefail
build=${1:-build}
build_san=${2:-build-san}
cd "$(dirname "$0")/.." || exit 1

passed=0
failed=0
failures=()

# Count the results meson recorded in its JSON log for the last run.
meson_counts() {
	local log=$1/meson-logs/testlog.json
	local ok fail
	ok=$(grep -c '"result": "OK"' "$log" 2>/dev/null || true)
	fail=$(grep -c -E '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" 2>/dev/null || true)
	passed=$((passed + ${ok:-0}))
	failed=$((failed + ${fail:-0}))
	if [ "${fail:-0}" -gt 0 ]; then
		failures+=("$(grep -E '"result": "(FAIL|TIMEOUT|ERROR)"' "$log" |
			sed -E 's/.*"name": "([^"]+)".*/\1/' | tr '\n' ' ')")
	fi
}

# Each phase's line carries the seconds since the start (bash's
# SECONDS), so a run's log shows where its time went.
phase() {
	echo
	echo "=== [${SECONDS}s] $* ==="
}

phase "unit tests ($build)"
meson test -C "$build" --suite unit --print-errorlogs
meson_counts "$build"

phase "unit tests, address and undefined-behaviour sanitizers ($build_san)"
if [ ! -f "$build_san/build.ninja" ]; then
	meson setup "$build_san" -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debugoptimized -Dbench=false >/dev/null
fi
if ninja -C "$build_san" >"$build_san.log" 2>&1; then
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C "$build_san" --suite unit --print-errorlogs --timeout-multiplier 4
	meson_counts "$build_san"
else
	cat "$build_san.log"
	failed=$((failed + 1))
	failures+=("sanitizer build")
fi

phase "benchmarks, smoke run"
if meson test -C "$build" --suite bench-smoke --print-errorlogs; then :; fi
meson_counts "$build"

# Integration tests: each check inside a script counts as a test; a
# script that dies before its summary line counts as one failure.
integration() {
	local t=$1 b=$2
	phase "integration: $t ($b)"
	bash "$t" "$b" 2>&1 | tee "$b/integration.log"
	st=${PIPESTATUS[0]}
	line=$(grep -E '^  [0-9]+ of [0-9]+ checks passed' "$b/integration.log" | tail -1)
	if [ -n "$line" ]; then
		ok=$(echo "$line" | awk '{print $1}')
		all=$(echo "$line" | awk '{print $3}')
		passed=$((passed + ok))
		failed=$((failed + all - ok))
		[ "$ok" -eq "$all" ] && [ "$st" -eq 0 ] || failures+=("$t ($b)")
		if [ "$st" -ne 0 ] && [ "$ok" -eq "$all" ]; then
			failed=$((failed + 1))
		fi
	else
		failed=$((failed + 1))
		failures+=("$t ($b)")
	fi
}

for t in tests/integration/[0-9]*.sh; do
	[ -e "$t" ] || continue
	integration "$t" "$build"
done

# routerd itself under the sanitizers, on the tests that feed it the most
# hostile input: ICMP errors, fragments and reassembly (01), malformed
# packets (03), router solicitations (12), random commands (13) and
# monitors (14), a neighbour flood (16), control-plane ports (17),
# kernel routes (18), the real daemons' (19 BIRD, 20 FRR: punt floods,
# nexthop objects and groups), a hostile host's fragments (21) and the
# mirror against the kernel (22). An
# error aborts routerd, which fails the checks after it. (Leak checks
# off: DPDK keeps its memory to the end.)
if [ -x "$build_san/app/routerd" ]; then
	for t in tests/integration/01_forwarding.sh tests/integration/03_malformed.sh \
		tests/integration/12_router_adv.sh tests/integration/13_cli_fuzz.sh \
		tests/integration/14_monitor.sh tests/integration/16_neigh_flood.sh \
		tests/integration/17_control_ports.sh tests/integration/18_kernel_routes.sh \
		tests/integration/19_bird.sh tests/integration/20_frr.sh \
		tests/integration/21_hostile.sh tests/integration/22_mirror_diff.sh; do
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
			UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 integration "$t" "$build_san"
	done
fi

echo
echo "=== [${SECONDS}s] done ==="
if [ "$failed" -gt 0 ]; then
	echo "failed: ${failures[*]}"
fi
echo "$((passed + failed)) tests run"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
