/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Router advertisements (RFC 4861 section 6.2), on the ports where the
 * operator turns them on (`link set PORT ra on`): the router offers
 * itself as the link's default router and its IPv6 prefixes on the port
 * for stateless address autoconfiguration (RFC 4862), periodically and
 * in answer to solicitations. On a Linux router radvd does this; DPDK's
 * ports have no kernel interface for it to run on. Control core only.
 */
#include <string.h>

#include <rte_random.h>

#include "ctl_priv.h"

/* RFC 4861's defaults (sections 6.2.1 and 10), as radvd's. */
#define RA_MAX_INTERVAL_MS 600000u    /* MaxRtrAdvInterval */
#define RA_MIN_INTERVAL_MS 198000u    /* MinRtrAdvInterval: 0.33 x the max */
#define RA_LIFETIME_S 1800u           /* AdvDefaultLifetime: 3 x the max */
#define RA_INITIAL 3u                 /* MAX_INITIAL_RTR_ADVERTISEMENTS */
#define RA_INITIAL_INTERVAL_MS 16000u /* MAX_INITIAL_RTR_ADVERT_INTERVAL */
#define RA_MIN_DELAY_MS 3000u         /* MIN_DELAY_BETWEEN_RAS */
#define RA_MAX_DELAY_MS 500u          /* MAX_RA_DELAY_TIME */
#define RA_HOP_LIMIT 64               /* AdvCurHopLimit, Linux's default */
#define PREFIX_VALID_S 2592000u       /* AdvValidLifetime: 30 days */
#define PREFIX_PREFERRED_S 604800u    /* AdvPreferredLifetime: 7 days */
#define RDNSS_LIFETIME_S 1200u        /* 2 x the max interval (RFC 8106 5.1) */
_Static_assert(RA_MAX_INTERVAL_MS / 1000 == RT_RA_LIFETIME_MIN,
	       "a router's lifetime is at least the longest interval (RFC 4861 6.2.1)");

static uint64_t
random_ms(uint64_t lo, uint64_t hi)
{
	return lo + rte_rand_max(hi - lo + 1);
}

/* The next unsolicited advertisement after one sent at now: the first
 * few at most 16 s apart, then uniformly between the two intervals. */
static void
schedule(struct rt_ra *ra, uint64_t now)
{
	uint64_t wait = random_ms(RA_MIN_INTERVAL_MS, RA_MAX_INTERVAL_MS);
	if (ra->initial_left > 0) {
		ra->initial_left--;
		if (wait > RA_INITIAL_INTERVAL_MS)
			wait = RA_INITIAL_INTERVAL_MS;
	}
	ra->next_ms = now + wait;
}

uint16_t
rt_ra_lifetime(const struct router *r, uint16_t port)
{
	const struct rt_ra *ra = &r->ra[port];
	return ra->lifetime_set ? ra->lifetime_s : RA_LIFETIME_S;
}

/* An advertisement to all nodes on port: the port's link-local address
 * as source (RFC 4861 6.1.2 makes hosts discard any other), its MTU, and
 * each prefix of its global IPv6 addresses, autonomous where it is a /64
 * (RFC 4862 5.5.3 forms addresses only there). The last one (ra off, or
 * routerd stopping) gives the router and the DNS servers lifetime 0.
 * @return false if it could not be sent (no link-local address, no
 * mbuf). */
static bool
send_ra(struct router *r, uint16_t port, bool last)
{
	struct rt_ra *st = &r->ra[port];
	struct neigh_ra ra = {.eth_dst = {0x33, 0x33, 0, 0, 0, 1},
			      .dst = {0xff, 0x02, [15] = 1},
			      .cur_hop_limit = RA_HOP_LIMIT,
			      .managed = st->managed,
			      .other = st->other,
			      .lifetime_s = last ? 0 : rt_ra_lifetime(r, port),
			      .mtu = r->dp.port[port].mtu};
	memcpy(ra.eth_src, r->dp.port[port].mac.addr_bytes, 6);
	/* The port's prefixes (networks, each once), then those it lost. */
	struct fib_prefix net[NEIGH_RA_PREFIXES_MAX];
	uint32_t valid[NEIGH_RA_PREFIXES_MAX];
	unsigned int n = 0, current;
	bool has_src = false;
	for (unsigned int i = 0; i < r->nb_addrs; i++) {
		const struct rt_addr *a = &r->addr[i];
		if (a->port != port || a->p.family != FIB_AF_INET6)
			continue;
		if (rt_prefix_link_local(&a->p)) {
			if (!has_src)
				memcpy(ra.src, a->p.addr.v6, 16);
			has_src = true;
			continue;
		}
		struct fib_prefix q = rt_prefix_network(&a->p);
		bool seen = false;
		for (unsigned int k = 0; k < n && !seen; k++)
			seen = rt_prefix_same(&net[k], &q);
		if (!seen && n < NEIGH_RA_PREFIXES_MAX) {
			valid[n] = 1;
			net[n++] = q;
		}
	}
	/* Prefixes gone from the port: preferred and valid lifetimes 0, so
	 * hosts deprecate their addresses there at once (a host keeps a
	 * valid one two more hours, RFC 4862 5.5.3 e). */
	current = n;
	for (unsigned int g = 0; g < RTE_DIM(st->gone); g++) {
		struct rt_ra_gone *x = &st->gone[g];
		for (unsigned int k = 0; k < current && x->left; k++)
			if (rt_prefix_same(&net[k], &x->net))
				x->left = 0; /* back on the port */
		if (x->left == 0 || n == NEIGH_RA_PREFIXES_MAX)
			continue;
		valid[n] = 0;
		net[n++] = x->net;
		x->left--;
	}
	for (unsigned int k = 0; k < n; k++) {
		struct neigh_ra_prefix *p = &ra.prefix[k];
		memcpy(p->addr, net[k].addr.v6, 16);
		p->len = net[k].len;
		p->autonomous = net[k].len == 64;
		p->valid_s = valid[k] ? PREFIX_VALID_S : 0;
		p->preferred_s = valid[k] ? PREFIX_PREFERRED_S : 0;
	}
	ra.nb_prefixes = n;
	ra.nb_rdnss = st->nb_rdnss;
	memcpy(ra.rdnss, st->rdnss, sizeof(st->rdnss));
	ra.rdnss_lifetime_s = last ? 0 : RDNSS_LIFETIME_S; /* a last one: stop using them */
	if (!has_src)
		return false;
	struct rte_mbuf *m = rte_pktmbuf_alloc(r->pool);
	if (m == NULL)
		return false;
	const uint16_t room =
		14 + 40 + 16 + 8 + 8 + 32 * NEIGH_RA_PREFIXES_MAX + 8 + 16 * NEIGH_RA_RDNSS_MAX;
	uint8_t *buf = (uint8_t *)rte_pktmbuf_append(m, room);
	int len = buf ? neigh_ra_build(buf, room, &ra) : -ENOSPC;
	if (len < 0) {
		rte_pktmbuf_free(m);
		return false;
	}
	rte_pktmbuf_trim(m, (uint16_t)(room - len));
	rt_ctl_tx(r, port, m);
	r->ctr[RT_CTR_RA_SENT]++;
	return true;
}

void
rt_ra_set(struct router *r, uint16_t port, bool on)
{
	struct rt_ra *ra = &r->ra[port];
	if (on == ra->on)
		return;
	uint64_t now = rt_now_ms();
	RT_LOG(NOTICE, control, "%s: router advertisements %s", r->dp.port[port].name,
	       on ? "on" : "off");
	if (on) {
		/* The first at once, then RA_INITIAL more closer together
		 * (6.2.4), and never two within RA_MIN_DELAY_MS. */
		ra->on = true;
		ra->initial_left = RA_INITIAL;
		ra->next_ms = now;
		ra->answer_ms = 0;
		memset(ra->gone, 0, sizeof(ra->gone));
		return;
	}
	/* A last advertisement with lifetime 0, so hosts drop the router
	 * now rather than when the last one expires (6.2.5). */
	if (rt_link_oper_up(r, port))
		(void)send_ra(r, port, true);
	ra->on = false;
}

void
rt_ra_rs_in(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	struct neigh_rs rs;
	int rc = neigh_rs_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &rs);
	rte_pktmbuf_free(m);
	if (rc != 0 || in >= r->dp.nb_ports || !r->ra[in].on) {
		r->ctr[RT_CTR_LOCAL_UNHANDLED]++; /* malformed, or no advertisements here */
		return;
	}
	r->ctr[RT_CTR_RS_RECEIVED]++;
	uint64_t now = rt_now_ms();
	/* A solicitation from an address updates the neighbour table as an
	 * NS would (6.2.6); one from :: carries no link-layer address. */
	if (rs.has_lladdr) {
		struct neigh_key k = neigh_key(in, NEIGH_AF_INET6, rs.src);
		neigh_learn(r->neigh, &k, rs.lladdr, now);
	}
	/* Answered to all nodes after a random delay of up to 0.5 s, and
	 * never within 3 s of the last one: solicitations that come
	 * together get one answer (6.2.6). */
	struct rt_ra *ra = &r->ra[in];
	uint64_t due = now + random_ms(0, RA_MAX_DELAY_MS);
	if (ra->last_ms != 0 && due < ra->last_ms + RA_MIN_DELAY_MS)
		due = ra->last_ms + RA_MIN_DELAY_MS;
	if (ra->answer_ms == 0 || due < ra->answer_ms)
		ra->answer_ms = due;
}

void
rt_ra_timer(struct router *r, uint64_t now)
{
	for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
		struct rt_ra *ra = &r->ra[p];
		if (!ra->on)
			continue;
		bool answer = ra->answer_ms != 0 && now >= ra->answer_ms;
		if (!answer && now < ra->next_ms)
			continue;
		if (ra->last_ms != 0 && now < ra->last_ms + RA_MIN_DELAY_MS) {
			ra->next_ms = ra->last_ms + RA_MIN_DELAY_MS;
			continue;
		}
		ra->answer_ms = 0;
		if (!rt_link_oper_up(r, p) || !send_ra(r, p, false)) {
			ra->next_ms = now + 1000; /* down, or no link-local address: later */
			continue;
		}
		ra->last_ms = now;
		/* Any multicast advertisement restarts the periodic timer. */
		schedule(ra, now);
	}
}

uint64_t
rt_ra_due(const struct router *r)
{
	uint64_t due = UINT64_MAX;
	for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
		const struct rt_ra *ra = &r->ra[p];
		if (!ra->on)
			continue;
		uint64_t next = ra->next_ms;
		if (ra->answer_ms != 0)
			next = RTE_MIN(next, ra->answer_ms);
		if (ra->last_ms != 0) /* rt_ra_timer holds them apart */
			next = RTE_MAX(next, ra->last_ms + RA_MIN_DELAY_MS);
		due = RTE_MIN(due, next);
	}
	return due;
}

void
rt_ra_shutdown(struct router *r)
{
	for (uint16_t p = 0; p < r->dp.nb_ports; p++)
		rt_ra_set(r, p, false);
}

void
rt_ra_changed(struct router *r, uint16_t port)
{
	struct rt_ra *ra = &r->ra[port];
	if (!ra->on)
		return;
	/* What is advertised changed: a few advertisements now, as at the
	 * start (6.2.4), within the 3 s spacing rt_ra_timer keeps. */
	ra->initial_left = RA_INITIAL;
	ra->next_ms = rt_now_ms();
}

void
rt_ra_prefix_gone(struct router *r, uint16_t port, const struct fib_prefix *p)
{
	struct rt_ra *ra = &r->ra[port];
	if (!ra->on)
		return;
	struct rt_ra_gone *slot = &ra->gone[0];
	for (unsigned int g = 0; g < RTE_DIM(ra->gone); g++) {
		if (ra->gone[g].left != 0 && rt_prefix_same(p, &ra->gone[g].net)) {
			slot = &ra->gone[g];
			break;
		}
		if (ra->gone[g].left < slot->left)
			slot = &ra->gone[g]; /* a free one, else the nearest done */
	}
	slot->net = *p;
	slot->left = RA_INITIAL;
	rt_ra_changed(r, port);
}

void
rt_ra_set_options(struct router *r, uint16_t port, bool managed, bool other, int32_t lifetime_s)
{
	struct rt_ra *ra = &r->ra[port];
	bool set = lifetime_s >= 0 && lifetime_s != RA_LIFETIME_S; /* 1800: the default again */
	uint16_t life = set ? (uint16_t)lifetime_s : 0;
	if (managed == ra->managed && other == ra->other && set == ra->lifetime_set &&
	    life == ra->lifetime_s)
		return;
	ra->managed = managed;
	ra->other = other;
	ra->lifetime_set = set;
	ra->lifetime_s = life;
	rt_ra_changed(r, port);
}

void
rt_ra_set_rdnss(struct router *r, uint16_t port, const uint8_t (*addr)[16], unsigned int n)
{
	struct rt_ra *ra = &r->ra[port];
	if (n > RTE_DIM(ra->rdnss))
		n = RTE_DIM(ra->rdnss);
	if (n == ra->nb_rdnss && (n == 0 || memcmp(ra->rdnss, addr, 16 * n) == 0))
		return;
	memset(ra->rdnss, 0, sizeof(ra->rdnss));
	if (n > 0)
		memcpy(ra->rdnss, addr, 16 * n);
	ra->nb_rdnss = (uint8_t)n;
	rt_ra_changed(r, port);
}
