/* SPDX-License-Identifier: BSD-3-Clause */
/* Timing and statistics helpers shared by the benchmarks. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "xorshift.h"

static inline uint64_t
bench_tsc(void)
{
	/* rdtscp waits for earlier instructions, so the timed work is done. */
	return rte_rdtsc_precise();
}

static inline int
bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median of n values (sorts them). */
static inline double
bench_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Print "program: what: error" and exit; rc is an errno value, either sign. */
static inline void __attribute__((noreturn)) bench_die(const char *what, int rc)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(rc < 0 ? -rc : rc));
	exit(1);
}

/* Start EAL and step past its arguments: *argc and *argv are then the
 * program's own options. Exits with EAL's reason when it cannot start. */
static inline void
bench_eal_init(int *argc, char ***argv)
{
	int n = rte_eal_init(*argc, *argv);
	if (n < 0) {
		fprintf(stderr, "%s: EAL: %s\n", program_invocation_short_name,
			rte_strerror(rte_errno));
		exit(1);
	}
	*argc -= n;
	*argv += n;
}

/* One RX and one TX queue on port, of nb_rxd and nb_txd descriptors,
 * started. Exits with the reason when it cannot. */
static inline void
bench_port_start(uint16_t port, struct rte_mempool *pool, uint16_t nb_rxd, uint16_t nb_txd)
{
	struct rte_eth_conf conf = {0};
	int rc;
	if ((rc = rte_eth_dev_configure(port, 1, 1, &conf)) < 0 ||
	    (rc = rte_eth_rx_queue_setup(port, 0, nb_rxd, (unsigned int)rte_socket_id(), NULL,
					 pool)) < 0 ||
	    (rc = rte_eth_tx_queue_setup(port, 0, nb_txd, (unsigned int)rte_socket_id(), NULL)) <
		    0 ||
	    (rc = rte_eth_dev_start(port)) < 0)
		bench_die("port", rc);
}

#endif
