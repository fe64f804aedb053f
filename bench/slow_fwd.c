/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A forwarder of known speed, for bench/ndr.sh's `slow` device: what
 * arrives on port 0 leaves on port 1 and the other way, unchanged, after
 * --cycles TSC cycles a packet of busy waiting. With those cycles above
 * the testers' own cost a packet, its zero-loss rate is its own and not
 * the tester's, so the two testers (bench/pkt_gen and pktgen-dpdk) can be
 * held against each other on one device (docs/load-testing.md, Goals).
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

#define BURST 32
#define RING 1024

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static int
port_init(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = {0};
	int rc;
	if ((rc = rte_eth_dev_configure(port, 1, 1, &conf)) < 0 ||
	    (rc = rte_eth_rx_queue_setup(port, 0, RING, rte_eth_dev_socket_id(port), NULL, pool)) <
		    0 ||
	    (rc = rte_eth_tx_queue_setup(port, 0, RING, rte_eth_dev_socket_id(port), NULL)) < 0 ||
	    (rc = rte_eth_dev_start(port)) < 0)
		fprintf(stderr, "slow_fwd: port %u: %s\n", port, rte_strerror(-rc));
	return rc;
}

int
main(int argc, char **argv)
{
	int n = rte_eal_init(argc, argv);
	if (n < 0)
		rte_exit(EXIT_FAILURE, "EAL: %s\n", rte_strerror(rte_errno));
	argc -= n;
	argv += n;
	uint64_t cycles = 1500;
	static const struct option opts[] = {{"cycles", required_argument, NULL, 'c'}, {0}};
	for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
		if (o != 'c')
			rte_exit(EXIT_FAILURE, "usage: slow_fwd EAL... -- [--cycles N]\n");
		cycles = strtoull(optarg, NULL, 0);
	}
	if (rte_eth_dev_count_avail() != 2)
		rte_exit(EXIT_FAILURE, "slow_fwd: needs two ports\n");
	struct rte_mempool *pool = rte_pktmbuf_pool_create("slow_fwd", 8191, 256, 0,
							   RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pool == NULL || port_init(0, pool) < 0 || port_init(1, pool) < 0)
		rte_exit(EXIT_FAILURE, "slow_fwd: setup failed\n");
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
