#!/usr/bin/env python3
"""Paced route and neighbour churn for bench/churn_bench.sh, written to
stdout in routerctl's batch grammar (pipe it into `routerctl -b -`).

    churn_gen.py TABLE RATE SECONDS

TABLE: "PREFIX/LEN PORT" lines, the routes routerd holds (each via the
gateway on its port). Every 10 ms, RATE/100 operations in three equal
parts: replace a route with the gateway of the other port (traffic to it
keeps flowing, through the other port); delete a route; re-add the routes
deleted in the previous tick, as they were. Ten times a second it also
deletes and re-adds one of ten neighbours no route uses (192.0.2.10-19,
new link address each time), so the neighbour and header paths run too.
Reports on stderr how many operations it wrote and how long it took.
"""
import random
import sys
import time

GW = {0: "192.0.2.2", 1: "198.51.100.2"}


def main():
    table, rate, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    routes = []
    with open(table) as f:
        for line in f:
            p, port = line.split()
            routes.append((p, int(port)))
    rnd = random.Random(6)
    per_tick = max(3, rate // 100)
    third = per_tick // 3
    ticks = int(seconds * 100)
    deleted = []
    ops = 0
    flip = {}
    start = time.monotonic()
    out = sys.stdout
    for t in range(ticks):
        lines = []
        for p, port in deleted:
            lines.append(f"route add {p} via {GW[port]}")
        deleted = []
        for _ in range(third):
            p, port = routes[rnd.randrange(len(routes))]
            now = flip.get(p, port) ^ 1
            flip[p] = now
            lines.append(f"route replace {p} via {GW[now]}")
        while len(deleted) < per_tick - 2 * third:
            p, port = routes[rnd.randrange(len(routes))]
            if p in flip or any(p == d for d, _ in deleted):
                continue  # replaced routes stay; no double delete
            lines.append(f"route del {p}")
            deleted.append((p, port))
        if t % 10 == 0:
            n = (t // 10) % 10
            lines.append(f"neigh del 192.0.2.{10 + n} dev port0")
            lines.append(f"neigh add 192.0.2.{10 + n} lladdr 02:00:00:00:{t % 256:02x}:{n:02x} dev port0")
        out.write("\n".join(lines) + "\n")
        out.flush()
        ops += len(lines)
        wait = start + (t + 1) / 100 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
    for p, port in deleted:
        out.write(f"route add {p} via {GW[port]}\n")
        ops += 1
    out.flush()
    took = time.monotonic() - start
    print(f"churn: {ops} operations in {took:.1f} s ({ops / took:.0f}/s)", file=sys.stderr)


if __name__ == "__main__":
    main()
