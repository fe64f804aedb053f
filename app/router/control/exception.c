/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core's side of the exception path: what to do with each
 * packet a worker punted. ARP and neighbour discovery go to arp_nd.c,
 * packets waiting for a neighbour to the neighbour table (neigh_glue.c),
 * packets for the router to its services (echo, router solicitations,
 * the closed-port answers of local.c), and the rest get their ICMP error.
 */
#include <string.h>

#include <rte_ip.h>

#include "ctl_priv.h"
#include "reasm.h"

/* The neighbour a punted packet waits for: the nexthop's gateway, or for
 * a connected destination the destination itself. */
static bool
neighbour_of(struct router *r, struct rte_mbuf *m, uint32_t nh, bool connected, struct neigh_key *k)
{
	struct nh_info info;
	if (nh_get(r->nh, nh, &info) != 0)
		return false;
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	if (!connected) {
		*k = neigh_key(info.spec.port, info.spec.family, info.spec.gw);
		return true;
	}
	if (rt_frame_v4(m))
		*k = neigh_key(info.spec.port, NEIGH_AF_INET, ip + 16);
	else
		*k = neigh_key(info.spec.port, NEIGH_AF_INET6, ip + 24);
	return true;
}

/* Hand a packet to the neighbour table: sent now when k is resolved,
 * else queued behind its resolution (or refused, counted). */
static void
resolve_key(struct router *r, struct rte_mbuf *m, const struct neigh_key *k)
{
	uint8_t mac[6];
	/* Charged to the packet's sender: a host spraying unresolvable
	 * addresses spends its own budget (docs/neigh.md). */
	uint8_t src[16] = {0};
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	if (rt_frame_v4(m))
		memcpy(src, ip + 12, 4);
	else
		memcpy(src, ip + 8, 16);
	int rc = neigh_resolve(r->neigh, k, src, m, rt_now_ms(), mac);
	if (rc == 0) {
		/* Usable already: the worker saw the header just before it was
		 * published, or this nexthop (or host) is new to a known
		 * neighbour. Publish, so the next packets stay on the fast
		 * path, and send this one. */
		rt_neigh_ops.changed(r, k, mac);
		rt_tx_resolved(r, m, k->port, mac);
	} else if (rc != -EAGAIN) {
		r->ctr[RT_CTR_NEIGH_REFUSED]++;
		rte_pktmbuf_free(m);
	}
}

static void
resolve(struct router *r, struct rte_mbuf *m, uint32_t nh, bool connected)
{
	struct neigh_key k;
	if (neighbour_of(r, m, nh, connected, &k))
		resolve_key(r, m, &k);
	else
		rte_pktmbuf_free(m);
}

/* A forwarded IPv4 packet larger than its nexthop's MTU, DF clear: its
 * fragments go the way it would have (each resolved and its TTL
 * decremented as a punted packet's is); if it cannot be cut, it is
 * dropped, as it was before routerd fragmented. */
static void
fragment_out(struct router *r, struct rte_mbuf *m, uint32_t nh)
{
	struct rte_mbuf *frag[64];
	struct nh_info info;
	int n = nh_get(r->nh, nh, &info) == 0 ? rt_fragment4(r, m, info.mtu, frag, RTE_DIM(frag))
					      : -EINVAL;
	rte_pktmbuf_free(m);
	if (n < 0) {
		r->ctr[RT_CTR_LOCAL_UNHANDLED]++;
		return;
	}
	bool connected = info.spec.type == NH_T_CONNECTED;
	for (int i = 0; i < n; i++) {
		*rt_meta(frag[i]) = (struct rt_meta){.nh = nh, .reason = RT_PUNT_FRAGMENT};
		resolve(r, frag[i], nh, connected);
	}
	r->ctr[RT_CTR_FRAGMENTS] += (uint64_t)n;
}

/* Packets for the router itself. Fragments are reassembled first (a
 * large ping to the router comes in fragments); the whole datagram may
 * be a chain of mbufs, its headers and the ICMP header in the first. */
static void
local_in(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	bool reassembled = false;
	if (rt_reasm_is_fragment(m)) {
		uint16_t pointer;
		struct rte_mbuf *whole = rt_reasm_in(r->reasm, m, r->pool, rt_now_ms(), &pointer);
		if (pointer != 0) /* parameter problem, erroneous header field */
			rt_icmp_error(r, m, in, RT_ICMP_PARAM_PROBLEM, pointer);
		if (whole == NULL)
			return; /* held until the rest arrives, or dropped and counted */
		m = whole;
		reassembled = true;
	}
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	uint32_t len = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN;
	if (rt_frame_v4(m)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		unsigned int ihl = (ip->version_ihl & 0xf) * 4u;
		if (ip->next_proto_id == IPPROTO_ICMP && len >= ihl + 8 && l3[ihl] == 8 &&
		    rt_addr_is_local(r, FIB_AF_INET, &ip->dst_addr)) {
			rt_icmp_echo(r, m, in);
			return;
		}
		if (rt_cport_punt(r, m, in) || rt_local_closed4(r, m, in))
			return;
	} else {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;
		const uint8_t *icmp = l3 + sizeof(*ip);
		if (ip->proto == IPPROTO_ICMPV6 && len >= sizeof(*ip) + 8) {
			/* Neighbour discovery in fragments is ignored (RFC 6980). */
			if ((icmp[0] == NEIGH_ND_NS || icmp[0] == NEIGH_ND_NA) && !reassembled) {
				rt_nd_in(r, m, in);
				return;
			}
			if (icmp[0] == NEIGH_ND_RS && !reassembled) {
				rt_ra_rs_in(r, m, in);
				return;
			}
			if (icmp[0] == 128 && rt_addr_is_local(r, FIB_AF_INET6, ip->dst_addr)) {
				rt_icmp_echo(r, m, in);
				return;
			}
		}
		if (rt_cport_punt(r, m, in) || rt_local_closed6(r, m, in))
			return;
	}
	r->ctr[RT_CTR_LOCAL_UNHANDLED]++; /* to the router, nothing here handles it: counted */
	rte_pktmbuf_free(m);
}

void
rt_reasm_timer(struct router *r, uint64_t now_ms)
{
	struct rte_mbuf *first;
	while ((first = rt_reasm_expire(r->reasm, r->pool, now_ms)) != NULL) {
		RT_LOG(DEBUG, exception, "reassembly timed out, first fragment from %s",
		       first->port < r->dp.nb_ports ? r->dp.port[first->port].name : "?");
		rt_icmp_error(r, first, first->port, RT_ICMP_REASM_TIMEOUT, 0);
	}
}

#define EXC_CHUNK 64

void
rt_exception_burst(struct router *r, struct rte_mbuf **pkts, unsigned int n)
{
	for (unsigned int b = 0; b < n; b += EXC_CHUNK) {
		unsigned int c = RTE_MIN(n - b, (unsigned int)EXC_CHUNK);
		struct rte_mbuf **p = pkts + b;
		struct neigh_key k[EXC_CHUNK];
		/* per packet: -1 not waiting for a neighbour, 0 its nexthop
		 * is gone, 1 waiting for k[i] */
		int8_t waits[EXC_CHUNK];
		/* The neighbours a burst waits for, looked up ahead: at a
		 * flood's rate each lookup is a cache miss in a large table,
		 * and these overlap instead of following one another
		 * (docs/neigh.md). */
		for (unsigned int i = 0; i < c; i++) {
			const struct rt_meta *meta = rt_meta(p[i]);
			bool connected = meta->reason == RT_PUNT_CONNECTED;
			waits[i] = -1;
			if (!connected && meta->reason != RT_PUNT_RESOLVE)
				continue;
			waits[i] = neighbour_of(r, p[i], meta->nh, connected, &k[i]);
			if (waits[i])
				neigh_prefetch(r->neigh, &k[i]);
		}
		for (unsigned int i = 0; i < c; i++) {
			if (waits[i] < 0)
				rt_exception(r, p[i]);
			else if (waits[i])
				resolve_key(r, p[i], &k[i]);
			else
				rte_pktmbuf_free(p[i]);
		}
	}
}

void
rt_exception(struct router *r, struct rte_mbuf *m)
{
	const struct rt_meta *meta = rt_meta(m);
	uint16_t in = m->port;
	switch (meta->reason) {
	case RT_PUNT_ARP:
		rt_arp_in(r, m, in);
		return;
	case RT_PUNT_LOCAL:
		local_in(r, m, in);
		return;
	case RT_PUNT_RESOLVE:
		resolve(r, m, meta->nh, false);
		return;
	case RT_PUNT_CONNECTED:
		resolve(r, m, meta->nh, true);
		return;
	case RT_PUNT_NO_ROUTE:
		rt_icmp_error(r, m, in, RT_ICMP_NET_UNREACH, 0);
		return;
	case RT_PUNT_UNREACHABLE:
		/* A route's unreachable is host unreachable (IPv6: address
		 * unreachable, as Linux); a rule's is net unreachable. */
		rt_icmp_error(r, m, in,
			      meta->nh == r->nh_rule_unreachable ? RT_ICMP_NET_UNREACH
								 : RT_ICMP_HOST_UNREACH,
			      0);
		return;
	case RT_PUNT_PROHIBIT:
		rt_icmp_error(r, m, in, RT_ICMP_ADMIN_PROHIB, 0);
		return;
	case RT_PUNT_TTL:
		rt_icmp_error(r, m, in, RT_ICMP_TTL_EXCEEDED, 0);
		return;
	case RT_PUNT_BEYOND_SCOPE: /* IPv6 only: a link-local source off its link */
		rt_icmp_error(r, m, in, RT_ICMP_BEYOND_SCOPE, 0);
		return;
	case RT_PUNT_FRAGMENT:
		fragment_out(r, m, meta->nh);
		return;
	case RT_PUNT_TOO_BIG:
		rt_icmp_error(r, m, in, RT_ICMP_TOO_BIG, nh_mtu(r->nh, meta->nh));
		return;
	default:
		r->ctr[RT_CTR_LOCAL_UNHANDLED]++;
		rte_pktmbuf_free(m);
	}
}
