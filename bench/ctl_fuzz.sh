#!/usr/bin/env bash
# The control core's fuzzer (tests/fuzz/ctl_fuzz.c) for a long run, under
# the address and undefined-behaviour sanitizers: SEEDS runs (default 3)
# of FRAMES frames (default 1,000,000), NETLINK kernel-mirror messages and
# CLI command lines (default 200,000 each), each seed after the last.
# make test runs it on a bounded workload (meson test ctl_fuzz).
#
#   bench/ctl_fuzz.sh [BUILD_SAN_DIR]     (default build-san, made if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
san=${1:-build-san}
if [ ! -f "$san/build.ninja" ]; then
	meson setup "$san" -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debugoptimized -Dbench=false >/dev/null
fi
ninja -C "$san" tests/fuzz/ctl_fuzz >/dev/null
first=${FIRST_SEED:-1}
for seed in $(seq "$first" $((first + ${SEEDS:-3} - 1))); do
	start=$SECONDS
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$san/tests/fuzz/ctl_fuzz" --frames "${FRAMES:-1000000}" --netlink "${NETLINK:-200000}" \
		--cli "${CLI:-200000}" --seed "$seed"
	echo "  seed $seed: $((SECONDS - start)) s"
done
