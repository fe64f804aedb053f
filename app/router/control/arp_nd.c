/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP (RFC 826) and IPv6 neighbour discovery (RFC 4861) addressed to the
 * router: what they teach the neighbour table, and the router's answers
 * for its own addresses. Control core only; lib/neigh parses and builds
 * the messages.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "ctl_priv.h"

/* Is addr (network order) one of our addresses on the port? */
static bool
on_port(const struct router *r, uint16_t port, uint8_t family, const void *addr)
{
	for (unsigned int i = 0; i < r->nb_addrs; i++) {
		const struct rt_addr *a = &r->addr[i];
		uint32_t be = rte_cpu_to_be_32(a->p.addr.v4);
		if (a->port == port && a->p.family == family &&
		    (family == FIB_AF_INET ? memcmp(&be, addr, 4) == 0
					   : memcmp(a->p.addr.v6, addr, 16) == 0))
			return true;
	}
	return false;
}

void
rt_arp_in(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	struct neigh_arp a;
	if (neigh_arp_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &a) !=
	    0) {
		r->ctr[RT_CTR_LOCAL_UNHANDLED]++;
		rte_pktmbuf_free(m);
		return;
	}
	static const uint8_t zero[4];
	struct neigh_key k = neigh_key(in, NEIGH_AF_INET, a.spa);
	uint64_t now = rt_now_ms();
	if (memcmp(a.spa, zero, 4) == 0) {
		/* An address probe (RFC 5227): learn nothing from it. */
	} else if (neigh_arp_gratuitous(&a)) {
		neigh_confirm(r->neigh, &k, a.sha, NEIGH_F_OVERRIDE, now); /* existing only */
	} else if (a.op == NEIGH_ARP_REPLY) {
		neigh_confirm(r->neigh, &k, a.sha, NEIGH_F_SOLICITED | NEIGH_F_OVERRIDE, now);
	} else if (on_port(r, in, FIB_AF_INET, a.tpa)) {
		/* A request for one of our addresses on this port: learn the
		 * sender, answer it on the frame we received. */
		neigh_learn(r->neigh, &k, a.sha, now);
		struct neigh_arp rep = {.op = NEIGH_ARP_REPLY};
		memcpy(rep.sha, &r->dp.port[in].mac, 6);
		memcpy(rep.spa, a.tpa, 4);
		memcpy(rep.tha, a.sha, 6);
		memcpy(rep.tpa, a.spa, 4);
		rte_pktmbuf_reset(m);
		uint8_t *buf = (uint8_t *)rte_pktmbuf_append(m, 60);
		memset(buf, 0, 60);
		neigh_arp_build(buf, 60, &rep, a.sha);
		rt_ctl_tx(r, in, m);
		return;
	}
	rte_pktmbuf_free(m);
}

void
rt_nd_in(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	struct neigh_nd nd;
	if (neigh_nd_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &nd) !=
	    0) {
		r->ctr[RT_CTR_LOCAL_UNHANDLED]++;
		rte_pktmbuf_free(m);
		return;
	}
	uint64_t now = rt_now_ms();
	static const uint8_t zero[16];
	if (nd.type == NEIGH_ND_NA) {
		if (nd.has_lladdr) {
			struct neigh_key k = neigh_key(in, NEIGH_AF_INET6, nd.target);
			neigh_confirm(r->neigh, &k, nd.lladdr, nd.flags, now);
		}
		rte_pktmbuf_free(m);
		return;
	}
	if (!on_port(r, in, FIB_AF_INET6, nd.target)) {
		rte_pktmbuf_free(m);
		return;
	}
	bool dad = memcmp(nd.src, zero, 16) == 0;
	if (!dad && nd.has_lladdr) {
		struct neigh_key k = neigh_key(in, NEIGH_AF_INET6, nd.src);
		neigh_learn(r->neigh, &k, nd.lladdr, now);
	}
	/* Answer: solicited to the asker, or to all nodes for a duplicate
	 * address probe (RFC 4861 7.2.4). We are a router. */
	struct neigh_nd na = {.type = NEIGH_ND_NA,
			      .has_lladdr = true,
			      .flags = NEIGH_F_ROUTER | NEIGH_F_OVERRIDE};
	memcpy(na.eth_src, &r->dp.port[in].mac, 6);
	memcpy(na.src, nd.target, 16);
	memcpy(na.target, nd.target, 16);
	memcpy(na.lladdr, &r->dp.port[in].mac, 6);
	if (dad) {
		static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
		static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
		memcpy(na.dst, all_nodes, 16);
		memcpy(na.eth_dst, all_nodes_mac, 6);
	} else {
		na.flags |= NEIGH_F_SOLICITED;
		memcpy(na.dst, nd.src, 16);
		memcpy(na.eth_dst, nd.has_lladdr ? nd.lladdr : nd.eth_src, 6);
	}
	rte_pktmbuf_reset(m);
	uint8_t *buf = (uint8_t *)rte_pktmbuf_append(m, 128);
	int n = neigh_nd_build(buf, 128, &na);
	rte_pktmbuf_trim(m, (uint16_t)(128 - n));
	rt_ctl_tx(r, in, m);
}
