/* SPDX-License-Identifier: BSD-3-Clause */
/* The fuzzer's frames (frames.h). Checksums are computed right, so that
 * what is broken is broken on purpose (fz_mutate) and the deep paths
 * (closed ports, echo, reassembly) are reached. */
#include <string.h>

#include "frames.h"

uint64_t
fz_next(struct fz_rng *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return g->s;
}

uint32_t
fz_below(struct fz_rng *g, uint32_t n)
{
	return n ? (uint32_t)(fz_next(g) % n) : 0;
}

static void
fill(struct fz_rng *g, uint8_t *p, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (uint8_t)fz_next(g);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t
sum(const uint8_t *p, unsigned int n, uint32_t s)
{
	for (unsigned int i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* The router's addresses and its neighbours' (frames.h). */
static const uint8_t router4[2][4] = {{192, 0, 2, 1}, {198, 51, 100, 1}};
static const uint8_t host4[2][4] = {{192, 0, 2, 2}, {198, 51, 100, 2}};
static const uint8_t router6[2][16] = {{0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1},
				       {0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 1}};
static const uint8_t host6[2][16] = {{0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2},
				     {0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 2}};
static const uint8_t router_ll6[2][16] = {{0xfe, 0x80, [15] = 1}, {0xfe, 0x80, [15] = 2}};
static const uint8_t ll6[16] = {0xfe, 0x80, [8] = 0x02, [15] = 0x22};
static const uint8_t router_mac[2][6] = {{0x02, 0, 0, 0, 0, 0x10}, {0x02, 0, 0, 0, 0, 0x11}};
static const uint8_t host_mac[6] = {0x02, 0, 0, 0, 0, 0x22};

bool
fz_router_addr(const uint8_t *a, bool v6)
{
	for (int p = 0; p < 2; p++)
		if (v6 ? memcmp(a, router6[p], 16) == 0 || memcmp(a, router_ll6[p], 16) == 0
		       : memcmp(a, router4[p], 4) == 0)
			return true;
	return false;
}

/* Ethernet to the router's port (or broadcast), of ethertype. */
static uint8_t *
eth(uint8_t *f, unsigned int port, uint16_t type, int bcast)
{
	if (bcast)
		memset(f, 0xff, 6);
	else
		memcpy(f, router_mac[port], 6);
	memcpy(f + 6, host_mac, 6);
	put16(f + 12, type);
	return f + 14;
}

/* An IPv4 header of ihl words (options random) for len bytes of payload;
 * its checksum set. @return the payload. */
static uint8_t *
ip4(struct fz_rng *g, uint8_t *ip, unsigned int ihl, uint8_t proto, const uint8_t *src,
    const uint8_t *dst, unsigned int len, uint8_t ttl, uint16_t frag)
{
	memset(ip, 0, 20);
	ip[0] = (uint8_t)(0x40 | ihl);
	put16(ip + 2, (uint16_t)(ihl * 4 + len));
	put16(ip + 4, (uint16_t)fz_next(g));
	put16(ip + 6, frag);
	ip[8] = ttl;
	ip[9] = proto;
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, dst, 4);
	/* Options: NOP, EOL, record route, timestamp, source routes, with
	 * lengths right or not. */
	for (unsigned int at = 20; at < ihl * 4;) {
		unsigned int room = ihl * 4 - at;
		static const uint8_t kinds[] = {1, 0, 7, 0x44, 0x83, 0x89, 0x94, 0xff};
		uint8_t k = kinds[fz_below(g, sizeof(kinds))];
		ip[at] = k;
		if (k <= 1 || room < 2) {
			at++;
			continue;
		}
		uint8_t l = (uint8_t)(fz_below(g, 4) ? 3 + fz_below(g, room - 2) : fz_next(g));
		ip[at + 1] = l;
		if (room > 2)
			ip[at + 2] = (uint8_t)(4 + 4 * fz_below(g, 4));
		for (unsigned int i = 3; i < room && i < (unsigned int)(l < 3 ? 3 : l); i++)
			ip[at + i] = (uint8_t)fz_next(g);
		at += l < 2 ? 2 : l;
	}
	put16(ip + 10, fold(sum(ip, ihl * 4, 0)));
	return ip + ihl * 4;
}

static uint8_t *
ip6(uint8_t *ip, uint8_t nh, const uint8_t *src, const uint8_t *dst, unsigned int len, uint8_t hlim)
{
	memset(ip, 0, 8);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)len);
	ip[6] = nh;
	ip[7] = hlim;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	return ip + 40;
}

/* The upper-layer checksum at off in l4 (len bytes), with the pseudo
 * header of the family. */
static void
l4_sum(uint8_t *l4, unsigned int len, unsigned int off, uint8_t proto, const uint8_t *src,
       const uint8_t *dst, int v6)
{
	put16(l4 + off, 0);
	unsigned int alen = v6 ? 16 : 4;
	uint32_t s = sum(src, alen, 0);
	s = sum(dst, alen, s);
	s += proto + len;
	put16(l4 + off, fold(sum(l4, len, s)));
}

static unsigned int
arp(struct fz_rng *g, unsigned int port, uint8_t *f)
{
	uint8_t *a = eth(f, port, 0x0806, (int)fz_below(g, 2));
	static const uint8_t hdr[6] = {0, 1, 8, 0, 6, 4};
	memcpy(a, hdr, 6);
	put16(a + 6, (uint16_t)(1 + fz_below(g, 3))); /* request, reply, or else */
	memcpy(a + 8, host_mac, 6);
	const uint8_t *spa = fz_below(g, 4) ? host4[port] : router4[port]; /* a conflict */
	memcpy(a + 14, spa, 4);
	memset(a + 18, 0, 6);
	memcpy(a + 24, fz_below(g, 3) ? router4[port] : host4[port], 4); /* or gratuitous */
	if (fz_below(g, 8) == 0)
		a[27] = (uint8_t)fz_next(g);
	return 14 + 28 + fz_below(g, 20);
}

static unsigned int
nd(struct fz_rng *g, unsigned int port, uint8_t *f)
{
	uint8_t *ip = eth(f, port, 0x86dd, 0);
	static const uint8_t types[] = {135, 136, 133, 134, 137};
	uint8_t type = types[fz_below(g, sizeof(types))];
	uint8_t *m = ip + 40;
	memset(m, 0, 200);
	m[0] = type;
	unsigned int len = 8;
	const uint8_t *src = fz_below(g, 2) ? ll6 : host6[port];
	uint8_t dst[16];
	memcpy(dst, router6[port], 16);
	if (type == 135 || type == 136 || type == 137) {
		memcpy(m + 8, fz_below(g, 4) ? router6[port] : host6[port], 16); /* target */
		len = 24;
		if (type == 136)
			m[4] = (uint8_t)(fz_below(g, 8) << 5); /* R, S, O */
		static const uint8_t unspecified[16];
		if (type == 135 && fz_below(g, 4) == 0)
			src = unspecified; /* DAD */
		if (type == 137) {
			memcpy(m + 24, host6[port], 16); /* destination */
			len = 40;
		}
	} else if (type == 134) {
		m[4] = 64;
		m[5] = (uint8_t)fz_next(g);
		put16(m + 6, (uint16_t)fz_below(g, 9000));
		len = 16;
		src = ll6;
	}
	if (type == 133 || type == 135 || type == 134) {
		static const uint8_t all_routers[16] = {0xff, 0x02, [15] = 2};
		if (type == 133)
			memcpy(dst, all_routers, 16);
	}
	/* Options: link-layer addresses, prefix information, MTU, junk. */
	for (unsigned int k = fz_below(g, 4); k > 0 && len + 32 <= 200; k--) {
		uint8_t *o = m + len;
		o[0] = (uint8_t)(fz_below(g, 4) ? 1 + fz_below(g, 5) : fz_next(g));
		o[1] = (uint8_t)(fz_below(g, 8) ? (o[0] == 3 ? 4 : 1) : fz_below(g, 5));
		fill(g, o + 2, 30);
		if (o[0] <= 2)
			memcpy(o + 2, host_mac, 6);
		len += o[1] ? o[1] * 8u : 8u;
	}
	ip6(ip, 58, src, dst, len, fz_below(g, 8) ? 255 : (uint8_t)fz_next(g));
	l4_sum(m, len, 2, 58, src, dst, 1);
	return 14 + 40 + len;
}

static unsigned int
echo(struct fz_rng *g, unsigned int port, uint8_t *f)
{
	unsigned int n = fz_below(g, 4) ? fz_below(g, 100) : fz_below(g, 1400);
	if (fz_below(g, 2)) {
		uint8_t *ip = eth(f, port, 0x0800, 0);
		uint8_t *m = ip4(g, ip, 5, 1, host4[port], router4[fz_below(g, 2)], 8 + n, 64, 0);
		m[0] = 8;
		m[1] = 0;
		fill(g, m + 4, 4 + n);
		put16(m + 2, 0);
		put16(m + 2, fold(sum(m, 8 + n, 0)));
		return 14 + 20 + 8 + n;
	}
	uint8_t *ip = eth(f, port, 0x86dd, 0);
	const uint8_t *dst = fz_below(g, 4) ? router6[fz_below(g, 2)] : ll6;
	uint8_t *m = ip6(ip, 58, host6[port], dst, 8 + n, 64);
	m[0] = 128;
	m[1] = 0;
	fill(g, m + 4, 4 + n);
	l4_sum(m, 8 + n, 2, 58, host6[port], dst, 1);
	return 14 + 40 + 8 + n;
}

/* An ICMP error quoting random bytes, or a random header of either
 * family, cut anywhere. */
static unsigned int
icmp_error(struct fz_rng *g, unsigned int port, uint8_t *f)
{
	unsigned int q = fz_below(g, 600);
	int v6 = (int)fz_below(g, 2);
	int to_router = (int)fz_below(g, 2);
	if (!v6) {
		uint8_t *ip = eth(f, port, 0x0800, 0);
		const uint8_t *dst = to_router ? router4[port] : host4[1 - port];
		uint8_t *m = ip4(g, ip, 5, 1, host4[port], dst, 8 + q,
				 (uint8_t)(1 + fz_below(g, 64)), 0);
		static const uint8_t types[] = {3, 4, 5, 11, 12, 0, 13, 17};
		m[0] = types[fz_below(g, sizeof(types))];
		m[1] = (uint8_t)fz_below(g, 16);
		fill(g, m + 4, 4 + q);
		if (q >= 20 && fz_below(g, 2)) { /* quoting a plausible header */
			m[8] = 0x45;
			put16(m + 10, (uint16_t)fz_next(g));
			m[17] = (uint8_t)(fz_below(g, 2) ? 6 : 17);
		}
		put16(m + 2, 0);
		put16(m + 2, fold(sum(m, 8 + q, 0)));
		return 14 + 20 + 8 + q;
	}
	uint8_t *ip = eth(f, port, 0x86dd, 0);
	const uint8_t *dst = to_router ? router6[port] : host6[1 - port];
	uint8_t *m = ip6(ip, 58, host6[port], dst, 8 + q, (uint8_t)(1 + fz_below(g, 64)));
	m[0] = (uint8_t)(1 + fz_below(g, 4));
	m[1] = (uint8_t)fz_below(g, 8);
	fill(g, m + 4, 4 + q);
	if (q >= 40 && fz_below(g, 2))
		m[8] = 0x60;
	l4_sum(m, 8 + q, 2, 58, host6[port], dst, 1);
	return 14 + 40 + 8 + q;
}

static unsigned int
options(struct fz_rng *g, unsigned int port, uint8_t *f)
{
	uint8_t *ip = eth(f, port, 0x0800, 0);
	unsigned int ihl = 6 + fz_below(g, 10), n = fz_below(g, 200);
	static const uint8_t protos[] = {1, 6, 17, 89, 253};
	uint8_t proto = protos[fz_below(g, sizeof(protos))];
	const uint8_t *dst = fz_below(g, 2) ? router4[port] : host4[1 - port];
	uint8_t *p = ip4(g, ip, ihl, proto, host4[port], dst, n, (uint8_t)(1 + fz_below(g, 3)), 0);
	fill(g, p, n);
	if (proto == 1 && n >= 8) {
		p[0] = 8;
		p[1] = 0;
		put16(p + 2, 0);
		put16(p + 2, fold(sum(p, n, 0)));
	}
	return 14 + ihl * 4 + n;
}

/* A chain of IPv6 extension headers (Hop-by-Hop, Routing of types 0, 2,
 * 3 and 4, Destination Options, Fragment, No Next Header) before an
 * upper layer or none. */
static unsigned int
ext_chain(struct fz_rng *g, unsigned int port, uint8_t *f)
{
	uint8_t *ip = eth(f, port, 0x86dd, 0);
	const uint8_t *dst = fz_below(g, 2) ? router6[port] : host6[1 - port];
	static const uint8_t kinds[] = {0, 43, 60, 44, 59, 58, 6, 17, 135};
	uint8_t *p = ip + 40, first = kinds[fz_below(g, sizeof(kinds))], *nh = &first;
	unsigned int len = 0;
	for (unsigned int k = fz_below(g, 6); k > 0 && len < 600; k--) {
		uint8_t kind = *nh;
		if (kind != 0 && kind != 43 && kind != 60 && kind != 44)
			break;
		uint8_t *h = p + len;
		unsigned int hl = kind == 44 ? 8 : 8 * (1 + fz_below(g, 4));
		fill(g, h, hl);
		h[0] = kinds[fz_below(g, sizeof(kinds))];
		if (kind != 44)
			h[1] = (uint8_t)(hl / 8 - 1);
		if (kind == 43)
			h[2] = (uint8_t)fz_below(g, 5);
		nh = &h[0];
		len += hl;
	}
	unsigned int n = fz_below(g, 64);
	fill(g, p + len, n);
	len += n;
	ip6(ip, first, host6[port], dst, len, (uint8_t)(1 + fz_below(g, 64)));
	return 14 + 40 + len;
}

/* Fragment trains: one is cut ahead of time (its header lengths, order,
 * overlaps, size) and handed out a piece a call. */
static struct {
	unsigned int left, port;
	uint8_t pieces[48][FZ_FRAME_MAX];
	unsigned int len[48];
} train;

static void
new_train(struct fz_rng *g, unsigned int port)
{
	int v6 = (int)fz_below(g, 2);
	/* Sizes to and past what a length field says: 65,476 to 65,515 data
	 * bytes fit with a plain header and not with the first fragment's
	 * options (the train that wrapped the rebuilt length). */
	static const unsigned int totals[] = {16,    1000,  3000,  20000, 65000,
					      65480, 65515, 65528, 65535, 70000};
	unsigned int total = totals[fz_below(g, sizeof(totals) / sizeof(totals[0]))];
	unsigned int step = 8 * (1 + fz_below(g, 180)), n = 0;
	uint32_t id = (uint32_t)fz_next(g);
	/* Half the trains are clean, so that large datagrams complete; the
	 * others break a piece now and then. */
	unsigned int odds = fz_below(g, 2) ? 1000000 : 20;
	uint8_t proto = fz_below(g, 4) ? 1 : 17; /* IPv4's is part of the key: one a train */
	if (total / step > 46)
		step = ((total + 46) / 47 + 7) & ~7u;
	if (step > 1400)
		step = 1400;
	for (unsigned int off = 0; off < total && n < 48; n++) {
		unsigned int len = total - off < step ? total - off : step;
		int more = off + len < total;
		if (fz_below(g, odds / 2) == 0)
			len = fz_below(g, len + 16); /* unaligned, shorter, longer */
		if (fz_below(g, odds) == 0)
			more = !more;
		uint8_t *f = train.pieces[n];
		unsigned int flen;
		if (!v6) {
			unsigned int ihl = off == 0 && fz_below(g, 2) ? 5 + fz_below(g, 11) : 5;
			if (len > 1480 - (ihl - 5) * 4)
				len = 1480 - (ihl - 5) * 4;
			uint8_t *ip = eth(f, port, 0x0800, 0);
			uint8_t *p = ip4(g, ip, ihl, proto, host4[port], router4[port], len, 64,
					 (uint16_t)((more ? 0x2000 : 0) | ((off / 8) & 0x1fff)));
			put16(ip + 4, (uint16_t)id);
			put16(ip + 10, 0);
			put16(ip + 10, fold(sum(ip, ihl * 4, 0)));
			fill(g, p, len < 64 ? len : 64);
			memset(p + (len < 64 ? len : 64), 0x5a, len > 64 ? len - 64 : 0);
			if (off == 0 && len >= 8)
				p[0] = 8, p[1] = 0;
			flen = 14 + ihl * 4 + len;
		} else {
			unsigned int ext =
				off == 0 && fz_below(g, 2) ? 8 * (1 + fz_below(g, 8)) : 0;
			if (len > 1400 - ext)
				len = 1400 - ext;
			uint8_t *ip = eth(f, port, 0x86dd, 0);
			uint8_t *p = ip6(ip, ext ? 60 : 44, host6[port], router6[port],
					 ext + 8 + len, 64);
			if (ext) {
				memset(p, 0, ext);
				p[0] = 44;
				p[1] = (uint8_t)(ext / 8 - 1);
				p[2] = 1;
				p[3] = (uint8_t)(ext - 4);
			}
			uint8_t *fh = p + ext;
			fh[0] = proto == 1 ? 58 : 17;
			fh[1] = 0;
			put16(fh + 2, (uint16_t)((off & 0xfff8) | (more ? 1 : 0)));
			fh[4] = (uint8_t)(id >> 24), fh[5] = (uint8_t)(id >> 16);
			fh[6] = (uint8_t)(id >> 8), fh[7] = (uint8_t)id;
			fill(g, fh + 8, len < 64 ? len : 64);
			memset(fh + 8 + (len < 64 ? len : 64), 0x5a, len > 64 ? len - 64 : 0);
			if (off == 0 && len >= 8)
				fh[8] = 128, fh[9] = 0;
			flen = 14 + 40 + ext + 8 + len;
		}
		train.len[n] = flen;
		/* The next piece's place: on, back (an overlap), or a gap. */
		unsigned int r = fz_below(g, odds);
		off = r == 0 && off >= 8 ? off - 8 : r == 1 ? off + step + 8 : off + step;
	}
	/* Order: as cut, reversed, or shuffled; a duplicate sometimes. */
	unsigned int order = fz_below(g, 3);
	for (unsigned int i = 0; order && i < n; i++) {
		unsigned int j = order == 1 ? n - 1 - i : fz_below(g, n);
		if (order == 1 && j <= i)
			break;
		uint8_t tmp[FZ_FRAME_MAX];
		unsigned int tl = train.len[i];
		memcpy(tmp, train.pieces[i], tl);
		memcpy(train.pieces[i], train.pieces[j], train.len[j]);
		train.len[i] = train.len[j];
		memcpy(train.pieces[j], tmp, tl);
		train.len[j] = tl;
	}
	if (n < 48 && n > 0 && fz_below(g, odds / 4 + 1) == 0) {
		unsigned int d = fz_below(g, n);
		memcpy(train.pieces[n], train.pieces[d], train.len[d]);
		train.len[n] = train.len[d];
		n++;
	}
	train.left = n;
	train.port = port;
}

static unsigned int
fragment(struct fz_rng *g, unsigned int port, uint8_t *f)
{
	if (train.left == 0)
		new_train(g, port);
	unsigned int i = --train.left, len = train.len[i];
	memcpy(f, train.pieces[i], len);
	memcpy(f, router_mac[port], 6); /* a train's pieces come by either port */
	return len;
}

static unsigned int
l4_local(struct fz_rng *g, unsigned int port, uint8_t *f)
{
	int v6 = (int)fz_below(g, 2), tcp = (int)fz_below(g, 2);
	static const uint16_t ports[] = {179, 22, 3784, 4784, 53, 33434, 0, 65535};
	uint16_t sport = ports[fz_below(g, 8)], dport = ports[fz_below(g, 8)];
	if (fz_below(g, 2))
		sport = (uint16_t)fz_next(g);
	unsigned int n = fz_below(g, 100), hl = tcp ? 20 + 4 * fz_below(g, 11) : 8;
	uint8_t *l4;
	const uint8_t *src = v6 ? host6[port] : host4[port],
		      *dst = v6 ? router6[port] : router4[port];
	if (v6) {
		uint8_t *ip = eth(f, port, 0x86dd, 0);
		l4 = ip6(ip, tcp ? 6 : 17, src, dst, hl + n, 64);
	} else {
		uint8_t *ip = eth(f, port, 0x0800, 0);
		l4 = ip4(g, ip, 5, tcp ? 6 : 17, src, dst, hl + n, fz_below(g, 4) ? 64 : 1, 0);
	}
	fill(g, l4, hl + n);
	put16(l4, sport);
	put16(l4 + 2, dport);
	if (tcp) {
		l4[12] = (uint8_t)((hl / 4) << 4);
		static const uint8_t flags[] = {0x02, 0x10, 0x12, 0x04, 0x11, 0x18, 0x3f};
		l4[13] = flags[fz_below(g, sizeof(flags))];
	} else {
		put16(l4 + 4, (uint16_t)(8 + n));
	}
	if (fz_below(g, 8))
		l4_sum(l4, hl + n, tcp ? 16 : 6, tcp ? 6 : 17, src, dst, v6);
	return 14 + (v6 ? 40 : 20) + hl + n;
}

static unsigned int
forward(struct fz_rng *g, unsigned int port, uint8_t *f)
{
	int v6 = (int)fz_below(g, 2);
	unsigned int n = fz_below(g, 4) ? fz_below(g, 200) : 1300 + fz_below(g, 150);
	uint8_t ttl = (uint8_t)(fz_below(g, 2) ? 1 : 64);
	/* Across, to an unresolved host, nowhere, or a blackhole's
	 * neighbours: 10.99/16 and 2001:db8:99::/48 go by a gateway. */
	uint8_t dst4[4] = {198, 51, 100, (uint8_t)(2 + fz_below(g, 3))},
		dst6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = (uint8_t)(2 + fz_below(g, 3))};
	switch (fz_below(g, 4)) {
	case 0:
		dst4[0] = 10, dst4[1] = 99, dst6[5] = 0x99;
		break;
	case 1:
		dst4[0] = 203, dst6[2] = 0x0e; /* no route */
		break;
	default:
		break;
	}
	if (port == 1) {
		memcpy(dst4, host4[0], 4);
		memcpy(dst6, host6[0], 16);
	}
	if (!v6) {
		uint8_t *ip = eth(f, port, 0x0800, 0);
		uint8_t *p =
			ip4(g, ip, 5, 17, host4[port], dst4, n, ttl, fz_below(g, 2) ? 0x4000 : 0);
		fill(g, p, n);
		return 14 + 20 + n;
	}
	uint8_t *ip = eth(f, port, 0x86dd, 0);
	uint8_t *p = ip6(ip, 17, host6[port], dst6, n, ttl);
	fill(g, p, n);
	return 14 + 40 + n;
}

static unsigned int
proto(struct fz_rng *g, unsigned int port, uint8_t *f)
{
	unsigned int n = 24 + fz_below(g, 100);
	int vrrp = (int)fz_below(g, 4) == 0;
	if (fz_below(g, 2)) {
		uint8_t group[4] = {224, 0, 0, (uint8_t)(vrrp ? 18 : 5 + fz_below(g, 2))};
		uint8_t *ip = f + 14;
		eth(f, port, 0x0800, 0);
		f[0] = 0x01, f[1] = 0x00, f[2] = 0x5e, f[3] = 0, f[4] = 0, f[5] = group[3];
		uint8_t *p =
			ip4(g, ip, 5, vrrp ? 112 : 89, host4[port], group, n, vrrp ? 255 : 1, 0);
		fill(g, p, n);
		return 14 + 20 + n;
	}
	uint8_t group[16] = {0xff, 0x02, [15] = (uint8_t)(vrrp ? 0x12 : 5)};
	eth(f, port, 0x86dd, 0);
	f[0] = 0x33, f[1] = 0x33, f[2] = 0, f[3] = 0, f[4] = 0, f[5] = group[15];
	uint8_t *p = ip6(f + 14, vrrp ? 112 : 89, ll6, group, n, vrrp ? 255 : 1);
	fill(g, p, n);
	return 14 + 40 + n;
}

unsigned int
fz_build(struct fz_rng *g, enum fz_class c, unsigned int port, uint8_t *f)
{
	switch (c) {
	case FZ_ARP:
		return arp(g, port, f);
	case FZ_ND:
		return nd(g, port, f);
	case FZ_ECHO:
		return echo(g, port, f);
	case FZ_ICMP_ERROR:
		return icmp_error(g, port, f);
	case FZ_OPTIONS:
		return options(g, port, f);
	case FZ_EXT_CHAIN:
		return ext_chain(g, port, f);
	case FZ_FRAGMENT:
		return fragment(g, port, f);
	case FZ_L4_LOCAL:
		return l4_local(g, port, f);
	case FZ_FORWARD:
		return forward(g, port, f);
	default:
		return proto(g, port, f);
	}
}

unsigned int
fz_mutate(struct fz_rng *g, uint8_t *f, unsigned int len)
{
	unsigned int r = fz_below(g, 16);
	if (r < 9)
		return len; /* most frames as built */
	if (r < 13) {       /* a few bytes of the headers changed */
		for (unsigned int k = 1 + fz_below(g, 4); k > 0 && len > 14; k--)
			f[14 + fz_below(g, len - 14 < 80 ? len - 14 : 80)] ^=
				(uint8_t)(1 << fz_below(g, 8));
		return len;
	}
	if (r == 13) /* a length field, IPv4's or IPv6's */
		f[16 + fz_below(g, 4)] = (uint8_t)fz_next(g);
	if (r == 14) /* cut short */
		return len > 15 ? 14 + fz_below(g, len - 14) : len;
	/* padded */
	unsigned int pad = fz_below(g, 64);
	if (len + pad > FZ_FRAME_MAX)
		pad = FZ_FRAME_MAX - len;
	fill(g, f + len, pad);
	return len + pad;
}
