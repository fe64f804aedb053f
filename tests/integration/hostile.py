#!/usr/bin/env python3
"""Hostile frames from a host on one of the router's links (21_hostile.sh).

usage: hostile.py IFACE DST_MAC KIND [ARGS...]

KIND:
  wrap4 DST                 the train whose rebuilt IPv4 length wraps: 45
                            fragments, the first with 4 bytes of options,
                            the data ending at 65,515 (24 + 65,515 = 65,539,
                            3 in 16 bits); also reversed and with the first
                            fragment in the middle
  wrap6 DST                 IPv6 alike: a Destination Options header in the
                            first fragment, data to 65,535
  shapes SEED COUNT DST     COUNT fragment trains of random shape to DST, both
                            families: random header lengths (options,
                            extension headers), offsets, sizes, overlaps,
                            duplicates, orders, up to and past 64 KiB
  slots FAMILY N DST        N first fragments that never complete, each from
                            its own random source in 10.0.0.0/8 or
                            2001:db8:f::/48 (a spoofed flood)
  bgp_flood SECONDS DST      TCP segments with BGP's port and ACK (no SYN) to DST,
                            from random sources in 10.0.0.0/8, for SECONDS;
                            prints how many
  ttl_flood FAMILY SECONDS DST PTB_DST SRC
                            packets with TTL 1 to DST from random sources for
                            SECONDS, and every 50 ms one packet from SRC too
                            big for the way to PTB_DST, with DF set (IPv4)
"""
import random
import socket
import struct
import sys
import time

from send_frames import csum  # the same directory


def ip4(src, dst, proto, payload, ident=1, frag=0, ttl=64, options=b""):
    """An IPv4 header (its checksum set) and payload; the total length is
    the header's and the payload's."""
    ihl = 5 + len(options) // 4
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, (ihl * 4 + len(payload)) & 0xFFFF, ident,
                      frag, ttl, proto, 0, src, dst) + options
    return hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:] + payload


def ip6(src, dst, nh, payload, hlim=64):
    return struct.pack("!IHBB", 6 << 28, len(payload), nh, hlim) + src + dst + payload


def a4(s):
    return socket.inet_aton(s)


def a6(s):
    return socket.inet_pton(socket.AF_INET6, s)


def echo4(data_len):
    body = bytes((i * 7) & 0xFF for i in range(data_len))
    h = struct.pack("!BBHHH", 8, 0, 0, 0x4242, 1) + body
    return h[:2] + struct.pack("!H", csum(h)) + h[4:]


class Wire:
    def __init__(self, iface, dst_mac):
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.s.bind((iface, 0))
        src_mac = self.s.getsockname()[4]
        self.eth4 = dst_mac + src_mac + b"\x08\x00"
        self.eth6 = dst_mac + src_mac + b"\x86\xdd"
        self.src6 = None

    def send4(self, pkt):
        self.s.send(self.eth4 + pkt)

    def send6(self, pkt):
        self.s.send(self.eth6 + pkt)


def frags4(src, dst, ident, data, first_opts=b"", step=1472, proto=1):
    """data cut into IPv4 fragments of step bytes; the first with options."""
    out = []
    for off in range(0, len(data), step):
        more = off + step < len(data)
        out.append(ip4(src, dst, proto, data[off:off + step], ident,
                       (off // 8) | (0x2000 if more else 0), options=first_opts if off == 0 else b""))
    return out


def frag6_hdr(nh, off, more, ident):
    return struct.pack("!BBHI", nh, 0, off | (1 if more else 0), ident)


def frags6(src, dst, ident, data, first_dstopts=False, step=1232):
    out = []
    for off in range(0, len(data), step):
        more = off + step < len(data)
        fh = frag6_hdr(58, off, more, ident) + data[off:off + step]
        if off == 0 and first_dstopts:
            # Destination Options: next Fragment, 8 bytes, a PadN option
            out.append(ip6(src, dst, 60, bytes([44, 0, 1, 4, 0, 0, 0, 0]) + fh))
        else:
            out.append(ip6(src, dst, 44, fh))
    return out


def orders(frames):
    """As sent, reversed, and with the first in the middle."""
    mid = list(frames)
    mid[0], mid[len(mid) // 2] = mid[len(mid) // 2], mid[0]
    return [list(frames), list(reversed(frames)), mid]


def wrap4(w, dst):
    src = a4("192.0.2.2")
    data = echo4(65515 - 8)
    for k, train in enumerate(orders(frags4(src, a4(dst), 0x5000, data, b"\x01\x01\x01\x00"))):
        # each train its own identification
        for f in train:
            f = f[:4] + struct.pack("!H", 0x5000 + k) + f[6:10] + b"\0\0" + f[12:]
            ihl = (f[0] & 0xF) * 4
            f = f[:10] + struct.pack("!H", csum(f[:ihl])) + f[12:]
            w.send4(f)


def wrap6(w, src, dst):
    data = bytes([128, 0, 0, 0, 0x42, 0x42, 0, 1]) + bytes(65535 - 8)
    for k, train in enumerate(orders(frags6(a6(src), a6(dst), 0x600 + 0, data, True))):
        for f in train:
            # its identification: the Fragment header's last 4 bytes
            at = 48 if f[6] == 60 else 40
            f = f[:at + 4] + struct.pack("!I", 0x600 + k) + f[at + 8:]
            w.send6(f)


def shapes(w, seed, count, dst4, dst6, src6):
    rnd = random.Random(seed)
    for n in range(count):
        fam6 = rnd.random() < 0.5
        total = rnd.choice([8, 100, 1500, 4000, 30000, 65000, 65527, 65535, 70000])
        step = rnd.choice([8, 16, 512, 1232, 1480, 4096]) // 8 * 8 or 8
        pieces = []
        off = 0
        while off < total and len(pieces) < 200:
            ln = min(step, total - off)
            if rnd.random() < 0.1:
                ln = rnd.randrange(0, step + 24)  # unaligned or longer
            more = off + ln < total
            if rnd.random() < 0.05:
                more = not more
            pieces.append((off, ln, more))
            off += step if rnd.random() > 0.1 else rnd.choice([-8, 8, 16, step // 2 // 8 * 8])
            off = max(0, off) // 8 * 8
        if rnd.random() < 0.2 and pieces:
            pieces.append(rnd.choice(pieces))  # a duplicate
        rnd.shuffle(pieces) if rnd.random() < 0.5 else None
        ident = rnd.randrange(1 << 16)
        opts = bytes([1] * rnd.choice([0, 4, 8, 40]))
        for off, ln, more in pieces:
            ln = min(ln, 1392 if fam6 else 1480 - len(opts))
            body = bytes(rnd.randrange(256) for _ in range(min(ln, 64))) + bytes(max(0, ln - 64))
            if fam6:
                fh = frag6_hdr(rnd.choice([58, 17, 6, 59]), off & 0xFFF8, more, ident) + body
                if rnd.random() < 0.3:
                    k = rnd.choice([0, 1, 5])
                    ext = bytes([44, k]) + bytes([1, 8 * k + 4]) + bytes(8 * k + 4)
                    w.send6(ip6(a6(src6), a6(dst6), 60 if off == 0 or rnd.random() < 0.5 else 0, ext + fh))
                else:
                    w.send6(ip6(a6(src6), a6(dst6), 44, fh))
            else:
                w.send4(ip4(a4("192.0.2.2"), a4(dst4), rnd.choice([1, 17, 6]), body, ident,
                            ((off // 8) & 0x1FFF) | (0x2000 if more else 0),
                            options=opts if off == 0 or rnd.random() < 0.3 else b""))


def slots(w, fam, n, dst):
    rnd = random.Random(n)
    for i in range(n):
        if fam == "4":
            src = struct.pack("!I", (10 << 24) | rnd.randrange(1, 1 << 24))
            w.send4(ip4(src, a4(dst), 1, echo4(1472), 0x7000 + i % 0x8000, 0x2000))
        else:
            src = a6("2001:db8:f::") [:6] + bytes(rnd.randrange(256) for _ in range(10))
            w.send6(ip6(src, a6(dst), 44, frag6_hdr(58, 0, True, 0x70000 + i) + bytes(1224)))


def ttl_flood(w, fam, seconds, dst, ptb_dst, src):
    rnd = random.Random(7)
    end = time.time() + seconds
    next_big = 0.0
    sent = big = 0
    while time.time() < end:
        now = time.time()
        if now >= next_big:
            next_big = now + 0.05
            big += 1
            if fam == "4":
                w.send4(ip4(a4(src), a4(ptb_dst), 17, bytes(1400), 0x100 + big, 0x4000))
            else:
                w.send6(ip6(a6(src), a6(ptb_dst), 17,
                            struct.pack("!HHHH", 4000, 5000, 1408, 0) + bytes(1400)))
        for _ in range(50):
            if fam == "4":
                s = struct.pack("!I", (10 << 24) | rnd.randrange(1, 1 << 24))
                w.send4(ip4(s, a4(dst), 17, bytes(16), ttl=1))
            else:
                s = a6("2001:db8:f::")[:6] + bytes(rnd.randrange(256) for _ in range(10))
                w.send6(ip6(s, a6(dst), 17, bytes(16), hlim=1))
            sent += 1
    print(sent, big)


def bgp_flood(w, seconds, dst):
    rnd = random.Random(179)
    frames = []
    for i in range(256):
        src = struct.pack("!I", (10 << 24) | rnd.randrange(1, 1 << 24))
        sport, dport = (179, 40000 + i) if i % 2 else (40000 + i, 179)
        tcp = struct.pack("!HHIIBBHHH", sport, dport, rnd.randrange(1 << 32),
                          rnd.randrange(1 << 32), 5 << 4, 0x10, 8192, 0, 0)
        frames.append(ip4(src, a4(dst), 6, tcp))
    end = time.time() + seconds
    sent = 0
    while time.time() < end:
        for f in frames:
            w.send4(f)
        sent += len(frames)
    print(sent)


def main():
    iface, mac, kind = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", "")), sys.argv[3]
    args = sys.argv[4:]
    w = Wire(iface, mac)
    if kind == "wrap4":
        wrap4(w, args[0])
    elif kind == "wrap6":
        wrap6(w, args[0], args[1])
    elif kind == "shapes":
        shapes(w, int(args[0]), int(args[1]), args[2], args[3], args[4])
    elif kind == "slots":
        slots(w, args[0], int(args[1]), args[2])
    elif kind == "bgp_flood":
        bgp_flood(w, float(args[0]), args[1])
    elif kind == "ttl_flood":
        ttl_flood(w, args[0], float(args[1]), args[2], args[3], args[4])
    else:
        sys.exit("unknown kind " + kind)


if __name__ == "__main__":
    main()
