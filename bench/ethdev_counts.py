#!/usr/bin/env python3
"""Packets a DPDK process's ports have received and sent, from its
telemetry socket (DPDK's /ethdev/stats), for bench/ndr_lib.sh: where a
trial's lost frames went, for testpmd as for routerd.

    ethdev_counts.py FILE_PREFIX PORT...

prints "ipackets opackets" for each PORT on one line, or exits 1 with a
message on stderr when the process has no telemetry socket.
"""
import json
import os
import socket
import sys


def main():
    prefix, ports = sys.argv[1], sys.argv[2:]
    run = "/var/run/dpdk" if os.geteuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp") + "/dpdk"
    path = os.path.join(run, prefix, "dpdk_telemetry.v2")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.connect(path)
    except OSError as e:
        print(f"ethdev_counts: {path}: {e.strerror}", file=sys.stderr)
        return 1
    info = json.loads(s.recv(1024))
    size = info.get("max_output_len", 16384)
    out = []
    for p in ports:
        s.send(f"/ethdev/stats,{p}".encode())
        st = json.loads(s.recv(size))["/ethdev/stats"]
        out += [str(st["ipackets"]), str(st["opackets"])]
    print(" ".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
