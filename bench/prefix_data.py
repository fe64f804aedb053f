"""The vendored prefix tables (bench/data), for the bench scripts."""
import gzip
import ipaddress
import os


def load(family):
    """[(network address as an int, prefix length)] of
    bench/data/prefixes-v{family}.txt.gz, family 4 or 6, in file order."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                        f"prefixes-v{family}.txt.gz")
    prefixes = []
    with gzip.open(path, "rt") as f:
        for line in f:
            fields = line.split()
            if fields:
                net = ipaddress.ip_network(fields[0], strict=False)
                prefixes.append((int(net.network_address), net.prefixlen))
    return prefixes
