/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP and ND codecs: round trips, and malformed frames rejected without a
 * read past the buffer. Every parse gets a heap copy of exactly `len`
 * bytes, so the sanitizer build catches any over-read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "neigh.h"

static const uint8_t mac_r[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t mac_h[6] = {0x02, 0, 0, 0, 0, 0x02};
static const uint8_t ip6_r[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
static const uint8_t ip6_h[16] = {0x20, 0x01, 0x0d, 0xb8, [13] = 0xab, 0xcd, 0x02};

/* A heap copy of exactly len bytes, so any over-read is caught. */
static uint8_t *
exact(const uint8_t *frame, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, frame, len);
	return copy;
}

static int
arp_parse_exact(const uint8_t *frame, size_t len, struct neigh_arp *m)
{
	uint8_t *copy = exact(frame, len);
	int rc = neigh_arp_parse(copy, len, m);
	free(copy);
	return rc;
}

static int
nd_parse_exact(const uint8_t *frame, size_t len, struct neigh_nd *m)
{
	uint8_t *copy = exact(frame, len);
	int rc = neigh_nd_parse(copy, len, m);
	free(copy);
	return rc;
}

static void
test_arp_round_trip(void **state)
{
	(void)state;
	uint8_t f[64];
	struct neigh_arp req = {
		.op = NEIGH_ARP_REQUEST, .spa = {192, 0, 2, 1}, .tpa = {192, 0, 2, 2}};
	memcpy(req.sha, mac_r, 6);
	int n = neigh_arp_build(f, sizeof(f), &req, NULL);
	assert_int_equal(n, 42);
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	assert_memory_equal(f, bcast, 6);
	struct neigh_arp got;
	assert_int_equal(arp_parse_exact(f, (size_t)n, &got), 0);
	assert_memory_equal(&got, &req, sizeof(got));
	assert_false(neigh_arp_gratuitous(&got));

	struct neigh_arp rep = {
		.op = NEIGH_ARP_REPLY, .spa = {192, 0, 2, 2}, .tpa = {192, 0, 2, 1}};
	memcpy(rep.sha, mac_h, 6);
	memcpy(rep.tha, mac_r, 6);
	n = neigh_arp_build(f, sizeof(f), &rep, mac_r);
	assert_memory_equal(f, mac_r, 6);
	assert_int_equal(arp_parse_exact(f, (size_t)n, &got), 0);
	assert_memory_equal(&got, &rep, sizeof(got));

	struct neigh_arp grat = req;
	memcpy(grat.tpa, grat.spa, 4);
	n = neigh_arp_build(f, sizeof(f), &grat, NULL);
	assert_int_equal(arp_parse_exact(f, (size_t)n, &got), 0);
	assert_true(neigh_arp_gratuitous(&got));
	assert_int_equal(neigh_arp_build(f, 41, &req, NULL), -ENOSPC);
}

static void
test_arp_malformed(void **state)
{
	(void)state;
	uint8_t f[64], bad[64];
	struct neigh_arp req = {
		.op = NEIGH_ARP_REQUEST, .spa = {192, 0, 2, 1}, .tpa = {192, 0, 2, 2}};
	memcpy(req.sha, mac_r, 6);
	int n = neigh_arp_build(f, sizeof(f), &req, NULL);
	struct neigh_arp got;
	for (int len = 0; len < n; len++)
		assert_int_equal(arp_parse_exact(f, (size_t)len, &got), -EINVAL); /* truncated */
	static const struct {
		int off;
		uint8_t val;
	} mut[] = {
		{13, 0x00}, /* not ARP's ethertype */
		{15, 2},    /* hardware type 2 */
		{16, 0x86}, /* protocol IPv6 */
		{18, 8},    /* hardware length 8 */
		{19, 16},   /* protocol length 16 */
		{21, 3},    /* operation 3 */
		{22, 0x01}, /* multicast sender */
	};
	for (unsigned int i = 0; i < sizeof(mut) / sizeof(mut[0]); i++) {
		memcpy(bad, f, (size_t)n);
		bad[mut[i].off] = mut[i].val;
		assert_int_equal(arp_parse_exact(bad, (size_t)n, &got), -EINVAL);
	}
}

static void
test_nd_round_trip(void **state)
{
	(void)state;
	uint8_t f[128];
	struct neigh_nd ns = {.type = NEIGH_ND_NS, .has_lladdr = true};
	memcpy(ns.eth_src, mac_r, 6);
	memcpy(ns.src, ip6_r, 16);
	memcpy(ns.target, ip6_h, 16);
	memcpy(ns.lladdr, mac_r, 6);
	int n = neigh_nd_build(f, sizeof(f), &ns);
	assert_int_equal(n, 14 + 40 + 32);
	struct neigh_nd got;
	assert_int_equal(nd_parse_exact(f, (size_t)n, &got), 0);
	/* Sent to the target's solicited-node group. */
	uint8_t sn[16], snmac[6];
	neigh_solicited_node(ip6_h, sn, snmac);
	assert_memory_equal(got.dst, sn, 16);
	assert_memory_equal(got.eth_dst, snmac, 6);
	static const uint8_t want_sn[16] = {0xff, 0x02, [11] = 0x01, 0xff, 0xab, 0xcd, 0x02};
	static const uint8_t want_mac[6] = {0x33, 0x33, 0xff, 0xab, 0xcd, 0x02};
	assert_memory_equal(sn, want_sn, 16);
	assert_memory_equal(snmac, want_mac, 6);
	assert_int_equal(got.type, NEIGH_ND_NS);
	assert_memory_equal(got.target, ip6_h, 16);
	assert_true(got.has_lladdr);
	assert_memory_equal(got.lladdr, mac_r, 6);

	struct neigh_nd na = {.type = NEIGH_ND_NA,
			      .has_lladdr = true,
			      .flags = NEIGH_F_SOLICITED | NEIGH_F_OVERRIDE | NEIGH_F_ROUTER};
	memcpy(na.eth_src, mac_h, 6);
	memcpy(na.eth_dst, mac_r, 6);
	memcpy(na.src, ip6_h, 16);
	memcpy(na.dst, ip6_r, 16);
	memcpy(na.target, ip6_h, 16);
	memcpy(na.lladdr, mac_h, 6);
	n = neigh_nd_build(f, sizeof(f), &na);
	assert_int_equal(nd_parse_exact(f, (size_t)n, &got), 0);
	assert_int_equal(got.type, NEIGH_ND_NA);
	assert_int_equal(got.flags, na.flags);
	assert_memory_equal(got.lladdr, mac_h, 6);
	assert_memory_equal(got.src, ip6_h, 16);
	/* Unsolicited NA (O only) to all-nodes, without the option. */
	na.flags = NEIGH_F_OVERRIDE;
	na.has_lladdr = false;
	na.dst[0] = 0xff;
	na.dst[1] = 0x02;
	n = neigh_nd_build(f, sizeof(f), &na);
	assert_int_equal(n, 14 + 40 + 24);
	assert_int_equal(nd_parse_exact(f, (size_t)n, &got), 0);
	assert_false(got.has_lladdr);
	assert_int_equal(got.flags, NEIGH_F_OVERRIDE);
	assert_int_equal(neigh_nd_build(f, 60, &na), -ENOSPC);
}

/* Build an NS, let `mutate` change it, fix the checksum unless told not
 * to, and expect the parser to refuse it. */
static void
expect_bad_ns(void (*mutate)(uint8_t *f, size_t *len), bool keep_csum)
{
	uint8_t f[160] = {0};
	struct neigh_nd ns = {.type = NEIGH_ND_NS, .has_lladdr = true};
	memcpy(ns.eth_src, mac_r, 6);
	memcpy(ns.src, ip6_r, 16);
	memcpy(ns.target, ip6_h, 16);
	memcpy(ns.lladdr, mac_r, 6);
	size_t len = (size_t)neigh_nd_build(f, sizeof(f), &ns);
	mutate(f, &len);
	if (!keep_csum) {
		/* Recompute over the mutated message, so only the mutation
		 * can be what the parser refuses. */
		uint8_t *ip = f + 14, *icmp = ip + 40;
		size_t plen = (size_t)(ip[4] << 8 | ip[5]);
		if (plen <= len - 54) {
			icmp[2] = icmp[3] = 0;
			uint32_t s = 0;
			for (int i = 8; i < 40; i += 2)
				s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
			s += (uint32_t)plen + 58;
			for (size_t i = 0; i + 1 < plen; i += 2)
				s += (uint32_t)(icmp[i] << 8 | icmp[i + 1]);
			if (plen & 1)
				s += (uint32_t)icmp[plen - 1] << 8;
			while (s >> 16)
				s = (s & 0xffff) + (s >> 16);
			icmp[2] = (uint8_t)(~s >> 8);
			icmp[3] = (uint8_t)~s;
		}
	}
	struct neigh_nd got;
	assert_int_equal(nd_parse_exact(f, len, &got), -EINVAL);
}

static void
m_hop_limit(uint8_t *f, size_t *l)
{
	(void)l;
	f[14 + 7] = 64;
}
static void
m_code(uint8_t *f, size_t *l)
{
	(void)l;
	f[54 + 1] = 1;
}
static void
m_opt_len0(uint8_t *f, size_t *l)
{
	(void)l;
	f[54 + 25] = 0;
}
static void
m_opt_long(uint8_t *f, size_t *l)
{
	(void)l;
	f[54 + 25] = 2;
}
static void
m_opt_lladdr_len(uint8_t *f, size_t *l)
{
	/* A 16-byte source link-layer option: not an Ethernet address. */
	f[14 + 5] = 40;
	f[54 + 25] = 2;
	*l = 14 + 40 + 40;
}
static void
m_plen_past_end(uint8_t *f, size_t *l)
{
	(void)l;
	f[14 + 5] = 64;
}
static void
m_target_mcast(uint8_t *f, size_t *l)
{
	(void)l;
	f[54 + 8] = 0xff;
}
static void
m_dad_with_slla(uint8_t *f, size_t *l)
{
	(void)l;
	memset(f + 14 + 8, 0, 16);
}
static void
m_next_header(uint8_t *f, size_t *l)
{
	(void)l;
	f[14 + 6] = 17;
}
static void
m_truncated_opt(uint8_t *f, size_t *l)
{
	f[14 + 5] = 25; /* payload ends one byte into the option */
	*l = 14 + 40 + 25;
}
static void
m_none(uint8_t *f, size_t *l)
{
	(void)f, (void)l;
}

static void
test_nd_malformed(void **state)
{
	(void)state;
	expect_bad_ns(m_hop_limit, false);
	expect_bad_ns(m_code, false);
	expect_bad_ns(m_opt_len0, false);
	expect_bad_ns(m_opt_long, false);
	expect_bad_ns(m_opt_lladdr_len, false);
	expect_bad_ns(m_plen_past_end, false);
	expect_bad_ns(m_target_mcast, false);
	expect_bad_ns(m_dad_with_slla, false);
	expect_bad_ns(m_next_header, false);
	expect_bad_ns(m_truncated_opt, false);
	/* A wrong checksum. */
	uint8_t f[128];
	struct neigh_nd ns = {.type = NEIGH_ND_NS};
	memcpy(ns.src, ip6_r, 16);
	memcpy(ns.target, ip6_h, 16);
	int n = neigh_nd_build(f, sizeof(f), &ns);
	struct neigh_nd got;
	assert_int_equal(nd_parse_exact(f, (size_t)n, &got), 0);
	f[n - 1] ^= 1;
	assert_int_equal(nd_parse_exact(f, (size_t)n, &got), -EINVAL);
	/* Every truncation of a valid frame. */
	f[n - 1] ^= 1;
	for (int len = 0; len < n; len++)
		assert_int_equal(nd_parse_exact(f, (size_t)len, &got), -EINVAL);
	/* A solicited NA to a multicast address. */
	struct neigh_nd na = {
		.type = NEIGH_ND_NA, .flags = NEIGH_F_SOLICITED, .dst = {0xff, 0x02, [15] = 1}};
	memcpy(na.src, ip6_h, 16);
	memcpy(na.target, ip6_h, 16);
	n = neigh_nd_build(f, sizeof(f), &na);
	assert_int_equal(nd_parse_exact(f, (size_t)n, &got), -EINVAL);
	(void)m_none;
}

/* The test's own ICMPv6 checksum (RFC 8200 8.1), to check the codec's
 * against: the sum over pseudo-header and message, 0xffff when right. */
static uint16_t
icmp6_sum(const uint8_t *ip6)
{
	size_t n = (size_t)(ip6[4] << 8 | ip6[5]);
	uint32_t s = n + 58;
	for (size_t i = 8; i < 40; i += 2)
		s += (uint32_t)(ip6[i] << 8 | ip6[i + 1]);
	for (size_t i = 0; i < n; i += 2)
		s += (uint32_t)(ip6[40 + i] << 8 | (i + 1 < n ? ip6[40 + i + 1] : 0));
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* A router solicitation from src to ff02::2, with a source link-layer
 * option when slla; checksum set. @return its length. */
static size_t
rs_frame(uint8_t *f, const uint8_t src[16], bool slla)
{
	static const uint8_t all_routers[16] = {0xff, 0x02, [15] = 2};
	size_t plen = 8 + (slla ? 8 : 0);
	memset(f, 0, 14 + 40 + plen);
	memcpy(f, (const uint8_t[]){0x33, 0x33, 0, 0, 0, 2}, 6);
	memcpy(f + 6, mac_h, 6);
	f[12] = 0x86, f[13] = 0xdd;
	uint8_t *ip = f + 14, *icmp = ip + 40;
	ip[0] = 0x60, ip[5] = (uint8_t)plen, ip[6] = 58, ip[7] = 255;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, all_routers, 16);
	icmp[0] = NEIGH_ND_RS;
	if (slla) {
		icmp[8] = 1, icmp[9] = 1;
		memcpy(icmp + 10, mac_h, 6);
	}
	uint16_t c = (uint16_t)~icmp6_sum(ip);
	icmp[2] = (uint8_t)(c >> 8), icmp[3] = (uint8_t)c;
	return 14 + 40 + plen;
}

static int
rs_parse_exact(const uint8_t *frame, size_t len, struct neigh_rs *m)
{
	uint8_t *copy = exact(frame, len);
	int rc = neigh_rs_parse(copy, len, m);
	free(copy);
	return rc;
}

static void
test_rs(void **state)
{
	(void)state;
	uint8_t f[128];
	struct neigh_rs rs;
	size_t n = rs_frame(f, ip6_h, true);
	assert_int_equal(rs_parse_exact(f, n, &rs), 0);
	assert_memory_equal(rs.src, ip6_h, 16);
	assert_true(rs.has_lladdr);
	assert_memory_equal(rs.lladdr, mac_h, 6);
	assert_memory_equal(rs.eth_src, mac_h, 6);
	/* From a host with no address yet: fine, without the option. */
	static const uint8_t unspec[16];
	n = rs_frame(f, unspec, false);
	assert_int_equal(rs_parse_exact(f, n, &rs), 0);
	assert_false(rs.has_lladdr);
	/* ... and refused with it (6.1.1). */
	n = rs_frame(f, unspec, true);
	assert_int_equal(rs_parse_exact(f, n, &rs), -EINVAL);
	/* Every truncation; a wrong checksum; then, with the checksum made
	 * right again, a forwarded one (hop limit 239), a nonzero code, an
	 * option of length 0. */
	n = rs_frame(f, ip6_h, true);
	for (size_t len = 0; len < n; len++)
		assert_int_equal(rs_parse_exact(f, len, &rs), -EINVAL);
	f[14 + 40 + 2] ^= 0x10;
	assert_int_equal(rs_parse_exact(f, n, &rs), -EINVAL);
	const size_t at[] = {14 + 7, 14 + 40 + 1, 14 + 40 + 9};
	const uint8_t flip[] = {0x10, 0x10, 1}; /* option length 1 -> 0 */
	for (unsigned int i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		n = rs_frame(f, ip6_h, true);
		f[at[i]] ^= flip[i];
		uint8_t *icmp = f + 14 + 40;
		icmp[2] = icmp[3] = 0;
		uint16_t c = (uint16_t)~icmp6_sum(f + 14);
		icmp[2] = (uint8_t)(c >> 8), icmp[3] = (uint8_t)c;
		assert_int_equal(rs_parse_exact(f, n, &rs), -EINVAL);
	}
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
test_ra(void **state)
{
	(void)state;
	struct neigh_ra ra = {.eth_dst = {0x33, 0x33, 0, 0, 0, 1},
			      .dst = {0xff, 0x02, [15] = 1},
			      .src = {0xfe, 0x80, [15] = 1},
			      .cur_hop_limit = 64,
			      .lifetime_s = 1800,
			      .mtu = 1500,
			      .nb_prefixes = 2};
	memcpy(ra.eth_src, mac_r, 6);
	struct neigh_ra_prefix p64 = {
		.len = 64, .autonomous = true, .valid_s = 2592000, .preferred_s = 604800};
	memcpy(p64.addr, ip6_h, 16); /* host bits set: cleared in the option */
	struct neigh_ra_prefix p48 = p64;
	p48.len = 45;
	p48.autonomous = false;
	ra.prefix[0] = p64;
	ra.prefix[1] = p48;
	uint8_t f[256];
	int n = neigh_ra_build(f, sizeof(f), &ra);
	assert_int_equal(n, 14 + 40 + 16 + 8 + 8 + 2 * 32);
	const uint8_t *ip = f + 14, *icmp = ip + 40;
	assert_memory_equal(f, ra.eth_dst, 6);
	assert_memory_equal(f + 6, mac_r, 6);
	assert_int_equal(ip[7], 255);
	assert_int_equal(ip[4] << 8 | ip[5], n - 54);
	assert_memory_equal(ip + 8, ra.src, 16);
	assert_int_equal(icmp6_sum(ip), 0xffff);
	assert_int_equal(icmp[0], NEIGH_ND_RA);
	assert_int_equal(icmp[1], 0);
	assert_int_equal(icmp[4], 64);
	assert_int_equal(icmp[5], 0); /* neither M nor O */
	assert_int_equal(icmp[6] << 8 | icmp[7], 1800);
	const uint8_t *o = icmp + 16;
	assert_int_equal(o[0], 1); /* source link-layer address */
	assert_int_equal(o[1], 1);
	assert_memory_equal(o + 2, mac_r, 6);
	o += 8;
	assert_int_equal(o[0], 5); /* MTU */
	assert_int_equal(get32(o + 4), 1500);
	o += 8;
	assert_int_equal(o[0], 3); /* prefix information */
	assert_int_equal(o[1], 4);
	assert_int_equal(o[2], 64);
	assert_int_equal(o[3], 0xc0); /* on-link, autonomous */
	assert_int_equal(get32(o + 4), 2592000);
	assert_int_equal(get32(o + 8), 604800);
	assert_memory_equal(o + 16, ip6_h, 8);
	static const uint8_t zero8[8];
	assert_memory_equal(o + 24, zero8, 8);
	o += 32;
	assert_int_equal(o[2], 45);
	assert_int_equal(o[3], 0x80); /* on-link only */
	assert_memory_equal(o + 16, ip6_h, 5);
	assert_int_equal(o[16 + 5], ip6_h[5] & 0xf8);
	/* With two DNS servers: the RDNSS option last (RFC 8106 5.1). */
	ra.nb_rdnss = 2;
	memcpy(ra.rdnss[0], ip6_r, 16);
	memcpy(ra.rdnss[1], ip6_h, 16);
	ra.rdnss_lifetime_s = 1200;
	int m = neigh_ra_build(f, sizeof(f), &ra);
	assert_int_equal(m, n + 8 + 32);
	assert_int_equal(icmp6_sum(ip), 0xffff);
	o = icmp + 16 + 8 + 8 + 2 * 32;
	assert_int_equal(o[0], 25);
	assert_int_equal(o[1], 5); /* 8 + 2 x 16 bytes, in units of 8 */
	assert_int_equal(get32(o + 4), 1200);
	assert_memory_equal(o + 8, ip6_r, 16);
	assert_memory_equal(o + 24, ip6_h, 16);
	/* The M and O flags, in the byte after the current hop limit. */
	ra.managed = true;
	assert_int_equal(neigh_ra_build(f, sizeof(f), &ra), m);
	assert_int_equal(icmp[5], 0x80);
	assert_int_equal(icmp6_sum(ip), 0xffff);
	ra.other = true;
	neigh_ra_build(f, sizeof(f), &ra);
	assert_int_equal(icmp[5], 0xc0);
	ra.managed = false;
	neigh_ra_build(f, sizeof(f), &ra);
	assert_int_equal(icmp[5], 0x40);
	assert_int_equal(icmp6_sum(ip), 0xffff);
	ra.other = false;
	ra.nb_rdnss = NEIGH_RA_RDNSS_MAX + 1;
	assert_int_equal(neigh_ra_build(f, sizeof(f), &ra), -EINVAL);
	ra.nb_rdnss = 0;
	/* Without MTU, a last advertisement (lifetime 0), no prefixes. */
	ra.mtu = 0;
	ra.lifetime_s = 0;
	ra.nb_prefixes = 0;
	n = neigh_ra_build(f, sizeof(f), &ra);
	assert_int_equal(n, 14 + 40 + 16 + 8);
	assert_int_equal(icmp[6] << 8 | icmp[7], 0);
	assert_int_equal(icmp6_sum(ip), 0xffff);
	assert_int_equal(neigh_ra_build(f, (size_t)n - 1, &ra), -ENOSPC);
	ra.nb_prefixes = NEIGH_RA_PREFIXES_MAX + 1;
	assert_int_equal(neigh_ra_build(f, sizeof(f), &ra), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arp_round_trip),
		cmocka_unit_test(test_arp_malformed),
		cmocka_unit_test(test_nd_round_trip),
		cmocka_unit_test(test_nd_malformed),
		cmocka_unit_test(test_rs),
		cmocka_unit_test(test_ra),
	};
	return cmocka_run_group_tests_name("neigh_codec", tests, NULL, NULL);
}
