#!/usr/bin/env python3
"""Random routerctl commands against a running routerd, over its socket:

    cli_fuzz.py SOCKET COUNT SEED [pipelined]

Commands are drawn from the CLI's grammar with values both good and bad
(prefixes with host bits or lengths past the family, gateways off-link or
the router's own, unknown ports, ids, priorities, duplicate and missing
words, words out of place, other families), so that some succeed, change
the configuration and make later ones collide with it, and many fail. For
every command it checks what ROUTER.md's bad-input table promises:

- the daemon answers every line, with output and `.ok`, or with a single
  `.err MESSAGE` line and nothing else;
- a failed command changed nothing: `save` before and after it agree.

Prints one line of totals; exits 1 on the first broken promise, naming
the command.

pipelined: all COUNT commands, each followed by `route show table all`
(its answer is long), sent in one write while the answers are read, as
a client that pipelines; routerd must answer every one, in order, each
with its output and one status line, however it paces them.
"""
import random
import socket
import sys
import threading


class Client:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("routerd closed the connection")
            self.buf += chunk
        ln, self.buf = self.buf.split(b"\n", 1)
        return ln.decode()

    def run(self, cmd):
        """Send one command; @return (ok, output lines, status line)."""
        self.s.sendall(cmd.encode() + b"\n")
        out = []
        while True:
            ln = self.line()
            if ln.startswith("."):
                return ln == ".ok", out, ln
            out.append(ln)


def grammar(rnd):
    pick = rnd.choice

    def maybe(p, s):
        return s if rnd.random() < p else ""

    p4 = ["10.0.0.0/16", "10.1.0.0/16", "10.1.2.0/24", "10.2.0.0/24", "0.0.0.0/0",
          "198.51.100.0/24", "192.0.2.128/25", "203.0.113.7/32", "10.0.0.1/8",
          "10.0.0.300/8", "1.2.3.0/33", "default", "10.1.0.0",
          # the routes addresses make (addr() below): collisions
          "10.5.0.0/16", "10.5.0.1/32", "10.6.0.0/24", "10.6.0.255/32", "10.6.0.1/32"]
    p6 = ["2001:db8:a::/48", "2001:db8:b::/48", "2001:db8:a:1::/64", "::/0", "2001:db8::/129",
          "2001:zz::/48", "2001:db8:c::1/128", "fe80::/64", "2001:db8:9::/64",
          "2001:db8:9::1/128"]
    gw = ["198.51.100.2", "198.51.100.3", "198.51.100.9", "192.0.2.2", "10.9.9.9", "192.0.2.1",
          "2001:db8:2::2", "2001:db8:1::2", "fe80::1", "fe80::2", "300.1.1.1", "::"]
    dev = ["port0", "port1", "port0", "port1", "port9", "lo", "eth0"]
    num = ["0", "0", "1", "5", "100", "254", "256", "1024", "32766", "65535", "4294967295",
           "4294967296", "-1", "x", "0x10"]
    mac = ["02:00:00:00:00:07", "02:00:00:00:00:08", "02:00:00:zz:00:01", "02:00:00:00:00"]
    types = ["", "", "", "blackhole", "unreachable", "prohibit", "local", "broadcast", "unicast", "throw"]
    protos = ["bgp", "static", "kernel", "boot", "200", "254", "255", "neigh", "nosuch"]

    def prefix():
        return pick(p4 + p6)

    def route():
        verb = pick(["add", "add", "replace", "change", "del", "flush", "show", "get"])
        if verb == "get":
            return "route get " + maybe(0.2, "fibmatch ") + f"{pick(gw)} " + \
                maybe(0.3, f"from {pick(gw)} ") + \
                maybe(0.3, f"iif {pick(dev)} ") + maybe(0.2, f"dport {pick(num)} ")
        words = ["route", verb, pick(types), prefix()]
        if verb in ("show", "flush"):
            words = ["route", verb] + rnd.sample(
                [f"table {pick(['all', 'main', '100', 'local', 'default'])}", f"root {prefix()}",
                 f"dev {pick(dev)}", f"via {pick(gw)}", f"proto {pick(protos)}",
                 f"type {pick(types[3:])}", "cache", f"match {pick(gw)}"], rnd.randint(0, 2))
            return " ".join(words)
        opts = [f"via {pick(gw)}", f"dev {pick(dev)}", f"nhid {pick(num)}",
                f"metric {pick(num)}", f"table {pick(num)}", f"proto {pick(protos)}", "onlink"]
        words += rnd.sample(opts, rnd.randint(0, 3))
        for _ in range(rnd.choice([0, 0, 0, 1, 2, 3])):
            words += ["nexthop", f"via {pick(gw)}", maybe(0.5, f"dev {pick(dev)}"),
                      maybe(0.4, f"weight {pick(['1', '2', '255', '0', '256'])}")]
        return " ".join(words)

    def nexthop():
        verb = pick(["add", "add", "del", "show"])
        ident = pick(["1", "2", "3", "4", "10", "0", "4294967294", "x"])
        if verb == "show":
            return "nexthop show"
        if verb == "del":
            return f"nexthop del id {ident}"
        body = pick([f"via {pick(gw)} dev {pick(dev)}", "blackhole", f"dev {pick(dev)}",
                     f"group {pick(['1', '2', '3'])}/{pick(['1', '2', '4'])},{pick(['1', '3', '0'])}",
                     f"via {pick(gw)}", ""])
        return f"nexthop add id {ident} {body}"

    def rule():
        verb = pick(["add", "add", "del", "show"])
        if verb == "show":
            return pick(["", "-6 "]) + "rule show"
        words = ["rule", verb]
        sel = [f"priority {pick(num + ['32767'])}", f"from {prefix()}", f"to {prefix()}",
               f"iif {pick(dev)}", f"dscp {pick(['0', '10', '63', '64'])}",
               f"tos {pick(['0x28', '0x29', '0'])}", f"ipproto {pick(['tcp', 'udp', 'icmp', '300'])}",
               f"sport {pick(['22', '1000-2000', '2000-1000', '0'])}",
               f"dport {pick(['53', '1-65535', '70000'])}"]
        words += rnd.sample(sel, rnd.randint(0, 4))
        words.append(pick(["table 100", "table main", "table 0", "blackhole", "unreachable",
                           "prohibit", f"goto {pick(num)}", "", "lookup main",
                           "table default"]))
        return " ".join(words)

    def addr():
        verb = pick(["add", "add", "del", "flush", "show"])
        if verb == "flush":
            return f"addr flush dev {pick(dev)} " + maybe(0.3, "scope link")
        if verb == "show":
            return "addr show"
        a = pick(["10.5.0.1/16", "10.6.0.1/24", "10.6.0.2/24", "2001:db8:9::1/64",
                  "192.0.2.1/24", "10.5.0.1/33", "fe80::7/64", "0.0.0.0/0", "127.0.0.1/8",
                  "224.0.0.1/24", "ff02::1/64", "::1/128", "::/0"])
        return f"addr {verb} {a} " + maybe(0.9, f"dev {pick(dev)}")

    def neigh():
        verb = pick(["add", "add", "del", "flush", "show"])
        a = pick(["198.51.100.7", "198.51.100.8", "2001:db8:2::7", "10.9.9.9", "fe80::9"])
        if verb == "add":
            return f"neigh add {a} lladdr {pick(mac)} dev {pick(dev)} " + maybe(0.6, "permanent")
        if verb == "del":
            return f"neigh del {a} dev {pick(dev)}"
        if verb == "flush":
            return f"neigh flush dev {pick(dev)}"
        return "neigh show"

    def link():
        what = pick([f"mtu {pick(['1500', '1400', '576', '575', '9600', '9601', 'x'])}",
                     "up", "up", "down", f"ra {pick(['on', 'off', 'maybe'])}",
                     "rdnss " + pick(["2001:db8::53", "2001:db8::53,2001:db8::54", "none",
                                      "ff02::1", "::1,::2,::3,::4", "10.0.0.53", "x"]),
                     f"{pick(['ra-managed', 'ra-other'])} {pick(['on', 'off', 'yes'])}",
                     f"ra-lifetime {pick(['0', '600', '1800', '9000', '599', '9001', 'x'])}"])
        return f"link set {pick(['', 'dev '])}{pick(dev)} {what}"

    def junk():
        words = (route() + " " + rule() + " " + nexthop()).split()
        rnd.shuffle(words)
        return " ".join(words[:rnd.randint(0, 8)])

    gen = pick([route, route, route, nexthop, rule, rule, addr, neigh, link, junk])
    cmd = " ".join(gen().split())
    if rnd.random() < 0.1:
        cmd = pick(["-4", "-6", "-j"]) + " " + cmd
    if rnd.random() < 0.05 and cmd:  # cut short anywhere
        cmd = cmd[:rnd.randint(0, len(cmd))]
    return cmd


def pipelined(c, rnd, count):
    cmds = []
    for _ in range(count):
        cmds += [grammar(rnd), "route show table all"]
    # (sent from a thread: routerd stops reading a client whose answers
    # wait unread, so one that wrote everything before reading would wait
    # for ever once they pass its buffers)
    sender = threading.Thread(target=c.s.sendall,
                              args=("".join(cmd + "\n" for cmd in cmds).encode(),))
    sender.start()
    statuses = 0
    for i, cmd in enumerate(cmds):
        while True:
            ln = c.line()
            if ln.startswith("."):
                break
        if not (ln == ".ok" or ln.startswith(".err ")):
            print(f"command {i} '{cmd}': bad status line '{ln}'")
            return 1
        statuses += 1
    sender.join()
    print(f"{len(cmds)} commands in one write: {statuses} answered in order")
    return 0


def main():
    path, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    c = Client(path)
    if sys.argv[4:] == ["pipelined"]:
        return pipelined(c, rnd, count)
    ok = failed = 0
    _, before, _ = c.run("save")
    for i in range(count):
        cmd = grammar(rnd)
        good, out, status = c.run(cmd)
        if good:
            ok += 1
            _, before, _ = c.run("save")
            continue
        failed += 1
        if out:
            print(f"command {i} '{cmd}': output besides its error: {out[:3]}")
            return 1
        if not status.startswith(".err ") or len(status) < 8:
            print(f"command {i} '{cmd}': bad status line '{status}'")
            return 1
        _, after, _ = c.run("save")
        if after != before:
            gone = [ln for ln in before if ln not in after]
            new = [ln for ln in after if ln not in before]
            print(f"command {i} '{cmd}' failed ({status}) yet changed the configuration: "
                  f"gone {gone[:3]}, new {new[:3]}")
            return 1
    print(f"{count} commands: {ok} applied, {failed} refused with nothing changed; "
          f"{len(before)} lines of configuration at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
