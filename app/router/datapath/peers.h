/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The routing protocols' peers, as the workers read them: the addresses
 * whose packets to the router may take the exception path's proto class
 * (datapath.h, rt_exc_class_local) and the routing protocols' punt
 * bucket. A packet that only looks like BGP, BFD or OSPF, from anyone
 * else, goes with the rest of what is addressed to the router, so that
 * a spoofed flood of port-179 segments cannot take a real session's room.
 *
 * The control core learns the peers from what the router's own stack
 * sends them (control/peers.c) and publishes each change as a new table:
 * a table is never written once published, and an old one is freed after
 * a QSBR grace period. Open addressing, at most half full, so a lookup of
 * any address ends at an empty slot within a few probes.
 */
#ifndef ROUTER_DP_PEERS_H
#define ROUTER_DP_PEERS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fib.h"

#define RT_PEERS_MAX 512
#define RT_PEERS_SLOTS (2 * RT_PEERS_MAX) /* a power of two */

struct rt_peer {
	uint8_t family;   /* FIB_AF_INET or FIB_AF_INET6; 0: an empty slot */
	uint8_t addr[16]; /* as on the wire; IPv4 in the first 4 bytes, the rest 0 */
};

struct rt_peer_table {
	unsigned int n;
	struct rt_peer slot[RT_PEERS_SLOTS];
};

/* The home slot of an address: its words mixed (the table is the control
 * core's, filled from what the router sends, so no sender picks where an
 * entry goes; a lookup of anything else stops at the first empty slot). */
static inline uint32_t
rt_peer_hash(uint8_t family, const uint8_t *addr)
{
	uint32_t w[4] = {0, 0, 0, 0};
	memcpy(w, addr, family == FIB_AF_INET6 ? 16 : 4);
	uint64_t h = (w[0] ^ (uint64_t)w[1] << 32) * 0x9e3779b97f4a7c15ull;
	h = (h ^ w[2] ^ (uint64_t)w[3] << 32 ^ family) * 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 40) & (RT_PEERS_SLOTS - 1);
}

/* The control core, building a table before it publishes it: add addr
 * (t holds fewer than RT_PEERS_MAX). */
static inline void
rt_peer_table_add(struct rt_peer_table *t, uint8_t family, const uint8_t *addr)
{
	uint32_t i = rt_peer_hash(family, addr);
	while (t->slot[i].family != 0)
		i = (i + 1) & (RT_PEERS_SLOTS - 1);
	t->slot[i].family = family;
	memset(t->slot[i].addr, 0, sizeof(t->slot[i].addr));
	memcpy(t->slot[i].addr, addr, family == FIB_AF_INET6 ? 16 : 4);
	t->n++;
}

/* Is the source addr (of family) a peer in t (NULL: there is none)? */
static inline bool
rt_peer_known(const struct rt_peer_table *t, uint8_t family, const uint8_t *addr)
{
	if (t == NULL)
		return false;
	unsigned int alen = family == FIB_AF_INET6 ? 16 : 4;
	for (uint32_t i = rt_peer_hash(family, addr), k = 0; k < RT_PEERS_SLOTS;
	     i = (i + 1) & (RT_PEERS_SLOTS - 1), k++) {
		const struct rt_peer *p = &t->slot[i];
		if (p->family == 0)
			return false;
		if (p->family == family && memcmp(p->addr, addr, alen) == 0)
			return true;
	}
	return false;
}

#endif
