/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 stage of the worker: validate, look up the burst, act on the
 * nexthop. Called with the IPv4 packets of one received burst.
 */
#include <string.h>

#include <rte_ip.h>

#include "dp.h"
#include "dp_stages.h"

/* RFC 1812 section 5.3.7: source addresses a router must not forward
 * from: multicast, limited broadcast, "this network" 0/8, loopback. */
static inline bool
martian_src4(uint32_t s)
{
	return (s >> 28) == 0xe || s == 0xffffffffu || (s >> 24) == 0 || (s >> 24) == 127;
}

/* The header checksum verifies when the one's complement sum of the
 * header is all ones. Option-less headers, nearly all of them, are summed
 * as five 32-bit words and folded (RFC 1071: the sum is independent of
 * word size and byte order); rte_raw_cksum's generic loop cost 15
 * instructions more a packet (bench/callgrind_pipeline.sh). */
static inline bool
csum_ok4(const struct rte_ipv4_hdr *ip, unsigned int ihl)
{
	if (unlikely(ihl != sizeof(*ip)))
		return rte_raw_cksum(ip, ihl) == 0xffff;
	uint32_t w[5];
	memcpy(w, ip, sizeof(w)); /* five plain loads once compiled */
	uint64_t s = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	s = (s >> 32) + (uint32_t)s; /* < 2^32 + 5 */
	s = (s >> 16) + (s & 0xffff);
	s = (s >> 16) + (s & 0xffff);
	s = (s >> 16) + (s & 0xffff);
	return s == 0xffff;
}

/* Check one packet per RFC 1812 section 5.2.2; on success its IPv4 header
 * is returned and padding past the IP total length is trimmed. */
static inline struct rte_ipv4_hdr *
validate4(struct rt_worker *w, struct rte_mbuf *m)
{
	/* (1) the frame holds at least a minimal IP header, */
	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))) {
		dp_drop(w, m, RT_DROP_TRUNCATED);
		return NULL;
	}
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	/* (2) the version is 4, */
	if (unlikely((ip->version_ihl >> 4) != 4)) {
		dp_drop(w, m, RT_DROP_VERSION);
		return NULL;
	}
	/* (3) the header length is at least 5 words, */
	unsigned int ihl = (ip->version_ihl & 0xf) * 4u;
	uint32_t frame = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN;
	if (unlikely(ihl < sizeof(*ip) || ihl > frame)) {
		dp_drop(w, m, RT_DROP_IHL);
		return NULL;
	}
	/* (4) the header checksum is right (options included, processed
	 * or not: they are forwarded untouched), */
	if (unlikely(!csum_ok4(ip, ihl))) {
		dp_drop(w, m, RT_DROP_CHECKSUM);
		return NULL;
	}
	/* (5) and the total length covers the header and fits the frame. */
	uint16_t total = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(total < ihl || total > frame)) {
		dp_drop(w, m, RT_DROP_LENGTH);
		return NULL;
	}
	if (total < frame)
		rte_pktmbuf_trim(m, (uint16_t)(frame - total)); /* Ethernet padding */
	uint32_t src = rte_be_to_cpu_32(ip->src_addr), dst = rte_be_to_cpu_32(ip->dst_addr);
	if (unlikely(martian_src4(src))) {
		dp_drop(w, m, RT_DROP_MARTIAN_SRC);
		return NULL;
	}
	if (unlikely((dst >> 24) == 0 || (dst >> 24) == 127)) {
		dp_drop(w, m, RT_DROP_MARTIAN_DST);
		return NULL;
	}
	return ip;
}

/* The flow hash of a packet under the table's policy; non-first
 * fragments carry no ports and hash on addresses. */
static inline uint32_t
flow_hash4(const struct router *r, const struct rte_ipv4_hdr *ip)
{
	uint16_t frag = rte_be_to_cpu_16(ip->fragment_offset);
	bool nonfirst = (frag & RTE_IPV4_HDR_OFFSET_MASK) != 0;
	uint16_t sport = 0, dport = 0;
	uint8_t proto = ip->next_proto_id;
	if (!nonfirst && (proto == IPPROTO_TCP || proto == IPPROTO_UDP)) {
		const uint8_t *l4 = (const uint8_t *)ip + (ip->version_ihl & 0xf) * 4;
		sport = (uint16_t)(l4[0] << 8 | l4[1]);
		dport = (uint16_t)(l4[2] << 8 | l4[3]);
	}
	return nh_flow_hash4((enum nh_hash_policy)r->conf.hash_policy,
			     rte_be_to_cpu_32(ip->src_addr), rte_be_to_cpu_32(ip->dst_addr), proto,
			     sport, dport, nonfirst);
}

/* Act on the lookup's answer: the nexthop decides. */
static inline void
act4(const struct router *r, struct rt_worker *w, struct rte_mbuf *m, struct rte_ipv4_hdr *ip,
     uint32_t nh)
{
	const struct nh_dp *d = &w->nh[nh];
	if (d->type == NH_T_GROUP) {
		nh = nh_group_member(d, flow_hash4(r, ip));
		d = &w->nh[nh];
	}
	if (!dp_forwardable(w, m, d, nh))
		return;
	/* TTL before MTU (RFC 1812 5.3.1, then 5.2.1). */
	if (unlikely(ip->time_to_live <= 1)) {
#ifdef RT_TTL_REFILL
		uint16_t was = (uint16_t)(ip->time_to_live << 8 | ip->next_proto_id);
		uint16_t now = (uint16_t)(RT_TTL_REFILL << 8 | ip->next_proto_id);
		ip->time_to_live = RT_TTL_REFILL;
		ip->hdr_checksum = dp_csum_update(ip->hdr_checksum, was, now);
#else
		dp_punt(w, m, RT_PUNT_TTL, nh);
		return;
#endif
	}
	if (unlikely(rte_be_to_cpu_16(ip->total_length) > d->mtu)) {
		if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG))
			dp_punt(w, m, RT_PUNT_TOO_BIG, nh);
		else
			dp_drop(w, m, RT_DROP_TOO_BIG); /* we do not fragment */
		return;
	}
	__m128i hdr;
	if (!dp_header(r, w, m, d, d->hdr4, nh, &hdr))
		return;
	/* TTL and protocol share a 16-bit word of the checksum. */
	uint16_t old = (uint16_t)(ip->time_to_live << 8 | ip->next_proto_id);
	ip->time_to_live--;
	ip->hdr_checksum = dp_csum_update(ip->hdr_checksum, old, (uint16_t)(old - 0x100));
	dp_send(w, m, hdr, d->port, nh);
}

void
dp4_burst(const struct router *r, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	  unsigned int n)
{
	struct rte_ipv4_hdr *ip[RT_BURST];
	struct rte_mbuf *ok[RT_BURST];
	uint32_t dst[RT_BURST], nh[RT_BURST];
	unsigned int k = 0;

	/* Step 1: validate; keep the good ones and their destinations. */
	for (unsigned int i = 0; i < n; i++) {
		struct rte_ipv4_hdr *h = validate4(w, pkts[i]);
		if (h == NULL)
			continue;
		uint32_t d = rte_be_to_cpu_32(h->dst_addr);
		if (unlikely((d >> 28) == 0xe)) {
			dp_drop(w, pkts[i], RT_DROP_MULTICAST);
			continue;
		}
		if (unlikely(d == 0xffffffffu)) {
			dp_punt(w, pkts[i], RT_PUNT_LOCAL, 0);
			continue;
		}
		ok[k] = pkts[i];
		ip[k] = h;
		dst[k++] = d;
	}
	if (k == 0)
		return;
	/* Step 2: one lookup for the burst; the rules layer only when
	 * custom rules exist (one test per burst otherwise). */
	fib_lookup4_bulk(r->main, dst, nh, k);
	if (unlikely(fib_rules_active(r->fib, FIB_AF_INET)))
		for (unsigned int i = 0; i < k; i++)
			nh[i] = fib_rule_route4(r->fib, rte_be_to_cpu_32(ip[i]->src_addr), dst[i],
						port, ip[i]->type_of_service >> 2, nh[i]);
	/* Step 3: act on each answer. */
	for (unsigned int i = 0; i < k; i++)
		act4(r, w, ok[i], ip[i], nh[i]);
}
