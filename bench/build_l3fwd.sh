#!/usr/bin/env bash
# Builds DPDK's l3fwd example from Debian's dpdk-doc sources, for the
# side-by-side runs of bench/fwd_bench.sh. Nothing of it is kept in the
# project: the sources are copied to OUT_DIR and adjusted there.
#   bench/build_l3fwd.sh OUT_DIR      -> OUT_DIR/l3fwd/build/l3fwd
# Adjustments, both at build time:
#  - stock l3fwd asks for RX checksum offload, which net_ring and memif
#    reject: the request is removed (l3fwd does not check checksums in
#    software either, so it does the same work as before);
#  - -march=native, as routerd is built, so neither gets a newer
#    instruction set than the other (pkg-config's flags say corei7).
set -euo pipefail
out=${1:?usage: build_l3fwd.sh OUT_DIR}
src=/usr/share/dpdk/examples
[ -f "$src/l3fwd/main.c" ] || { echo "no $src/l3fwd: apt-get install dpdk-doc" >&2; exit 1; }
mkdir -p "$out"
bin=$out/l3fwd/build/l3fwd
if [ -x "$bin" ] && [ "$bin" -nt "$src/l3fwd/main.c" ]; then
	echo "$bin"
	exit 0
fi
rm -rf "$out/l3fwd" "$out/common"
cp -r "$src/l3fwd" "$src/common" "$out/"
sed -i 's/\.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,/.offloads = 0,/' "$out/l3fwd/main.c"
grep -q 'offloads = 0,' "$out/l3fwd/main.c" || { echo "l3fwd: offload line not found" >&2; exit 1; }
sed -i 's|^CFLAGS += -I../common$|CFLAGS += -I../common -march=native|' "$out/l3fwd/Makefile"
make -s -C "$out/l3fwd" >&2
echo "$bin"
