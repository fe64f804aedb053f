/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 stage of the worker: validate (RFC 8200), look up the burst,
 * act on the nexthop. Routers never fragment IPv6: too big is an ICMPv6
 * packet-too-big (RFC 8201), from the control core.
 */
#include <stddef.h>

#include <rte_ip.h>

#include "dp_inline.h"
#include "stages.h"
#include "x8.h"

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

/* First bytes of addresses that need a closer look (special6), so that
 * one table load per address clears nearly every packet: as a source,
 * 00 (unspecified, loopback), fe (link-local) and ff (multicast); as a
 * destination, 00 (unspecified), fe (link-local) and ff (multicast). */
#define A6_SRC 1
#define A6_DST 2
static const uint8_t addr6_first[256] = {
	[0x00] = A6_SRC | A6_DST,
	[0xfe] = A6_SRC | A6_DST,
	[0xff] = A6_SRC | A6_DST,
};

/* The slow side of the address checks: drop or punt the packet and
 * return true, or return false for a packet to route. Sources never
 * forwarded: multicast, loopback (RFC 4291 2.5.3, 2.7). Link-scope
 * multicast (ND, router discovery) and link-local destinations are for
 * the control core; other multicast is not routed; the unspecified
 * address is neither a source nor a destination to forward. A packet
 * from a link-local source never leaves its link (RFC 4291 2.5.6): to
 * one of the router's addresses it is delivered, otherwise answered
 * with destination unreachable, beyond scope of source address, as
 * Linux's ip6_forward does (one lookup more, for these packets only). */
static __rte_noinline bool
special6(const struct rt_dp *dp, struct rt_worker *w, struct rte_mbuf *m,
	 const struct rte_ipv6_hdr *h)
{
	if (h->src_addr[0] == 0xff || is_loopback(h->src_addr)) {
		dp_drop(w, m, RT_DROP_MARTIAN_SRC);
		return true;
	}
	if (h->dst_addr[0] == 0xff) {
		if ((h->dst_addr[1] & 0x0f) == 0x02)
			dp_punt(w, m, RT_PUNT_LOCAL, 0);
		else
			dp_drop(w, m, RT_DROP_MULTICAST);
		return true;
	}
	if (rt_ip6_link_local(h->dst_addr)) {
		dp_punt(w, m, RT_PUNT_LOCAL, 0);
		return true;
	}
	if (is_unspecified(h->src_addr) || is_unspecified(h->dst_addr)) {
		dp_drop(w, m, RT_DROP_MARTIAN_DST);
		return true;
	}
	if (rt_ip6_link_local(h->src_addr) &&
	    w->nh[fib_lookup6(dp->main, h->dst_addr)].type != NH_T_LOCAL) {
		dp_punt(w, m, RT_PUNT_BEYOND_SCOPE, 0);
		return true;
	}
	return false;
}

static inline struct rte_ipv6_hdr *
validate6(struct rt_worker *w, struct rte_mbuf *m, uint8_t *eth)
{
	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr))) {
		dp_drop(w, m, RT_DROP_TRUNCATED);
		return NULL;
	}
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + RTE_ETHER_HDR_LEN);
	if (unlikely((*(const uint8_t *)&ip->vtc_flow >> 4) != 6)) {
		dp_drop(w, m, RT_DROP_VERSION);
		return NULL;
	}
	/* RFC 8200 section 3: the payload length must fit the frame. */
	uint32_t frame = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN - sizeof(*ip);
	uint16_t plen = dp_be16(ip->payload_len);
	if (unlikely(plen > frame)) {
		dp_drop(w, m, RT_DROP_LENGTH);
		return NULL;
	}
	if (plen < frame)
		rte_pktmbuf_trim(m, (uint16_t)(frame - plen));
	return ip;
}

/* validate6 for a frame dp_frame_fast passed (it holds the IPv6 header):
 * the version, then, usually, a payload that fills the frame exactly,
 * in one compare; anything else takes validate6. */
static inline struct rte_ipv6_hdr *
validate6_fast(struct rt_worker *w, struct rte_mbuf *m, uint8_t *eth)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + RTE_ETHER_HDR_LEN);
	if (likely((*(const uint8_t *)&ip->vtc_flow >> 4) == 6 &&
		   (uint32_t)dp_be16(ip->payload_len) + RTE_ETHER_HDR_LEN + sizeof(*ip) ==
			   rte_pktmbuf_data_len(m)))
		return ip;
	return validate6(w, m, eth);
}

#ifdef DP_X8
/*
 * Step 1 for eight packets at once, when each is the usual case: the
 * port's MAC and the IPv6 ethertype (dp_frame_fast's template), version
 * 6, a payload that fills the frame exactly (validate6_fast's common
 * case, which also says the frame holds the 40-byte header) and source
 * and destination whose first bytes addr6_first does not mark. Then
 * their mbufs, headers and destinations are written to ok, ip and dst
 * and true is returned; if any of the eight is not, nothing is written
 * and the caller takes them one by one, so the checks may be stricter
 * than the scalar path's, never looser (as validate4_x8). Five 8-byte
 * gathers: bytes 0-23 and 32-39 of each frame, which lie in the mbuf's
 * data room whatever the frame's length (validate4_x8), and the data_len.
 */
static inline bool
validate6_x8(const struct dp_fast_frame *fast, struct rte_mbuf *const *pkts, uint8_t *const *frames,
	     struct rte_mbuf **ok, struct rte_ipv6_hdr **ip, const uint8_t **dst)
{
	static_assert(sizeof(void *) == 8, "lanes of 64-bit pointers");
	const __m512i f = _mm512_loadu_si512(frames);
	const __m512i mb = _mm512_loadu_si512(pkts);
	const __m512i ff = _mm512_set1_epi64(0xff);
	const __m512i len = dp_data_len_x8(mb);
	__m512i w1;                     /* ethertype at 12, version at 14 */
	__m512i w2 = DP_GATHER8(f, 16); /* payload length at 18, the source from 22 */
	__m512i w3 = DP_GATHER8(f, 32); /* the destination from 38 */

	__mmask8 good = dp_frame_fast_x8(fast, f, &w1);
	good = _mm512_mask_cmpeq_epi64_mask(
		good, _mm512_and_si512(_mm512_srli_epi64(w1, 48), _mm512_set1_epi64(0xf0)),
		_mm512_set1_epi64(0x60));
	/* The payload length (bytes 18-19, big-endian) fills the frame. */
	__m512i plen = _mm512_or_si512(
		_mm512_and_si512(_mm512_srli_epi64(w2, 8), _mm512_set1_epi64(0xff00)),
		_mm512_and_si512(_mm512_srli_epi64(w2, 24), ff));
	good = _mm512_mask_cmpeq_epi64_mask(
		good,
		_mm512_add_epi64(
			plen, _mm512_set1_epi64(RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr))),
		len);
	/* The first bytes of source (22) and destination (38): none of 00,
	 * fe and ff, which addr6_first marks; those are the bytes b with
	 * (b + 2) mod 256 below 3. */
	const __m512i two = _mm512_set1_epi64(2), three = _mm512_set1_epi64(3);
	good = _mm512_mask_cmpge_epu64_mask(
		good, _mm512_and_si512(_mm512_add_epi64(_mm512_srli_epi64(w2, 48), two), ff),
		three);
	good = _mm512_mask_cmpge_epu64_mask(
		good, _mm512_and_si512(_mm512_add_epi64(_mm512_srli_epi64(w3, 48), two), ff),
		three);
	if (good != 0xff)
		return false;
	_mm512_storeu_si512(ok, mb);
	_mm512_storeu_si512(ip, _mm512_add_epi64(f, _mm512_set1_epi64(RTE_ETHER_HDR_LEN)));
	_mm512_storeu_si512(dst, _mm512_add_epi64(f, _mm512_set1_epi64(RTE_ETHER_HDR_LEN +
								       offsetof(struct rte_ipv6_hdr,
										dst_addr))));
	return true;
}
#endif

static inline uint32_t
flow_hash6(const struct rt_dp *dp, const struct rte_ipv6_hdr *ip)
{
	uint32_t ports = 0;
	if (ip->proto == IPPROTO_TCP || ip->proto == IPPROTO_UDP)
		ports = dp_l4_ports((const uint8_t *)(ip + 1));
	/* A fragment header (44) hides the ports: hash on L3 then. */
	return rt_dp_flow_hash6(dp, ip->src_addr, ip->dst_addr,
				rte_be_to_cpu_32(ip->vtc_flow) & 0xfffff, ip->proto, ports,
				ip->proto == IPPROTO_FRAGMENT);
}

/* As act4_slow: type, hop limit, MTU (RFC 8200; routers never fragment
 * IPv6), then the header. */
static __rte_noinline int
act6_slow(const struct rt_dp *dp, struct rt_worker *w, struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
	  uint32_t nh)
{
	const struct nh_dp *d = &w->nh[nh];
	if (!dp_forwardable(w, m, d, nh))
		return -1;
	if (ip->hop_limits <= 1) {
		dp_punt(w, m, RT_PUNT_TTL, nh);
		return -1;
	}
	/* The frame ends where the packet does (validate6 trimmed it). */
	if (rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN > d->mtu) {
		dp_punt(w, m, RT_PUNT_TOO_BIG, nh);
		return -1;
	}
	__m128i hdr = nh_hdr_load(d->hdr6);
	if (!nh_hdr_valid(hdr)) {
		dp_unsent(dp, w, m, d, nh);
		return -1;
	}
	ip->hop_limits--; /* no header checksum in IPv6 */
	return dp_send(w, (uint8_t *)ip - RTE_ETHER_HDR_LEN, hdr, d->port, nh);
}

/* As act4: one test on the header, the hop limit and the MTU, the rest in
 * act6_slow. @return the egress port, or -1 (punted or dropped). */
static inline int
act6(const struct rt_dp *dp, struct rt_worker *w, struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
     uint32_t nh)
{
	const struct nh_dp *d = &w->nh[nh];
	__m128i hdr = nh_hdr_load(d->hdr6);
	if (unlikely(!nh_hdr_valid(hdr))) {
		if (d->type != NH_T_GROUP)
			return act6_slow(dp, w, m, ip, nh);
		nh = nh_group_member(d, flow_hash6(dp, ip));
		d = &w->nh[nh];
		hdr = nh_hdr_load(d->hdr6);
		if (!nh_hdr_valid(hdr))
			return act6_slow(dp, w, m, ip, nh);
	}
	if (unlikely(ip->hop_limits <= 1 || rte_pktmbuf_data_len(m) > d->frame_max))
		return act6_slow(dp, w, m, ip, nh);
	ip->hop_limits--;
	return dp_send(w, (uint8_t *)ip - RTE_ETHER_HDR_LEN, hdr, d->port, nh);
}

/* As dp4_run, and in one piece for the same reason. */
static __rte_always_inline unsigned int
dp6_run(const struct rt_dp *dp, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	uint8_t **frames, unsigned int n, struct rte_mbuf **rest, uint8_t **rest_frames,
	bool l2group)
{
	const struct rt_port *p = &dp->port[port];
	struct rte_ipv6_hdr *ip[RT_BURST];
	struct rte_mbuf *ok[RT_BURST];
	const uint8_t *dst[RT_BURST];
	uint32_t nh[RT_BURST];
	unsigned int k = 0, back = 0;

	/* Step 1: validate; keep the good ones and their destinations. */
	const struct dp_fast_frame fast =
		dp_fast_frame_of(p, RTE_ETHER_TYPE_IPV6, -1, sizeof(struct rte_ipv6_hdr));
	for (unsigned int i = 0; i < n; i++) {
#ifdef DP_X8
		/* Eight at a time where all eight are the usual case; a group
		 * that is not goes one by one. */
		if (!l2group && i % DP_X8 == 0 && i + DP_X8 <= n &&
		    likely(validate6_x8(&fast, pkts + i, frames + i, ok + k, ip + k, dst + k))) {
			k += DP_X8;
			i += DP_X8 - 1;
			continue;
		}
#endif
		struct rte_mbuf *m = pkts[i];
		uint8_t *eth = frames[i];
		struct rte_ipv6_hdr *h;
		if (!l2group && likely(dp_frame_fast(&fast, m, eth))) {
			h = validate6_fast(w, m, eth);
		} else if (l2group || dp_frame_ours(p, m, eth, RTE_BE16(RTE_ETHER_TYPE_IPV6))) {
			h = validate6(w, m, eth);
		} else {
			rest[back] = m; /* back <= i: entry i was read */
			rest_frames[back++] = eth;
			continue;
		}
		if (h == NULL)
			continue;
		if (unlikely(((addr6_first[h->src_addr[0]] & A6_SRC) |
			      (addr6_first[h->dst_addr[0]] & A6_DST)) != 0) &&
		    special6(dp, w, m, h))
			continue;
		ok[k] = m;
		ip[k] = h;
		dst[k++] = h->dst_addr;
	}
	if (k == 0)
		return back;
	/* Step 2: one lookup for the burst, rules only when they exist. */
	fib_lookup6_bulk(dp->main, dst, nh, k);
	const struct fib_rule_set *rules = fib_rules_get(dp->fib, FIB_AF_INET6);
	if (unlikely(rules != NULL)) {
		const uint8_t *src[RT_BURST];
		struct fib_flow flow[RT_BURST];
		bool ports = fib_rule_set_ports(rules);
		for (unsigned int i = 0; i < k; i++) {
			const struct rte_ipv6_hdr *h = ip[i];
			src[i] = h->src_addr;
			/* The traffic class is bits 4-11 of the first word; DSCP
			 * its top six. Ports only when the upper-layer header
			 * comes first (not behind extension headers). */
			flow[i] = (struct fib_flow){
				.dscp = (uint8_t)((rte_be_to_cpu_32(h->vtc_flow) >> 22) & 0x3f),
				.proto = h->proto,
				.iif = port};
			if (ports)
				dp_rule_ports(&flow[i], (const uint8_t *)(h + 1),
					      dp_be16(h->payload_len), false);
		}
		fib_rule_route6_bulk(dp->fib, rules, src, dst, flow, nh, k);
	}
	if (l2group) {
		for (unsigned int i = 0; i < k; i++)
			dp_l2group_end(w, ok[i], nh[i]);
		return 0;
	}
	/* Step 3: act. */
	struct dp_out out;
	unsigned int sent = 0;
	for (unsigned int i = 0; i < k; i++) {
#ifdef DP_X8
		/* Eight at a time where all eight take act6's common case
		 * (x8.h); a group that does not goes one by one. */
		if (i % DP_X8 == 0 && i + DP_X8 <= k &&
		    likely(dp_act_x8(w, ok + i, (void *const *)(ip + i), nh + i, out.m + sent,
				     out.port + sent, true))) {
			sent += DP_X8;
			i += DP_X8 - 1;
			continue;
		}
#endif
		int q = act6(dp, w, ok[i], ip[i], nh[i]);
		if (q >= 0) {
			out.m[sent] = ok[i];
			out.port[sent++] = (uint16_t)q;
		}
	}
	dp_out_flush(w, &out, sent);
	return back;
}

unsigned int
DP_ISA(dp6_burst)(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
		  struct rte_mbuf **pkts, uint8_t **frames, unsigned int n, struct rte_mbuf **rest,
		  uint8_t **rest_frames)
{
	return dp6_run(dp, w, port, pkts, frames, n, rest, rest_frames, false);
}

void
DP_ISA(dp6_burst_l2group)(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
			  struct rte_mbuf **pkts, uint8_t **frames, unsigned int n)
{
	(void)dp6_run(dp, w, port, pkts, frames, n, NULL, NULL, true);
}
