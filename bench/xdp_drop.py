#!/usr/bin/env python3
"""Attach an XDP program that drops every frame to a network device.

    xdp_drop.py DEV          attach (native mode; generic if the driver has none)
    xdp_drop.py DEV off      detach

For bench/kernel_bench.sh's sink, so that the sink costs nothing, as
issue 6 asks, on a machine without clang: the program is two BPF
instructions (r0 = XDP_DROP; exit), loaded with the bpf(2) system call and
attached through rtnetlink (IFLA_XDP), both from the standard library.
The device keeps the program after this process exits. Run it in the
device's network namespace (ip netns exec NS xdp_drop.py DEV).
"""
import ctypes
import os
import socket
import struct
import sys

SYS_BPF = 321  # x86_64
BPF_PROG_LOAD = 5
BPF_PROG_TYPE_XDP = 6
XDP_DROP = 1
# mov64 r0, XDP_DROP; exit
PROG = struct.pack("<BBhi", 0xB7, 0x00, 0, XDP_DROP) + struct.pack("<BBhi", 0x95, 0, 0, 0)

RTM_SETLINK = 19
NLM_F_REQUEST, NLM_F_ACK = 1, 4
IFLA_XDP = 43
IFLA_XDP_FD, IFLA_XDP_FLAGS = 1, 3
NLA_F_NESTED = 1 << 15
XDP_FLAGS_SKB_MODE, XDP_FLAGS_DRV_MODE = 2, 4


def load():
    libc = ctypes.CDLL(None, use_errno=True)
    insns = ctypes.create_string_buffer(PROG, len(PROG))
    lic = ctypes.create_string_buffer(b"GPL")
    # union bpf_attr for BPF_PROG_LOAD: prog_type, insn_cnt, insns,
    # license, log_level, log_size, log_buf, kern_version, the rest zero.
    attr = struct.pack(
        "<IIQQIIQI",
        BPF_PROG_TYPE_XDP,
        len(PROG) // 8,
        ctypes.addressof(insns),
        ctypes.addressof(lic),
        0,
        0,
        0,
        0,
    ).ljust(128, b"\0")
    buf = ctypes.create_string_buffer(attr, len(attr))
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(SYS_BPF), ctypes.c_int(BPF_PROG_LOAD), buf,
                      ctypes.c_uint(len(attr)))
    if fd < 0:
        e = ctypes.get_errno()
        raise OSError(e, "bpf(BPF_PROG_LOAD): " + os.strerror(e))
    return fd


def nla(kind, payload):
    n = 4 + len(payload)
    return struct.pack("<HH", n, kind) + payload + b"\0" * ((4 - n % 4) % 4)


def set_xdp(ifindex, fd, flags):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    xdp = nla(IFLA_XDP_FD, struct.pack("<i", fd))
    if flags:
        xdp += nla(IFLA_XDP_FLAGS, struct.pack("<I", flags))
    body = struct.pack("<BxHiII", socket.AF_UNSPEC, 0, ifindex, 0, 0)
    body += nla(IFLA_XDP | NLA_F_NESTED, xdp)
    msg = struct.pack("<IHHII", 16 + len(body), RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, 1,
                      0) + body
    s.send(msg)
    reply = s.recv(4096)
    # nlmsgerr: the header, then the error code (0: done).
    err = struct.unpack_from("<i", reply, 16)[0]
    if err:
        raise OSError(-err, "RTM_SETLINK IFLA_XDP: " + os.strerror(-err))


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "off"):
        sys.exit(__doc__)
    ifindex = socket.if_nametoindex(sys.argv[1])
    if len(sys.argv) == 3:
        set_xdp(ifindex, -1, 0)
        return
    fd = load()
    try:
        set_xdp(ifindex, fd, XDP_FLAGS_DRV_MODE)
        print("xdp_drop: native on", sys.argv[1])
    except OSError:
        set_xdp(ifindex, fd, XDP_FLAGS_SKB_MODE)
        print("xdp_drop: generic on", sys.argv[1])


if __name__ == "__main__":
    main()
