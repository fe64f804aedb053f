/* SPDX-License-Identifier: BSD-3-Clause */
/* The family stages a worker runs on each received burst (classify.c
 * calls them; private to datapath/). */
#ifndef ROUTER_DP_STAGES_H
#define ROUTER_DP_STAGES_H

#include "datapath.h"

/*
 * Packets of a burst received on `port`, with the address of each one's
 * frame (its Ethernet header, at the data offset), which dp_burst reads
 * once. Every packet the stages keep is forwarded, punted or dropped.
 *
 * dp4_burst and dp6_burst take frames not yet classified: each checks
 * the frames in its validation pass and keeps those of its family sent
 * to the port's own address; the others it hands back, in order, in
 * rest/rest_frames (which may be pkts/frames themselves), and returns
 * how many. The _l2group stages take frames of their family sent to a
 * link-layer group address: their packets are delivered locally or
 * dropped, never forwarded.
 */
unsigned int dp4_burst(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
		       struct rte_mbuf **pkts, uint8_t **frames, unsigned int n,
		       struct rte_mbuf **rest, uint8_t **rest_frames);
unsigned int dp6_burst(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
		       struct rte_mbuf **pkts, uint8_t **frames, unsigned int n,
		       struct rte_mbuf **rest, uint8_t **rest_frames);
void dp4_burst_l2group(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
		       struct rte_mbuf **pkts, uint8_t **frames, unsigned int n);
void dp6_burst_l2group(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
		       struct rte_mbuf **pkts, uint8_t **frames, unsigned int n);

#endif
