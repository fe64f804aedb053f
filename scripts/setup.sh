#!/usr/bin/env bash
# Prepares a Debian 12 machine to build, run and test the router.
# Idempotent: installs only missing packages, reserves hugepages only when
# fewer are reserved than asked for, and mounts hugetlbfs only once.
#
# Writes the EAL memory options the other scripts should use to
# build/eal-mem.opts: hugepages when they could be reserved, otherwise
# "--no-huge -m <MB>".
set -euo pipefail

HUGEPAGES_2M=${HUGEPAGES_2M:-1024}   # 2 GiB: FIB tables of ours and of the peers in bench/
NOHUGE_MB=${NOHUGE_MB:-2048}

packages=(
	build-essential pkg-config meson ninja-build
	dpdk dpdk-dev libdpdk-dev dpdk-doc libnuma-dev libbsd-dev libcmocka-dev
	iproute2 iputils-ping traceroute tcpdump ethtool bc procps kmod
	clang-format gnuplot-nox python3
	bird2 frr
)

log() { printf 'setup: %s\n' "$*"; }

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing packages (${missing[*]}); run as root or install them" >&2
		exit 1
	fi
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# The routing daemons (bird2, frr) are run by the tests in their own
	# namespaces: their packages must not start them as services.
	policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		policy=/usr/sbin/policy-rc.d
	fi
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	if [ -n "$policy" ]; then rm -f "$policy"; fi
else
	log "all packages present"
fi

mkdir -p build
eal_mem="--no-huge -m ${NOHUGE_MB}"
if [ "$(id -u)" -eq 0 ] && [ -w /proc/sys/vm/nr_hugepages ]; then
	have=$(cat /proc/sys/vm/nr_hugepages)
	if [ "$have" -lt "$HUGEPAGES_2M" ]; then
		echo "$HUGEPAGES_2M" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
	fi
	if ! grep -q ' hugetlbfs ' /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || true
	fi
fi
have=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)
if grep -q ' hugetlbfs ' /proc/mounts && [ "$have" -ge 256 ]; then
	eal_mem=""
	log "hugepages: $have x 2 MiB reserved"
else
	log "hugepages unavailable ($have reserved); using $eal_mem"
fi
printf '%s\n' "$eal_mem" >build/eal-mem.opts
