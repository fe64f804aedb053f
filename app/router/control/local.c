/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the router answers about packets addressed to one of its own
 * unicast addresses that nothing on it listens for: it has no UDP or TCP
 * service, so every port is closed, and no protocol but ICMP. It answers
 * as Linux's stack answers a closed port, so that traceroute to a router
 * address ends at it and a connection attempt is refused at once instead
 * of timing out:
 *
 * - UDP: ICMP port unreachable (type 3 code 3; ICMPv6 type 1 code 4);
 * - TCP: a reset (RFC 9293 3.10.7.1), never about a reset;
 * - another protocol: ICMP protocol unreachable (type 3 code 2; IPv6:
 *   parameter problem code 1, pointing at the next-header field that
 *   named it, RFC 8200 4);
 *
 * each only after the segment's checksum verifies (Linux drops a bad one
 * silently). ICMP errors go through rt_icmp_error's rate limits. ICMP
 * and ICMPv6 messages not handled elsewhere, IGMP, and "no next header"
 * are dropped without an answer, as Linux drops them. Control core only.
 */
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "ctl_priv.h"

#define IP6_HBH 0
#define IP6_DSTOPTS 60
#define IP6_NONE 59
#define TCP_RST 0x04
#define TCP_SYN 0x02
#define TCP_FIN 0x01
#define TCP_ACK 0x10

/* The reset answering a segment (RFC 9293 3.10.7.1): to one that carries
 * an ACK, seq = its ACK; to one without, ACK of everything it occupied
 * (its data, SYN and FIN), seq 0. */
static void
reset_fields(const struct rte_tcp_hdr *th, uint32_t data_len, struct rte_tcp_hdr *rst)
{
	memset(rst, 0, sizeof(*rst));
	rst->src_port = th->dst_port;
	rst->dst_port = th->src_port;
	rst->data_off = (sizeof(*rst) / 4) << 4;
	if (th->tcp_flags & TCP_ACK) {
		rst->sent_seq = th->recv_ack;
		rst->tcp_flags = TCP_RST;
	} else {
		uint32_t occupied =
			data_len + !!(th->tcp_flags & TCP_SYN) + !!(th->tcp_flags & TCP_FIN);
		rst->recv_ack = rte_cpu_to_be_32(rte_be_to_cpu_32(th->sent_seq) + occupied);
		rst->tcp_flags = TCP_RST | TCP_ACK;
	}
}

/* A new frame for an answer of l3_len bytes of IP, Ethernet header space
 * first (rt_output fills it in); NULL when mbufs run out. */
static uint8_t *
answer_alloc(struct router *r, struct rte_mbuf **e, uint16_t ethertype, uint16_t l3_len)
{
	*e = rte_pktmbuf_alloc(r->pool);
	if (*e == NULL)
		return NULL;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(*e, RTE_ETHER_HDR_LEN + l3_len);
	if (p == NULL) {
		rte_pktmbuf_free(*e);
		return NULL;
	}
	memset(p, 0, RTE_ETHER_HDR_LEN + l3_len);
	((struct rte_ether_hdr *)p)->ether_type = rte_cpu_to_be_16(ethertype);
	return p + RTE_ETHER_HDR_LEN;
}

static void
reset4(struct router *r, const struct rte_ipv4_hdr *oip, const struct rte_tcp_hdr *th,
       uint32_t data_len, uint16_t in)
{
	struct rte_mbuf *e;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)answer_alloc(
		r, &e, RTE_ETHER_TYPE_IPV4, sizeof(*ip) + sizeof(struct rte_tcp_hdr));
	if (ip == NULL)
		return;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + sizeof(struct rte_tcp_hdr));
	ip->packet_id = rte_cpu_to_be_16((uint16_t)r->ip_id++);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = oip->dst_addr;
	ip->dst_addr = oip->src_addr;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(ip + 1);
	reset_fields(th, data_len, t);
	t->cksum = rte_ipv4_udptcp_cksum(ip, t);
	r->ctr[RT_CTR_TCP_RESETS]++;
	rt_output(r, e, in);
}

static void
reset6(struct router *r, const struct rte_ipv6_hdr *oip, const struct rte_tcp_hdr *th,
       uint32_t data_len, uint16_t in)
{
	struct rte_mbuf *e;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)answer_alloc(
		r, &e, RTE_ETHER_TYPE_IPV6, sizeof(*ip) + sizeof(struct rte_tcp_hdr));
	if (ip == NULL)
		return;
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(sizeof(struct rte_tcp_hdr));
	ip->proto = IPPROTO_TCP;
	ip->hop_limits = 64;
	memcpy(ip->src_addr, oip->dst_addr, 16);
	memcpy(ip->dst_addr, oip->src_addr, 16);
	struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(ip + 1);
	reset_fields(th, data_len, t);
	t->cksum = rte_ipv6_udptcp_cksum(ip, t);
	r->ctr[RT_CTR_TCP_RESETS]++;
	rt_output(r, e, in);
}

/* UDP or TCP at l4 (offset in m) of l4_len bytes: the answer for a closed
 * port, once the checksum verifies. @return whether m was answered
 * (false: the caller drops it). */
static bool
closed_port(struct router *r, struct rte_mbuf *m, uint16_t in, uint8_t proto, uint32_t l4,
	    uint32_t l4_len, uint16_t phdr, bool v4)
{
	if (proto == IPPROTO_UDP) {
		struct rte_udp_hdr uh;
		const struct rte_udp_hdr *u = rte_pktmbuf_read(m, l4, sizeof(uh), &uh);
		if (u == NULL || rte_be_to_cpu_16(u->dgram_len) < sizeof(uh) ||
		    rte_be_to_cpu_16(u->dgram_len) > l4_len)
			return false;
		/* IPv4 may send no checksum (0); IPv6 must (RFC 8200 8.1). */
		if ((u->dgram_cksum != 0 || !v4) && rt_cksum_mbuf(m, l4, l4_len, phdr) != 0xffff)
			return false;
		rt_icmp_error(r, m, in, RT_ICMP_PORT_UNREACH, 0);
		return true;
	}
	struct rte_tcp_hdr thb;
	const struct rte_tcp_hdr *th = rte_pktmbuf_read(m, l4, sizeof(thb), &thb);
	if (th == NULL || (th->data_off >> 4) * 4u < sizeof(thb) ||
	    (th->data_off >> 4) * 4u > l4_len || (th->tcp_flags & TCP_RST) ||
	    rt_cksum_mbuf(m, l4, l4_len, phdr) != 0xffff)
		return false;
	uint32_t data_len = l4_len - (th->data_off >> 4) * 4u;
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	/* Never to an IPv6 multicast or unspecified source (the workers drop
	 * IPv4's invalid sources as martians). */
	static const uint8_t unspec[16];
	const uint8_t *src6 = ((const struct rte_ipv6_hdr *)l3)->src_addr;
	if (!v4 && (src6[0] == 0xff || memcmp(src6, unspec, 16) == 0))
		return false;
	if (v4)
		reset4(r, (const struct rte_ipv4_hdr *)l3, th, data_len, in);
	else
		reset6(r, (const struct rte_ipv6_hdr *)l3, th, data_len, in);
	rte_pktmbuf_free(m);
	return true;
}

bool
rt_local_closed4(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	unsigned int ihl = (ip->version_ihl & 0xf) * 4u;
	uint32_t total = rte_be_to_cpu_16(ip->total_length);
	if (!rt_addr_is_local(r, FIB_AF_INET, &ip->dst_addr) || total < ihl ||
	    RTE_ETHER_HDR_LEN + total > rte_pktmbuf_pkt_len(m))
		return false;
	switch (ip->next_proto_id) {
	case IPPROTO_ICMP:
	case IPPROTO_IGMP:
		return false;
	case IPPROTO_UDP:
	case IPPROTO_TCP:
		return closed_port(r, m, in, ip->next_proto_id, RTE_ETHER_HDR_LEN + ihl,
				   total - ihl, rte_ipv4_phdr_cksum(ip, 0), true);
	default:
		rt_icmp_error(r, m, in, RT_ICMP_PROTO_UNREACH, 0);
		return true;
	}
}

bool
rt_local_closed6(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	const struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t end = RTE_ETHER_HDR_LEN + sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
	if (!rt_addr_is_local(r, FIB_AF_INET6, ip->dst_addr) || end > rte_pktmbuf_pkt_len(m))
		return false;
	/* Past the options headers to the upper layer; ptr is the offset, in
	 * the IPv6 packet, of the next-header field naming it. */
	uint8_t proto = ip->proto;
	uint32_t off = RTE_ETHER_HDR_LEN + sizeof(*ip), ptr = 6;
	for (unsigned int k = 0; k < 8 && (proto == IP6_HBH || proto == IP6_DSTOPTS); k++) {
		uint8_t h[2];
		const uint8_t *x = rte_pktmbuf_read(m, off, 2, h);
		if (x == NULL)
			return false;
		ptr = off - RTE_ETHER_HDR_LEN;
		proto = x[0];
		off += (x[1] + 1u) * 8;
		if (off > end)
			return false;
	}
	switch (proto) {
	case IPPROTO_ICMPV6:
	case IP6_NONE:
	case IP6_HBH: /* more than 8 of them */
	case IP6_DSTOPTS:
	case IPPROTO_FRAGMENT: /* reassembled before: nested, not answered */
		return false;
	case IPPROTO_UDP:
	case IPPROTO_TCP: {
		/* The pseudo-header over the upper-layer length (RFC 8200 8.1):
		 * rte_ipv6_phdr_cksum takes it from payload_len, so a copy of
		 * the header with the upper layer's length. */
		struct rte_ipv6_hdr ph = *ip;
		ph.payload_len = rte_cpu_to_be_16((uint16_t)(end - off));
		return closed_port(r, m, in, proto, off, end - off, rte_ipv6_phdr_cksum(&ph, 0),
				   false);
	}
	default:
		rt_icmp_error(r, m, in, RT_ICMP_PROTO_UNREACH, ptr);
		return true;
	}
}
