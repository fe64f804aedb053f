/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * neigh_flood: what a neighbour flood costs the control core, a packet
 * (issue 27; docs/neigh.md, docs/performance.md).
 *
 * One source sprays UDP at distinct unresolvable addresses in a connected
 * /8 (IPv4) and /64 (IPv6) on port 1, alternating families. Each burst of
 * 64 goes through the worker's stages (dp_burst), which punt every packet
 * to the exception path; the control core's side (rt_exception: the
 * neighbour table's budget, the entry replaced, the request or its rate
 * limit, the packet queued) is timed from the TSC, with the neighbour
 * timers run every millisecond as the control loop does. The table is
 * 90% full of other ports' neighbours first, at 1K, 16K and 256K entries:
 * no step may depend on its size, so the three figures should be equal.
 *
 *   neigh_flood [EAL options] -- [--runs N] [--packets N] [--smoke]
 *
 * Prints "neigh_flood_cycles_per_pkt_<size> <median>" lines and their
 * ratio (the largest table's over the smallest).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "bench_util.h"
#include "conf.h"
#include "ctl_priv.h"
#include "dp_harness.h"
#include "udp_frame.h"

static struct router r;

static void
address(uint16_t port, uint8_t family, const char *text, uint8_t len)
{
	struct fib_prefix p = {.family = family, .len = len};
	if (family == FIB_AF_INET) {
		uint32_t be;
		inet_pton(AF_INET, text, &be);
		p.addr.v4 = rte_be_to_cpu_32(be);
	} else {
		inet_pton(AF_INET6, text, p.addr.v6);
	}
	int rc = rt_addr_add(&r, port, &p);
	if (rc < 0)
		bench_die("address", -rc);
}

/* A table of `size` entries, 90% full of port 0's neighbours (STALE:
 * evictable, as most of a large segment's are). */
static void
fresh_table(uint32_t size)
{
	neigh_free(r.neigh);
	struct neigh_conf ng = {.max_entries = size, .seed = 1};
	r.neigh = neigh_create(&ng, &rt_neigh_ops, &r);
	if (r.neigh == NULL)
		bench_die("neighbour table", errno);
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x42};
	uint64_t now = rt_now_ms();
	for (uint32_t i = 0; i < size / 10 * 9; i++) {
		uint8_t a[4] = {172, (uint8_t)(16 + (i >> 16)), (uint8_t)(i >> 8), (uint8_t)i};
		struct neigh_key k = neigh_key(0, NEIGH_AF_INET, a);
		if (neigh_learn(r.neigh, &k, mac, now) != 0)
			bench_die("prefill", ENOSPC);
	}
}

static void
drain_ctl_tx(void)
{
	struct rte_mbuf *m[64];
	unsigned int n;
	while ((n = rte_ring_dequeue_burst(r.dp.ctl_tx, (void **)m, 64, NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}

/* One flood of `packets` packets, addresses from *next on. @return the
 * control core's cycles a packet. */
static double
flood(uint32_t packets, uint32_t *next)
{
	static const uint8_t src4[4] = {192, 0, 2, 66};
	static const uint8_t src6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 0x66};
	static const struct rte_ether_addr attacker = {{0x02, 0, 0, 0, 0, 0x66}};
	struct rt_worker *w = &r.dp.worker[0];
	uint64_t cycles = 0, handled = 0, next_timer = 0;
	for (uint32_t b = 0; b < packets / RT_BURST; b++) {
		struct rte_mbuf *pkts[RT_BURST];
		if (rte_pktmbuf_alloc_bulk(r.pool, pkts, RT_BURST) != 0)
			bench_die("mbufs", ENOMEM);
		for (unsigned int k = 0; k < RT_BURST; k++) {
			uint32_t i = (*next)++;
			uint8_t d4[4] = {10, (uint8_t)(1 + (i >> 16) % 250), (uint8_t)(i >> 8),
					 (uint8_t)i};
			uint8_t d6[16] = {0x20,
					  0x01,
					  0x0d,
					  0xb8,
					  0,
					  2,
					  [10] = 0xa,
					  [12] = (uint8_t)(i >> 24),
					  (uint8_t)(i >> 16),
					  (uint8_t)(i >> 8),
					  (uint8_t)i};
			bool v4 = i % 2 == 0;
			udp_frame(pkts[k], v4 ? FIB_AF_INET : FIB_AF_INET6, &r.dp.port[0].mac,
				  &attacker, v4 ? src4 : src6, v4 ? d4 : d6, 40000);
			pkts[k]->port = 0;
		}
		dp_burst(&r.dp, w, 0, pkts, RT_BURST);
		struct rte_mbuf *x[RT_BURST];
		unsigned int n = rte_ring_sc_dequeue_burst(w->exc[0][RT_EXC_DATA], (void **)x,
							   RT_BURST, NULL);
		uint64_t t0 = bench_tsc();
		rt_exception_burst(&r, x, n);
		uint64_t now = rt_now_ms();
		if (now >= next_timer) {
			uint64_t due = neigh_timer(r.neigh, now);
			next_timer = due ? due : now + 1000;
		}
		cycles += bench_tsc() - t0;
		handled += n;
		drain_ctl_tx();
	}
	if (handled != packets / RT_BURST * RT_BURST)
		bench_die("packets went missing before the exception path", EIO);
	return (double)cycles / (double)handled;
}

int
main(int argc, char **argv)
{
	bench_eal_init(&argc, &argv);
	unsigned int runs = 5;
	uint32_t packets = 1u << 18;
	bool smoke = false;
	static const struct option opts[] = {{"runs", required_argument, NULL, 'r'},
					     {"packets", required_argument, NULL, 'p'},
					     {"smoke", no_argument, NULL, 's'},
					     {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'r')
			runs = (unsigned int)atoi(optarg);
		else if (c == 'p')
			packets = (uint32_t)atoi(optarg);
		else if (c == 's')
			smoke = true;
		else
			bench_die("usage: neigh_flood -- [--runs N] [--packets N] [--smoke]",
				  EINVAL);
	}
	if (smoke) {
		runs = 1;
		packets = 1u << 14;
	}
	if (runs < 1 || runs > 64 || packets < RT_BURST)
		bench_die("--runs 1..64, --packets at least a burst", EINVAL);
	conf_defaults(&r.conf); /* routerd's settings, as it starts */
	dp_harness_setup(&r, RT_BURST);
	r.dp.ctl_tx = rte_ring_create("ctl_tx", 4096, (int)rte_socket_id(),
				      RING_F_SP_ENQ | RING_F_SC_DEQ);
	int rc = 0;
	if (r.dp.ctl_tx == NULL || (rc = rt_control_init(&r)) < 0)
		bench_die("control core", r.dp.ctl_tx == NULL ? ENOMEM : -rc);
	address(1, FIB_AF_INET, "10.0.0.1", 8);
	address(1, FIB_AF_INET6, "2001:db8:2::1", 64);

	static const uint32_t sizes[] = {1024, 16384, 262144};
	double med[3];
	for (unsigned int s = 0; s < (smoke ? 1u : 3u); s++) {
		fresh_table(sizes[s]);
		double v[64];
		uint32_t next = 0;
		flood(packets / 4, &next); /* the table and its budget at their steady state */
		for (unsigned int i = 0; i < runs; i++)
			v[i] = flood(packets, &next);
		med[s] = bench_median(v, runs);
		struct neigh_stats st;
		neigh_get_stats(r.neigh, &st);
		printf("# %u entries: %u in use, %u resolving, %llu replaced, %llu rate-limited\n",
		       sizes[s], st.entries, st.incomplete, (unsigned long long)st.replaced,
		       (unsigned long long)st.rate_limited);
		printf("neigh_flood_cycles_per_pkt_%uk %.1f\n", sizes[s] / 1024, med[s]);
	}
	if (!smoke)
		printf("neigh_flood_256k_vs_1k %.2f\n", med[2] / med[0]);
	return 0;
}
