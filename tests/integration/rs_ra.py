#!/usr/bin/env python3
"""Send a router solicitation on IFACE and print the first router
advertisement that answers it, field by field (standard library only):

    rs_ra.py IFACE [TIMEOUT_S]

prints, for an RA received within the timeout:

    from fe80::... hoplimit 255 lifetime 1800 curhoplimit 64 flags 0
    after 0.31 s
    slla 02:..:..
    mtu 1500
    prefix 2001:db8:1::/64 flags 0xc0 valid 2592000 preferred 604800
    rdnss 2001:db8:1::53 lifetime 1200

and exits 1 if none came. The kernel fills in the ICMPv6 checksum of a
raw ICMPv6 socket (RFC 3542 3.1) and checks those it delivers.
"""
import select
import socket
import struct
import sys
import time

IPV6_RECVHOPLIMIT = 51
IPV6_HOPLIMIT = 52


def main():
    iface = sys.argv[1]
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    ifindex = socket.if_nametoindex(iface)
    with open(f"/sys/class/net/{iface}/address") as f:
        mac = bytes.fromhex(f.read().strip().replace(":", ""))
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, ifindex)
    s.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1)
    rs = struct.pack("!BBHI", 133, 0, 0, 0) + bytes([1, 1]) + mac
    start = time.monotonic()
    s.sendto(rs, ("ff02::2", 0, 0, ifindex))
    end = start + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([s], [], [], max(0.0, end - time.monotonic()))
        if not ready:
            break
        data, anc, _, src = s.recvmsg(2048, socket.CMSG_SPACE(4))
        if len(data) < 16 or data[0] != 134:
            continue
        hops = next((struct.unpack("i", d)[0] for lvl, t, d in anc
                     if lvl == socket.IPPROTO_IPV6 and t == IPV6_HOPLIMIT), -1)
        cur, flags, lifetime = struct.unpack("!BBH", data[4:8])
        print(f"from {src[0].split('%')[0]} hoplimit {hops} lifetime {lifetime} "
              f"curhoplimit {cur} flags {flags}")
        print(f"after {time.monotonic() - start:.2f} s")
        off = 16
        while off + 2 <= len(data) and data[off + 1] > 0:
            kind, units = data[off], data[off + 1]
            opt = data[off:off + 8 * units]
            if kind == 1:
                print("slla " + ":".join(f"{b:02x}" for b in opt[2:8]))
            elif kind == 5:
                print(f"mtu {struct.unpack('!I', opt[4:8])[0]}")
            elif kind == 25:
                life = struct.unpack("!I", opt[4:8])[0]
                servers = [socket.inet_ntop(socket.AF_INET6, opt[k:k + 16])
                           for k in range(8, len(opt), 16)]
                print(f"rdnss {','.join(servers)} lifetime {life}")
            elif kind == 3:
                plen, pflags = opt[2], opt[3]
                valid, preferred = struct.unpack("!II", opt[4:12])
                prefix = socket.inet_ntop(socket.AF_INET6, opt[16:32])
                print(f"prefix {prefix}/{plen} flags {pflags:#x} valid {valid} "
                      f"preferred {preferred}")
            off += 8 * units
        return 0
    print("no router advertisement", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
