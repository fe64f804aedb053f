/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a fragment addressed to the router says about itself (reasm_priv.h):
 * its key, its place in the datagram and its headers, read from the frame
 * with every length checked against it; and the lengths RFC 8200 4.5 and
 * RFC 791 refuse. Control core only.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "reasm.h"
#include "reasm_priv.h"

#define IP6_FRAG 44

int
rt_frag_parse(const struct rte_mbuf *m, struct frag_info *fi)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t flen = rte_pktmbuf_data_len(m);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)f;
	const uint8_t *l3 = f + RTE_ETHER_HDR_LEN;
	memset(fi, 0, sizeof(*fi));
	if (flen < RTE_ETHER_HDR_LEN)
		return -1;
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		if (flen < RTE_ETHER_HDR_LEN + sizeof(*ip))
			return -1;
		unsigned int ihl = (ip->version_ihl & 0xf) * 4u;
		unsigned int tot = rte_be_to_cpu_16(ip->total_length);
		uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);
		if (ihl < sizeof(*ip) || tot < ihl || RTE_ETHER_HDR_LEN + tot > flen)
			return -1;
		fi->family = 4;
		fi->proto = ip->next_proto_id;
		fi->id = rte_be_to_cpu_16(ip->packet_id);
		fi->src = (const uint8_t *)&ip->src_addr;
		fi->dst = (const uint8_t *)&ip->dst_addr;
		fi->off = (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * 8;
		fi->more = (fo & RTE_IPV4_HDR_MF_FLAG) != 0;
		fi->len = tot - ihl;
		fi->unfrag_len = (uint16_t)ihl;
		fi->data_at = (uint16_t)(RTE_ETHER_HDR_LEN + ihl);
		return fi->off != 0 || fi->more ? 0 : -1;
	}
	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return -1;
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;
	if (flen < RTE_ETHER_HDR_LEN + sizeof(*ip))
		return -1;
	unsigned int end = sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
	if (RTE_ETHER_HDR_LEN + end > flen)
		return -1;
	/* Only Hop-by-Hop, Routing and Destination Options headers may come
	 * before the Fragment header (RFC 8200 4.1, 4.5). */
	unsigned int p = sizeof(*ip), nh_at = offsetof(struct rte_ipv6_hdr, proto);
	uint8_t nh = ip->proto;
	while (nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING || nh == IPPROTO_DSTOPTS) {
		if (p + 8 > end)
			return -1;
		nh_at = p;
		nh = l3[p];
		p += (l3[p + 1] + 1u) * 8;
	}
	if (nh != IP6_FRAG || p + 8 > end)
		return -1;
	const uint8_t *fh = l3 + p;
	uint16_t fo = (uint16_t)(fh[2] << 8 | fh[3]);
	fi->family = 6;
	fi->proto = fh[0];
	fi->id = (uint32_t)fh[4] << 24 | (uint32_t)fh[5] << 16 | (uint32_t)fh[6] << 8 | fh[7];
	fi->src = ip->src_addr;
	fi->dst = ip->dst_addr;
	fi->off = fo & 0xfff8u;
	fi->more = (fo & 1) != 0;
	fi->len = end - (p + 8);
	fi->unfrag_len = (uint16_t)p;
	fi->nh_at = (uint16_t)(RTE_ETHER_HDR_LEN + nh_at);
	fi->data_at = (uint16_t)(RTE_ETHER_HDR_LEN + p + 8);
	return 0;
}

bool
rt_reasm_is_fragment(const struct rte_mbuf *m)
{
	struct frag_info fi;
	return rt_frag_parse(m, &fi) == 0;
}

uint32_t
rt_frag_ip_length(uint8_t family, uint32_t unfrag_len, uint32_t data)
{
	return unfrag_len - (family == 6 ? (uint32_t)sizeof(struct rte_ipv6_hdr) : 0) + data;
}

uint16_t
rt_frag_bad_length(const struct frag_info *fi)
{
	if (fi->more && (fi->len == 0 || fi->len % 8 != 0))
		return offsetof(struct rte_ipv6_hdr, payload_len);
	if (rt_frag_ip_length(fi->family, fi->unfrag_len, fi->off + fi->len) > 65535)
		return (uint16_t)(fi->data_at - RTE_ETHER_HDR_LEN - 6); /* the offset field */
	return 0;
}
