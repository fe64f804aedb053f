/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core under hostile input, in one process (EAL without
 * hugepages, two net_null ports, the control-plane ports' TAPs in a
 * network namespace of the fuzzer's own when it runs as root):
 *
 * 1. frames: random and broken frames of every class that reaches the
 *    exception path (frames.h) go through the worker's stages (dp_burst)
 *    and the control core takes them from the exception rings as its
 *    loop does (rt_exception_burst); reassembly's expiry runs now and
 *    then. Every frame the control core sends is checked: an mbuf chain
 *    whose lengths agree (rte_mbuf_check), an IP header whose lengths fit
 *    the frame and whose checksum verifies, and, for the router's own
 *    ICMP messages, an ICMP checksum that verifies over the length its
 *    header gives.
 * 2. netlink: sequences of route and nexthop-object messages as the
 *    kernel sends them (prefixes, tables, metrics and objects drawn from
 *    small pools so that they collide; multipath up to past 64 paths;
 *    every route type; objects replaced and deleted under their routes;
 *    bytes broken now and then) into the kernel mirror
 *    (rt_mirror_message). Every 64 messages each route the mirror
 *    remembers must be in the FIB; at the end, once the kernel has
 *    deleted everything, the mirror remembers nothing, shares no group,
 *    and holds no nexthop.
 * 3. cli: command lines built from the grammar and broken byte by byte
 *    (long words, many words, numbers at their limits, cut anywhere),
 *    between bursts of frames: each answer is 0, or an error of one
 *    line.
 *
 * At the end every mbuf is back in the pool. Under the sanitizer build
 * an address or undefined-behaviour error stops it. A failure prints its
 * seed and phase.
 *
 *   ctl_fuzz [--frames N] [--netlink N] [--cli N] [--seed S]
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ring.h>

#include "cli.h"
#include "conf.h"
#include "ctl_priv.h"
#include "dp_harness.h"
#include "dp_inline.h"
#include "frames.h"
#include "mirror_priv.h"
#include "nl_build.h"
#include "reasm.h"

static struct router r;
static struct fz_rng rng;
static uint64_t seed;
static const char *phase = "set-up";
static unsigned long sent_checked, cli_refused;

static void
die(const char *fmt, const char *detail)
{
	fprintf(stderr, "ctl_fuzz: seed %llu, %s: ", (unsigned long long)seed, phase);
	fprintf(stderr, fmt, detail);
	fputc('\n', stderr);
	exit(1);
}

static void
cli(const char *line)
{
	struct rt_buf out = {0};
	char err[256];
	if (rt_cli_exec(&r, line, true, &out, err, sizeof(err)) < 0)
		die("set-up command failed: %s", line);
	free(out.s);
}

/* A frame the control core sends (what worker 0 would transmit). */
static void
check_sent(struct rte_mbuf *m)
{
	const char *why;
	if (rte_mbuf_check(m, 1, &why) != 0)
		die("a sent mbuf is broken: %s", why);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t hb[60];
	const uint8_t *f = rte_pktmbuf_read(m, 0, len < 60 ? len : 60, hb);
	if (f == NULL || len < 14)
		die("a sent frame of %s bytes", "under 14");
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);
	if (type == RTE_ETHER_TYPE_ARP) {
		if (len < 42)
			die("%s", "a sent ARP frame is short");
	} else if (type == RTE_ETHER_TYPE_IPV4) {
		const uint8_t *ip = f + 14;
		unsigned int ihl = (ip[0] & 0xf) * 4u, tot = (unsigned int)(ip[2] << 8 | ip[3]);
		if (len < 34 || (ip[0] >> 4) != 4 || ihl < 20 || len < 14 + ihl || tot < ihl ||
		    tot > len - 14)
			die("%s", "a sent IPv4 header does not fit its frame");
		if (rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip) != 0)
			die("%s", "a sent IPv4 header checksum is wrong");
		bool whole = (ip[6] & 0x3f) == 0 && ip[7] == 0;
		if (fz_router_addr(ip + 12, false) && ip[9] == IPPROTO_ICMP && whole) {
			if (tot != len - 14)
				die("%s", "the router's own IPv4 packet is not its frame's length");
			uint16_t s;
			if (rte_raw_cksum_mbuf(m, 14 + ihl, tot - ihl, &s) != 0 || s != 0xffff)
				die("%s", "the router's own ICMP checksum is wrong");
		}
	} else if (type == RTE_ETHER_TYPE_IPV6) {
		const uint8_t *ip = f + 14;
		unsigned int plen = (unsigned int)(ip[4] << 8 | ip[5]);
		if (len < 54 || (ip[0] >> 4) != 6 || plen > len - 54)
			die("%s", "a sent IPv6 header does not fit its frame");
		if (fz_router_addr(ip + 8, true) && ip[6] == IPPROTO_ICMPV6) {
			if (plen != len - 54)
				die("%s", "the router's own IPv6 packet is not its frame's length");
			struct rte_ipv6_hdr h;
			memcpy(&h, ip, sizeof(h));
			uint16_t s;
			if (rte_raw_cksum_mbuf(m, 54, plen, &s) != 0)
				die("%s", "the router's own ICMPv6 message is short");
			uint32_t t = (uint32_t)s + rte_ipv6_phdr_cksum(&h, 0);
			t = (t & 0xffff) + (t >> 16);
			t = (t & 0xffff) + (t >> 16);
			if (t != 0xffff)
				die("%s", "the router's own ICMPv6 checksum is wrong");
		}
	} else {
		die("%s", "a sent frame of an unknown ethertype");
	}
	sent_checked++;
}

/* What the control core queued for worker 0 to send: checked, freed. */
static void
drain_sent(void)
{
	struct rte_mbuf *m[64];
	unsigned int n;
	while ((n = rte_ring_dequeue_burst(r.dp.ctl_tx, (void **)m, 64, NULL)) > 0)
		for (unsigned int i = 0; i < n; i++) {
			check_sent(m[i]);
			rte_pktmbuf_free(m[i]);
		}
}

/* The control core's side of a round: every exception ring, as the loop
 * drains them (classes in order). */
static void
drain_exceptions(void)
{
	struct rt_worker *w = &r.dp.worker[0];
	struct rte_mbuf *m[64];
	for (unsigned int c = 0; c < RT_EXC_CLASSES; c++)
		for (uint16_t p = 0; p < r.dp.nb_ports; p++) {
			unsigned int n;
			while ((n = rte_ring_sc_dequeue_burst(w->exc[p][c], (void **)m, 64, NULL)) >
			       0)
				rt_exception_burst(&r, m, n);
		}
	drain_sent();
}

/* A burst of 1 to 32 frames on one port through the worker and the
 * control core. */
static void
burst(void)
{
	struct rt_worker *w = &r.dp.worker[0];
	struct rte_mbuf *pkts[32];
	uint16_t port = (uint16_t)fz_below(&rng, 2);
	unsigned int n = 1 + fz_below(&rng, 32);
	for (unsigned int i = 0; i < n; i++) {
		uint8_t f[FZ_FRAME_MAX];
		enum fz_class c = (enum fz_class)fz_below(&rng, FZ_CLASSES);
		if (fz_below(&rng, 3) == 0)
			c = FZ_FRAGMENT; /* trains need many pieces */
		unsigned int len = fz_build(&rng, c, port, f);
		if (c != FZ_FRAGMENT || fz_below(&rng, 8) == 0) /* trains must complete too */
			len = fz_mutate(&rng, f, len);
		pkts[i] = rte_pktmbuf_alloc(r.pool);
		if (pkts[i] == NULL)
			die("%s", "the pool ran dry: mbufs held");
		memcpy(rte_pktmbuf_append(pkts[i], (uint16_t)len), f, len);
		pkts[i]->port = port;
	}
	dp_burst(&r.dp, w, port, pkts, n);
	for (uint16_t p = 0; p < r.dp.nb_ports; p++)
		dp_tx_flush(w, p);
	drain_exceptions();
}

static void
frames_phase(unsigned long frames)
{
	phase = "frames";
	struct rt_worker *w = &r.dp.worker[0];
	uint64_t rx0 = w->st.rx;
	for (unsigned long b = 0; w->st.rx - rx0 < frames; b++) {
		burst();
		/* Reassembly's expiry, as if 31 s had passed: time exceeded
		 * about each first fragment. */
		if (b % 512 == 511) {
			rt_reasm_timer(&r, rt_now_ms() + RT_REASM_TIMEOUT6_MS + 1000);
			neigh_timer(r.neigh, rt_now_ms());
			drain_sent();
		}
	}
}

/* Netlink messages are built as the kernel builds them (nl_build.h). */

static void
nl_send(struct nl_build *m)
{
	struct nlmsghdr *h = nl_build_done(m);
	if (fz_below(&rng, 16) == 0) /* broken bytes: the decoder copes */
		m->b[NLMSG_HDRLEN + fz_below(&rng, (uint32_t)m->len - NLMSG_HDRLEN)] ^=
			(uint8_t)(1 + fz_below(&rng, 255));
	if (fz_below(&rng, 32) == 0)
		h->nlmsg_len = (uint32_t)(NLMSG_HDRLEN + fz_below(&rng, (uint32_t)m->len));
	rt_mirror_message(&r, h);
}

#define NL_PREFIXES 24
#define NL_OBJECTS 16

/* A gateway: on port0's or port1's network, off every one, or link-local. */
static void
nl_gateway(int v6, uint8_t gw[16], unsigned int *ifindex)
{
	unsigned int p = fz_below(&rng, 2);
	memset(gw, 0, 16);
	*ifindex = fz_below(&rng, 8) ? (unsigned int)r.cport[p].ifindex : 999;
	if (!v6) {
		gw[0] = p ? 198 : 192, gw[1] = p ? 51 : 0, gw[2] = p ? 100 : 2;
		gw[3] = (uint8_t)(2 + fz_below(&rng, 4));
		if (fz_below(&rng, 8) == 0)
			gw[0] = 10;
	} else {
		gw[0] = 0x20, gw[1] = 0x01, gw[2] = 0x0d, gw[3] = 0xb8, gw[5] = (uint8_t)(p + 1);
		gw[15] = (uint8_t)(2 + fz_below(&rng, 4));
		if (fz_below(&rng, 4) == 0)
			gw[0] = 0xfe, gw[1] = 0x80, gw[2] = gw[3] = gw[5] = 0;
	}
}

static void
nl_route(bool del)
{
	int v6 = (int)fz_below(&rng, 2);
	static const uint8_t tables[] = {RT_TABLE_MAIN, 100, RT_TABLE_LOCAL, RT_TABLE_DEFAULT};
	static const uint8_t protos[] = {RTPROT_KERNEL, RTPROT_STATIC, 12, 186, 11, 247};
	static const uint8_t types[] = {RTN_UNICAST,     RTN_UNICAST,  RTN_UNICAST, RTN_BLACKHOLE,
					RTN_UNREACHABLE, RTN_PROHIBIT, RTN_THROW,   RTN_LOCAL};
	unsigned int k = fz_below(&rng, NL_PREFIXES);
	struct rtmsg rt = {.rtm_family = (uint8_t)(v6 ? AF_INET6 : AF_INET),
			   .rtm_dst_len = (uint8_t)(v6 ? 32 + 8 * (k % 4) : 8 + 4 * (k % 6)),
			   .rtm_table = tables[fz_below(&rng, 4) ? 0 : fz_below(&rng, 4)],
			   .rtm_protocol = protos[fz_below(&rng, sizeof(protos))],
			   .rtm_type = types[fz_below(&rng, sizeof(types))]};
	if (fz_below(&rng, 32) == 0)
		rt.rtm_tos = 8;
	if (fz_below(&rng, 64) == 0)
		rt.rtm_flags = RTM_F_CLONED;
	struct nl_build m;
	nl_build_start(&m, del ? RTM_DELROUTE : RTM_NEWROUTE, &rt, sizeof(rt));
	uint8_t dst[16] = {v6 ? 0x20 : 10,     v6 ? 0x01 : (uint8_t)(k * 7), 0x0d, 0xb8, 0,
			   (uint8_t)(0x40 + k)};
	nl_build_attr(&m, RTA_DST, dst, v6 ? 16 : 4);
	uint32_t table = rt.rtm_table, prio = 10 * fz_below(&rng, 3);
	nl_build_attr(&m, RTA_TABLE, &table, 4);
	nl_build_attr(&m, RTA_PRIORITY, &prio, 4);
	if (rt.rtm_type != RTN_UNICAST || (del && fz_below(&rng, 2)))
		goto send;
	if (fz_below(&rng, 4) == 0) { /* by a nexthop object */
		uint32_t id = 1 + fz_below(&rng, NL_OBJECTS);
		nl_build_attr(&m, RTA_NH_ID, &id, 4);
		goto send;
	}
	unsigned int paths = fz_below(&rng, 3) ? 1 : 2 + fz_below(&rng, fz_below(&rng, 8) ? 4 : 70);
	if (paths == 1) {
		uint8_t gw[16];
		unsigned int oif;
		nl_gateway(v6, gw, &oif);
		if (fz_below(&rng, 6))
			nl_build_attr(&m, RTA_GATEWAY, gw, v6 ? 16 : 4);
		nl_build_attr(&m, RTA_OIF, &oif, 4);
		goto send;
	}
	static uint8_t mp[80 * 28];
	size_t at = 0;
	for (unsigned int i = 0; i < paths && at + 28 <= sizeof(mp); i++) {
		uint8_t gw[16];
		unsigned int oif;
		nl_gateway(v6, gw, &oif);
		unsigned int alen = v6 ? 20 : 8;
		struct rtnexthop nh = {.rtnh_len = (unsigned short)(sizeof(nh) + alen),
				       .rtnh_hops = (uint8_t)fz_below(&rng, 4),
				       .rtnh_flags =
					       (uint8_t)(fz_below(&rng, 8) ? 0 : RTNH_F_ONLINK),
				       .rtnh_ifindex = (int)oif};
		memcpy(mp + at, &nh, sizeof(nh));
		uint16_t type = RTA_GATEWAY, a = (uint16_t)alen;
		memcpy(mp + at + sizeof(nh), &a, 2);
		memcpy(mp + at + sizeof(nh) + 2, &type, 2);
		memcpy(mp + at + sizeof(nh) + 4, gw, v6 ? 16 : 4);
		at += sizeof(nh) + alen;
	}
	nl_build_attr(&m, RTA_MULTIPATH, mp, at);
send:
	nl_send(&m);
}

static void
nl_object(bool del)
{
	struct nhmsg nh = {.nh_family = (uint8_t)(fz_below(&rng, 2) ? AF_INET : AF_INET6)};
	struct nl_build m;
	nl_build_start(&m, del ? RTM_DELNEXTHOP : RTM_NEWNEXTHOP, &nh, sizeof(nh));
	uint32_t id = 1 + fz_below(&rng, NL_OBJECTS);
	nl_build_attr(&m, NHA_ID, &id, 4);
	if (!del) {
		unsigned int kind = fz_below(&rng, 8);
		if (kind < 4) {
			uint8_t gw[16];
			unsigned int oif;
			nl_gateway(nh.nh_family == AF_INET6, gw, &oif);
			nl_build_attr(&m, NHA_GATEWAY, gw, nh.nh_family == AF_INET6 ? 16 : 4);
			nl_build_attr(&m, NHA_OIF, &oif, 4);
		} else if (kind < 7) { /* a group, perhaps of groups or of itself */
			struct nexthop_grp g[80];
			unsigned int n = 1 + fz_below(&rng, fz_below(&rng, 8) ? 4 : 70);
			for (unsigned int i = 0; i < n; i++)
				g[i] = (struct nexthop_grp){.id = 1 + fz_below(&rng, NL_OBJECTS),
							    .weight = (uint8_t)fz_below(&rng, 4)};
			nl_build_attr(&m, NHA_GROUP, g, sizeof(g[0]) * n);
		} else {
			nl_build_attr(&m, NHA_BLACKHOLE, NULL, 0);
		}
	}
	nl_send(&m);
}

/* Every route the mirror remembers is in the FIB at its key. */
static void
mirror_consistent(void)
{
	for (size_t i = 0; i < rt_mirror.own.cap; i++) {
		const struct mset_entry *e = &rt_mirror.own.e[i];
		if (!e->used)
			continue;
		struct fib_route fr = {.dst = {.family = e->key.family, .len = e->key.len},
				       .table = e->key.table,
				       .metric = e->key.metric},
				 got;
		if (e->key.family == AF_INET) {
			uint32_t be;
			memcpy(&be, e->key.addr, 4);
			fr.dst.addr.v4 = rte_be_to_cpu_32(be);
		} else {
			memcpy(fr.dst.addr.v6, e->key.addr, 16);
		}
		if (fib_route_get(r.fib, &fr, false, &got) != 0 || !rt_mirror_owns(&got))
			die("%s", "a route the mirror remembers is not in the FIB");
	}
}

static int
count_nh(const struct nh_info *n, void *arg)
{
	(void)n;
	(*(unsigned int *)arg)++;
	return 0;
}

static unsigned int
nexthops(void)
{
	unsigned int n = 0;
	nh_walk(r.nh, count_nh, &n);
	return n;
}

static void
netlink_phase(unsigned long messages)
{
	phase = "netlink";
	unsigned int nh0 = nexthops();
	for (unsigned long i = 0; i < messages; i++) {
		unsigned int k = fz_below(&rng, 10);
		if (k < 6)
			nl_route(k == 5);
		else
			nl_object(k == 9);
		if (i % 64 == 63)
			mirror_consistent();
	}
	/* The kernel deletes everything: every key of the pools, every
	 * object. */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t id = 1; id <= NL_OBJECTS; id++) {
			struct nhmsg nh = {.nh_family = AF_UNSPEC};
			struct nl_build m;
			nl_build_start(&m, RTM_DELNEXTHOP, &nh, sizeof(nh));
			nl_build_attr(&m, NHA_ID, &id, 4);
			rt_mirror_message(&r, nl_build_done(&m));
		}
		size_t n = 0;
		struct mset_entry *keys = calloc(rt_mirror.own.n + 1, sizeof(*keys));
		for (size_t i = 0; keys != NULL && i < rt_mirror.own.cap; i++)
			if (rt_mirror.own.e[i].used)
				keys[n++] = rt_mirror.own.e[i];
		for (size_t i = 0; i < n; i++) {
			const struct mset_entry *e = &keys[i];
			struct rtmsg rt = {.rtm_family = e->key.family,
					   .rtm_dst_len = e->key.len,
					   .rtm_protocol = e->protocol,
					   .rtm_type = e->type};
			struct nl_build m;
			nl_build_start(&m, RTM_DELROUTE, &rt, sizeof(rt));
			nl_build_attr(&m, RTA_DST, e->key.addr, e->key.family == AF_INET ? 4 : 16);
			uint32_t table = e->key.table, prio = e->key.metric;
			nl_build_attr(&m, RTA_TABLE, &table, 4);
			nl_build_attr(&m, RTA_PRIORITY, &prio, 4);
			rt_mirror_message(&r, nl_build_done(&m));
		}
		free(keys);
	}
	if (rt_mirror.own.n != 0 || r.mirror.groups != 0)
		die("%s", "the mirror holds routes or groups once the kernel has none");
	nh_reclaim(r.nh);
	if (nexthops() != nh0)
		die("%s", "nexthops left behind by the mirror");
}

/* Command lines from the grammar, then broken. */
static const char *const commands[] = {
	"route add 10.77.0.0/16 via 198.51.100.2",
	"route add 10.78.0.0/16 nexthop via 198.51.100.2 weight 3 nexthop via 198.51.100.3",
	"route replace 10.77.0.0/16 via 192.0.2.2 metric 20 table 100 proto bgp",
	"route del 10.77.0.0/16",
	"route add blackhole 10.79.0.0/16",
	"route add unreachable 2001:db8:77::/48",
	"-6 route add 2001:db8:78::/48 via 2001:db8:2::2",
	"route get 10.77.1.1 from 192.0.2.2 iif port0",
	"route show table all",
	"route flush root 10.76.0.0/14",
	"-j route show",
	"addr add 192.0.2.9/24 dev port0",
	"addr del 192.0.2.9/24 dev port0",
	"addr add 2001:db8:1::9/64 dev port0",
	"link set port1 mtu 1400",
	"link set port1 mtu 1500",
	"link set port0 down",
	"link set port0 up",
	"link set port0 ra on",
	"link set port0 rdnss 2001:db8::53",
	"neigh add 198.51.100.3 lladdr 02:00:00:00:00:33 dev port1 permanent",
	"neigh del 198.51.100.3 dev port1",
	"neigh flush dev port1",
	"nexthop add id 10 via 198.51.100.2 dev port1",
	"nexthop add id 11 group 10",
	"nexthop del id 11",
	"route add 10.80.0.0/16 nhid 10",
	"rule add priority 100 from 192.0.2.0/24 table 100",
	"rule del priority 100",
	"rule add priority 200 dport 1000-2000 ipproto udp unreachable",
	"stats",
	"-s link show",
	"save",
	"log show",
	"monitor",
};

static void
cli_phase(unsigned long lines)
{
	phase = "cli";
	struct rt_buf out = {0};
	for (unsigned long i = 0; i < lines; i++) {
		char line[4200];
		snprintf(line, sizeof(line), "%s",
			 commands[fz_below(&rng, sizeof(commands) / sizeof(commands[0]))]);
		size_t n = strlen(line);
		switch (fz_below(&rng, 8)) {
		case 0: /* a byte changed (not to a newline: it ends a line) */
			if (n > 0)
				line[fz_below(&rng, (uint32_t)n)] =
					(char)(11 + fz_below(&rng, 245));
			break;
		case 1: /* cut short */
			line[fz_below(&rng, (uint32_t)n + 1)] = 0;
			break;
		case 2: /* a long word */
			for (size_t k = n; k < n + 3000 && k < sizeof(line) - 1; k++)
				line[k] = (char)('0' + fz_below(&rng, 10));
			line[n + 3000 < sizeof(line) - 1 ? n + 3000 : sizeof(line) - 1] = 0;
			break;
		case 3: /* many words */
			for (size_t k = n; k + 2 < sizeof(line) - 1 && k < n + 1600; k += 2)
				line[k] = ' ', line[k + 1] = 'x', line[k + 2] = 0;
			break;
		case 4: { /* a number at a limit */
			static const char *const nums[] = {
				"4294967295",           "4294967296", "0",    "-1",
				"99999999999999999999", "255",        "65536"};
			char *sp = strrchr(line, ' ');
			if (sp != NULL)
				snprintf(sp + 1, sizeof(line) - (size_t)(sp + 1 - line), "%s",
					 nums[fz_below(&rng, 7)]);
			break;
		}
		default:
			break;
		}
		char err[256] = "";
		out.len = 0;
		int rc = rt_cli_exec(&r, line, true, &out, err, sizeof(err));
		if (rc > 0 || (rc < 0 && (err[0] == 0 || strchr(err, '\n') != NULL)))
			die("'%s': not 0 or one line of error", line);
		cli_refused += rc < 0;
		if (i % 4 == 0)
			burst();
	}
	free(out.s);
}

static unsigned long
arg(int argc, char **argv, const char *name, unsigned long def)
{
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return strtoul(argv[i + 1], NULL, 0);
	return def;
}

int
main(int argc, char **argv)
{
	unsigned long frames = arg(argc, argv, "--frames", 200000);
	unsigned long messages = arg(argc, argv, "--netlink", 20000);
	unsigned long lines = arg(argc, argv, "--cli", 20000);
	seed = arg(argc, argv, "--seed", 1);
	rng.s = seed * 0x9e3779b97f4a7c15ull + 1;
	/* The TAPs in a namespace of the fuzzer's own, as root. */
	bool taps = geteuid() == 0 && unshare(CLONE_NEWNET) == 0;
	if (dp_harness_eal(argv[0], "ctl_fuzz", 2) < 0)
		return 1;
	rte_log_set_level_pattern("router.*", RTE_LOG_ERR); /* what hostile input makes it say */
	conf_defaults(&r.conf);
	r.conf.control_ports = taps;
	r.conf.kernel_routes = false; /* the netlink phase feeds the mirror itself */
	dp_harness_setup(&r, 64);
	for (uint16_t p = 0; p < r.dp.nb_ports; p++) {
		snprintf(r.dp.port[p].name, sizeof(r.dp.port[p].name), "port%u", p);
		static const uint8_t macs[2][6] = {{0x02, 0, 0, 0, 0, 0x10},
						   {0x02, 0, 0, 0, 0, 0x11}};
		memcpy(&r.dp.port[p].mac, macs[p], 6);
		nh_port_set(r.nh, p, macs[p], 1500);
	}
	r.dp.ctl_tx = rte_ring_create("ctl_tx", 4096, (int)rte_socket_id(),
				      RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r.dp.ctl_tx == NULL || rt_control_init(&r) < 0 || rt_cport_init(&r) < 0)
		die("%s", "the control core would not start");
	unsigned int pool0 = rte_mempool_avail_count(r.pool);
	static const char *const setup[] = {
		"addr add 192.0.2.1/24 dev port0",
		"addr add 198.51.100.1/24 dev port1",
		"addr add 2001:db8:1::1/64 dev port0",
		"addr add 2001:db8:2::1/64 dev port1",
		"addr add fe80::1/64 dev port0",
		"addr add fe80::2/64 dev port1",
		"route add 10.99.0.0/16 via 198.51.100.4",
		"route add 2001:db8:99::/48 via 2001:db8:2::4",
		"neigh add 198.51.100.3 lladdr 02:00:00:00:00:33 dev port1",
		"link set port0 ra on",
	};
	for (size_t i = 0; i < sizeof(setup) / sizeof(setup[0]); i++)
		cli(setup[i]);
	frames_phase(frames);
	netlink_phase(messages);
	cli_phase(lines);
	phase = "the end";
	/* What waits anywhere goes: reassembly, neighbour queues. */
	rt_reasm_timer(&r, rt_now_ms() + RT_REASM_TIMEOUT6_MS + 1000);
	drain_sent();
	const struct rt_wstats *st = &r.dp.worker[0].st;
	struct rt_reasm_stats rs;
	rt_reasm_stats(r.reasm, &rs);
	unsigned long skipped = 0;
	for (int i = 0; i < RT_MIRROR_SKIP_COUNT; i++)
		skipped += r.mirror.skipped[i];
	printf("ctl_fuzz: seed %llu: %lu frames (%lu punted), %lu of the control core's checked; "
	       "reassembly: %lu fragments, %lu datagrams rebuilt, %lu evicted; %lu netlink "
	       "messages: the mirror added %lu routes, replaced %lu, deleted %lu, skipped %lu, "
	       "%lu malformed; %lu command lines, %lu refused\n",
	       (unsigned long long)seed, (unsigned long)st->rx, (unsigned long)st->punt_total,
	       sent_checked, (unsigned long)rs.reqds, (unsigned long)rs.oks,
	       (unsigned long)rs.evicted, messages, (unsigned long)r.mirror.added,
	       (unsigned long)r.mirror.replaced, (unsigned long)r.mirror.deleted, skipped,
	       (unsigned long)r.mirror.malformed, lines, cli_refused);
	rt_cport_fini(&r);
	neigh_free(r.neigh);
	r.neigh = NULL;
	rt_reasm_destroy(r.reasm);
	r.reasm = NULL;
	drain_sent();
	unsigned int pool1 = rte_mempool_avail_count(r.pool);
	if (pool1 != pool0) {
		char d[32];
		snprintf(d, sizeof(d), "%d", (int)pool0 - (int)pool1);
		die("%s mbufs not back in the pool", d);
	}
	return 0;
}
