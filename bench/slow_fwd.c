/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A forwarder of known speed, for bench/ndr.sh's `slow` device: what
 * arrives on port 0 leaves on port 1 and the other way, unchanged, after
 * --cycles TSC cycles a packet of busy waiting. With those cycles above
 * the testers' own cost a packet, its zero-loss rate is its own and not
 * the tester's, so the two testers (bench/pkt_gen and pktgen-dpdk) can be
 * held against each other on one device (docs/load-testing-results.md, Goals).
 *
 *   slow_fwd EAL... -- [--cycles N]      (default 1500)
 * Runs on the EAL's main lcore until SIGINT or SIGTERM.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "bench_util.h"

#define BURST 32
#define RING 1024

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

int
main(int argc, char **argv)
{
	bench_eal_init(&argc, &argv);
	uint64_t cycles = 1500;
	static const struct option opts[] = {{"cycles", required_argument, NULL, 'c'}, {0}};
	for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
		if (o != 'c')
			rte_exit(EXIT_FAILURE, "usage: slow_fwd EAL... -- [--cycles N]\n");
		cycles = strtoull(optarg, NULL, 0);
	}
	if (rte_eth_dev_count_avail() != 2)
		rte_exit(EXIT_FAILURE, "slow_fwd: needs two ports\n");
	struct rte_mempool *pool = rte_pktmbuf_pool_create(
		"slow_fwd", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pool == NULL)
		bench_die("packet pool", -rte_errno);
	bench_port_start(0, pool, RING, RING);
	bench_port_start(1, pool, RING, RING);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("slow_fwd: forwarding, %lu cycles a packet\n", (unsigned long)cycles);
	fflush(stdout);
	struct rte_mbuf *pkts[BURST];
	while (!quit)
		for (uint16_t in = 0; in < 2; in++) {
			uint16_t got = rte_eth_rx_burst(in, 0, pkts, BURST);
			if (got == 0)
				continue;
			/* the device's "work": busy, as a forwarder's would be */
			uint64_t until = rte_rdtsc() + cycles * got;
			while (rte_rdtsc() < until)
				rte_pause();
			uint16_t sent = rte_eth_tx_burst(in ^ 1, 0, pkts, got);
			if (sent < got)
				rte_pktmbuf_free_bulk(pkts + sent, got - sent);
		}
	for (uint16_t p = 0; p < 2; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_eal_cleanup();
	return 0;
}
