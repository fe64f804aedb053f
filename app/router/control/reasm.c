/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly for local delivery (reasm.h). Each pending datagram owns a
 * 64 KiB buffer its fragments' data is copied into, and a bitmap of the
 * 8-byte units received: overlaps and duplicates are a test on the
 * bitmap, completion a byte count. The first fragment's mbuf is kept: its
 * headers start the reassembled frame, and an expiry quotes it in the
 * ICMP error. Pending datagrams are found by a scan of at most
 * RT_REASM_MAX slots: a slow path, on the control core only.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "reasm.h"

#define DATA_MAX 65536u /* the most an IP length field lets a datagram carry */
#define IP6_FRAG 44

/* What a fragment says about itself. Offsets are from the frame's start. */
struct frag_info {
	uint8_t family; /* 4 or 6 */
	uint8_t proto;  /* IPv4: part of the key; IPv6: the Fragment header's next header */
	uint32_t id;
	const uint8_t *src, *dst;
	uint32_t off, len;   /* where its data goes in the datagram, and how much */
	bool more;           /* more fragments follow */
	uint16_t data_at;    /* its data, after all headers */
	uint16_t nh_at;      /* IPv6: the next-header byte that names the Fragment header */
	uint16_t unfrag_len; /* IP header, plus IPv6 headers before the Fragment header */
};

struct dgram {
	bool used;
	uint8_t family, proto;
	uint8_t src[16], dst[16];
	uint32_t id;
	uint64_t expires_ms;
	uint32_t total; /* data bytes: known once the last fragment arrived, else 0 */
	uint32_t got;   /* data bytes received */
	uint32_t end;   /* the furthest byte received */
	struct rte_mbuf *first;
	struct frag_info first_info;
	uint64_t units[DATA_MAX / 8 / 64]; /* 8-byte units received */
	uint8_t *data;
};

struct rt_reasm {
	unsigned int pending;
	struct rt_reasm_stats st;
	struct dgram d[RT_REASM_MAX];
	uint8_t *buf; /* RT_REASM_MAX x DATA_MAX: pages are touched only when used */
};

struct rt_reasm *
rt_reasm_create(void)
{
	struct rt_reasm *ra = calloc(1, sizeof(*ra));
	if (ra == NULL)
		return NULL;
	ra->buf = calloc(RT_REASM_MAX, DATA_MAX);
	if (ra->buf == NULL) {
		free(ra);
		return NULL;
	}
	for (unsigned int i = 0; i < RT_REASM_MAX; i++)
		ra->d[i].data = ra->buf + (size_t)i * DATA_MAX;
	return ra;
}

void
rt_reasm_destroy(struct rt_reasm *ra)
{
	if (ra == NULL)
		return;
	for (unsigned int i = 0; i < RT_REASM_MAX; i++)
		if (ra->d[i].used)
			rte_pktmbuf_free(ra->d[i].first);
	free(ra->buf);
	free(ra);
}

/* @return 0 and *fi for a fragment (headers within the frame), -1
 * otherwise. Frames from a port are single segments. */
static int
parse(const struct rte_mbuf *m, struct frag_info *fi)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t flen = rte_pktmbuf_data_len(m);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)f;
	const uint8_t *l3 = f + RTE_ETHER_HDR_LEN;
	memset(fi, 0, sizeof(*fi));
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		unsigned int ihl = (ip->version_ihl & 0xf) * 4u;
		unsigned int tot = rte_be_to_cpu_16(ip->total_length);
		uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);
		if (flen < RTE_ETHER_HDR_LEN + sizeof(*ip) || ihl < sizeof(*ip) || tot < ihl ||
		    RTE_ETHER_HDR_LEN + tot > flen)
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
	return parse(m, &fi) == 0;
}

/*
 * The whole datagram as one frame: the first fragment's headers (less
 * its Fragment header, for IPv6), then total bytes of data, in segments
 * from pool. NULL when mbufs run out.
 */
static struct rte_mbuf *
build(struct rte_mempool *pool, const struct rte_mbuf *first, const struct frag_info *fi,
      const uint8_t *data, uint32_t total)
{
	const uint8_t *f = rte_pktmbuf_mtod(first, const uint8_t *);
	unsigned int hdr = RTE_ETHER_HDR_LEN + fi->unfrag_len;
	struct rte_mbuf *head = rte_pktmbuf_alloc(pool), *last = head;
	if (head == NULL || rte_pktmbuf_tailroom(head) < hdr + 8) {
		rte_pktmbuf_free(head);
		return NULL;
	}
	uint8_t *h = (uint8_t *)rte_pktmbuf_append(head, (uint16_t)hdr);
	memcpy(h, f, hdr);
	if (fi->family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(h + RTE_ETHER_HDR_LEN);
		ip->total_length = rte_cpu_to_be_16((uint16_t)(fi->unfrag_len + total));
		ip->fragment_offset = 0;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(h + RTE_ETHER_HDR_LEN);
		ip->payload_len =
			rte_cpu_to_be_16((uint16_t)(fi->unfrag_len - sizeof(*ip) + total));
		h[fi->nh_at] = fi->proto; /* the Fragment header's next header takes its place */
	}
	for (uint32_t pos = 0; pos < total;) {
		uint16_t room = rte_pktmbuf_tailroom(last);
		if (room == 0) {
			struct rte_mbuf *seg = rte_pktmbuf_alloc(pool);
			if (seg == NULL) {
				rte_pktmbuf_free(head);
				return NULL;
			}
			last->next = seg;
			last = seg;
			head->nb_segs++;
			continue;
		}
		uint16_t n = (uint16_t)(total - pos < room ? total - pos : room);
		memcpy(rte_pktmbuf_mtod_offset(last, uint8_t *, last->data_len), data + pos, n);
		last->data_len = (uint16_t)(last->data_len + n);
		head->pkt_len += n;
		pos += n;
	}
	head->port = first->port;
	return head;
}

static void
release(struct rt_reasm *ra, struct dgram *d)
{
	rte_pktmbuf_free(d->first);
	d->first = NULL;
	d->used = false;
	ra->pending--;
}

static void
give_up(struct rt_reasm *ra, struct dgram *d)
{
	release(ra, d);
	ra->st.fails++;
}

static struct dgram *
find(struct rt_reasm *ra, const struct frag_info *fi, uint64_t now_ms)
{
	unsigned int alen = fi->family == 4 ? 4 : 16;
	struct dgram *free_slot = NULL;
	for (unsigned int i = 0; i < RT_REASM_MAX; i++) {
		struct dgram *d = &ra->d[i];
		if (!d->used) {
			if (free_slot == NULL)
				free_slot = d;
			continue;
		}
		/* RFC 791: source, destination, protocol and identification;
		 * RFC 8200: source, destination and identification. */
		if (d->family == fi->family && d->id == fi->id &&
		    (fi->family == 6 || d->proto == fi->proto) &&
		    memcmp(d->src, fi->src, alen) == 0 && memcmp(d->dst, fi->dst, alen) == 0)
			return d;
	}
	if (free_slot == NULL)
		return NULL;
	struct dgram *d = free_slot;
	d->used = true;
	d->family = fi->family;
	d->proto = fi->proto;
	d->id = fi->id;
	memcpy(d->src, fi->src, alen);
	memcpy(d->dst, fi->dst, alen);
	d->expires_ms = now_ms + (fi->family == 4 ? RT_REASM_TIMEOUT4_MS : RT_REASM_TIMEOUT6_MS);
	d->total = d->got = d->end = 0;
	d->first = NULL;
	memset(d->units, 0, sizeof(d->units));
	ra->pending++;
	return d;
}

/* How many of the 8-byte units [a, b) are marked. */
static unsigned int
units_marked(const uint64_t *u, uint32_t a, uint32_t b)
{
	unsigned int n = 0;
	for (uint32_t i = a; i < b; i++)
		n += (unsigned int)(u[i / 64] >> (i % 64) & 1);
	return n;
}

static void
units_mark(uint64_t *u, uint32_t a, uint32_t b)
{
	for (uint32_t i = a; i < b; i++)
		u[i / 64] |= 1ull << (i % 64);
}

/* Data before the last fragment's that is not a multiple of 8 bytes, or
 * a datagram longer than its length field can say (the "ping of death"):
 * @return the offset of the field at fault (IPv6 answers with a
 * parameter problem there, RFC 8200 4.5, as Linux; IPv4 drops), or 0. */
static uint16_t
bad_length(const struct frag_info *fi)
{
	uint32_t end = fi->off + fi->len;
	if (fi->more && (fi->len == 0 || fi->len % 8 != 0))
		return offsetof(struct rte_ipv6_hdr, payload_len);
	if (end + fi->unfrag_len - (fi->family == 6 ? 40 : 0) > 65535)
		return (uint16_t)(fi->data_at - RTE_ETHER_HDR_LEN - 6); /* the offset field */
	return 0;
}

/* Add fragment m (fi) to d. @return 1 when it was kept or freed as a
 * duplicate, 0 when it conflicts (the caller drops it, the datagram is
 * given up). */
static int
add_fragment(struct rt_reasm *ra, struct dgram *d, struct rte_mbuf *m, const struct frag_info *fi)
{
	uint32_t end = fi->off + fi->len;
	/* The last fragment fixes the length; nothing may lie beyond it, and
	 * a second last fragment must agree. */
	if ((!fi->more && ((d->total != 0 && d->total != end) || d->end > end)) ||
	    (fi->more && d->total != 0 && end > d->total)) {
		give_up(ra, d);
		return 0;
	}
	uint32_t ua = fi->off / 8, ub = (end + 7) / 8;
	unsigned int marked = units_marked(d->units, ua, ub);
	if (ub > ua && marked == ub - ua) { /* a duplicate: ignored (not an empty last one) */
		rte_pktmbuf_free(m);
		return 1;
	}
	if (marked != 0) { /* an overlap: the whole datagram goes (RFC 5722) */
		give_up(ra, d);
		return 0;
	}
	memcpy(d->data + fi->off, rte_pktmbuf_mtod_offset(m, uint8_t *, fi->data_at), fi->len);
	units_mark(d->units, ua, ub);
	d->got += fi->len;
	if (end > d->end)
		d->end = end;
	if (!fi->more)
		d->total = end;
	if (fi->off == 0) {
		d->first = m;
		d->first_info = *fi;
	} else {
		rte_pktmbuf_free(m);
	}
	return 1;
}

struct rte_mbuf *
rt_reasm_in(struct rt_reasm *ra, struct rte_mbuf *m, struct rte_mempool *pool, uint64_t now_ms,
	    uint16_t *pointer)
{
	struct frag_info fi;
	ra->st.reqds++;
	*pointer = 0;
	if (parse(m, &fi) != 0)
		goto drop; /* not a fragment after all */
	uint16_t at = bad_length(&fi);
	if (at != 0) {
		ra->st.fails++;
		if (fi.family == 6) {
			*pointer = at;
			return NULL;
		}
		rte_pktmbuf_free(m);
		return NULL;
	}
	if (fi.off == 0 && !fi.more) {
		/* An IPv6 atomic fragment: a datagram of its own, never mixed
		 * with other fragments (RFC 6946). */
		struct rte_mbuf *whole = build(
			pool, m, &fi, rte_pktmbuf_mtod_offset(m, uint8_t *, fi.data_at), fi.len);
		rte_pktmbuf_free(m);
		if (whole == NULL) {
			ra->st.fails++;
			return NULL;
		}
		ra->st.oks++;
		return whole;
	}
	struct dgram *d = find(ra, &fi, now_ms);
	if (d == NULL || !add_fragment(ra, d, m, &fi))
		goto drop; /* RT_REASM_MAX pending (no room), or a conflict */
	if (d->first == NULL || d->total == 0 || d->got != d->total)
		return NULL;
	struct rte_mbuf *whole = build(pool, d->first, &d->first_info, d->data, d->total);
	if (whole == NULL) {
		give_up(ra, d);
		return NULL;
	}
	release(ra, d);
	ra->st.oks++;
	return whole;
drop:
	ra->st.fails++;
	rte_pktmbuf_free(m);
	return NULL;
}

struct rte_mbuf *
rt_reasm_expire(struct rt_reasm *ra, uint64_t now_ms)
{
	for (unsigned int i = 0; i < RT_REASM_MAX && ra->pending > 0; i++) {
		struct dgram *d = &ra->d[i];
		if (!d->used || now_ms < d->expires_ms)
			continue;
		struct rte_mbuf *first = d->first;
		d->first = NULL;
		give_up(ra, d);
		ra->st.timeouts++;
		if (first != NULL)
			return first;
	}
	return NULL;
}

void
rt_reasm_stats(const struct rt_reasm *ra, struct rt_reasm_stats *s)
{
	*s = ra->st;
}
