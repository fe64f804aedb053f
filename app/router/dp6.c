/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 stage of the worker: validate (RFC 8200), look up the burst,
 * act on the nexthop. Routers never fragment IPv6: too big is an ICMPv6
 * packet-too-big (RFC 8201), from the control core.
 */
#include <rte_ip.h>

#include "dp.h"
#include "dp_stages.h"

static inline bool
is_unspecified(const uint8_t *a)
{
	static const uint8_t zero[16];
	return memcmp(a, zero, 16) == 0;
}

static inline bool
is_loopback(const uint8_t *a)
{
	static const uint8_t lo[16] = {[15] = 1};
	return memcmp(a, lo, 16) == 0;
}

static inline struct rte_ipv6_hdr *
validate6(struct rt_worker *w, struct rte_mbuf *m)
{
	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr))) {
		dp_drop(w, m, RT_DROP_TRUNCATED);
		return NULL;
	}
	struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	if (unlikely((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)) {
		dp_drop(w, m, RT_DROP_VERSION);
		return NULL;
	}
	/* RFC 8200 section 3: the payload length must fit the frame. */
	uint32_t frame = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN - sizeof(*ip);
	uint16_t plen = rte_be_to_cpu_16(ip->payload_len);
	if (unlikely(plen > frame)) {
		dp_drop(w, m, RT_DROP_LENGTH);
		return NULL;
	}
	if (plen < frame)
		rte_pktmbuf_trim(m, (uint16_t)(frame - plen));
	/* Sources never forwarded: multicast, loopback (RFC 4291 2.5.3,
	 * 2.7); the unspecified source is fine only towards us (DAD). */
	if (unlikely(ip->src_addr[0] == 0xff || is_loopback(ip->src_addr))) {
		dp_drop(w, m, RT_DROP_MARTIAN_SRC);
		return NULL;
	}
	return ip;
}

static inline uint32_t
flow_hash6(const struct router *r, const struct rte_ipv6_hdr *ip)
{
	uint16_t sport = 0, dport = 0;
	if (ip->proto == IPPROTO_TCP || ip->proto == IPPROTO_UDP) {
		const uint8_t *l4 = (const uint8_t *)(ip + 1);
		sport = (uint16_t)(l4[0] << 8 | l4[1]);
		dport = (uint16_t)(l4[2] << 8 | l4[3]);
	}
	/* A fragment header (44) hides the ports: hash on L3 then. */
	return nh_flow_hash6((enum nh_hash_policy)r->conf.hash_policy, ip->src_addr, ip->dst_addr,
			     rte_be_to_cpu_32(ip->vtc_flow) & 0xfffff, ip->proto, sport, dport,
			     ip->proto == IPPROTO_FRAGMENT);
}

static inline void
act6(const struct router *r, struct rt_worker *w, struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
     uint32_t nh)
{
	const struct nh_dp *d = &w->nh[nh];
	if (d->type == NH_T_GROUP) {
		nh = nh_group_member(d, flow_hash6(r, ip));
		d = &w->nh[nh];
	}
	if (!dp_forwardable(w, m, d, nh))
		return;
	if (unlikely(ip->hop_limits <= 1)) {
#ifdef RT_TTL_REFILL
		ip->hop_limits = RT_TTL_REFILL;
#else
		dp_punt(w, m, RT_PUNT_TTL, nh);
		return;
#endif
	}
	if (unlikely(rte_be_to_cpu_16(ip->payload_len) + sizeof(*ip) > d->mtu)) {
		dp_punt(w, m, RT_PUNT_TOO_BIG, nh);
		return;
	}
	__m128i hdr;
	if (!dp_header(r, w, m, d, d->hdr6, nh, &hdr))
		return;
	ip->hop_limits--; /* no header checksum in IPv6 */
	dp_send(w, m, hdr, d->port, nh);
}

void
dp6_burst(const struct router *r, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	  unsigned int n)
{
	struct rte_ipv6_hdr *ip[RT_BURST];
	struct rte_mbuf *ok[RT_BURST];
	const uint8_t *dst[RT_BURST];
	uint32_t nh[RT_BURST];
	unsigned int k = 0;

	/* Step 1: validate. Link-scope multicast (ND, router discovery)
	 * and link-local destinations are for the control core; other
	 * multicast is not routed. */
	for (unsigned int i = 0; i < n; i++) {
		struct rte_ipv6_hdr *h = validate6(w, pkts[i]);
		if (h == NULL)
			continue;
		if (unlikely(h->dst_addr[0] == 0xff)) {
			if ((h->dst_addr[1] & 0x0f) == 0x02)
				dp_punt(w, pkts[i], RT_PUNT_LOCAL, 0);
			else
				dp_drop(w, pkts[i], RT_DROP_MULTICAST);
			continue;
		}
		if (unlikely(h->dst_addr[0] == 0xfe && (h->dst_addr[1] & 0xc0) == 0x80)) {
			dp_punt(w, pkts[i], RT_PUNT_LOCAL, 0);
			continue;
		}
		if (unlikely(is_unspecified(h->src_addr) || is_unspecified(h->dst_addr))) {
			dp_drop(w, pkts[i], RT_DROP_MARTIAN_DST);
			continue;
		}
		ok[k] = pkts[i];
		ip[k] = h;
		dst[k++] = h->dst_addr;
	}
	if (k == 0)
		return;
	/* Step 2: one lookup for the burst, rules only when they exist. */
	fib_lookup6_bulk(r->main, dst, nh, k);
	if (unlikely(fib_rules_active(r->fib, FIB_AF_INET6)))
		for (unsigned int i = 0; i < k; i++)
			nh[i] = fib_rule_route6(
				r->fib, ip[i]->src_addr, dst[i], port,
				(uint8_t)((rte_be_to_cpu_32(ip[i]->vtc_flow) >> 22) & 0x3f), nh[i]);
	/* Step 3: act. */
	for (unsigned int i = 0; i < k; i++)
		act6(r, w, ok[i], ip[i], nh[i]);
}
