/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One interface over our FIB and DPDK's rte_fib, rte_lpm, rte_fib6 and
 * rte_lpm6, so the benchmark runs all of them on the same routes and
 * addresses. Each implementation offers one or more bulk lookup
 * variants; the benchmark times each and compares against the fastest.
 */
#ifndef BENCH_LPM_PEERS_H
#define BENCH_LPM_PEERS_H

#include <stdint.h>

#include "fib.h"

#define PEER_MAX_VARIANTS 4
#define PEER_BURST_MAX 256

/*
 * Addresses of a burst: IPv4 in host order, IPv6 as 16-byte arrays.
 * Results go to out in the peer's own format (uint64_t for rte_fib and
 * rte_fib6, int32_t for rte_lpm6, uint32_t otherwise), as an application
 * would receive them; peer_result() converts one for checking.
 */
typedef void (*peer_bulk_fn)(void *ctx, const void *addrs, void *out, unsigned int n);
typedef uint32_t (*peer_one_fn)(void *ctx, const void *addr);

struct peer {
	const char *name;
	uint8_t family;
	void *ctx;
	/* Control path. */
	int (*add)(void *ctx, const struct fib_prefix *p, uint32_t nh);
	int (*del)(void *ctx, const struct fib_prefix *p);
	void (*destroy)(void *ctx);
	/* Memory held, in bytes, as the peer reports it or as its heap grew. */
	uint64_t mem;
	/* Lookups. */
	unsigned int nvariants;
	const char *variant[PEER_MAX_VARIANTS];
	peer_bulk_fn bulk[PEER_MAX_VARIANTS];
	/* Result i of variant v's out, as a nexthop (0: no route). */
	uint32_t (*result[PEER_MAX_VARIANTS])(const void *out, unsigned int i);
	/* Make variant v the one bulk[v] runs (peers that pick their
	 * implementation per object); NULL when every variant is its own
	 * function. @return 0 or -errno. */
	int (*select)(void *ctx, unsigned int v);
	peer_one_fn one;
};

/* Create an empty implementation sized for nroutes routes and ngroups
 * second-level groups. @return 0 or -errno. */
int peer_ours(struct peer *p, uint8_t family, uint32_t nroutes, uint32_t ngroups);
int peer_rte_fib(struct peer *p, uint32_t nroutes, uint32_t ngroups);
int peer_rte_lpm(struct peer *p, uint32_t nroutes, uint32_t ngroups);
int peer_rte_fib6(struct peer *p, uint32_t nroutes, uint32_t ngroups);
int peer_rte_lpm6(struct peer *p, uint32_t nroutes, uint32_t ngroups);

/* Our FIB behind a peer, for the rule benchmark. */
struct fib *peer_ours_fib(const struct peer *p);
/* Refresh p->mem after the routes are in. */
void peer_update_mem(struct peer *p);

#endif
