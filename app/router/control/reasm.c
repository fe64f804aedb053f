/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly for local delivery (reasm.h). A pending datagram is a
 * descriptor: its key, a bitmap of the 8-byte units received (overlaps
 * and duplicates are a test on it, completion a byte count), a copy of
 * the first fragment's headers, and up to 64 chunks of 1 KiB from the
 * shared pool that hold its data at their place in the datagram.
 * Descriptors are found by a hash keyed with a seed, and kept on two
 * lists by age (one a family, whose timeouts differ), oldest first: what
 * expires is at their heads, and so is what eviction takes.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_mbuf.h>

#include "reasm.h"
#include "reasm_priv.h"

#define CHUNK 1024u
#define DGRAM_CHUNKS (DATA_MAX / CHUNK)
#define NIL UINT16_MAX
#define HASH_BUCKETS 2048u /* a power of two, twice RT_REASM_MAX */
#define SRC_BUCKETS 4096u  /* sources, by a hash: two sharing one share a limit */
#define SRC_SHARE 8u       /* a source holds at most 1/SRC_SHARE of either bound */
#define QUOTE_MAX 1280u    /* data of an expired first fragment kept for the ICMP error */

_Static_assert(RT_REASM_MAX < NIL && RT_REASM_MEM_MAX / CHUNK < NIL, "16-bit indexes");
_Static_assert(RT_REASM_MEM_MIN / SRC_SHARE >= DATA_MAX,
	       "a source's share holds the largest datagram");

struct dgram {
	bool used;
	uint8_t family, proto;
	uint8_t src[16], dst[16];
	uint32_t id;
	uint16_t hnext;        /* the hash bucket's chain, or the free list */
	uint16_t older, newer; /* the family's age list */
	uint16_t src_bucket;
	uint16_t nb_chunks;
	uint64_t created_ms, expires_ms;
	uint32_t total; /* data bytes: known once the last fragment arrived, else 0 */
	uint32_t got;   /* data bytes received */
	uint32_t end;   /* the furthest byte received */
	/* The first fragment, once it arrived (hdr_len != 0): its frame's
	 * headers, what they say, the data it carried, its port. */
	uint16_t hdr_len, unfrag_len, nh_at, first_len, port;
	uint8_t first_proto;
	uint16_t chunk[DGRAM_CHUNKS]; /* NIL where nothing arrived */
	uint64_t units[DATA_MAX / 8 / 64];
	uint8_t hdr[RT_REASM_HDR_MAX];
};

struct rt_reasm {
	struct rt_reasm_stats st;
	uint32_t seed;
	uint32_t nb_chunks, nb_free_chunks;
	uint32_t src_max_dgrams, src_max_chunks;
	uint16_t free_dgram;
	uint16_t oldest[2], newest[2]; /* a list a family: [0] IPv4, [1] IPv6 */
	uint16_t *free_chunks;         /* a stack of chunk numbers */
	uint8_t *mem;                  /* nb_chunks x CHUNK: pages touched when used */
	uint16_t hash[HASH_BUCKETS];
	uint16_t src_dgrams[SRC_BUCKETS];
	uint32_t src_chunks[SRC_BUCKETS];
	struct dgram d[RT_REASM_MAX];
};

struct rt_reasm *
rt_reasm_create(size_t mem_max, uint32_t seed)
{
	if (mem_max == 0)
		mem_max = RT_REASM_MEM_DEFAULT;
	mem_max = RTE_MAX(RTE_MIN(mem_max, (size_t)RT_REASM_MEM_MAX), (size_t)RT_REASM_MEM_MIN);
	struct rt_reasm *ra = calloc(1, sizeof(*ra));
	if (ra == NULL)
		return NULL;
	ra->seed = seed;
	ra->nb_chunks = ra->nb_free_chunks = (uint32_t)(mem_max / CHUNK);
	ra->src_max_chunks = ra->nb_chunks / SRC_SHARE;
	ra->src_max_dgrams = RT_REASM_MAX / SRC_SHARE;
	ra->mem = malloc((size_t)ra->nb_chunks * CHUNK);
	ra->free_chunks = malloc(ra->nb_chunks * sizeof(*ra->free_chunks));
	if (ra->mem == NULL || ra->free_chunks == NULL) {
		rt_reasm_destroy(ra);
		return NULL;
	}
	for (uint32_t i = 0; i < ra->nb_chunks; i++)
		ra->free_chunks[i] = (uint16_t)i;
	for (unsigned int i = 0; i < HASH_BUCKETS; i++)
		ra->hash[i] = NIL;
	for (unsigned int i = 0; i < RT_REASM_MAX; i++)
		ra->d[i].hnext = i + 1 < RT_REASM_MAX ? (uint16_t)(i + 1) : NIL;
	ra->free_dgram = 0;
	ra->oldest[0] = ra->oldest[1] = ra->newest[0] = ra->newest[1] = NIL;
	return ra;
}

void
rt_reasm_destroy(struct rt_reasm *ra)
{
	if (ra == NULL)
		return;
	free(ra->mem);
	free(ra->free_chunks);
	free(ra);
}

/* Append n bytes at src to the chain whose last segment is *last,
 * taking segments from pool as each fills. @return -1 when mbufs run
 * out (the caller frees the chain). */
static int
append(struct rte_mempool *pool, struct rte_mbuf *head, struct rte_mbuf **last, const uint8_t *src,
       uint32_t n)
{
	while (n > 0) {
		uint16_t room = rte_pktmbuf_tailroom(*last);
		if (room == 0) {
			struct rte_mbuf *seg = rte_pktmbuf_alloc(pool);
			if (seg == NULL)
				return -1;
			(*last)->next = seg;
			*last = seg;
			head->nb_segs++;
			continue;
		}
		uint16_t k = (uint16_t)RTE_MIN(n, (uint32_t)room);
		memcpy(rte_pktmbuf_mtod_offset(*last, uint8_t *, (*last)->data_len), src, k);
		(*last)->data_len = (uint16_t)((*last)->data_len + k);
		head->pkt_len += k;
		src += k;
		n -= k;
	}
	return 0;
}

/* The frame of a whole datagram of `total` data bytes, its data still to
 * append: the first fragment's headers hdr (hdr_len bytes, its
 * unfragmentable part unfrag_len of them after Ethernet), less its
 * Fragment header for IPv6 (whose next header, proto, takes the place
 * of the byte at nh_at), lengths set. NULL when mbufs run out. */
static struct rte_mbuf *
whole_head(struct rte_mempool *pool, const uint8_t *hdr, uint8_t family, uint16_t unfrag_len,
	   uint16_t nh_at, uint8_t proto, uint32_t total)
{
	unsigned int len = RTE_ETHER_HDR_LEN + unfrag_len;
	struct rte_mbuf *head = rte_pktmbuf_alloc(pool);
	if (head == NULL || rte_pktmbuf_tailroom(head) < len + 8) {
		rte_pktmbuf_free(head);
		return NULL;
	}
	uint8_t *h = (uint8_t *)rte_pktmbuf_append(head, (uint16_t)len);
	memcpy(h, hdr, len);
	uint16_t iplen = (uint16_t)rt_frag_ip_length(family, unfrag_len, total);
	if (family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(h + RTE_ETHER_HDR_LEN);
		ip->total_length = rte_cpu_to_be_16(iplen);
		ip->fragment_offset = 0;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(h + RTE_ETHER_HDR_LEN);
		ip->payload_len = rte_cpu_to_be_16(iplen);
		h[nh_at] = proto;
	}
	return head;
}

/* The lists and counts a descriptor is on. */

static unsigned int
fam(uint8_t family)
{
	return family == 6;
}

/* The addresses come straight from frames, at any alignment: copied
 * into words for rte_jhash, which reads words. */
static uint32_t
key_hash(const struct rt_reasm *ra, uint8_t family, uint8_t proto, uint32_t id, const uint8_t *src,
	 const uint8_t *dst)
{
	unsigned int alen = family == 4 ? 4 : 16;
	uint32_t k[8];
	memcpy(k, src, alen);
	memcpy(k + alen / 4, dst, alen);
	return rte_jhash_32b(k, alen / 2,
			     ra->seed ^ id ^ (uint32_t)family << 8 ^ (family == 4 ? proto : 0)) &
	       (HASH_BUCKETS - 1);
}

/* A source's bucket: an IPv4 address, an IPv6 /64 (a host has a /64 to
 * pick addresses from, so a limit on less would not hold it). */
static uint16_t
src_bucket(const struct rt_reasm *ra, uint8_t family, const uint8_t *src)
{
	uint32_t k[2];
	memcpy(k, src, family == 4 ? 4 : 8);
	return (uint16_t)(rte_jhash_32b(k, family == 4 ? 1 : 2, ra->seed + family) &
			  (SRC_BUCKETS - 1));
}

static uint16_t
idx(const struct rt_reasm *ra, const struct dgram *d)
{
	return (uint16_t)(d - ra->d);
}

static void
chunks_free(struct rt_reasm *ra, struct dgram *d)
{
	for (unsigned int i = 0; i < DGRAM_CHUNKS && d->nb_chunks > 0; i++)
		if (d->chunk[i] != NIL) {
			ra->free_chunks[ra->nb_free_chunks++] = d->chunk[i];
			d->chunk[i] = NIL;
			d->nb_chunks--;
			ra->src_chunks[d->src_bucket]--;
		}
}

/* Take d off every list and give its memory back. */
static void
release(struct rt_reasm *ra, struct dgram *d)
{
	uint16_t i = idx(ra, d);
	uint32_t b = key_hash(ra, d->family, d->proto, d->id, d->src, d->dst);
	for (uint16_t *p = &ra->hash[b]; *p != NIL; p = &ra->d[*p].hnext)
		if (*p == i) {
			*p = d->hnext;
			break;
		}
	unsigned int f = fam(d->family);
	if (d->older != NIL)
		ra->d[d->older].newer = d->newer;
	else
		ra->oldest[f] = d->newer;
	if (d->newer != NIL)
		ra->d[d->newer].older = d->older;
	else
		ra->newest[f] = d->older;
	chunks_free(ra, d);
	ra->src_dgrams[d->src_bucket]--;
	d->used = false;
	d->hnext = ra->free_dgram;
	ra->free_dgram = i;
	ra->st.pending--;
}

static void
give_up(struct rt_reasm *ra, struct dgram *d)
{
	release(ra, d);
	ra->st.fails++;
}

static void
evict(struct rt_reasm *ra, struct dgram *d, bool for_source)
{
	give_up(ra, d);
	ra->st.evicted++;
	ra->st.src_evicted += for_source;
}

/* The oldest pending datagram but keep (NULL for none), of source bucket
 * sb of family only when family is not 0. */
static struct dgram *
oldest(struct rt_reasm *ra, const struct dgram *keep, uint8_t family, uint16_t sb)
{
	struct dgram *best = NULL;
	for (unsigned int f = 0; f < 2; f++) {
		if (family != 0 && fam(family) != f)
			continue;
		for (uint16_t i = ra->oldest[f]; i != NIL; i = ra->d[i].newer) {
			struct dgram *d = &ra->d[i];
			if (d == keep || (family != 0 && d->src_bucket != sb))
				continue;
			if (best == NULL || d->created_ms < best->created_ms)
				best = d;
			break;
		}
	}
	return best;
}

/* A chunk for d's data at chunk number ci: from the pool, else by
 * evicting others, the source's own first when it is over its share.
 * @return false when none can be had. */
static bool
chunk_take(struct rt_reasm *ra, struct dgram *d, unsigned int ci)
{
	while (ra->src_chunks[d->src_bucket] >= ra->src_max_chunks) {
		struct dgram *v = oldest(ra, d, d->family, d->src_bucket);
		if (v == NULL)
			return false;
		evict(ra, v, true);
	}
	while (ra->nb_free_chunks == 0) {
		struct dgram *v = oldest(ra, d, 0, 0);
		if (v == NULL)
			return false;
		evict(ra, v, false);
	}
	d->chunk[ci] = ra->free_chunks[--ra->nb_free_chunks];
	d->nb_chunks++;
	ra->src_chunks[d->src_bucket]++;
	return true;
}

/* Copy len bytes at src into d's data at off. @return false when memory
 * cannot be had. */
static bool
store(struct rt_reasm *ra, struct dgram *d, uint32_t off, const uint8_t *src, uint32_t len)
{
	while (len > 0) {
		unsigned int ci = off / CHUNK, co = off % CHUNK;
		uint32_t n = RTE_MIN(len, CHUNK - co);
		if (d->chunk[ci] == NIL && !chunk_take(ra, d, ci))
			return false;
		memcpy(ra->mem + (size_t)d->chunk[ci] * CHUNK + co, src, n);
		off += n;
		src += n;
		len -= n;
	}
	return true;
}

/* Append d's data [0, n) to a chain. */
static int
append_data(struct rt_reasm *ra, const struct dgram *d, struct rte_mempool *pool,
	    struct rte_mbuf *head, struct rte_mbuf **last, uint32_t n)
{
	for (uint32_t off = 0; off < n; off += CHUNK)
		if (append(pool, head, last, ra->mem + (size_t)d->chunk[off / CHUNK] * CHUNK,
			   RTE_MIN(n - off, CHUNK)) < 0)
			return -1;
	return 0;
}

/* The pending datagram fi belongs to, or a new one (making room as
 * chunk_take does). NULL when none can be had. */
static struct dgram *
find(struct rt_reasm *ra, const struct frag_info *fi, uint64_t now_ms)
{
	unsigned int alen = fi->family == 4 ? 4 : 16;
	uint32_t b = key_hash(ra, fi->family, fi->proto, fi->id, fi->src, fi->dst);
	for (uint16_t i = ra->hash[b]; i != NIL; i = ra->d[i].hnext) {
		struct dgram *d = &ra->d[i];
		/* RFC 791: source, destination, protocol and identification;
		 * RFC 8200: source, destination and identification. */
		if (d->family == fi->family && d->id == fi->id &&
		    (fi->family == 6 || d->proto == fi->proto) &&
		    memcmp(d->src, fi->src, alen) == 0 && memcmp(d->dst, fi->dst, alen) == 0)
			return d;
	}
	uint16_t sb = src_bucket(ra, fi->family, fi->src);
	while (ra->src_dgrams[sb] >= ra->src_max_dgrams) {
		struct dgram *v = oldest(ra, NULL, fi->family, sb);
		if (v == NULL)
			return NULL;
		evict(ra, v, true);
	}
	if (ra->free_dgram == NIL) {
		struct dgram *v = oldest(ra, NULL, 0, 0);
		if (v == NULL)
			return NULL;
		evict(ra, v, false);
	}
	uint16_t i = ra->free_dgram;
	struct dgram *d = &ra->d[i];
	ra->free_dgram = d->hnext;
	memset(d, 0, offsetof(struct dgram, units));
	memset(d->units, 0, sizeof(d->units));
	d->used = true;
	d->family = fi->family;
	d->proto = fi->family == 4 ? fi->proto : 0;
	d->id = fi->id;
	memcpy(d->src, fi->src, alen);
	memcpy(d->dst, fi->dst, alen);
	d->src_bucket = sb;
	d->created_ms = now_ms;
	d->expires_ms = now_ms + (fi->family == 4 ? RT_REASM_TIMEOUT4_MS : RT_REASM_TIMEOUT6_MS);
	for (unsigned int c = 0; c < DGRAM_CHUNKS; c++)
		d->chunk[c] = NIL;
	d->hnext = ra->hash[b];
	ra->hash[b] = i;
	unsigned int f = fam(fi->family);
	d->older = ra->newest[f];
	d->newer = NIL;
	if (ra->newest[f] != NIL)
		ra->d[ra->newest[f]].newer = i;
	else
		ra->oldest[f] = i;
	ra->newest[f] = i;
	ra->src_dgrams[sb]++;
	ra->st.pending++;
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

/* Add fragment m (fi) to d: its data copied, and its headers when it is
 * the first. @return false when it conflicts with what d holds, would
 * make d too long, or finds no memory: d is then given up. m stays the
 * caller's. */
static bool
add_fragment(struct rt_reasm *ra, struct dgram *d, const struct rte_mbuf *m,
	     const struct frag_info *fi)
{
	uint32_t end = fi->off + fi->len;
	/* The last fragment fixes the length; nothing may lie beyond it, and
	 * a second last fragment must agree. */
	bool bad = (!fi->more && ((d->total != 0 && d->total != end) || d->end > end)) ||
		   (fi->more && d->total != 0 && end > d->total);
	/* With the first fragment's headers (options, extension headers),
	 * the whole must still fit its length field. */
	uint16_t unfrag = fi->off == 0 ? fi->unfrag_len : d->unfrag_len;
	if (fi->off == 0 || d->hdr_len != 0)
		bad |= rt_frag_ip_length(d->family, unfrag, RTE_MAX(end, d->end)) > 65535;
	bad |= fi->off == 0 && fi->data_at - 8u * (d->family == 6) > RT_REASM_HDR_MAX;
	if (bad) {
		give_up(ra, d);
		return false;
	}
	uint32_t ua = fi->off / 8, ub = (end + 7) / 8;
	unsigned int marked = units_marked(d->units, ua, ub);
	if (ub > ua && marked == ub - ua) /* a duplicate: ignored (not an empty last one) */
		return true;
	if (marked != 0 || /* an overlap: the whole datagram goes (RFC 5722) */
	    !store(ra, d, fi->off, rte_pktmbuf_mtod_offset(m, const uint8_t *, fi->data_at),
		   fi->len)) {
		give_up(ra, d);
		return false;
	}
	units_mark(d->units, ua, ub);
	d->got += fi->len;
	if (end > d->end)
		d->end = end;
	if (!fi->more)
		d->total = end;
	if (fi->off == 0) {
		/* Its headers, less an IPv6 Fragment header (8 bytes at the
		 * end of them, never copied: whole_head ends where it starts). */
		d->hdr_len = (uint16_t)(fi->data_at - 8u * (d->family == 6));
		memcpy(d->hdr, rte_pktmbuf_mtod(m, const uint8_t *), d->hdr_len);
		d->unfrag_len = fi->unfrag_len;
		d->nh_at = fi->nh_at;
		d->first_proto = fi->proto;
		d->first_len = (uint16_t)RTE_MIN(fi->len, 65535u);
		d->port = m->port;
	}
	return true;
}

struct rte_mbuf *
rt_reasm_in(struct rt_reasm *ra, struct rte_mbuf *m, struct rte_mempool *pool, uint64_t now_ms,
	    uint16_t *pointer)
{
	struct frag_info fi;
	struct rte_mbuf *whole = NULL, *last;
	ra->st.reqds++;
	*pointer = 0;
	if (rt_frag_parse(m, &fi) != 0)
		goto fail; /* not a fragment after all */
	uint16_t at = rt_frag_bad_length(&fi);
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
		whole = whole_head(pool, rte_pktmbuf_mtod(m, const uint8_t *), 6, fi.unfrag_len,
				   fi.nh_at, fi.proto, fi.len);
		last = whole;
		if (whole == NULL ||
		    append(pool, whole, &last,
			   rte_pktmbuf_mtod_offset(m, const uint8_t *, fi.data_at), fi.len) < 0) {
			rte_pktmbuf_free(whole);
			goto fail;
		}
		whole->port = m->port;
		rte_pktmbuf_free(m);
		ra->st.oks++;
		return whole;
	}
	struct dgram *d = find(ra, &fi, now_ms);
	if (d == NULL || !add_fragment(ra, d, m, &fi))
		goto fail;
	rte_pktmbuf_free(m);
	if (d->hdr_len == 0 || d->total == 0 || d->got != d->total)
		return NULL;
	whole = whole_head(pool, d->hdr, d->family, d->unfrag_len, d->nh_at, d->first_proto,
			   d->total);
	last = whole;
	if (whole == NULL || append_data(ra, d, pool, whole, &last, d->total) < 0) {
		rte_pktmbuf_free(whole);
		give_up(ra, d);
		return NULL;
	}
	whole->port = d->port;
	release(ra, d);
	ra->st.oks++;
	return whole;
fail:
	ra->st.fails++;
	rte_pktmbuf_free(m);
	return NULL;
}

/* The first fragment of d as it came, its data cut to what an ICMP error
 * quotes; NULL when it never came or mbufs run out. */
static struct rte_mbuf *
first_copy(struct rt_reasm *ra, const struct dgram *d, struct rte_mempool *pool)
{
	if (d->hdr_len == 0)
		return NULL;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *last = m;
	uint32_t n = RTE_MIN((uint32_t)d->first_len, QUOTE_MAX);
	if (m == NULL || rte_pktmbuf_tailroom(m) < d->hdr_len + 8u + n) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	append(pool, m, &last, d->hdr, d->hdr_len);
	if (d->family == 6) { /* its Fragment header: offset 0, more to come */
		const uint8_t fh[8] = {d->first_proto,
				       0,
				       0,
				       1,
				       (uint8_t)(d->id >> 24),
				       (uint8_t)(d->id >> 16),
				       (uint8_t)(d->id >> 8),
				       (uint8_t)d->id};
		append(pool, m, &last, fh, sizeof(fh));
	}
	append_data(ra, d, pool, m, &last, n);
	m->port = d->port;
	return m;
}

struct rte_mbuf *
rt_reasm_expire(struct rt_reasm *ra, struct rte_mempool *pool, uint64_t now_ms)
{
	for (unsigned int f = 0; f < 2; f++)
		while (ra->oldest[f] != NIL && now_ms >= ra->d[ra->oldest[f]].expires_ms) {
			struct dgram *d = &ra->d[ra->oldest[f]];
			struct rte_mbuf *first = first_copy(ra, d, pool);
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
	s->bytes = (uint64_t)(ra->nb_chunks - ra->nb_free_chunks) * CHUNK;
}
