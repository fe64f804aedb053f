#!/usr/bin/env python3
"""What a host sees of the router's closed ports, for the integration tests.

closed_ports.py udp ADDR      UDP to port 9: refused (ICMP port unreachable)
closed_ports.py tcp ADDR      TCP connect to port 22: refused at once (reset)
closed_ports.py proto ADDR    IP protocol 253: ICMP protocol unreachable
                              (IPv6: parameter problem, unrecognized next
                              header, pointer 6), from ADDR
closed_ports.py hbh ADDR6     the same behind a hop-by-hop options header:
                              the pointer is that header's next-header
                              field, 40

Exits 0 when the answer is the expected one, 1 otherwise (with a line
saying what came instead).
"""
import socket
import sys
import time


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def udp(addr):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.settimeout(2)
    s.connect((addr, 9))
    s.send(b"probe")
    try:
        s.recv(100)
    except ConnectionRefusedError:
        return True
    except socket.timeout:
        print("no answer in 2 s")
        return False
    print("a datagram came back")
    return False


def tcp(addr):
    s = socket.socket(family(addr), socket.SOCK_STREAM)
    s.settimeout(2)
    t = time.monotonic()
    try:
        s.connect((addr, 22))
    except ConnectionRefusedError:
        return time.monotonic() - t < 1
    except socket.timeout:
        print("no answer in 2 s")
        return False
    print("connected")
    return False


def proto(addr, hbh=False):
    v6 = family(addr) == socket.AF_INET6
    icmp = socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP
    r = socket.socket(family(addr), socket.SOCK_RAW, icmp)
    r.settimeout(2)
    s = socket.socket(family(addr), socket.SOCK_RAW, 253)
    if hbh:
        # Next header (the kernel fills it in), length 0 (8 bytes), a
        # PadN option of 4 bytes.
        opts = bytes([0, 0, 1, 4, 0, 0, 0, 0])
        s.sendmsg([b"probe"], [(socket.IPPROTO_IPV6, socket.IPV6_HOPOPTS, opts)], 0, (addr, 0))
    else:
        s.sendto(b"probe", (addr, 0))
    end = time.monotonic() + 2
    while time.monotonic() < end:
        try:
            d, src = r.recvfrom(2048)
        except socket.timeout:
            break
        if v6:
            if d[0] != 4:  # neighbour discovery and the like
                continue
            got = (src[0], d[0], d[1], int.from_bytes(d[4:8], "big"))
            want = (addr, 4, 1, 40 if hbh else 6)
        else:
            ihl = (d[0] & 0xF) * 4
            if d[ihl] != 3:
                continue
            got = (src[0], d[ihl], d[ihl + 1])
            want = (addr, 3, 2)
        if got == want:
            return True
        print("got", got, "wanted", want)
        return False
    print("no ICMP error in 2 s")
    return False


if __name__ == "__main__":
    tests = {"udp": udp, "tcp": tcp, "proto": proto, "hbh": lambda a: proto(a, True)}
    if len(sys.argv) != 3 or sys.argv[1] not in tests:
        sys.exit(__doc__)
    sys.exit(0 if tests[sys.argv[1]](sys.argv[2]) else 1)
