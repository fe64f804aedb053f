/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's stages (dp_burst) against a model, on random frames:
 * well-formed IPv4 and IPv6 packets, then broken in the ways the wire
 * breaks them (cut short, padded, bytes flipped, wrong checksums,
 * lengths, header lengths and versions, martian and unrouted addresses,
 * TTLs of 0 and 1, frames to other or group MACs, other ethertypes),
 * mixed in bursts of 1 to 64.
 *
 * The model is RFC 1812 section 5.2.2 and RFC 8200 written plainly, not
 * the stages' shortcuts (the one-compare frame test, the checksum by
 * multiplication, the 32-bit TTL update). For every frame it says
 * whether the router forwards it; a TX callback on the egress port sees
 * what was sent and checks each packet byte for byte against its
 * original: the gateway's MAC, the port's MAC, the TTL or hop limit one
 * less, the IPv4 checksum as Linux's ip_decrease_ttl writes it, padding
 * trimmed, everything else untouched. At the end every mbuf is back in
 * the pool (nothing leaked, nothing freed twice) and the counters add up.
 * Run under the sanitizer build, it is also the stages' bounds check on
 * bad input.
 *
 * A fourth run sends IPv4 only and breaks eight times more rarely, so
 * that most aligned groups of eight frames are clean or hold a single
 * broken one: the case the stages' eight-at-a-time steps (validate4_x8,
 * dp_act_x8) take or must refuse; a fifth does the same for IPv6
 * (validate6_x8). Both add routes through a second gateway and through
 * an unresolved one, so that groups mix nexthops.
 *
 * FUZZ_SEED=N in the environment picks another sequence; a failure
 * prints the seed and the first frame that went wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "dp_inline.h"
#include "dp_harness.h"
#include "../../../bench/xorshift.h"

#define FRAMES 1000000
#define FRAME_MAX 1800 /* 14 + 60 + 1700 + padding: some are too big */
#define MTU 1500       /* dp_harness's ports */

static struct router r;
static const uint8_t gw_mac[6] = {0x02, 0, 0, 0, 0, 0x99};
static const uint8_t gw2_mac[6] = {0x02, 0, 0, 0, 0, 0x9a}; /* ECMP's second path */
static struct fib_route route4, route6;
static uint32_t gw4, gw6;    /* route4's and route6's first nexthops: resolved to gw_mac */
static uint64_t seed, seed0; /* the generator's state, and where it began */

/* The burst in flight: each frame as it was built, and what became of
 * it. */
struct sent {
	struct rte_mbuf *m;
	uint8_t orig[FRAME_MAX];
	uint16_t len;
	bool expect; /* the model forwards it */
	bool seen;   /* the TX callback saw it */
};
static struct sent burst[RT_BURST];
static unsigned int burst_n;
static unsigned long seen_total, frame_no;
static unsigned long sent_by_mac[2]; /* by gateway: gw_mac, gw2_mac */
static char failure[512];            /* the first failure, reported after the burst */
static bool clean4;                  /* IPv4 only, broken eight times more rarely */
static bool clean6;                  /* the same for IPv6 */
static bool ecmp;                    /* the routes lead to a group of two gateways */
static unsigned long clean_groups;   /* aligned groups of 8 the model forwards whole */

static uint64_t
rnd(void)
{
	return xorshift64(&seed);
}

static unsigned int
below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

/* A random event of probability 1/n (1/8n in the clean runs). */
static bool
one_in(unsigned int n)
{
	return below(clean4 || clean6 ? 8 * n : n) == 0;
}

static void
mismatch(const struct sent *s, const char *why)
{
	if (failure[0] != 0)
		return;
	int n = snprintf(failure, sizeof(failure), "frame %lu (%u bytes): %s; first bytes:",
			 frame_no - burst_n + (unsigned long)(s - burst), s->len, why);
	for (unsigned int i = 0; i < s->len && i < 64 && n < (int)sizeof(failure) - 4; i++)
		n += snprintf(failure + n, sizeof(failure) - (size_t)n, " %02x", s->orig[i]);
}

/* RFC 1071: the one's complement sum of a header verifies. */
static bool
csum_ok(const uint8_t *h, unsigned int len)
{
	uint32_t sum = 0;
	for (unsigned int i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Whether the router forwards an IPv4 frame (RFC 1812 5.2.2 and 5.3.7;
 * the one route is 198.18.0.0/15; the port's MTU). The clean IPv4 run
 * adds a default route, so that a martian destination let through would
 * be forwarded rather than punted for want of a route, and two /20s in
 * the /15: one through a second gateway, one through a gateway whose
 * neighbour is unresolved (punted), so that groups of eight mix
 * nexthops and hold packets that cannot be sent yet. */
static bool
model4(const uint8_t *f, unsigned int len)
{
	if (len < 14 + 20)
		return false;
	const uint8_t *ip = f + 14;
	unsigned int ihl = (ip[0] & 0xf) * 4u, total = (unsigned int)(ip[2] << 8 | ip[3]);
	if (ip[0] >> 4 != 4 || ihl < 20 || ihl > len - 14 || !csum_ok(ip, ihl) || total < ihl ||
	    total > len - 14)
		return false;
	uint32_t src = be32(ip + 12), dst = be32(ip + 16);
	unsigned int s0 = src >> 24, d0 = dst >> 24;
	if (s0 == 0 || s0 == 127 || (s0 >= 224 && s0 <= 239) || src == 0xffffffffu)
		return false; /* martian source */
	if (d0 == 0 || d0 == 127 || (d0 >= 224 && d0 <= 239) || dst == 0xffffffffu)
		return false; /* martian, multicast or limited broadcast destination */
	if (clean4 && (dst & 0xfffff000u) == 0xc6120000u)
		return false; /* 198.18.0.0/20: the neighbour is unresolved */
	return (clean4 || (dst & 0xfffe0000u) == 0xc6120000u) && ip[8] > 1 && total <= MTU;
}

static bool
zero_but_last(const uint8_t *a, uint8_t last)
{
	for (int i = 0; i < 15; i++)
		if (a[i] != 0)
			return false;
	return a[15] == last;
}

/* Whether the router forwards an IPv6 frame (RFC 8200, RFC 4291; the
 * one route is 2001:db8:ffff::/48; the router has no addresses, so a
 * link-local source never goes anywhere). The clean IPv6 run adds a
 * default route and two /68s in the /48, as the clean IPv4 run does:
 * 2001:db8:ffff:0:1000::/68 through a second gateway and
 * 2001:db8:ffff::/68 through an unresolved one. */
static bool
model6(const uint8_t *f, unsigned int len)
{
	static const uint8_t route[6] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff};
	if (len < 14 + 40)
		return false;
	const uint8_t *ip = f + 14, *src = ip + 8, *dst = ip + 24;
	unsigned int plen = (unsigned int)(ip[4] << 8 | ip[5]);
	if (ip[0] >> 4 != 6 || plen > len - 14 - 40)
		return false;
	if (src[0] == 0xff || zero_but_last(src, 1) || zero_but_last(src, 0) ||
	    (src[0] == 0xfe && (src[1] & 0xc0) == 0x80))
		return false;
	if (dst[0] == 0xff || zero_but_last(dst, 0) || (dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80))
		return false;
	bool in48 = memcmp(dst, route, sizeof(route)) == 0;
	if (clean6 && in48 && dst[6] == 0 && dst[7] == 0 && dst[8] >> 4 == 0)
		return false; /* the unresolved /68 */
	return (clean6 || in48) && ip[7] > 1 && 40 + plen <= MTU;
}

static bool
model(const uint8_t *f, unsigned int len)
{
	if (len < 14 || memcmp(f, r.dp.port[0].mac.addr_bytes, 6) != 0)
		return false; /* to another host, or to a group address */
	if (f[12] == 0x08 && f[13] == 0x00)
		return model4(f, len);
	if (f[12] == 0x86 && f[13] == 0xdd)
		return model6(f, len);
	return false;
}

/* A packet the router sent, against its original: NULL if it is right,
 * else what is wrong. */
static const char *
check_sent(struct sent *s, const uint8_t *out, unsigned int len)
{
	const uint8_t *o = s->orig;
	bool v4 = o[12] == 0x08;
	unsigned int ip_len =
		v4 ? (unsigned int)(o[16] << 8 | o[17]) : 40u + (unsigned int)(o[18] << 8 | o[19]);
	if (!s->expect)
		return "forwarded, the model drops it";
	if (s->seen)
		return "sent twice";
	s->seen = true;
	if (len != 14 + ip_len)
		return "sent with the wrong length (padding not trimmed?)";
	/* The route's gateway: 198.18.16.0/20's or 2001:db8:ffff:0:1000::/68's
	 * in the clean runs;
	 * either of the group's two in the ECMP run. */
	static const uint8_t in68[9] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0, 0, 0x10};
	const uint8_t *gw =
		(v4 && clean4 && (be32(o + 30) & 0xfffff000u) == 0xc6121000u) ||
				(!v4 && clean6 && memcmp(o + 38, in68, 8) == 0 && o[46] >> 4 == 1)
			? gw2_mac
			: gw_mac;
	if ((memcmp(out, gw, 6) != 0 && !(ecmp && memcmp(out, gw2_mac, 6) == 0)) ||
	    memcmp(out + 6, r.dp.port[1].mac.addr_bytes, 6) != 0 || out[12] != o[12] ||
	    out[13] != o[13])
		return "wrong Ethernet header";
	unsigned int ttl_at = v4 ? 14 + 8 : 14 + 7;
	for (unsigned int i = 14; i < len; i++) {
		if (i == ttl_at) {
			if (out[i] != o[i] - 1)
				return "TTL or hop limit not one less";
		} else if (v4 && (i == 24 || i == 25)) {
			/* Linux's ip_decrease_ttl, on this little-endian
			 * host: the checksum's bytes read as a word, plus
			 * htons(0x0100), plus one if that reached 0xffff. */
			uint32_t c = (uint32_t)(o[24] | o[25] << 8) + 0x0001;
			c = (c + (c >= 0xffff)) & 0xffff;
			if (out[24] != (c & 0xff) || out[25] != c >> 8)
				return "checksum not as Linux writes it";
		} else if (out[i] != o[i]) {
			return "a byte changed that should not have";
		}
	}
	sent_by_mac[out[5] == gw2_mac[5]]++;
	if (v4 && !csum_ok(out + 14, (out[14] & 0xf) * 4u))
		return "sent with a wrong header checksum";
	return NULL;
}

static uint16_t
tx_seen(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n, void *arg)
{
	(void)queue;
	(void)arg;
	for (uint16_t i = 0; i < n; i++) {
		seen_total++;
		unsigned int k = 0;
		while (k < burst_n && burst[k].m != pkts[i])
			k++;
		if (k == burst_n) {
			if (failure[0] == 0)
				snprintf(failure, sizeof(failure),
					 "an mbuf sent that was not received");
			continue;
		}
		const char *wrong =
			port != 1
				? "sent by the wrong port"
				: check_sent(&burst[k], rte_pktmbuf_mtod(pkts[i], const uint8_t *),
					     rte_pktmbuf_data_len(pkts[i]));
		if (wrong != NULL)
			mismatch(&burst[k], wrong);
	}
	return n;
}

/* Addresses, mostly ordinary, sometimes special. */
static void
addr4(uint8_t *a, bool is_dst)
{
	static const uint32_t odd[] = {0x00000001, 0x7f000001, 0xe0000005, 0xefffffff, 0xffffffff,
				       0xf0000001, 0x0a000001, 0xc6130a0a, 0xc6110001, 0};
	uint32_t v = is_dst ? 0xc6120000u | (uint32_t)(rnd() & 0x1ffff)
			    : 0xc0000200u | (uint32_t)below(256);
	if (one_in(5))
		v = below(3) == 0 ? (uint32_t)rnd() : odd[below(RTE_DIM(odd))];
	a[0] = (uint8_t)(v >> 24), a[1] = (uint8_t)(v >> 16), a[2] = (uint8_t)(v >> 8);
	a[3] = (uint8_t)v;
}

static void
addr6(uint8_t *a, bool is_dst)
{
	static const uint8_t base_dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff};
	static const uint8_t base_src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1};
	memcpy(a, is_dst ? base_dst : base_src, 16);
	a[15] = (uint8_t)below(256);
	a[8] = (uint8_t)below(256);
	if (!one_in(5))
		return;
	switch (below(8)) {
	case 0: /* unspecified */
		memset(a, 0, 16);
		break;
	case 1: /* loopback */
		memset(a, 0, 16);
		a[15] = 1;
		break;
	case 2: /* link-scope multicast */
		a[0] = 0xff, a[1] = 0x02;
		break;
	case 3: /* site-scope multicast */
		a[0] = 0xff, a[1] = 0x05;
		break;
	case 4: /* link-local */
		a[0] = 0xfe, a[1] = (uint8_t)(0x80 | below(64));
		break;
	case 5: /* just outside the route */
		a[5] ^= 1;
		break;
	default:
		for (int i = 0; i < 16; i++)
			a[i] = (uint8_t)rnd();
	}
}

static uint8_t
ttl(void)
{
	static const uint8_t v[] = {0, 1, 2, 64, 255};
	return one_in(4) ? v[below(RTE_DIM(v))] : 64;
}

/* A frame into f; @return its length. */
static unsigned int
build(uint8_t *f)
{
	unsigned int payload = below(10) < 5   ? below(65)
			       : below(10) < 8 ? below(1501)
					       : below(1701);
	unsigned int kind = clean4 ? 0 : clean6 ? 9 : below(20), len;
	memcpy(f, r.dp.port[0].mac.addr_bytes, 6);
	if (one_in(20)) /* broadcast, multicast or another host */
		f[0] = below(2) ? 0xff : (uint8_t)(f[0] ^ (1 + below(3)));
	for (int i = 6; i < 12; i++)
		f[i] = (uint8_t)rnd();
	f[6] &= 0xfe;
	uint8_t *ip = f + 14;
	if (kind < 9) { /* IPv4 */
		unsigned int ihl = one_in(10) ? 5 + below(11) : 5;
		f[12] = 0x08, f[13] = 0x00;
		len = 14 + ihl * 4 + payload;
		for (unsigned int i = 14; i < len; i++)
			f[i] = (uint8_t)rnd(); /* options and payload */
		ip[0] = (uint8_t)(0x40 | ihl);
		ip[2] = (uint8_t)((ihl * 4 + payload) >> 8), ip[3] = (uint8_t)(ihl * 4 + payload);
		if (!one_in(5))
			ip[6] = below(2) ? 0x40 : 0, ip[7] = 0; /* else random fragment bits */
		ip[8] = ttl();
		ip[9] = below(4) ? 17 : (uint8_t)rnd();
		addr4(ip + 12, false);
		addr4(ip + 16, true);
		if (one_in(20)) /* a length the frame does not match */
			ip[3] = (uint8_t)(ip[3] + below(9) - 4);
		ip[10] = ip[11] = 0;
		uint16_t c = (uint16_t)~rte_raw_cksum(ip, ihl * 4);
		if (clean4 && below(16) == 0) {
			/* A checksum whose second byte is 0xff, which the
			 * fast TTL update leaves to dp_ttl_dec4 (half of them
			 * 0xfffe as rte_raw_cksum reads it, one of the two it
			 * would write unlike Linux): the identification field
			 * is moved by the one's complement difference. */
			uint16_t want = below(2) ? 0xfffe : (uint16_t)(0xff00 | below(256)), id;
			uint32_t x = (uint32_t)c + (uint16_t)~want;
			memcpy(&id, ip + 4, 2);
			x = (x & 0xffff) + (x >> 16) + id;
			id = (uint16_t)((x & 0xffff) + (x >> 16));
			memcpy(ip + 4, &id, 2);
			c = (uint16_t)~rte_raw_cksum(ip, ihl * 4);
		}
		memcpy(ip + 10, &c, 2); /* rte_raw_cksum sums host-order words */
		if (one_in(20))
			ip[10] ^= (uint8_t)(1 + below(255));
		if (one_in(30)) /* another version, or a header length under 5 */
			ip[0] = below(2) ? (uint8_t)((ip[0] & 0xf) | below(16) << 4)
					 : (uint8_t)(0x40 | below(5));
	} else if (kind < 18) { /* IPv6 */
		f[12] = 0x86, f[13] = 0xdd;
		len = 14 + 40 + payload;
		for (unsigned int i = 14; i < len; i++)
			f[i] = (uint8_t)rnd();
		ip[0] = (uint8_t)(0x60 | (ip[0] & 0xf));
		if (one_in(30))
			ip[0] = (uint8_t)(below(16) << 4);
		ip[4] = (uint8_t)(payload >> 8), ip[5] = (uint8_t)payload;
		ip[6] = below(4) ? 17 : (uint8_t)rnd(); /* extension headers too */
		ip[7] = ttl();
		addr6(ip + 8, false);
		addr6(ip + 24, true);
	} else { /* ARP, VLAN or anything */
		static const uint16_t types[] = {0x0806, 0x8100, 0x88a8, 0x86dd, 0x0800};
		uint16_t t = below(2) ? types[below(RTE_DIM(types))] : (uint16_t)rnd();
		f[12] = (uint8_t)(t >> 8), f[13] = (uint8_t)t;
		len = 14 + payload;
		for (unsigned int i = 14; i < len; i++)
			f[i] = (uint8_t)rnd();
	}
	/* What the wire does to frames. */
	unsigned int what = below(clean4 || clean6 ? 160 : 20);
	if (what == 0) { /* cut short, anywhere */
		len = below(len + 1);
	} else if (what == 1 || what == 2) { /* Ethernet padding */
		unsigned int pad = RTE_MIN(below(41), FRAME_MAX - len);
		for (unsigned int i = 0; i < pad; i++)
			f[len + i] = (uint8_t)rnd();
		len += pad;
	} else if (what == 3 && f[12] == 0x86 && len >= 20) { /* a payload length off */
		f[19] = (uint8_t)(f[19] + below(9) - 4);
	} else if (what == 4 && len > 0) { /* a flipped bit in the headers */
		unsigned int at = below(RTE_MIN(len, 64u));
		f[at] ^= (uint8_t)(1u << below(8));
	}
	return len;
}

/* Punted packets would go to the control core: here they are freed. */
static unsigned int
drain_exceptions(void)
{
	struct rte_mbuf *m[64];
	unsigned int n, total = 0;
	for (uint16_t p = 0; p < r.dp.nb_ports; p++)
		for (unsigned int c = 0; c < RT_EXC_CLASSES; c++)
			while ((n = rte_ring_dequeue_burst(r.dp.worker[0].exc[p][c], (void **)m,
							   RTE_DIM(m), NULL)) > 0) {
				rte_pktmbuf_free_bulk(m, n);
				total += n;
			}
	return total;
}

static void
random_frames(void)
{
	struct rt_worker *w = &r.dp.worker[0];
	unsigned int pool0 = rte_mempool_avail_count(r.pool);
	const struct rt_wstats st0 = w->st;
	unsigned long expected = 0, punted = 0;
	seen_total = 0;
	sent_by_mac[0] = sent_by_mac[1] = 0;
	for (frame_no = 0; frame_no < FRAMES;) {
		struct rte_mbuf *pkts[RT_BURST];
		burst_n = RTE_MIN(1 + below(RT_BURST), (unsigned int)(FRAMES - frame_no));
		for (unsigned int i = 0; i < burst_n; i++, frame_no++) {
			struct sent *s = &burst[i];
			s->len = (uint16_t)build(s->orig);
			s->expect = model(s->orig, s->len);
			s->seen = false;
			expected += s->expect;
			s->m = pkts[i] = rte_pktmbuf_alloc(r.pool);
			assert_non_null(s->m);
			uint8_t *d = (uint8_t *)rte_pktmbuf_append(s->m, s->len);
			assert_true(d != NULL || s->len == 0);
			if (s->len > 0)
				memcpy(d, s->orig, s->len);
		}
		for (unsigned int g = 0; g + 8 <= burst_n; g += 8) {
			unsigned int fwd8 = 0;
			for (unsigned int i = g; i < g + 8; i++)
				fwd8 += burst[i].expect;
			clean_groups += fwd8 == 8;
		}
		dp_burst(&r.dp, w, 0, pkts, burst_n);
		for (uint16_t p = 0; p < r.dp.nb_ports; p++)
			dp_tx_flush(w, p);
		punted += drain_exceptions();
		for (unsigned int i = 0; i < burst_n && failure[0] == 0; i++)
			if (burst[i].expect && !burst[i].seen)
				mismatch(&burst[i], "not forwarded, the model forwards it");
		if (failure[0] != 0) {
			print_error("FUZZ_SEED=%llu: %s\n", (unsigned long long)seed0, failure);
			fail_msg("the stages and the model disagree");
		}
	}
	unsigned long rx = w->st.rx - st0.rx, fwd = w->st.fwd - st0.fwd;
	unsigned long dropped = w->st.drop_total - st0.drop_total;
	unsigned long punts = w->st.punt_total - st0.punt_total;
	print_message("%lu frames: %lu forwarded, %lu dropped, %lu punted\n", rx, fwd, dropped,
		      punts);
	assert_int_equal(rx, FRAMES);
	assert_int_equal(fwd, expected);
	assert_int_equal(seen_total, expected);
	assert_int_equal(punts, punted);
	assert_int_equal(fwd + dropped + punts, rx);
	/* Every mbuf came back once: none leaked, none freed twice. */
	assert_int_equal(rte_mempool_avail_count(r.pool), pool0);
	/* The mix is what it is meant to be: each outcome is common. */
	if (!clean4 && !clean6) {
		assert_true(fwd > FRAMES / 5 && dropped > FRAMES / 10 && punts > FRAMES / 20);
		return;
	}
	print_message("%lu aligned groups of 8 forwarded whole\n", clean_groups);
	assert_true(fwd > FRAMES / 2 && dropped > FRAMES / 100 && punts > FRAMES / 100);
	assert_true(clean_groups > FRAMES / 8 / 10);
}

static void
test_random_frames(void **state)
{
	(void)state;
	random_frames();
}

/* Again through the rules layer, with a rule that selects by port, so
 * the stages read the ports of every broken packet too. The rule looks
 * up main, as the implicit rule does, and the packets it does not match
 * (half the TCP and UDP ones) fall through to that: the model is
 * unchanged. What rules select is tests/unit/fib's and integration 04's
 * to check; here it is what broken packets do to the rules layer. */
static void
test_random_frames_port_rule(void **state)
{
	(void)state;
	static const uint8_t families[] = {FIB_AF_INET, FIB_AF_INET6};
	for (unsigned int i = 0; i < RTE_DIM(families); i++) {
		uint8_t af = families[i];
		struct fib_rule rule = {.priority = 100,
					.family = af,
					.action = FIB_RULE_TABLE,
					.dscp = FIB_DSCP_ANY,
					.iif = FIB_IIF_ANY,
					.src = {.family = af},
					.dst = {.family = af},
					.sport_hi = 0xffff,
					.dport_hi = 0x7fff};
		assert_int_equal(fib_rule_add(r.fib, &rule), 0);
		assert_true(fib_rule_set_ports(fib_rules_get(r.fib, af)));
	}
	random_frames();
}

/* Again with both routes through an ECMP group of two gateways, so the
 * flow hash reads the ports of broken packets as well; a packet may
 * leave by either (check_sent takes both MACs). */
static void
test_random_frames_ecmp(void **state)
{
	(void)state;
	struct fib_route *routes[] = {&route4, &route6};
	for (unsigned int i = 0; i < RTE_DIM(routes); i++) {
		struct nh_member m[2] = {
			{.index = routes[i]->nh, .weight = 1},
			{.index = dp_harness_gateway(&r, routes[i]->dst.family, 2, gw2_mac),
			 .weight = 1}};
		assert_int_equal(nh_group_add(r.nh, m, 2, &routes[i]->nh), 0);
		assert_int_equal(fib_route_replace(r.fib, routes[i]), 0);
	}
	ecmp = true;
	random_frames();
	ecmp = false;
	assert_true(sent_by_mac[0] > FRAMES / 20 && sent_by_mac[1] > FRAMES / 20);
}

/*
 * A clean run (*mode set during it): the family's route through its
 * plain gateway (an earlier test may have left a group there), a
 * default route beside it, and two more-specific routes, `other`
 * through a second gateway (gw2_mac) and `pending` through the gateway
 * `unresolved`, whose neighbour is never resolved; all undone after.
 * The caller gives the two prefixes.
 */
static void
clean_run(bool *mode, const struct fib_route *route, uint32_t gw, struct fib_route other,
	  struct fib_route pending, struct nh_spec unresolved)
{
	uint8_t af = route->dst.family;
	struct fib_route plain = *route, dflt = {.dst = {.family = af}, .nh = gw};
	plain.nh = gw;
	other.nh = dp_harness_gateway(&r, af, 3, gw2_mac);
	assert_int_equal(nh_add(r.nh, &unresolved, &pending.nh), 0);
	assert_int_equal(fib_route_replace(r.fib, &plain), 0);
	assert_int_equal(fib_route_add(r.fib, &dflt), 0);
	assert_int_equal(fib_route_add(r.fib, &other), 0);
	assert_int_equal(fib_route_add(r.fib, &pending), 0);
	*mode = true;
	clean_groups = 0;
	random_frames();
	*mode = false;
	assert_true(sent_by_mac[0] > FRAMES / 10 && sent_by_mac[1] > FRAMES / 100);
	assert_int_equal(fib_route_del(r.fib, &pending, false), 0);
	assert_int_equal(fib_route_del(r.fib, &other, false), 0);
	assert_int_equal(fib_route_del(r.fib, &dflt, false), 0);
	assert_int_equal(fib_route_replace(r.fib, route), 0);
}

/* IPv4 frames, broken eight times more rarely: most aligned groups of
 * eight in a burst are clean, and many of the others hold one broken
 * frame, which validate4_x8 and dp_act_x8 must refuse to take with the
 * other seven. The two /20s are model4's. */
static void
test_clean_ipv4(void **state)
{
	(void)state;
	struct fib_route other = {.dst = {.family = FIB_AF_INET, .len = 20, .addr.v4 = 0xc6121000}};
	struct fib_route pending = {
		.dst = {.family = FIB_AF_INET, .len = 20, .addr.v4 = 0xc6120000}};
	struct nh_spec unresolved = {
		.type = NH_T_GATEWAY, .family = FIB_AF_INET, .port = 1, .gw = {10, 255, 0, 4}};
	clean_run(&clean4, &route4, gw4, other, pending, unresolved);
}

/* The same for IPv6 (validate6_x8), with model6's two /68s. */
static void
test_clean_ipv6(void **state)
{
	(void)state;
	struct fib_route other = {.dst = {.family = FIB_AF_INET6, .len = 68}};
	struct fib_route pending = {.dst = {.family = FIB_AF_INET6, .len = 68}};
	memcpy(other.dst.addr.v6, route6.dst.addr.v6, 16);
	memcpy(pending.dst.addr.v6, route6.dst.addr.v6, 16);
	other.dst.addr.v6[8] = 0x10;
	struct nh_spec unresolved = {.type = NH_T_GATEWAY, .family = FIB_AF_INET6, .port = 1};
	static const uint8_t gw_unresolved[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 4};
	memcpy(unresolved.gw, gw_unresolved, sizeof(gw_unresolved));
	clean_run(&clean6, &route6, gw6, other, pending, unresolved);
}

/* The stages and lookups of the build's own instruction set, where the
 * processor's best (the runs above) is AVX-512 (lib/fib/isa.c): the
 * random frames (through the port rule and the ECMP groups the runs
 * above left) and the clean IPv4 run again, the same model. */
static void
test_base_isa(void **state)
{
	(void)state;
	if (!fib_isa_avx512()) {
		print_message("the build's own stages ran above: nothing else to run\n");
		return;
	}
	assert_int_equal(fib_isa_force(false), 0);
	ecmp = true;
	random_frames();
	ecmp = false;
	test_clean_ipv4(state);
	assert_int_equal(fib_isa_force(true), 0);
}

int
main(int argc, char **argv)
{
	(void)argc;
	const char *s = getenv("FUZZ_SEED");
	seed = s != NULL ? strtoull(s, NULL, 0) : 0x2545f4914f6cdd1dull;
	if (seed == 0)
		seed = 1; /* xorshift's one fixed point */
	seed0 = seed;
	if (dp_harness_eal(argv[0], "test_dp_fuzz", 2) < 0)
		return 1;
	dp_harness_setup(&r, 64);
	route4 =
		(struct fib_route){.dst = {.family = FIB_AF_INET, .len = 15, .addr.v4 = 0xc6120000},
				   .nh = dp_harness_gateway(&r, FIB_AF_INET, 1, gw_mac)};
	gw4 = route4.nh;
	route6 = (struct fib_route){.dst = {.family = FIB_AF_INET6, .len = 48},
				    .nh = dp_harness_gateway(&r, FIB_AF_INET6, 1, gw_mac)};
	gw6 = route6.nh;
	static const uint8_t p6[6] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff};
	memcpy(route6.dst.addr.v6, p6, sizeof(p6));
	if (fib_route_add(r.fib, &route4) < 0 || fib_route_add(r.fib, &route6) < 0)
		return 1;
	for (uint16_t p = 0; p < r.dp.nb_ports; p++)
		if (rte_eth_add_tx_callback(p, 0, tx_seen, NULL) == NULL)
			return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_frames),
		cmocka_unit_test(test_random_frames_port_rule),
		cmocka_unit_test(test_random_frames_ecmp),
		cmocka_unit_test(test_clean_ipv4),
		cmocka_unit_test(test_clean_ipv6),
		cmocka_unit_test(test_base_isa),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
