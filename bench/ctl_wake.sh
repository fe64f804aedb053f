#!/usr/bin/env bash
# What an idle routerd's control core costs the CPU it shares, and how
# soon it answers a packet for itself, on the integration tests' topology
# (h1 -- port0 [routerd] port1 -- h2, af_packet ports, idle backoff on):
#   ctl_wakeups_per_s   the control thread's wake-ups a second, idle
#                       (the kernel's count of its runs, /proc schedstat)
#   ctl_cpu_ms_per_s    its time on a CPU, ms a second, idle
#   ping_router_ms      h1's mean round trip to 192.0.2.1 (routerd's own
#                       address: the control core answers)
#   ping_through_ms     h1's mean round trip to h2 (forwarded both ways:
#                       the workers alone), the peer in the same run
#   ping_router_vs_through  the two, as a ratio
#   carrier_down_ms     from h2's end of port1's veth set down (an ioctl in
#                       h2) to routerd's `monitor link` saying port1 has
#                       no carrier, median of CARRIERS (10) flaps; the
#                       carrier of an af_packet port is its interface's
#   carrier_up_ms       the same, set up again, to LOWER_UP
# Each a median over REPS (3) repetitions; pings are PINGS (50) a
# repetition, 0.1 s apart, so that each finds the control core asleep.
# With BASE=DIR (another build's directory, an earlier revision's say),
# that build's routerd runs too, interleaved, its keys prefixed "base_".
#
#   bench/ctl_wake.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
PINGS=${PINGS:-50}
IDLE_S=${IDLE_S:-5}
builds=("$(realpath "${1:-build}")")
[ -n "${BASE:-}" ] && builds+=("$(realpath "$BASE")")
# lib.sh takes its build directory from $1 and cleans up on exit.
set -- "${builds[0]}"
# shellcheck disable=SC2034 # lib.sh's: namespaces cw-*
NS_PREFIX=cw
# shellcheck source=tests/integration/lib.sh
. tests/integration/lib.sh
set +u # lib.sh's ns helpers read unset variables

# rtt HOST ADDR: the mean round trip, ms, of PINGS pings.
rtt() {
	ns_exec h1 ping -q -c "$PINGS" -i 0.1 -W 2 "$1" | awk -F/ '/^rtt/ { print $5 }'
}

# carrier: "down_ms up_ms", the medians over CARRIERS flaps of h2-r.
carrier() {
	ns_exec h2 python3 - "$BUILD/app/routerctl" "$SOCK" "${CARRIERS:-10}" <<'EOF'
import fcntl, os, random, select, socket, statistics, struct, subprocess, sys, time
ctl, sock, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
mon = subprocess.Popen([ctl, "-S", sock, "-j", "monitor", "link"], stdout=subprocess.PIPE)
fd, buf = mon.stdout.fileno(), b""
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

def set_up(up):
    ifr = struct.pack("16sh", b"h2-r", 0)
    flags = struct.unpack("16sh", fcntl.ioctl(s, 0x8913, ifr))[1]  # SIOCGIFFLAGS
    flags = flags | 1 if up else flags & ~1  # IFF_UP
    fcntl.ioctl(s, 0x8914, struct.pack("16sh", b"h2-r", flags))  # SIOCSIFFLAGS

def event(want):
    # when routerd's monitor says port1 is without carrier (down) or with it
    global buf
    end = time.monotonic() + 5
    while time.monotonic() < end:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if b'"port1"' in line and (b"NO-CARRIER" in line) == (want == "down"):
                return time.monotonic()
        if select.select([fd], [], [], max(0, end - time.monotonic()))[0]:
            buf += os.read(fd, 65536)
    sys.exit("routerd's monitor did not report port1 " + want)

time.sleep(0.5)  # the monitor connected
times = {"down": [], "up": []}
for _ in range(n):
    for want in ("down", "up"):
        time.sleep(0.2 + random.random() * 0.05)  # at any phase of a poll
        while select.select([fd], [], [], 0)[0]:  # what came before the change
            os.read(fd, 65536)
        buf = b""
        t0 = time.monotonic()
        set_up(want == "up")
        times[want].append((event(want) - t0) * 1e3)
mon.terminate()
print("%.2f %.2f" % (statistics.median(times["down"]), statistics.median(times["up"])))
EOF
}

# measure BUILD: one repetition; prints "wakeups cpu_ms router_ms
# through_ms carrier_down_ms carrier_up_ms".
measure() {
	# shellcheck disable=SC2034 # start_router's
	BUILD=$1
	{
		two_hosts
		start_router --no-control-ports
		ns_exec h1 ping -c 1 -W 2 198.51.100.2 # neighbours resolved
	} >&2
	sleep 1
	local a b
	read -ra a <"/proc/$RT_PID/schedstat"
	sleep "$IDLE_S"
	read -ra b <"/proc/$RT_PID/schedstat"
	local router through
	router=$(rtt 192.0.2.1)
	through=$(rtt 198.51.100.2)
	local flaps
	flaps=$(carrier)
	ns_stop_router >&2
	ns_cleanup >&2
	echo "$(((b[2] - a[2]) / IDLE_S)) $(awk -v x="$((b[0] - a[0]))" -v s="$IDLE_S" 'BEGIN { printf "%.2f", x / s / 1e6 }')" \
		"$router $through $flaps"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

out=$WORK/ctl_wake
: >"$out"
for rep in $(seq "$REPS"); do
	for i in "${!builds[@]}"; do
		tag=$([ "$i" = 0 ] && echo this || echo base)
		read -r w c pr pt cd cu <<<"$(measure "${builds[$i]}")"
		echo "rep $rep, $tag build: wakeups/s $w, cpu ms/s $c, ping router $pr ms, through $pt ms," \
			"carrier down $cd ms, up $cu ms" >&2
		echo "$tag $w $c $pr $pt $cd $cu" >>"$out"
	done
done
for tag in this base; do
	[ "$tag" = base ] && [ ${#builds[@]} = 1 ] && break
	key=
	[ "$tag" = base ] && key=base_
	col() { awk -v t="$tag" -v k="$1" '$1 == t { print $(k + 1) }' "$out" | median; }
	echo "${key}ctl_wakeups_per_s $(col 1)"
	echo "${key}ctl_cpu_ms_per_s $(col 2)"
	echo "${key}ping_router_ms $(col 3)"
	echo "${key}ping_through_ms $(col 4)"
	echo "${key}carrier_down_ms $(col 5)"
	echo "${key}carrier_up_ms $(col 6)"
	echo "${key}ping_router_vs_through $(awk -v t="$tag" '$1 == t { print $4 / $5 }' "$out" | median | xargs printf "%.2f")"
done
