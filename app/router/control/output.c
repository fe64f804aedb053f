/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The router's own IP packets (ICMP errors, echo replies) leave by the
 * route to their destination, as Linux routes its own output: the rules
 * (with `iif lo`, FIB_IIF_LOCAL), the table's route, an ECMP
 * member, the neighbour, resolved first if need be. Sending them back to
 * the link-layer address the packet they answer came from would be
 * wrong whenever the path is asymmetric: the previous hop need not be
 * the way back, or may not forward at all. Control core only.
 */
#include <string.h>

#include <rte_ip.h>

#include "ctl_priv.h"

void
rt_l2_send(struct router *r, struct rte_mbuf *m, uint16_t port, const uint8_t mac[6])
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memcpy(&eth->dst_addr, mac, 6);
	eth->src_addr = r->dp.port[port].mac;
	rt_ctl_tx(r, port, m);
}

/* The nexthop index the datapath would use for dst: the main table, then
 * the rules; an ECMP group resolved to a member by the addresses' hash. */
static uint32_t
route_nh(struct router *r, const struct rte_mbuf *m, bool v4)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	uint32_t nh, hash;
	if (v4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		struct fib_flow flow = {.dscp = ip->type_of_service >> 2,
					.proto = ip->next_proto_id,
					.iif = FIB_IIF_LOCAL};
		nh = rt_dp_route4(&r->dp, rte_be_to_cpu_32(ip->src_addr),
				  rte_be_to_cpu_32(ip->dst_addr), &flow);
		hash = nh_hash4(ip->src_addr, ip->dst_addr, ip->next_proto_id, 0);
	} else {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;
		struct fib_flow flow = {
			.dscp = (uint8_t)(rte_be_to_cpu_32(ip->vtc_flow) >> 22 & 0x3f),
			.proto = ip->proto,
			.iif = FIB_IIF_LOCAL};
		nh = rt_dp_route6(&r->dp, ip->src_addr, ip->dst_addr, &flow);
		hash = nh_hash6(ip->src_addr, ip->dst_addr, 0, ip->proto, 0);
	}
	const struct nh_dp *view = nh_worker_view(r->nh, 0);
	if (nh != FIB_NH_NONE && view[nh].type == NH_T_GROUP)
		nh = nh_group_member(&view[nh], hash);
	return nh;
}

/* Where next_hop sends a packet. */
enum out_hop {
	OUT_NEIGH,    /* to the neighbour it filled in */
	OUT_LOCAL,    /* the destination is one of our own addresses */
	OUT_NO_ROUTE, /* the route does not forward (none, blackhole,
		       * unreachable, prohibit) */
};

/* The neighbour to send m to, in k when OUT_NEIGH. */
static enum out_hop
next_hop(struct router *r, const struct rte_mbuf *m, uint16_t in, struct neigh_key *k)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	bool v4 = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type ==
		  RTE_BE16(RTE_ETHER_TYPE_IPV4);
	uint8_t family = v4 ? NEIGH_AF_INET : NEIGH_AF_INET6;
	const uint8_t *dst = v4 ? l3 + offsetof(struct rte_ipv4_hdr, dst_addr)
				: l3 + offsetof(struct rte_ipv6_hdr, dst_addr);
	if (!v4 && rt_ip6_link_local(dst)) { /* on the link the answered packet came in on */
		*k = neigh_key(in, family, dst);
		return OUT_NEIGH;
	}
	uint32_t nh = route_nh(r, m, v4);
	struct nh_info info;
	if (nh == r->nh_local)
		return OUT_LOCAL;
	if (nh == FIB_NH_NONE || nh_get(r->nh, nh, &info) != 0)
		return OUT_NO_ROUTE;
	switch (info.spec.type) {
	case NH_T_GATEWAY:
		*k = neigh_key(info.spec.port, info.spec.family, info.spec.gw);
		return OUT_NEIGH;
	case NH_T_CONNECTED:
		*k = neigh_key(info.spec.port, family, dst);
		return OUT_NEIGH;
	default:
		return OUT_NO_ROUTE;
	}
}

static void
send_to(struct router *r, struct rte_mbuf *m, const struct neigh_key *k)
{
	uint8_t mac[6];
	int rc = neigh_resolve(r->neigh, k, NULL, m, rt_now_ms(), mac); /* the router's own */
	if (rc == 0) {
		rt_l2_send(r, m, k->port, mac);
	} else if (rc != -EAGAIN) { /* -EAGAIN: queued until it resolves */
		r->ctr[RT_CTR_NEIGH_REFUSED]++;
		rte_pktmbuf_free(m);
	}
}

void
rt_output(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	struct neigh_key k;
	*rt_meta(m) = (struct rt_meta){.own = 1};
	enum out_hop hop = next_hop(r, m, in, &k);
	/* For one of our own addresses: an error about a packet Linux sent
	 * through the TAP of port in, which goes back to Linux there,
	 * addressed to the TAP's MAC (the port's) as a frame from the wire. */
	if (hop == OUT_LOCAL && in < r->dp.nb_ports) {
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		eth->dst_addr = eth->src_addr = r->dp.port[in].mac;
		if (rt_cport_punt(r, m, in))
			return;
	}
	if (hop != OUT_NEIGH || !rt_link_oper_up(r, k.port)) {
		r->ctr[RT_CTR_OUT_NO_ROUTE]++;
		rte_pktmbuf_free(m);
		return;
	}
	unsigned int mtu = r->dp.port[k.port].mtu;
	if (rte_pktmbuf_pkt_len(m) <= RTE_ETHER_HDR_LEN + mtu && m->nb_segs == 1) {
		send_to(r, m, &k);
		return;
	}
	bool v4 = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type ==
		  RTE_BE16(RTE_ETHER_TYPE_IPV4);
	const struct rte_ipv4_hdr *ip4 =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	if (v4 && (ip4->fragment_offset & RTE_BE16(RTE_IPV4_HDR_DF_FLAG))) {
		/* Only Linux's packets (through a TAP) set DF, ours never: it
		 * learns the path's MTU as from any router on the way (it
		 * sent by a TAP of a larger MTU, as by routerd's default
		 * route for it). */
		rt_icmp_error(r, m, in, RT_ICMP_TOO_BIG, mtu);
		return;
	}
	/* Larger than the link (an echo reply to a large request), or a
	 * chain (a reply to a reassembled request), which the ports are not
	 * set up to send: in fragments of one mbuf each. Our IPv4 packets
	 * have DF clear; an IPv6 source may fragment (RFC 8200 4.5). A
	 * chain is longer than one mbuf holds, so it makes two fragments
	 * or more. */
	unsigned int seg = rte_pktmbuf_data_room_size(r->pool) - RTE_PKTMBUF_HEADROOM;
	if (mtu > seg - RTE_ETHER_HDR_LEN)
		mtu = seg - RTE_ETHER_HDR_LEN;
	struct rte_mbuf *frag[64];
	int n = v4 ? rt_fragment4(r, m, mtu, frag, RTE_DIM(frag))
		   : rt_fragment6(r, m, mtu, r->ip_id++, frag, RTE_DIM(frag));
	rte_pktmbuf_free(m);
	if (n < 0) {
		r->ctr[RT_CTR_OUT_NO_ROUTE]++;
		return;
	}
	for (int i = 0; i < n; i++) {
		*rt_meta(frag[i]) = (struct rt_meta){.own = 1};
		send_to(r, frag[i], &k);
	}
	r->ctr[RT_CTR_FRAGMENTS] += (uint64_t)n;
}
