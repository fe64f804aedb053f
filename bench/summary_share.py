#!/usr/bin/env python3
"""Share of IPv4 lookups that the /16 summary sends on to the first level.

    bench/summary_share.py

A /16 is mixed, and its summary entry says "read the first level", when
some prefix of bench/data/prefixes-v4.txt.gz longer than /16 lies in it
(lib/fib/mbt.h; a longer prefix with its cover's nexthop would not count,
which this ignores). Prints that share for addresses uniform over the
space and for fib_bench's --in-prefixes4 addresses (a random address in
a random prefix), and for the mixes --in-prefixes4=PCT draws: the
figures lib/fib/lookup.c's choice between its two IPv4 paths rests on.
Also the share of the space some prefix covers: uniform addresses
outside it have no route in main (what fib_bench's rule costs meet).
"""
import prefix_data


def main():
    routes = prefix_data.load(4)
    mixed = bytearray(1 << 16)
    for a, plen in routes:
        if plen > 16:
            mixed[a >> 16] = 1
    # prefix sums, to count the mixed /16s under a shorter prefix
    acc = [0] * ((1 << 16) + 1)
    for i in range(1 << 16):
        acc[i + 1] = acc[i] + mixed[i]
    uniform = acc[-1] / (1 << 16)
    inside = 0.0
    for a, plen in routes:
        if plen >= 16:
            inside += mixed[a >> 16]
        else:
            lo = (a >> 16) & ~((1 << (16 - plen)) - 1)
            inside += (acc[lo + (1 << (16 - plen))] - acc[lo]) / (1 << (16 - plen))
    inside /= len(routes)
    print(f"routes {len(routes)}, mixed /16s {acc[-1]}")
    print(f"uniform addresses: {uniform:.3f} of lookups read the first level")
    print(f"inside prefixes:   {inside:.3f}")
    for pct in (25, 50, 75, 90):
        p = pct / 100
        print(f"--in-prefixes4={pct}: {p * inside + (1 - p) * uniform:.3f}")
    covered, end = 0, 0
    for a, plen in sorted(routes):
        lo, hi = a, a + (1 << (32 - plen))
        if hi > end:
            covered += hi - max(lo, end)
            end = hi
    print(f"space covered by some prefix: {covered / (1 << 32):.3f}")


if __name__ == "__main__":
    main()
