/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-destination limit on ICMP errors, as Linux's inet_peer_xrlim_allow
 * (net.ipv4.icmp_ratelimit, net.ipv6.icmp.ratelimit): each destination may
 * receive a burst of ICMP_LIMIT_BURST errors, then one per interval. Kept
 * beside the global token bucket (icmp.c): one host sending into a black
 * hole cannot use up the errors every other host is owed.
 *
 * Destinations live in a fixed table (no allocation on the exception
 * path); when a destination's probe run is full the least recently used
 * entry of the run is reused, so a flood of sources forgets the oldest,
 * as Linux's inet_peer cache does. Control core only: no locking.
 */
#ifndef ROUTER_ICMP_LIMIT_H
#define ROUTER_ICMP_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define ICMP_LIMIT_BURST 6    /* Linux's XRLIM_BURST_FACTOR */
#define ICMP_LIMIT_SLOTS 4096 /* destinations remembered */
#define ICMP_LIMIT_PROBE 8    /* entries a destination may sit in */

/* A token bucket in clock units: a message costs one interval, and at
 * most `burst` intervals are saved. Fresh (all zeros) it is full. Both
 * the per-destination limit and icmp.c's global one are these. */
struct icmp_bucket {
	uint64_t last;   /* clock of the last take; 0: never */
	uint64_t tokens; /* clock units */
};

/* Whether a message may go at clock now (never 0); takes its cost if so. */
bool icmp_bucket_take(struct icmp_bucket *b, uint64_t now, uint64_t interval, uint64_t burst);

struct icmp_dest {
	uint64_t key[2];      /* the address; IPv4 as ::ffff:a.b.c.d */
	struct icmp_bucket b; /* b.last 0: a free entry */
};

struct icmp_limit {
	uint64_t interval; /* clock units per error; 0: no limit */
	struct icmp_dest e[ICMP_LIMIT_SLOTS];
};

void icmp_limit_init(struct icmp_limit *l, uint64_t interval);

/* Whether an error may go to addr (16 bytes; see icmp_limit_key4) at
 * clock now (any monotonic unit, the one interval is in, never 0);
 * takes one interval's worth of its tokens when it may. */
bool icmp_limit_allow(struct icmp_limit *l, const uint8_t addr[16], uint64_t now);

/* The 16-byte key of an IPv4 address (network order). */
void icmp_limit_key4(uint32_t addr_be, uint8_t key[16]);

#endif
