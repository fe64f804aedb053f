#!/usr/bin/env python3
"""UDP flows for the integration tests.

udp_flows.py recv PORT OUTFILE SECONDS
    record "SRCADDR SRCPORT" for each datagram received on PORT, for
    SECONDS or until a file OUTFILE.stop appears (the senders are done)
udp_flows.py recvt PORT OUTFILE SECONDS
    the same, each line led by the time it arrived (time.time())
udp_flows.py send DST PORT NFLOWS PKTS [SRCADDR [RATE]]
    NFLOWS flows (distinct source ports) of PKTS datagrams each; RATE in
    packets per second (0: as fast as possible); prints the count sent
"""
import os
import socket
import sys
import time


def recv(port, out, seconds, stamped=False):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind(("0.0.0.0", port))
    s.settimeout(0.2)
    end = time.time() + seconds
    with open(out, "w") as f:
        while time.time() < end and not os.path.exists(out + ".stop"):
            try:
                _, (addr, sport) = s.recvfrom(2048)
            except socket.timeout:
                continue
            if stamped:
                f.write("%.6f " % time.time())
            f.write("%s %d\n" % (addr, sport))
            f.flush()


def send(dst, port, nflows, pkts, src=None, rate=0.0):
    socks = []
    for i in range(nflows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((src or "0.0.0.0", 20000 + i))
        socks.append(s)
    sent = 0
    gap = 1.0 / rate if rate else 0
    t = time.time()
    for _ in range(pkts):
        for s in socks:
            s.sendto(b"x" * 64, (dst, port))
            sent += 1
            if gap:
                t += gap
                d = t - time.time()
                if d > 0:
                    time.sleep(d)
    print(sent)


if __name__ == "__main__":
    if sys.argv[1] in ("recv", "recvt"):
        recv(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[1] == "recvt")
    else:
        a = sys.argv[2:]
        send(a[0], int(a[1]), int(a[2]), int(a[3]), a[4] if len(a) > 4 and a[4] != "-" else None,
             float(a[5]) if len(a) > 5 else 0.0)
