/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP (RFC 826) and ND (RFC 4861: neighbour and router discovery)
 * frames, Ethernet header included. No
 * table access: these only read and write the buffer they are given, and
 * every read is bounds-checked against its length first.
 */
#include <errno.h>
#include <string.h>

#include "neigh.h"

#define ETH_LEN 14
#define ARP_LEN 28
#define IP6_LEN 40
#define ND_LEN 24 /* ICMPv6 header, reserved/flags, target */
#define OPT_LEN 8 /* a link-layer address option for Ethernet */
#define ETHERTYPE_ARP 0x0806
#define ETHERTYPE_IPV6 0x86dd
#define IPPROTO_ICMPV6_ 58
#define OPT_SLLA 1
#define OPT_TLLA 2
#define NA_R 0x80
#define NA_S 0x40
#define NA_O 0x20

static const uint8_t broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
eth_build(uint8_t *buf, const uint8_t dst[6], const uint8_t src[6], uint16_t type)
{
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	put16(buf + 12, type);
}

int
neigh_arp_build(uint8_t *buf, size_t len, const struct neigh_arp *m, const uint8_t dst[6])
{
	if (len < ETH_LEN + ARP_LEN)
		return -ENOSPC;
	eth_build(buf, dst ? dst : broadcast, m->sha, ETHERTYPE_ARP);
	uint8_t *a = buf + ETH_LEN;
	put16(a, 1); /* Ethernet */
	put16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, m->op);
	memcpy(a + 8, m->sha, 6);
	memcpy(a + 14, m->spa, 4);
	memcpy(a + 18, m->tha, 6);
	memcpy(a + 24, m->tpa, 4);
	return ETH_LEN + ARP_LEN;
}

int
neigh_arp_parse(const uint8_t *buf, size_t len, struct neigh_arp *m)
{
	if (buf == NULL || len < ETH_LEN + ARP_LEN || get16(buf + 12) != ETHERTYPE_ARP)
		return -EINVAL;
	const uint8_t *a = buf + ETH_LEN;
	/* IPv4 over Ethernet only: hardware type 1 with 6-byte addresses,
	 * protocol 0x0800 with 4-byte ones. */
	if (get16(a) != 1 || get16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4)
		return -EINVAL;
	m->op = get16(a + 6);
	if (m->op != NEIGH_ARP_REQUEST && m->op != NEIGH_ARP_REPLY)
		return -EINVAL;
	memcpy(m->sha, a + 8, 6);
	memcpy(m->spa, a + 14, 4);
	memcpy(m->tha, a + 18, 6);
	memcpy(m->tpa, a + 24, 4);
	/* A multicast or broadcast sender address is never a neighbour. */
	if (m->sha[0] & 1)
		return -EINVAL;
	return 0;
}

bool
neigh_arp_gratuitous(const struct neigh_arp *m)
{
	return memcmp(m->spa, m->tpa, 4) == 0;
}

void
neigh_solicited_node(const uint8_t target[16], uint8_t addr[16], uint8_t mac[6])
{
	static const uint8_t prefix[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff};
	memcpy(addr, prefix, 13);
	memcpy(addr + 13, target + 13, 3);
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, addr + 12, 4);
}

/* One's-complement sum of 16-bit words (an odd last byte padded). */
static uint32_t
sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

/* ICMPv6 checksum over the pseudo-header and the message (RFC 8200 8.1). */
static uint16_t
icmp6_csum(const uint8_t src[16], const uint8_t dst[16], const uint8_t *msg, size_t n)
{
	uint32_t s = sum16(0, src, 16);
	s = sum16(s, dst, 16);
	s += (uint32_t)(n >> 16) + (uint32_t)(n & 0xffff) + IPPROTO_ICMPV6_;
	s = sum16(s, msg, n);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

int
neigh_nd_build(uint8_t *buf, size_t len, const struct neigh_nd *m)
{
	size_t msg_len = ND_LEN + (m->has_lladdr ? OPT_LEN : 0);
	size_t total = ETH_LEN + IP6_LEN + msg_len;
	if (len < total)
		return -ENOSPC;
	if (m->type != NEIGH_ND_NS && m->type != NEIGH_ND_NA)
		return -EINVAL;
	uint8_t dst[16], eth_dst[6];
	memcpy(dst, m->dst, 16);
	memcpy(eth_dst, m->eth_dst, 6);
	if (m->type == NEIGH_ND_NS && all_zero(m->dst, 16))
		neigh_solicited_node(m->target, dst, eth_dst);
	eth_build(buf, eth_dst, m->eth_src, ETHERTYPE_IPV6);
	uint8_t *ip = buf + ETH_LEN;
	memset(ip, 0, IP6_LEN);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)msg_len);
	ip[6] = IPPROTO_ICMPV6_;
	ip[7] = 255; /* RFC 4861: hop limit 255, so it cannot have been forwarded */
	memcpy(ip + 8, m->src, 16);
	memcpy(ip + 24, dst, 16);
	uint8_t *icmp = ip + IP6_LEN;
	memset(icmp, 0, msg_len);
	icmp[0] = m->type;
	if (m->type == NEIGH_ND_NA)
		icmp[4] = (uint8_t)((m->flags & NEIGH_F_ROUTER ? NA_R : 0) |
				    (m->flags & NEIGH_F_SOLICITED ? NA_S : 0) |
				    (m->flags & NEIGH_F_OVERRIDE ? NA_O : 0));
	memcpy(icmp + 8, m->target, 16);
	if (m->has_lladdr) {
		icmp[ND_LEN] = m->type == NEIGH_ND_NS ? OPT_SLLA : OPT_TLLA;
		icmp[ND_LEN + 1] = 1; /* in units of 8 bytes */
		memcpy(icmp + ND_LEN + 2, m->lladdr, 6);
	}
	put16(icmp + 2, icmp6_csum(m->src, dst, icmp, msg_len));
	return (int)total;
}

/* The options of an ND message of plen bytes, from off: each has a
 * length in 8-byte units, never 0, and must fit (RFC 4861 4.6); the
 * link-layer address option of type want, if there, is an Ethernet
 * address (6 bytes, one unit). @return 0 or -EINVAL. */
static int
lladdr_option(const uint8_t *icmp, size_t off, size_t plen, uint8_t want, bool *has, uint8_t mac[6])
{
	while (off < plen) {
		if (plen - off < 2 || icmp[off + 1] == 0 || (size_t)icmp[off + 1] * 8 > plen - off)
			return -EINVAL;
		size_t olen = (size_t)icmp[off + 1] * 8;
		if (icmp[off] == want) {
			if (olen != OPT_LEN)
				return -EINVAL;
			*has = true;
			memcpy(mac, icmp + off + 2, 6);
		}
		off += olen;
	}
	return 0;
}

int
neigh_nd_parse(const uint8_t *buf, size_t len, struct neigh_nd *m)
{
	if (buf == NULL || len < ETH_LEN + IP6_LEN + ND_LEN || get16(buf + 12) != ETHERTYPE_IPV6)
		return -EINVAL;
	const uint8_t *ip = buf + ETH_LEN;
	size_t plen = get16(ip + 4);
	/* RFC 4861 7.1.1 and 7.1.2: no extension headers accepted here, hop
	 * limit 255, the ICMPv6 length at least 24 and within the frame. */
	if ((ip[0] >> 4) != 6 || ip[6] != IPPROTO_ICMPV6_ || ip[7] != 255 || plen < ND_LEN ||
	    plen > len - ETH_LEN - IP6_LEN)
		return -EINVAL;
	const uint8_t *icmp = ip + IP6_LEN;
	if ((icmp[0] != NEIGH_ND_NS && icmp[0] != NEIGH_ND_NA) || icmp[1] != 0)
		return -EINVAL;
	if (icmp6_csum(ip + 8, ip + 24, icmp, plen) != 0)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->type = icmp[0];
	memcpy(m->eth_dst, buf, 6);
	memcpy(m->eth_src, buf + 6, 6);
	memcpy(m->src, ip + 8, 16);
	memcpy(m->dst, ip + 24, 16);
	memcpy(m->target, icmp + 8, 16);
	if (m->target[0] == 0xff)
		return -EINVAL; /* the target is never multicast */
	if (m->type == NEIGH_ND_NA) {
		m->flags = (uint8_t)((icmp[4] & NA_R ? NEIGH_F_ROUTER : 0) |
				     (icmp[4] & NA_S ? NEIGH_F_SOLICITED : 0) |
				     (icmp[4] & NA_O ? NEIGH_F_OVERRIDE : 0));
		if ((m->flags & NEIGH_F_SOLICITED) && m->dst[0] == 0xff)
			return -EINVAL; /* solicited yet sent to multicast */
	}
	if (lladdr_option(icmp, ND_LEN, plen, m->type == NEIGH_ND_NS ? OPT_SLLA : OPT_TLLA,
			  &m->has_lladdr, m->lladdr) != 0)
		return -EINVAL;
	/* From the unspecified address (duplicate address detection) an NS
	 * carries no source link-layer option (7.1.1). */
	if (m->type == NEIGH_ND_NS && all_zero(m->src, 16) && m->has_lladdr)
		return -EINVAL;
	return 0;
}

#define RS_LEN 8  /* type, code, checksum, reserved */
#define RA_LEN 16 /* and hop limit, flags, lifetime, reachable, retransmit */
#define OPT_PREFIX 3
#define OPT_MTU 5
#define OPT_RDNSS 25
#define PREFIX_OPT_LEN 32
#define PREFIX_L 0x80
#define PREFIX_A 0x40

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

int
neigh_rs_parse(const uint8_t *buf, size_t len, struct neigh_rs *m)
{
	if (buf == NULL || len < ETH_LEN + IP6_LEN + RS_LEN || get16(buf + 12) != ETHERTYPE_IPV6)
		return -EINVAL;
	const uint8_t *ip = buf + ETH_LEN;
	size_t plen = get16(ip + 4);
	if ((ip[0] >> 4) != 6 || ip[6] != IPPROTO_ICMPV6_ || ip[7] != 255 || plen < RS_LEN ||
	    plen > len - ETH_LEN - IP6_LEN)
		return -EINVAL;
	const uint8_t *icmp = ip + IP6_LEN;
	if (icmp[0] != NEIGH_ND_RS || icmp[1] != 0 || icmp6_csum(ip + 8, ip + 24, icmp, plen) != 0)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	memcpy(m->eth_src, buf + 6, 6);
	memcpy(m->src, ip + 8, 16);
	if (lladdr_option(icmp, RS_LEN, plen, OPT_SLLA, &m->has_lladdr, m->lladdr) != 0)
		return -EINVAL;
	if (all_zero(m->src, 16) && m->has_lladdr)
		return -EINVAL; /* 6.1.1: no link-layer option from :: */
	return 0;
}

int
neigh_ra_build(uint8_t *buf, size_t len, const struct neigh_ra *m)
{
	if (m->nb_prefixes > NEIGH_RA_PREFIXES_MAX || m->nb_rdnss > NEIGH_RA_RDNSS_MAX)
		return -EINVAL;
	size_t rdnss_len = m->nb_rdnss ? 8 + 16 * (size_t)m->nb_rdnss : 0;
	size_t msg_len = RA_LEN + OPT_LEN + (m->mtu ? OPT_LEN : 0) +
			 (size_t)m->nb_prefixes * PREFIX_OPT_LEN + rdnss_len;
	size_t total = ETH_LEN + IP6_LEN + msg_len;
	if (len < total)
		return -ENOSPC;
	eth_build(buf, m->eth_dst, m->eth_src, ETHERTYPE_IPV6);
	uint8_t *ip = buf + ETH_LEN;
	memset(ip, 0, IP6_LEN);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)msg_len);
	ip[6] = IPPROTO_ICMPV6_;
	ip[7] = 255;
	memcpy(ip + 8, m->src, 16);
	memcpy(ip + 24, m->dst, 16);
	uint8_t *icmp = ip + IP6_LEN;
	memset(icmp, 0, msg_len);
	icmp[0] = NEIGH_ND_RA;
	icmp[4] = m->cur_hop_limit;
	icmp[5] = (uint8_t)((m->managed ? 0x80 : 0) | (m->other ? 0x40 : 0));
	put16(icmp + 6, m->lifetime_s);
	/* Reachable time and retransmit timer 0: the hosts' own defaults. */
	uint8_t *o = icmp + RA_LEN;
	o[0] = OPT_SLLA;
	o[1] = 1;
	memcpy(o + 2, m->eth_src, 6);
	o += OPT_LEN;
	if (m->mtu) {
		o[0] = OPT_MTU;
		o[1] = 1;
		put32(o + 4, m->mtu);
		o += OPT_LEN;
	}
	for (unsigned int i = 0; i < m->nb_prefixes; i++, o += PREFIX_OPT_LEN) {
		const struct neigh_ra_prefix *p = &m->prefix[i];
		if (p->len > 128)
			return -EINVAL;
		o[0] = OPT_PREFIX;
		o[1] = PREFIX_OPT_LEN / 8;
		o[2] = p->len;
		o[3] = (uint8_t)(PREFIX_L | (p->autonomous ? PREFIX_A : 0));
		put32(o + 4, p->valid_s);
		put32(o + 8, p->preferred_s);
		/* 4 reserved bytes, then the prefix with its host bits clear */
		for (unsigned int b = 0; b < 16; b++) {
			int bits = (int)p->len - 8 * (int)b;
			uint8_t keep = bits >= 8   ? 0xff
				       : bits <= 0 ? 0
						   : (uint8_t)(0xff << (8 - bits));
			o[16 + b] = p->addr[b] & keep;
		}
	}
	if (m->nb_rdnss) {
		o[0] = OPT_RDNSS;
		o[1] = (uint8_t)(rdnss_len / 8);
		put32(o + 4, m->rdnss_lifetime_s);
		for (unsigned int i = 0; i < m->nb_rdnss; i++)
			memcpy(o + 8 + 16 * i, m->rdnss[i], 16);
	}
	put16(icmp + 2, icmp6_csum(m->src, m->dst, icmp, msg_len));
	return (int)total;
}
