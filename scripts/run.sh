#!/usr/bin/env bash
# The demo: two Linux hosts in network namespaces (demo-h1, demo-h2), each
# linked by a veth pair to routerd's ports (net_af_packet), routerd on the
# default configuration (config/router.conf, config/startup.conf) in its
# own namespace. Ctrl-C stops the router and removes what the demo made.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=$(realpath "$build")
NS_PREFIX=demo
. "$root/scripts/netns.sh"
sock=/run/router/router.sock

ns_cleanup
trap ns_cleanup EXIT
trap 'ns_cleanup; exit 130' INT TERM
ns_two_hosts
ns_exec h2 ip addr add 203.0.113.1/24 dev lo

cat <<MSG

Demo network:  demo-h1 (192.0.2.2, 2001:db8:1::2) -- port0 [routerd] port1 -- demo-h2 (198.51.100.2, 2001:db8:2::2, 203.0.113.1)

Try, in another terminal:
  $build/app/routerctl route show
  $build/app/routerctl addr show
  ip netns exec demo-h1 ping -c 3 198.51.100.2
  ip netns exec demo-h1 ping -6 -c 3 2001:db8:2::2
  ip netns exec demo-h1 traceroute -n 203.0.113.1
  ip netns exec demo-h1 ping -c 1 10.67.0.1        # unreachable route
  $build/app/routerctl neigh show
  $build/app/routerctl stats
  $build/app/routerctl -j route get 203.0.113.1
  $build/app/routerctl -s link show                # per-port counters
  $build/app/routerctl monitor                     # changes as they happen
  $build/app/routerctl save                        # the configuration, as commands
Ctrl-C here stops the router and removes the namespaces.

MSG
ns_start_router "$build" "$sock" "$root/config/startup.conf" --config "$root/config/router.conf" ||
	{ echo "run: routerd did not start" >&2; exit 1; }
wait "$RT_PID" || true
