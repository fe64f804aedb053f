#!/usr/bin/env python3
"""Send crafted Ethernet frames out of an interface (for 03_malformed.sh).

usage: send_frames.py IFACE DST_MAC KIND [COUNT]
KIND: bad_checksum short_ihl long_total ttl0 truncated bad_ip6_plen good good6
      options options_bad_checksum (IHL 6) padded (Ethernet padding)
      local4 (a UDP packet to the router's own address on port0)
      frag6_unaligned (an IPv6 first fragment to the router, 13 bytes of data)
      frag6_first (IPv6 first fragments to the router, a new identification each)
"""
import socket
import struct
import sys


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ip4(src, dst, payload, ttl=64, ihl=5, total=None, fix_csum=True, options=b""):
    total = total if total is not None else 20 + len(options) + len(payload)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, total, 1, 0, ttl, 17, 0,
                      socket.inet_aton(src), socket.inet_aton(dst)) + options
    c = csum(hdr)
    if not fix_csum:
        c ^= 0x5555
    return hdr[:10] + struct.pack("!H", c) + hdr[12:] + payload


def udp(payload=b"x" * 18):
    return struct.pack("!HHHH", 4000, 5000, 8 + len(payload), 0) + payload


def link_local(iface):
    # /proc/net/if_inet6: address, index, prefix length, scope (0x20: link), flags, name
    with open("/proc/net/if_inet6") as f:
        for line in f:
            addr, _, _, scope, _, name = line.split()
            if name == iface and scope == "20":
                return bytes.fromhex(addr)
    sys.exit("no link-local address on " + iface)


def main():
    iface, dst, kind = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", "")), sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    src_mac = s.getsockname()[4]
    eth4 = dst + src_mac + b"\x08\x00"
    eth6 = dst + src_mac + b"\x86\xdd"
    a, b = "192.0.2.2", "198.51.100.2"
    if kind == "bad_checksum":
        frame = eth4 + ip4(a, b, udp(), fix_csum=False)
    elif kind == "short_ihl":
        frame = eth4 + ip4(a, b, udp(), ihl=4)
    elif kind == "long_total":
        frame = eth4 + ip4(a, b, udp(), total=1000)
    elif kind == "ttl0":
        frame = eth4 + ip4(a, b, udp(), ttl=0)
    elif kind == "truncated":
        frame = eth4 + ip4(a, b, udp())[:12]
    elif kind == "bad_ip6_plen":
        src6 = socket.inet_pton(socket.AF_INET6, "2001:db8:1::2")
        dst6 = socket.inet_pton(socket.AF_INET6, "2001:db8:2::2")
        frame = eth6 + struct.pack("!IHBB", 6 << 28, 500, 17, 64) + src6 + dst6 + udp()
    elif kind == "good":
        frame = eth4 + ip4(a, b, udp())
    elif kind == "options":
        # IHL 6: one option word (three NOPs and an end of list)
        frame = eth4 + ip4(a, b, udp(), ihl=6, options=b"\x01\x01\x01\x00")
    elif kind == "options_bad_checksum":
        frame = eth4 + ip4(a, b, udp(), ihl=6, options=b"\x01\x01\x01\x00", fix_csum=False)
    elif kind == "padded":
        # a 30-byte packet padded to Ethernet's 60-byte minimum frame
        frame = eth4 + ip4(a, b, udp(b"xy"))
        frame += b"\0" * (60 - len(frame))
    elif kind == "good6":
        src6 = socket.inet_pton(socket.AF_INET6, "2001:db8:1::2")
        dst6 = socket.inet_pton(socket.AF_INET6, "2001:db8:2::2")
        frame = eth6 + struct.pack("!IHBB", 6 << 28, len(udp()), 17, 64) + src6 + dst6 + udp()
    elif kind == "frag6_unaligned":
        # more fragments follow, yet 13 bytes: RFC 8200 4.5's parameter problem
        src6 = socket.inet_pton(socket.AF_INET6, "2001:db8:1::2")
        dst6 = socket.inet_pton(socket.AF_INET6, "2001:db8:1::1")
        frag = struct.pack("!BBHI", 58, 0, 0 | 1, 7) + b"\x80" + b"x" * 12
        frame = eth6 + struct.pack("!IHBB", 6 << 28, len(frag), 44, 64) + src6 + dst6 + frag
    elif kind == "frag6_first":
        src6 = socket.inet_pton(socket.AF_INET6, "2001:db8:1::2")
        dst6 = socket.inet_pton(socket.AF_INET6, "2001:db8:1::1")
        hdr = eth6 + struct.pack("!IHBB", 6 << 28, 8 + 64, 44, 64) + src6 + dst6
        for i in range(count):
            s.send(hdr + struct.pack("!BBHI", 58, 0, 1, 1000 + i) + b"\x80" + b"x" * 63)
        return
    elif kind == "local4":
        frame = eth4 + ip4(a, "192.0.2.1", udp())
    elif kind == "ll_src6":
        # from the interface's own link-local address, to be forwarded
        src6 = link_local(iface)
        dst6 = socket.inet_pton(socket.AF_INET6, "2001:db8:2::2")
        frame = eth6 + struct.pack("!IHBB", 6 << 28, len(udp()), 17, 64) + src6 + dst6 + udp()
    elif kind == "bcast4":
        # the broadcast address of h1's own subnet
        frame = eth4 + ip4(a, "192.0.2.255", udp())
    elif kind == "dbcast4":
        # a directed broadcast to the subnet of port1
        frame = eth4 + ip4(a, "198.51.100.255", udp())
    else:
        sys.exit("unknown kind " + kind)
    for _ in range(count):
        s.send(frame)


if __name__ == "__main__":
    main()
