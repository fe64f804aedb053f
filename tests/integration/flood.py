#!/usr/bin/env python3
"""A neighbour flood for the integration tests: UDP to many addresses
nobody answers, as fast as one process can send, from a raw socket.

flood.py IFACE DSTMAC SECONDS NET4 NET6 COUNT
    Ethernet frames to DSTMAC (the router) out of IFACE, UDP from the
    interface's first IPv4 and IPv6 addresses to COUNT addresses in NET4
    (a /16 given as "a.b") and COUNT in NET6 (a /64 given as its first four
    groups), alternating families, for SECONDS or until SIGTERM. Prints
    the frames sent. $FLOOD_PIDFILE, if set, gets its PID.
"""
import os
import signal
import socket
import struct
import subprocess
import sys
import time

from send_frames import csum  # the same directory


def iface_addrs(iface):
    out = subprocess.run(["ip", "-o", "addr", "show", "dev", iface], capture_output=True,
                         text=True, check=True).stdout
    v4 = v6 = None
    for line in out.splitlines():
        f = line.split()
        if f[2] == "inet" and v4 is None:
            v4 = f[3].split("/")[0]
        if f[2] == "inet6" and v6 is None and not f[3].startswith("fe80"):
            v6 = f[3].split("/")[0]
    return v4, v6


def frames(src_mac, dst_mac, v4, v6, net4, net6, count):
    """Yield prebuilt frames, alternating families, COUNT destinations each."""
    payload = b"flood!" * 3
    udp_len = 8 + len(payload)
    base4 = socket.inet_aton(net4 + ".0.0")
    base6 = socket.inet_pton(socket.AF_INET6, net6 + "::")
    src4 = socket.inet_aton(v4)
    src6 = socket.inet_pton(socket.AF_INET6, v6)
    out = []
    for i in range(count):
        host = 0x0100 + i  # skip x.y.0.0/24, where the router and hosts are
        dst4 = base4[:2] + struct.pack("!H", host & 0xFFFF)
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, i & 0xFFFF, 0, 64, 17, 0,
                         src4, dst4)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        udp = struct.pack("!HHHH", 40000, 9, udp_len, 0) + payload
        out.append(dst_mac + src_mac + b"\x08\x00" + ip + udp)
        dst6 = base6[:8] + struct.pack("!HHHH", 0xA, 0, i >> 16, i & 0xFFFF)
        udp6 = struct.pack("!HHHH", 40000, 9, udp_len, 0) + payload
        pseudo = src6 + dst6 + struct.pack("!IxxxB", udp_len, 17)
        c = csum(pseudo + udp6) or 0xFFFF
        udp6 = udp6[:6] + struct.pack("!H", c) + udp6[8:]
        ip6 = struct.pack("!IHBB16s16s", 6 << 28, udp_len, 17, 64, src6, dst6)
        out.append(dst_mac + src_mac + b"\x86\xdd" + ip6 + udp6)
    return out


def main():
    iface, dst, seconds, net4, net6, count = sys.argv[1:7]
    dst_mac = bytes.fromhex(dst.replace(":", ""))
    src_mac = bytes.fromhex(open("/sys/class/net/%s/address" % iface).read().strip()
                            .replace(":", ""))
    v4, v6 = iface_addrs(iface)
    fr = frames(src_mac, dst_mac, v4, v6, net4, net6, int(count))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    end = time.time() + float(seconds)
    sent = 0

    def stop(signum, frame):
        print(sent, flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    if os.environ.get("FLOOD_PIDFILE"):  # so that its starter stops it by PID
        with open(os.environ["FLOOD_PIDFILE"], "w") as f:
            f.write("%d\n" % os.getpid())
    n = len(fr)
    while True:
        for i in range(0, n, 2000):
            for f in fr[i:i + 2000]:
                try:
                    s.send(f)
                    sent += 1
                except OSError:  # the qdisc is full: the link's top rate
                    pass
            if time.time() >= end:
                print(sent)
                return


if __name__ == "__main__":
    main()
