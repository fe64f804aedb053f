/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMP and ICMPv6 messages the router originates: errors about packets it
 * could not forward (RFC 1812 4.3, RFC 4443) and echo replies. Control
 * core only.
 *
 * Errors are rate-limited as Linux limits them: per destination, a burst
 * of 6 then one per icmp-ratelimit milliseconds (icmp_limit.c), and
 * overall by a token bucket (icmp-rate per second, icmp-burst). Path MTU
 * discovery's errors (IPv4 fragmentation needed, ICMPv6 packet too big)
 * are exempt from both, as Linux exempts them, so that a flood of
 * packets whose TTL runs out cannot starve it; they have a bucket of
 * their own of the same rate, so that a flood of packets too big for a
 * link cannot draw errors without bound. Never sent about an
 * ICMP error, a packet to a multicast or broadcast address, a non-first
 * fragment, or from an invalid source.
 *
 * An error's source is the router's address on the port the packet came
 * in on (so traceroute shows that hop), or, about a packet addressed to
 * the router, the address it was sent to (Linux's icmp_send and
 * icmp6_send: a traceroute to a router address ends at that address);
 * replies and errors leave by the route to their destination
 * (rt_output), as Linux's do.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_icmp.h>

#include "ctl_priv.h"
#include "icmp_limit.h"

#define ICMP4_MAX 576  /* RFC 1812 4.3.2.3: the error, at most 576 bytes */
#define ICMP6_MAX 1280 /* RFC 4443 2.4(c): the IPv6 minimum MTU */

/* Each kind of error as a type and code, IPv4's (RFC 792, RFC 1812 5.2.7)
 * and IPv6's (RFC 4443), as Linux chooses them; type 0 where a family
 * has no such error (nothing is sent). */
static const struct icmp_code {
	uint8_t type4, code4, type6, code6;
} icmp_codes[RT_ICMP_KINDS] = {
	[RT_ICMP_NET_UNREACH] = {3, 0, 1, 0},   /* no route */
	[RT_ICMP_HOST_UNREACH] = {3, 1, 1, 3},  /* IPv6: address unreachable */
	[RT_ICMP_ADMIN_PROHIB] = {3, 13, 1, 1}, /* communication administratively prohibited */
	[RT_ICMP_BEYOND_SCOPE] = {0, 0, 1, 2},  /* beyond the scope of the source */
	[RT_ICMP_PORT_UNREACH] = {3, 3, 1, 4},
	[RT_ICMP_PROTO_UNREACH] = {3, 2, 4, 1}, /* IPv6: unrecognized next header */
	[RT_ICMP_TTL_EXCEEDED] = {11, 0, 3, 0},
	[RT_ICMP_REASM_TIMEOUT] = {11, 1, 3, 1},
	[RT_ICMP_TOO_BIG] = {3, 4, 2, 0},        /* IPv4: fragmentation needed */
	[RT_ICMP_PARAM_PROBLEM] = {12, 0, 4, 0}, /* erroneous header field */
};

/* The global limit: icmp-rate errors a second, icmp-burst saved; and
 * path MTU discovery's, alike. */
static struct icmp_bucket bucket, pmtu_bucket;
static uint64_t bucket_interval;
static struct icmp_limit dest_limit;

void
rt_icmp_init(struct router *r)
{
	bucket = pmtu_bucket = (struct icmp_bucket){0};
	bucket_interval = rte_get_tsc_hz() / r->conf.icmp_rate;
	icmp_limit_init(&dest_limit, (uint64_t)r->conf.icmp_ratelimit_ms * rte_get_tsc_hz() / 1000);
}

/* Both limits for an error to key (icmp_limit.h): the destination's,
 * then the global one, so that a destination over its limit does not use
 * up the global tokens; or, for path MTU discovery, its bucket alone. */
static bool
icmp_allow(struct router *r, const uint8_t key[16], bool pmtu)
{
	uint64_t now = rte_get_tsc_cycles();
	if (pmtu ? icmp_bucket_take(&pmtu_bucket, now, bucket_interval, r->conf.icmp_burst)
		 : icmp_limit_allow(&dest_limit, key, now) &&
			    icmp_bucket_take(&bucket, now, bucket_interval, r->conf.icmp_burst))
		return true;
	r->ctr[RT_CTR_ICMP_RATELIMITED]++;
	return false;
}

static bool
is_icmp4_error(const struct rte_ipv4_hdr *ip, uint32_t len)
{
	if (ip->next_proto_id != IPPROTO_ICMP)
		return false;
	unsigned int ihl = (ip->version_ihl & 0xf) * 4u;
	if (len < ihl + 1)
		return true; /* cannot tell: treat as an error, send nothing */
	uint8_t type = ((const uint8_t *)ip)[ihl];
	return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

static void
error4(struct router *r, struct rte_mbuf *m, uint16_t in, uint8_t type, uint8_t code, uint32_t info)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *oip = (const struct rte_ipv4_hdr *)(eth + 1);
	uint32_t olen = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN;
	uint32_t odst = rte_be_to_cpu_32(oip->dst_addr);
	if (is_icmp4_error(oip, olen) || (odst >> 28) == 0xe || odst == 0xffffffffu ||
	    (rte_be_to_cpu_16(oip->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK))
		return;
	const struct rt_addr *a = rt_addr_pick(r, in, FIB_AF_INET, &oip->src_addr);
	uint8_t key[16];
	icmp_limit_key4(oip->src_addr, key);
	if (a == NULL || !icmp_allow(r, key, type == 3 && code == 4))
		return;
	uint32_t quote = olen;
	if (quote > ICMP4_MAX - sizeof(struct rte_ipv4_hdr) - 8)
		quote = ICMP4_MAX - sizeof(struct rte_ipv4_hdr) - 8;
	struct rte_mbuf *e = rte_pktmbuf_alloc(r->pool);
	if (e == NULL)
		return;
	uint16_t len = (uint16_t)(RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) + 8 + quote);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(e, len);
	struct rte_ether_hdr *neth = (struct rte_ether_hdr *)p;
	neth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(neth + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->type_of_service = 0xc0; /* internetwork control */
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rt_addr_is_local(r, FIB_AF_INET, &oip->dst_addr)
			       ? oip->dst_addr
			       : rte_cpu_to_be_32(a->p.addr.v4);
	ip->dst_addr = oip->src_addr;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	memset(icmp, 0, 8);
	icmp[0] = type;
	icmp[1] = code;
	if (type == 3 && code == 4) { /* fragmentation needed: next-hop MTU */
		icmp[6] = (uint8_t)(info >> 8);
		icmp[7] = (uint8_t)info;
	}
	memcpy(icmp + 8, oip, quote);
	uint16_t ck = (uint16_t)~rte_raw_cksum(icmp, 8 + quote);
	memcpy(icmp + 2, &ck, 2);
	r->ctr[RT_CTR_ICMP_SENT]++;
	rt_output(r, e, in);
}

static uint16_t
icmp6_cksum(const struct rte_ipv6_hdr *ip, const uint8_t *icmp)
{
	return rte_ipv6_udptcp_cksum(ip, icmp);
}

static void
error6(struct router *r, struct rte_mbuf *m, uint16_t in, uint8_t type, uint8_t code, uint32_t info)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *oip = (const struct rte_ipv6_hdr *)(eth + 1);
	uint32_t olen = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN;
	/* RFC 4443 2.4(e): not about ICMPv6 errors (types below 128), not
	 * to multicast destinations (packet too big excepted), not from the
	 * unspecified or a multicast source. */
	const uint8_t *l4 = (const uint8_t *)(oip + 1);
	if (oip->proto == IPPROTO_ICMPV6 && (olen <= sizeof(*oip) || l4[0] < 128))
		return;
	if ((oip->dst_addr[0] == 0xff && type != 2) || oip->src_addr[0] == 0xff)
		return;
	static const uint8_t zero[16];
	if (memcmp(oip->src_addr, zero, 16) == 0)
		return;
	const struct rt_addr *a = rt_addr_pick(r, in, FIB_AF_INET6, oip->src_addr);
	if (a == NULL || !icmp_allow(r, oip->src_addr, type == 2)) /* 2: packet too big */
		return;
	uint32_t quote = olen;
	if (quote > ICMP6_MAX - sizeof(struct rte_ipv6_hdr) - 8)
		quote = ICMP6_MAX - sizeof(struct rte_ipv6_hdr) - 8;
	struct rte_mbuf *e = rte_pktmbuf_alloc(r->pool);
	if (e == NULL)
		return;
	uint16_t len = (uint16_t)(RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + 8 + quote);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(e, len);
	if (p == NULL) {
		rte_pktmbuf_free(e);
		return;
	}
	struct rte_ether_hdr *neth = (struct rte_ether_hdr *)p;
	neth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(neth + 1);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + quote));
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 64;
	memcpy(ip->src_addr,
	       rt_addr_is_local(r, FIB_AF_INET6, oip->dst_addr) ? oip->dst_addr : a->p.addr.v6, 16);
	memcpy(ip->dst_addr, oip->src_addr, 16);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	memset(icmp, 0, 8);
	icmp[0] = type;
	icmp[1] = code;
	if (type == 2 || type == 4) { /* packet too big: the MTU; parameter problem: the pointer */
		uint32_t be = rte_cpu_to_be_32(info);
		memcpy(icmp + 4, &be, 4);
	}
	memcpy(icmp + 8, oip, quote);
	uint16_t ck = icmp6_cksum(ip, icmp);
	memcpy(icmp + 2, &ck, 2);
	r->ctr[RT_CTR_ICMP_SENT]++;
	rt_output(r, e, in);
}

void
rt_icmp_error(struct router *r, struct rte_mbuf *m, uint16_t in, enum rt_icmp_kind kind,
	      uint32_t info)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	const struct icmp_code *c = &icmp_codes[kind];
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4) && c->type4 != 0 &&
	    rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))
		error4(r, m, in, c->type4, c->code4, info);
	else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
		 rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr))
		error6(r, m, in, c->type6, c->code6, info);
	rte_pktmbuf_free(m);
}

/* The ICMP or ICMPv6 (with ip6's pseudo-header) checksum of the len
 * bytes at off in m (lengths checked by the caller). */
static uint16_t
msg_cksum(const struct rte_mbuf *m, uint32_t off, uint32_t len, const struct rte_ipv6_hdr *ip6)
{
	return (uint16_t)~rt_cksum_mbuf(m, off, len, ip6 ? rte_ipv6_phdr_cksum(ip6, 0) : 0);
}

/* Does the echo request m hold, in its first segment, its IP header and
 * the ICMP header, and in all the length its IP header says? Whatever
 * made it (a worker's checks, reassembly), the checksum below walks that
 * length. */
static bool
echo_fits(const struct rte_mbuf *m, uint32_t l4, uint32_t l4_len)
{
	return l4_len >= 8 && l4 + 8 <= rte_pktmbuf_data_len(m) &&
	       l4 + l4_len <= rte_pktmbuf_pkt_len(m);
}

void
rt_icmp_echo(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
		unsigned int ihl = (ip->version_ihl & 0xf) * 4u;
		uint16_t tot = rte_be_to_cpu_16(ip->total_length);
		uint8_t *icmp = (uint8_t *)ip + ihl;
		if (tot < ihl || !echo_fits(m, RTE_ETHER_HDR_LEN + ihl, tot - ihl)) {
			r->ctr[RT_CTR_LOCAL_UNHANDLED]++;
			rte_pktmbuf_free(m);
			return;
		}
		uint32_t s = ip->src_addr;
		ip->src_addr = ip->dst_addr;
		ip->dst_addr = s;
		ip->time_to_live = 64;
		/* As Linux's replies: DF clear, so that a reply larger than
		 * the way back is fragmented, and an identification of ours. */
		ip->fragment_offset = 0;
		ip->packet_id = rte_cpu_to_be_16((uint16_t)r->ip_id++);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		icmp[0] = 0; /* echo reply */
		icmp[2] = icmp[3] = 0;
		uint16_t ck = msg_cksum(m, RTE_ETHER_HDR_LEN + ihl, tot - ihl, NULL);
		memcpy(icmp + 2, &ck, 2);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
		uint8_t *icmp = (uint8_t *)(ip + 1), s[16];
		if (!echo_fits(m, RTE_ETHER_HDR_LEN + sizeof(*ip),
			       rte_be_to_cpu_16(ip->payload_len))) {
			r->ctr[RT_CTR_LOCAL_UNHANDLED]++;
			rte_pktmbuf_free(m);
			return;
		}
		memcpy(s, ip->src_addr, 16);
		memcpy(ip->src_addr, ip->dst_addr, 16);
		memcpy(ip->dst_addr, s, 16);
		ip->hop_limits = 64;
		icmp[0] = 129; /* echo reply */
		icmp[2] = icmp[3] = 0;
		uint16_t ck = msg_cksum(m, RTE_ETHER_HDR_LEN + sizeof(*ip),
					rte_be_to_cpu_16(ip->payload_len), ip);
		memcpy(icmp + 2, &ck, 2);
	}
	rt_output(r, m, in);
}
