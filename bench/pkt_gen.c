/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A traffic generator for the end-to-end benchmarks (issue 6: the memif
 * setup and the Linux kernel baseline): 64-byte UDP frames to random
 * addresses in random prefixes of a table, the pattern ring_loop puts in
 * the ring loop, sent as fast as the port takes them.
 *
 *   pkt_gen [EAL options: one port] -- --table FILE --dmac MAC
 *           [--seconds S] [--flows N] [--src ADDR] [--rate PPS]
 *
 * RATE paces the bursts (the generator sleeps between them, leaving its
 * core to others); 0, the default, sends as fast as the port takes them.
 * Whatever comes back on the port is received and freed, so that a peer
 * sending to the generator is never held up by it.
 *
 * TABLE: "PREFIX/LEN anything" lines (the vendored format). N (default
 * 4096) frames are built once, as templates; each burst copies the next
 * 32 of them into freshly allocated mbufs, which the driver frees after
 * its own copy. (Sending the templates themselves with their reference
 * count raised, as before 2026-11-30, cost two atomic read-modify-writes
 * a packet, one here and one in the driver's free: enough to make the
 * generator, not the receiver, the bound of the memif benchmark.) Prints
 * the packets a second it sent, every second and overall.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "bench_util.h"
#include "prefix_file.h"
#include "udp_frame.h"

#define BURST 32

static volatile int stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int
main(int argc, char **argv)
{
	int rc = rte_eal_init(argc, argv);
	if (rc < 0)
		bench_die("EAL", -rte_errno);
	argc -= rc;
	argv += rc;
	const char *table = NULL, *src_s = NULL;
	struct rte_ether_addr dmac;
	bool have_dmac = false;
	double seconds = 10, rate = 0;
	uint32_t flows = 4096;
	static const struct option opts[] = {{"table", required_argument, NULL, 't'},
					     {"dmac", required_argument, NULL, 'd'},
					     {"seconds", required_argument, NULL, 's'},
					     {"flows", required_argument, NULL, 'f'},
					     {"src", required_argument, NULL, 'a'},
					     {"rate", required_argument, NULL, 'r'},
					     {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			table = optarg;
			break;
		case 'd':
			have_dmac = rte_ether_unformat_addr(optarg, &dmac) == 0;
			break;
		case 's':
			seconds = strtod(optarg, NULL);
			break;
		case 'f':
			flows = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'a':
			src_s = optarg;
			break;
		case 'r':
			rate = strtod(optarg, NULL);
			break;
		default:
			return 2;
		}
	}
	if (table == NULL || !have_dmac || flows < BURST || seconds <= 0 || rate < 0)
		bench_die("give --table, --dmac, --flows >= 32, --seconds > 0, --rate >= 0",
			  -EINVAL);
	if (rte_eth_dev_count_avail() != 1)
		bench_die("give EAL exactly one port", -EINVAL);

	struct prefix_list pl;
	if ((rc = prefix_list_load(table, &pl)) < 0)
		bench_die(table, rc);
	if (pl.n == 0)
		bench_die("empty table", -EINVAL);
	uint8_t family = pl.p[0].family, src[16];
	if (src_s == NULL)
		src_s = family == FIB_AF_INET ? "192.0.2.100" : "2001:db8:1::100";
	if (inet_pton(family == FIB_AF_INET ? AF_INET : AF_INET6, src_s, src) != 1)
		bench_die("--src", -EINVAL);

	struct rte_mempool *mp = rte_pktmbuf_pool_create(
		"gen", flows + 4096, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (mp == NULL)
		bench_die("mbuf pool", -rte_errno);
	struct rte_eth_conf conf = {0};
	if ((rc = rte_eth_dev_configure(0, 1, 1, &conf)) < 0 ||
	    (rc = rte_eth_rx_queue_setup(0, 0, 512, (unsigned int)rte_socket_id(), NULL, mp)) < 0 ||
	    (rc = rte_eth_tx_queue_setup(0, 0, 1024, (unsigned int)rte_socket_id(), NULL)) < 0 ||
	    (rc = rte_eth_dev_start(0)) < 0)
		bench_die("port", rc);
	struct rte_ether_addr smac;
	rte_eth_macaddr_get(0, &smac);

	struct rte_mbuf **pkts = calloc(flows, sizeof(*pkts));
	if (pkts == NULL || rte_pktmbuf_alloc_bulk(mp, pkts, flows) != 0)
		bench_die("mbufs", -ENOMEM);
	uint64_t seed = 0x6e6;
	for (uint32_t i = 0; i < flows; i++) {
		uint8_t dst[16];
		const struct fib_prefix *p = &pl.p[bench_rand(&seed) % pl.n];
		uint64_t h = bench_rand(&seed), l = bench_rand(&seed);
		prefix_pick(p, h, l, dst);
		udp_frame(pkts[i], family, &dmac, &smac, src, dst, (uint16_t)(1024 + i));
	}
	prefix_list_free(&pl);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	uint64_t hz = rte_get_tsc_hz(), t0 = rte_rdtsc(), end = t0 + (uint64_t)(seconds * hz);
	uint64_t sent = 0, mark = t0, sent_mark = 0, received = 0;
	uint64_t gap = rate > 0 ? (uint64_t)((double)hz * BURST / rate) : 0, due = t0;
	uint32_t next = 0;
	while (!stop) {
		struct rte_mbuf *b[BURST];
		uint16_t got = rte_eth_rx_burst(0, 0, b, BURST);
		if (got > 0) {
			rte_pktmbuf_free_bulk(b, got);
			received += got;
		}
		if (gap != 0) { /* paced: sleep until this burst is due */
			uint64_t t = rte_rdtsc();
			if (t < due)
				rte_delay_us_sleep((unsigned int)((due - t) * 1000000 / hz) + 1);
			due += gap;
		}
		if (rte_pktmbuf_alloc_bulk(mp, b, BURST) != 0)
			bench_die("mbufs in flight", -ENOMEM);
		for (int k = 0; k < BURST; k++) {
			const struct rte_mbuf *t = pkts[next + (uint32_t)k];
			rte_memcpy(rte_pktmbuf_mtod(b[k], void *),
				   rte_pktmbuf_mtod(t, const void *), t->data_len);
			b[k]->data_len = t->data_len;
			b[k]->pkt_len = t->pkt_len;
		}
		uint16_t n = rte_eth_tx_burst(0, 0, b, BURST);
		if (n < BURST)
			rte_pktmbuf_free_bulk(&b[n], BURST - n);
		sent += n;
		next = next + BURST + BURST > flows ? 0 : next + BURST;
		uint64_t now = rte_rdtsc();
		if (now - mark >= hz) {
			printf("sent_mpps %.3f\n", (double)(sent - sent_mark) /
							   ((double)(now - mark) / (double)hz) /
							   1e6);
			fflush(stdout);
			mark = now;
			sent_mark = sent;
		}
		if (now >= end)
			break;
	}
	double secs = (double)(rte_rdtsc() - t0) / (double)hz;
	printf("sent %llu packets in %.2f s: %.3f Mpps\n", (unsigned long long)sent, secs,
	       (double)sent / secs / 1e6);
	printf("received %llu packets\n", (unsigned long long)received);
	rte_eth_dev_stop(0);
	rte_eal_cleanup();
	return 0;
}
