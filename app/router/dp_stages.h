/* SPDX-License-Identifier: BSD-3-Clause */
/* The datapath stages a worker runs on each received burst. */
#ifndef ROUTER_DP_STAGES_H
#define ROUTER_DP_STAGES_H

#include "router.h"

/* IPv4 and IPv6 packets of a burst received on `port`, with the address
 * of each one's frame (its Ethernet header, at the data offset), which
 * dp_burst reads once. Every packet is forwarded, punted or dropped. */
void dp4_burst(const struct router *r, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	       uint8_t **frames, unsigned int n);
void dp6_burst(const struct router *r, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	       uint8_t **frames, unsigned int n);
/* A whole received burst: classify by ethertype, then the stages above.
 * The code bench/ measures, as the worker runs it. */
void dp_burst(const struct router *r, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	      unsigned int n);

#endif
