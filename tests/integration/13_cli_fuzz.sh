#!/usr/bin/env bash
# Random commands (tests/integration/cli_fuzz.py): every line answered,
# a refused command changes nothing (save before and after agree); then
# whatever configuration they built is saved, routerd restarted from the
# saved file, and saved again: the same file, and every table, rule,
# nexthop, address and port shows the same. Twelve seeds, 3,000 commands
# each; then 6,000 in one write.
. "$(dirname "$0")/lib.sh"
two_hosts
cp "$WORK/startup" "$WORK/startup0"
for seed in $(seq 1 12); do
	cp "$WORK/startup0" "$WORK/startup"
	start_router
	# A monitor meanwhile, so that every change is also formatted as
	# an event (and, in the sanitizer run, checked).
	"$BUILD/app/routerctl" -S "$SOCK" monitor >"$WORK/events" 2>&1 &
	mon=$!
	check "seed $seed: 3,000 commands, each answered, the refused ones change nothing" \
		python3 "$ROOT/tests/integration/cli_fuzz.py" "$SOCK" 3000 "$seed"
	sed 's/^/       /' "$WORK/out"
	kill "$mon" 2>/dev/null
	wait "$mon" 2>/dev/null
	echo "       $(wc -l <"$WORK/events") events seen by a monitor"
	rc save >"$WORK/saved"
	snapshot >"$WORK/before"
	stop_router
	cp "$WORK/saved" "$WORK/startup"
	start_router
	rc save >"$WORK/saved2"
	snapshot >"$WORK/after"
	check "seed $seed: what they built, saved and restored: the same file" \
		diff "$WORK/saved" "$WORK/saved2"
	check "seed $seed: ... and the same tables, rules, nexthops, addresses, ports" \
		diff "$WORK/before" "$WORK/after"
	stop_router
done
# Pipelined: 6,000 lines in one write (half of them route shows), read
# only once all are sent: routerd paces them (64 a round, none while 4 MiB
# of answers wait) and answers every one, in order.
cp "$WORK/startup0" "$WORK/startup"
start_router
check "6,000 pipelined commands in one write: every one answered, in order" \
	python3 "$ROOT/tests/integration/cli_fuzz.py" "$SOCK" 3000 99 pipelined
sed 's/^/       /' "$WORK/out"
done_tests
