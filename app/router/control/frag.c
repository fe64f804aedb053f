/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fragmentation: of forwarded IPv4 packets larger than the egress MTU
 * with DF clear (RFC 791 3.2, RFC 1812 4.2.2.7), which leave in fragments,
 * as Linux's ip_fragment sends them, instead of being dropped; and of the
 * router's own packets larger than the MTU (an echo reply to a large
 * request), IPv6 ones as their source may (RFC 8200 4.5). The worker
 * punts forwarded ones (RT_PUNT_FRAGMENT); the control core cuts them
 * here. Control core only: a slow path, as it is in Linux.
 */
#include <errno.h>
#include <string.h>

#include <rte_ip.h>

#include "ctl_priv.h"

/* The options a later fragment carries: those with the copied flag
 * (RFC 791: type bit 0x80), padded with end-of-list to a 4-byte
 * boundary. @return their length. */
static unsigned int
copied_options(const uint8_t *opt, unsigned int len, uint8_t *out)
{
	unsigned int i = 0, n = 0;
	while (i < len) {
		uint8_t type = opt[i];
		if (type == 0) /* end of list */
			break;
		if (type == 1) { /* no-operation: not copied */
			i++;
			continue;
		}
		if (i + 1 >= len || opt[i + 1] < 2 || i + opt[i + 1] > len)
			break; /* malformed: the rest is not copied */
		if (type & 0x80) {
			memcpy(out + n, opt + i, opt[i + 1]);
			n += opt[i + 1];
		}
		i += opt[i + 1];
	}
	while (n % 4)
		out[n++] = 0;
	return n;
}

/* len bytes of m from off, whatever its segments, to dst. */
static void
copy_out(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint8_t *dst)
{
	const void *p = rte_pktmbuf_read(m, off, len, dst);
	if (p != dst)
		memcpy(dst, p, len);
}

/* A new fragment frame of len bytes for m, on m's port, into *b:
 * NULL when mbufs run out. */
static struct rte_mbuf *
new_piece(struct router *r, const struct rte_mbuf *m, unsigned int len, uint8_t **b)
{
	struct rte_mbuf *f = rte_pktmbuf_alloc(r->pool);
	*b = f ? (uint8_t *)rte_pktmbuf_append(f, (uint16_t)len) : NULL;
	if (*b == NULL) {
		rte_pktmbuf_free(f);
		return NULL;
	}
	f->port = m->port;
	return f;
}

/* A cut that could not finish leaves nothing allocated. */
static int
undo(struct rte_mbuf **out, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		rte_pktmbuf_free(out[i]);
	return -ENOBUFS;
}

int
rt_fragment4(struct router *r, const struct rte_mbuf *m, unsigned int mtu, struct rte_mbuf **out,
	     unsigned int max)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(frame + RTE_ETHER_HDR_LEN);
	unsigned int ihl = (ip->version_ihl & 0xf) * 4u;
	unsigned int total = rte_be_to_cpu_16(ip->total_length);
	uint16_t off0 = rte_be_to_cpu_16(ip->fragment_offset);
	if ((off0 & RTE_IPV4_HDR_DF_FLAG) || total <= ihl ||
	    RTE_ETHER_HDR_LEN + ihl > rte_pktmbuf_data_len(m) ||
	    RTE_ETHER_HDR_LEN + total > rte_pktmbuf_pkt_len(m))
		return -EINVAL;
	uint8_t later_opt[40];
	unsigned int later_ihl = sizeof(*ip) + copied_options((const uint8_t *)(ip + 1),
							      ihl - sizeof(*ip), later_opt);
	unsigned int len = total - ihl, pos = 0, n = 0;
	while (pos < len) {
		unsigned int hl = pos == 0 ? ihl : later_ihl;
		if (mtu < hl + 8 || n == max)
			return undo(out, n);
		unsigned int room = (mtu - hl) & ~7u;
		unsigned int chunk = len - pos <= room ? len - pos : room;
		uint8_t *b;
		struct rte_mbuf *f = new_piece(r, m, RTE_ETHER_HDR_LEN + hl + chunk, &b);
		if (f == NULL)
			return undo(out, n);
		memcpy(b, frame, RTE_ETHER_HDR_LEN + sizeof(*ip));
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)(b + RTE_ETHER_HDR_LEN);
		if (pos == 0)
			memcpy(h + 1, ip + 1, ihl - sizeof(*ip));
		else
			memcpy(h + 1, later_opt, later_ihl - sizeof(*ip));
		h->version_ihl = (uint8_t)(0x40 | hl / 4);
		h->total_length = rte_cpu_to_be_16((uint16_t)(hl + chunk));
		/* A fragment of a fragment keeps its place and, unless it is the
		 * original's last piece, the more-fragments flag. */
		bool more = pos + chunk < len || (off0 & RTE_IPV4_HDR_MF_FLAG);
		uint16_t units = (uint16_t)((off0 & RTE_IPV4_HDR_OFFSET_MASK) + pos / 8);
		h->fragment_offset = rte_cpu_to_be_16(units | (more ? RTE_IPV4_HDR_MF_FLAG : 0));
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
		copy_out(m, RTE_ETHER_HDR_LEN + ihl + pos, chunk, (uint8_t *)h + hl);
		out[n++] = f;
		pos += chunk;
	}
	return (int)n;
}

int
rt_fragment6(struct router *r, const struct rte_mbuf *m, unsigned int mtu, uint32_t id,
	     struct rte_mbuf **out, unsigned int max)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(frame + RTE_ETHER_HDR_LEN);
	unsigned int len = rte_be_to_cpu_16(ip->payload_len), pos = 0, n = 0;
	if (mtu < RTE_IPV6_MIN_MTU || len == 0 ||
	    RTE_ETHER_HDR_LEN + sizeof(*ip) > rte_pktmbuf_data_len(m) ||
	    RTE_ETHER_HDR_LEN + sizeof(*ip) + len > rte_pktmbuf_pkt_len(m))
		return -EINVAL;
	/* Every fragment but the last carries a multiple of 8 bytes. */
	unsigned int room = (mtu - sizeof(*ip) - sizeof(struct rte_ipv6_fragment_ext)) & ~7u;
	while (pos < len) {
		unsigned int chunk = len - pos <= room ? len - pos : room;
		unsigned int fl = RTE_ETHER_HDR_LEN + sizeof(*ip) + 8 + chunk;
		if (n == max)
			return undo(out, n);
		uint8_t *b;
		struct rte_mbuf *f = new_piece(r, m, fl, &b);
		if (f == NULL)
			return undo(out, n);
		memcpy(b, frame, RTE_ETHER_HDR_LEN + sizeof(*ip));
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)(b + RTE_ETHER_HDR_LEN);
		h->payload_len = rte_cpu_to_be_16((uint16_t)(8 + chunk));
		h->proto = IPPROTO_FRAGMENT;
		struct rte_ipv6_fragment_ext *fh = (struct rte_ipv6_fragment_ext *)(h + 1);
		fh->next_header = ip->proto;
		fh->reserved = 0;
		fh->frag_data = rte_cpu_to_be_16((uint16_t)(pos | (pos + chunk < len)));
		fh->id = rte_cpu_to_be_32(id);
		copy_out(m, RTE_ETHER_HDR_LEN + sizeof(*ip) + pos, chunk, (uint8_t *)(fh + 1));
		out[n++] = f;
		pos += chunk;
	}
	return (int)n;
}
