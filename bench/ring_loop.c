/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring loop's driver (issue 6, CPU cost): a DPDK secondary process
 * attached to a forwarder (routerd-loop or l3fwd) whose net_ring ports
 * each loop back to themselves. It puts a fixed set of packets into the
 * loop, then reads the ports' counters to give the forwarder's rate.
 *
 *   ring_loop [EAL: --proc-type=secondary --file-prefix=P -l 0] --
 *             [--fill TABLE] [--count N] [--runs N] [--interval SEC]
 *
 * --fill TABLE: "PREFIX/LEN PORT" lines (the routes the forwarder holds
 * and the port each leaves by). N packets a port (default 256), 64-byte
 * UDP, to random addresses in random prefixes of the table, each put on
 * the port its longest match leaves by: a packet then stays on its port's
 * ring, and no two processes ever enqueue on one ring at once (the rings
 * are single-producer). Frames are addressed to the port's own MAC, as
 * routerd-loop's neighbours are, so they are accepted on every round.
 * Each port's packets go in with one enqueue, before any of them can
 * come back.
 *
 * --runs N: N intervals of --interval seconds (default 1); prints each
 * interval's packets a second (sum of the ports' RX counters) and the
 * median. "lost" is how many of the filled packets have gone back to
 * the pool: the forwarder dropped or punted them. The pool is found by
 * name, so a later run (e.g. after route churn) reads the same count.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "bench_util.h"
#include "prefix_file.h"
#include "ref_lpm.h"
#include "udp_frame.h"

#define POOL_NAME "ring_loop"
#define MAX_PORTS 8

static struct {
	const char *table;
	uint32_t count;
	unsigned int runs;
	double interval;
} opt = {.count = 256, .interval = 1.0};

/* Addresses of `count` packets a port, each on the port its route says. */
static void
pick(const struct prefix_list *pl, uint16_t nb_ports, uint8_t (*dst)[MAX_PORTS][16], uint32_t count)
{
	struct ref_lpm *ref = ref_create(pl->p[0].family);
	for (uint32_t i = 0; i < pl->n; i++) {
		if (pl->asn[i] >= nb_ports)
			bench_die("table names a port the forwarder does not have", -EINVAL);
		ref_set(ref, &pl->p[i], pl->asn[i] + 1);
	}
	ref_commit(ref);
	uint32_t have[MAX_PORTS] = {0}, full = 0, tries = 0;
	uint64_t seed = 0x5eed;
	while (full < nb_ports) {
		if (++tries > 100 * count * nb_ports)
			bench_die("a port gets no traffic from this table", -EINVAL);
		uint8_t a[16];
		const struct fib_prefix *p = &pl->p[xorshift64(&seed) % pl->n];
		uint64_t h = xorshift64(&seed), l = xorshift64(&seed);
		prefix_pick(p, h, l, a);
		struct fib_prefix q = {.family = p->family};
		if (p->family == FIB_AF_INET) {
			uint32_t be;
			memcpy(&be, a, 4);
			q.addr.v4 = rte_be_to_cpu_32(be);
		} else {
			memcpy(q.addr.v6, a, 16);
		}
		uint32_t port = ref_lookup(ref, &q) - 1;
		if (have[port] == count)
			continue;
		memcpy(dst[have[port]][port], a, 16);
		if (++have[port] == count)
			full++;
	}
	ref_free(ref);
}

static void
fill(uint16_t nb_ports)
{
	struct prefix_list pl;
	int rc = prefix_list_load(opt.table, &pl);
	if (rc < 0)
		bench_die(opt.table, rc);
	if (pl.n == 0)
		bench_die("empty table", -EINVAL);
	uint8_t family = pl.p[0].family;
	uint8_t(*dst)[MAX_PORTS][16] = calloc(opt.count, sizeof(*dst));
	pick(&pl, nb_ports, dst, opt.count);

	/* No cache: every mbuf the forwarder frees is back in the ring, so
	 * the pool's count says exactly how many left the loop. */
	struct rte_mempool *mp =
		rte_pktmbuf_pool_create(POOL_NAME, opt.count * nb_ports, 0, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (mp == NULL)
		bench_die("mbuf pool", -rte_errno);
	static const uint8_t src4[4] = {192, 0, 2, 100};
	static const uint8_t src6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 0x64};
	struct rte_mbuf **pkts = calloc(opt.count, sizeof(*pkts));
	for (uint16_t port = 0; port < nb_ports; port++) {
		struct rte_ether_addr mac;
		if ((rc = rte_eth_macaddr_get(port, &mac)) < 0)
			bench_die("port MAC", rc);
		if (rte_pktmbuf_alloc_bulk(mp, pkts, opt.count) != 0)
			bench_die("mbufs", -ENOMEM);
		for (uint32_t i = 0; i < opt.count; i++)
			udp_frame(pkts[i], family, &mac, &mac, family == FIB_AF_INET ? src4 : src6,
				  dst[i][port], (uint16_t)(1024 + i));
		uint16_t sent = rte_eth_tx_burst(port, 0, pkts, (uint16_t)opt.count);
		if (sent != opt.count)
			bench_die("the port's ring took only part of the packets", -ENOBUFS);
	}
	printf("filled %u packets on each of %u ports (%s)\n", opt.count, nb_ports,
	       family == FIB_AF_INET ? "IPv4" : "IPv6");
	free(pkts);
	free(dst);
	prefix_list_free(&pl);
}

static uint64_t
rx_total(uint16_t nb_ports)
{
	uint64_t n = 0;
	for (uint16_t port = 0; port < nb_ports; port++) {
		struct rte_eth_stats st;
		if (rte_eth_stats_get(port, &st) == 0)
			n += st.ipackets;
	}
	return n;
}

static void
measure(uint16_t nb_ports)
{
	double *mpps = calloc(opt.runs, sizeof(*mpps));
	uint64_t hz = rte_get_tsc_hz();
	for (unsigned int i = 0; i < opt.runs; i++) {
		uint64_t n0 = rx_total(nb_ports), t0 = rte_rdtsc();
		usleep((useconds_t)(opt.interval * 1e6));
		uint64_t n1 = rx_total(nb_ports), t1 = rte_rdtsc();
		mpps[i] = (double)(n1 - n0) / ((double)(t1 - t0) / (double)hz) / 1e6;
		printf("run %u mpps %.2f\n", i, mpps[i]);
		fflush(stdout);
	}
	printf("mpps_median %.2f\n", bench_median(mpps, opt.runs));
	free(mpps);
}

int
main(int argc, char **argv)
{
	bench_eal_init(&argc, &argv);
	static const struct option opts[] = {{"fill", required_argument, NULL, 'f'},
					     {"count", required_argument, NULL, 'c'},
					     {"runs", required_argument, NULL, 'r'},
					     {"interval", required_argument, NULL, 'i'},
					     {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			opt.table = optarg;
			break;
		case 'c':
			opt.count = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			opt.runs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'i':
			opt.interval = strtod(optarg, NULL);
			break;
		default:
			return 2;
		}
	}
	if (opt.count == 0 || opt.count > 512 || opt.interval <= 0)
		bench_die("--count 1..512, --interval > 0", -EINVAL);
	uint16_t nb_ports = rte_eth_dev_count_avail();
	if (nb_ports == 0 || nb_ports > MAX_PORTS)
		bench_die("the forwarder's ports (is it running, with this --file-prefix?)",
			  -ENODEV);
	if (opt.table != NULL)
		fill(nb_ports);
	if (opt.runs > 0)
		measure(nb_ports);
	struct rte_mempool *mp = rte_mempool_lookup(POOL_NAME);
	if (mp != NULL)
		printf("lost %u\n", rte_mempool_avail_count(mp));
	rte_eal_cleanup();
	return 0;
}
