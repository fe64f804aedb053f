#!/usr/bin/env python3
"""The kernel mirror checked against the kernel (22_mirror_diff.sh).

mirror_diff.py gen SEED COUNT
    COUNT random `ip -batch` lines for routerd's namespace: routes added,
    replaced, appended and deleted (single paths, multipath, by nexthop
    object, blackhole, unreachable, prohibit, throw; main and table 100;
    a few metrics and protocols), paths deleted one at a time, nexthop
    objects and groups added, replaced and deleted, and the kinds the
    mirror skips (out of another interface, source-specific, TOS). The
    prefixes and gateways come from small pools, so operations collide.

mirror_diff.py compare KERNEL4.json KERNEL6.json ROUTERD.json
    The routes routerd follows in the kernel's tables (ip -j route show
    table all, each family) against routerd's mirrored routes (routerctl
    -j route show table all, those of the kernel's protocols), both
    normalised to (table, prefix, metric) -> (type, protocol, paths).
    Routes at the key of an operator's route (proto boot) are the
    operator's and left out of both. Prints each difference; exits 1 if
    there is any.
"""
import ipaddress
import json
import random
import sys

PORTS = ("port0", "port1")
GW4 = {"port0": ["192.0.2.%d" % i for i in range(2, 6)],
       "port1": ["198.51.100.%d" % i for i in range(2, 6)]}
GW6 = {"port0": ["2001:db8:1::%d" % i for i in range(2, 6)] + ["fe80::2"],
       "port1": ["2001:db8:2::%d" % i for i in range(2, 6)] + ["fe80::3"]}
PFX4 = ["10.%d.%d.0/24" % (i // 2, i % 2) for i in range(24)] + ["10.%d.0.0/16" % i for i in range(30, 36)]
PFX6 = ["2001:db8:a%x::/48" % i for i in range(16)] + ["2001:db8:b0%x0::/44" % i for i in range(4)]
PROTOS = ["static", "bird", "bgp", "zebra", "ospf"]
OBJECTS = range(1, 11)
FOLLOWED_TYPES = {"unicast", "blackhole", "unreachable", "prohibit", "throw"}


def gen(seed, count):
    rnd = random.Random(seed)
    out = []

    def path(v6):
        dev = rnd.choice(PORTS)
        if rnd.random() < 0.05:
            return "via %s dev vx0" % ("2001:db8:ff::2" if v6 else "172.31.0.2")
        return "via %s dev %s" % (rnd.choice((GW6 if v6 else GW4)[dev]), dev)

    def where(v6):
        s = ""
        if rnd.random() < 0.3:
            s += " table 100"
        metrics = [1024, 10, 20] if v6 else [0, 10, 20]
        s += " metric %d" % rnd.choice(metrics)
        return s

    for _ in range(count):
        v6 = rnd.random() < 0.4
        fam = "-6 " if v6 else ""
        pfx = rnd.choice(PFX6 if v6 else PFX4)
        r = rnd.random()
        if r < 0.35:
            verb = rnd.choice(["add", "replace", "replace"])
            kind = rnd.random()
            if kind < 0.45:
                body = path(v6)
            elif kind < 0.7:
                n = rnd.randint(2, 4)
                body = " ".join("nexthop %s weight %d" % (path(v6), rnd.randint(1, 4))
                                for _ in range(n))
            elif kind < 0.85:
                body = "nhid %d" % rnd.choice(OBJECTS)
            else:
                body = ""
                pfx = rnd.choice(["blackhole", "unreachable", "prohibit", "throw"]) + " " + pfx
            extra = ""
            if rnd.random() < 0.03:
                extra = " from 2001:db8:77::/64" if v6 else " tos 0x10"
            out.append("%sroute %s %s %s proto %s%s%s" % (fam, verb, pfx, body,
                                                          rnd.choice(PROTOS), where(v6), extra))
        elif r < 0.45 and v6:
            out.append("-6 route append %s %s proto %s%s" % (pfx, path(True), rnd.choice(PROTOS),
                                                             where(True)))
        elif r < 0.6:
            by_path = v6 and rnd.random() < 0.5
            out.append("%sroute del %s%s%s" % (fam, pfx, " " + path(v6) if by_path else "",
                                               where(v6)))
        elif r < 0.8:
            i = rnd.choice(OBJECTS)
            verb = rnd.choice(["add", "replace"])
            if rnd.random() < 0.3 and i > 3:
                members = rnd.sample(range(1, 4), rnd.randint(1, 3))
                out.append("nexthop %s id %d group %s" % (
                    verb, i, "/".join("%d,%d" % (m, rnd.randint(1, 3)) for m in members)))
            else:
                fam6 = rnd.random() < 0.4
                dev = rnd.choice(PORTS)
                out.append("nexthop %s id %d via %s dev %s" % (
                    verb, i, rnd.choice((GW6 if fam6 else GW4)[dev]), dev))
        elif r < 0.85:
            out.append("nexthop del id %d" % rnd.choice(OBJECTS))
        else:
            out.append("%sroute del %s%s" % (fam, pfx, where(v6)))
    print("\n".join(out))


def host_len(dst, v6):
    if dst == "default":
        return "::/0" if v6 else "0.0.0.0/0"
    if "/" not in dst:
        return dst + ("/128" if v6 else "/32")
    return str(ipaddress.ip_network(dst, strict=False))


def paths_of(route):
    hops = route.get("nexthops")
    if hops is None:
        if "dev" not in route and "gateway" not in route:
            return None
        hops = [route]
    merged = {}
    for h in hops:
        k = (h.get("gateway"), h.get("dev"))
        merged[k] = min(255, merged.get(k, 0) + h.get("weight", 1))
    return tuple(sorted((g or "", d or "", w) for (g, d), w in merged.items()))


def table_of(route):
    t = str(route.get("table", "main"))
    return {"254": "main", "255": "local", "253": "default"}.get(t, t)


def kernel_routes(path, v6):
    routes = {}
    for r in json.load(open(path)):
        table = table_of(r)
        typ = r.get("type", "unicast")
        proto = str(r.get("protocol", "boot"))
        if table == "local" or proto in ("kernel", "247") or typ not in FOLLOWED_TYPES:
            continue
        if "src" in r and "/" in str(r["src"]) or r.get("tos") not in (None, "0", 0, "default"):
            continue  # source-specific or TOS: the mirror skips it
        if "encap" in r or "cache" in r.get("flags", []):
            continue
        p = paths_of(r) if typ == "unicast" else ()
        if typ == "unicast" and (p is None or any(d not in PORTS for _, d, _ in p)):
            continue  # out of another interface: not followed
        key = (table, host_len(r["dst"], v6), int(r.get("metric", 0)))
        routes[key] = (typ, proto, p)
    return routes


def routerd_routes(path):
    mine, operator = {}, set()
    for r in json.load(open(path)):
        v6 = ":" in r["dst"]
        key = (table_of(r), host_len(r["dst"], v6), int(r.get("metric", 0)))
        proto = str(r.get("protocol", "boot"))
        if proto == "boot":
            operator.add(key)
            continue
        if proto == "kernel" or key[0] == "local":
            continue
        typ = r.get("type", "unicast")
        mine[key] = (typ, proto, paths_of(r) if typ == "unicast" else ())
    return mine, operator


def compare(k4, k6, rd):
    kernel = kernel_routes(k4, False)
    kernel.update(kernel_routes(k6, True))
    mine, operator = routerd_routes(rd)
    for key in operator:
        kernel.pop(key, None)
    diff = 0
    for key in sorted(set(kernel) | set(mine)):
        a, b = kernel.get(key), mine.get(key)
        if a != b:
            diff += 1
            print("  %s %s metric %s: kernel %s, routerd %s" % (key[0], key[1], key[2], a, b))
    print("  %d routes followed, %d differences" % (len(kernel), diff))
    return diff


def main():
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1] == "compare":
        sys.exit(1 if compare(sys.argv[2], sys.argv[3], sys.argv[4]) else 0)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
