#!/usr/bin/env python3
"""The Markdown tables of docs/load-testing-results.md, from one run's rows.

    bench/ndr_table.py [DIR [GEN [STAMP]]]
    bench/ndr_table.py --by-size DIR GEN STAMP [STAMP...]

DIR holds ndr.csv and ndr_lat.csv (bench/out); GEN is the tester (own or
pktgen); STAMP the run's time column (default: the last run of GEN).
--by-size prints the table by frame size of the runs STAMP... together:
routerd's zero-loss rate / testpmd io's, in Mpps, then in Gbit/s on the wire.
Each figure is the median over the run's repetitions; the zero-loss
table also lists every repetition's rate, so the spread shows. A rate
marked ">=" is the tester's: the device lost nothing in the unpaced
trial nor in the paced trial at that trial's rate, so it took all the
tester could send (the median is marked when every repetition was).
"""
import csv
import statistics
import sys

DEVICES = {"testpmd": "testpmd io", "slow": "slow_fwd", "small": "routerd, small table", "full": "routerd"}


def rows(path, gen, stamp):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r["gen"] == gen and (stamp is None or r["time"] == stamp)]


def cases(rs, *keys):
    """The rows grouped by keys, in the order they first appear."""
    out = {}
    for r in rs:
        out.setdefault(tuple(r[k] for k in keys), []).append(r)
    return out


def med(rs, col):
    vals = [float(r[col]) for r in rs if r.get(col) not in (None, "", "-")]
    return statistics.median(vals) if vals else None


def fmt(v, digits):
    return "-" if v is None else f"{v:.{digits}f}"


def size_name(s):
    return "IMIX" if s == "imix" else s


def order(fam, size, dut, load="0"):
    """Sizes in order (IMIX last), then the families, devices and loads
    (shares of the zero-loss rate in %, then set rates: above 100)."""
    return (size == "imix", 0 if size == "imix" else int(size), fam, list(DEVICES).index(dut), int(load))


def tester_limited(r):
    """The device took all the tester sent, unpaced and paced at that rate."""
    return r.get("tester_bound") == "1"


def ndr_table(rs):
    print("| device | family | size | zero-loss Mpps | Gbit/s on the wire | unpaced Mpps "
          "| lost unpaced | of which in the device | worker's busy cycles a packet, unpaced (packets a round) "
          "| each repetition |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    by = cases(rs, "family", "size", "dut")
    for (fam, size, dut), c in sorted(by.items(), key=lambda kv: order(*kv[0])):
        c.sort(key=lambda r: int(r["rep"]))
        cyc = med(c, "cycles_per_pkt")
        burst = med(c, "mean_burst")
        cycles = "-" if cyc is None else f"{cyc:.0f} ({burst:.0f})"
        each = " ".join(f"{'>=' if tester_limited(r) else ''}{float(r['ndr_pps']) / 1e6:.2f}" for r in c)
        loss = med(c, "max_loss")
        bound = ">=" if all(tester_limited(r) for r in c) else ""
        print(f"| {DEVICES[dut]} | IPv{fam} | {size_name(size)} | {bound}{fmt(med(c, 'ndr_pps') / 1e6, 2)} "
              f"| {fmt(med(c, 'ndr_l1_gbps'), 2)} | {fmt(med(c, 'max_pps') / 1e6, 2)} "
              f"| {'0' if loss == 0 else f'{loss:.1e}'} | {in_device(c)} | {cycles} | {each} |")


def in_device(c):
    """The frames the device itself lost in the unpaced trials (received,
    never sent, by its port counters) of all they lost, summed over the
    repetitions; "-" for rows from before those counters were read."""
    where = [[int(r[k]) for k in ("max_lost_before", "max_lost_in", "max_lost_after")]
             for r in c if r.get("max_lost_in") not in (None, "", "-")]
    if not where:
        return "-"
    return f"{sum(w[1] for w in where)} of {sum(sum(w) for w in where)} frames"


def lat_table(rs):
    """Medians over the repetitions of each row's figures (themselves
    medians over its trials, bench/ndr_lib.sh); the last columns list
    every trial's p99 and the time the tester was away from its CPU in
    it, the repetitions apart by '/', where the rows keep them."""
    each = any(r.get("lat_p99_each_us") for r in rs)
    away = any(r.get("tester_away_ms_each") for r in rs)
    print("| device | family | size | load | min | p50 | p99 | max |" + (" p99 of each trial |" if each else "")
          + (" tester away, ms |" if away else ""))
    print("| --- | --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if each else "") + (" --- |" if away else ""))
    by = cases(rs, "family", "size", "dut", "load_pct")
    for (fam, size, dut, load), c in sorted(by.items(), key=lambda kv: order(*kv[0])):
        c.sort(key=lambda r: int(r["rep"]))
        vals = []
        for col in ("lat_min_us", "lat_p50_us", "lat_p99_us", "lat_max_us"):
            v = med(c, col)
            vals.append(us(v))
        if each:
            vals.append(" / ".join(" ".join(us(float(x)) for x in (r.get("lat_p99_each_us") or "").split()) or "-"
                                   for r in c))
        if away:
            vals.append(" / ".join(r.get("tester_away_ms_each") or "-" for r in c))
        load = f"{load}%" if int(load) <= 100 else f"{int(load) / 1e6:.2f} Mpps"
        print(f"| {DEVICES[dut]} | IPv{fam} | {size_name(size)} | {load} | " + " | ".join(vals) + " |")


def us(v):
    """Microseconds, with a decimal below a millisecond."""
    return fmt(v, 1 if v is not None and v < 1000 else 0)


def by_size_table(rs):
    by = cases(rs, "family", "size", "dut")
    sizes = sorted({r["size"] for r in rs}, key=lambda s: order("4", s, "full"))
    fams = sorted({r["family"] for r in rs})

    def cell(fam, size, col, digits):
        out = []
        for dut in ("full", "testpmd"):
            c = by.get((fam, size, dut))
            if not c:
                out.append("-")
                continue
            bound = ">=" if all(tester_limited(r) for r in c) else ""
            v = med(c, col)
            if v is not None and col == "ndr_pps":
                v /= 1e6
            out.append(bound + fmt(v, digits))
        return " / ".join(out)

    print("| family | " + " | ".join(size_name(s) for s in sizes) + " |")
    print("| --- | " + " | ".join("---" for _ in sizes) + " |")
    for col, unit in (("ndr_pps", ""), ("ndr_l1_gbps", ", Gbit/s")):
        for fam in fams:
            print(f"| IPv{fam}{unit} | " + " | ".join(cell(fam, s, col, 2) for s in sizes) + " |")


def main():
    if len(sys.argv) > 4 and sys.argv[1] == "--by-size":
        d, gen, stamps = sys.argv[2], sys.argv[3], sys.argv[4:]
        rs = [r for st in stamps for r in rows(f"{d}/ndr.csv", gen, st)]
        if not rs:
            sys.exit(f"no rows of {gen} stamped {' '.join(stamps)} in {d}/ndr.csv")
        by_size_table(rs)
        return
    d = sys.argv[1] if len(sys.argv) > 1 else "bench/out"
    gen = sys.argv[2] if len(sys.argv) > 2 else "own"
    stamp = sys.argv[3] if len(sys.argv) > 3 else None
    rs = rows(f"{d}/ndr.csv", gen, stamp)
    if not rs:
        sys.exit(f"no rows of {gen}" + (f" stamped {stamp}" if stamp else "") + f" in {d}/ndr.csv")
    if stamp is None:
        stamp = rs[-1]["time"]
        rs = [r for r in rs if r["time"] == stamp]
    print(f"run {stamp}, {gen}, {rs[0]['trial_s']}-second trials, "
          f"{len({r['rep'] for r in rs})} repetition(s)\n")
    ndr_table(rs)
    lat = rows(f"{d}/ndr_lat.csv", gen, stamp)
    if lat:
        print()
        lat_table(lat)


if __name__ == "__main__":
    main()
