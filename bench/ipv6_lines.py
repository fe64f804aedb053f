#!/usr/bin/env python3
"""Estimate the cache lines the IPv6 lookup benchmark's walks touch.

    bench/ipv6_lines.py [ADDRESSES]      (default 1,000,000; ~4 s a million)

Draws addresses as bench/fib_bench.c does (a random address inside a
random prefix of bench/data/prefixes-v6.txt.gz) and follows each through
the multibit trie's layout (lib/fib/mbt.h: a 24-bit first level, then
8-bit groups of 4-byte entries; a group exists under a node when some
prefix is longer than the node), counting the distinct 64-byte lines read
at each level. An estimate: groups whose entries all agree are merged
away in the real table, which this ignores. Prints lines and MiB a level,
and the total: the working set the walks need in cache.
"""
import collections
import random
import sys

import prefix_data


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    prefixes = prefix_data.load(6)
    def nodes(stride):
        """Regions holding a longer prefix: where a node (group) exists."""
        found = set()
        for addr, plen in prefixes:
            b = 24
            while b < plen:
                found.add((addr >> (128 - b), b))
                b += stride
        return found

    groups = nodes(8)
    ct = nodes(5)
    rng = random.Random(1)
    lines = collections.defaultdict(set)
    reads = ct_reads = 0
    for _ in range(n):
        addr, plen = rng.choice(prefixes)
        a = addr | rng.getrandbits(128 - plen) if plen < 128 else addr
        # A line holds 16 entries: the index without its low 4 bits.
        lines[24].add(a >> (128 - 24 + 4))
        b = 24
        while (a >> (128 - b), b) in groups:
            lines[b + 8].add(a >> (128 - b - 8 + 4))
            reads += 1
            b += 8
        b = 24
        if (a >> (128 - b), b) in ct:
            ct_reads += 1  # the first-level node's descriptor
        while b < 128 and (a >> (128 - b), b) in ct:
            ct_reads += 1
            b += 5
    total = 0
    print("%d prefixes, %d addresses" % (len(prefixes), n))
    for level in sorted(lines):
        k = len(lines[level])
        total += k
        print("  bits to /%-3d %8d lines %7.2f MiB" % (level, k, k * 64 / 2**20))
    print("  total        %8d lines %7.2f MiB" % (total, total * 64 / 2**20))
    print("reads a walk after the first level: %.2f groups; 5-bit compressed trie %.2f"
          % (reads / n, ct_reads / n))


if __name__ == "__main__":
    main()
