/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline cost: TSC cycles per packet of the worker's own per-packet
 * code (dp_burst from app/router, the library routerd runs), from
 * classification and validation to the rewritten mbuf queued for TX.
 * Building the packets and the devices' TX are outside the timed part.
 *
 *   pipeline_bench [EAL options: two ports, e.g. --vdev=net_null0
 *                   --vdev=net_null1] -- [--smoke] [--runs N] [--packets N]
 *
 * Packets are 64-byte UDP frames, IPv4 and IPv6, to destinations drawn
 * from the vendored real tables, with the whole table loaded:
 * 4,096 distinct destinations, or a uniform spread over the table's
 * prefixes. Variants: a single route; the full table (its routes spread
 * over 8 gateways); the full table with one custom policy rule (that does
 * not match); a rule sending every packet to another table, holding a
 * default route only or the full table too (a VRF with its own feed);
 * the full table through an ECMP group of 4; and the
 * 4,096 destinations copied in just before the timed part, as a copying
 * driver (memif, af_packet) hands a burst over: its stores are then still
 * draining, and each store of the stages waits behind them. Each figure
 * is the median of --runs runs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ring.h>
#include <rte_udp.h>

/* Callgrind's client requests, when valgrind is installed: each variant
 * ends with a labelled dump, so bench/callgrind_pipeline.sh reads
 * instructions a packet per variant. Outside valgrind they cost a few
 * instructions, outside the timed part. */
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_DUMP_STATS_AT(label) ((void)(label))
#endif

#include "bench_util.h"
#include "dp_harness.h"
#include "dp_inline.h"
#include "prefix_file.h"
#include "udp_frame.h"

static struct {
	unsigned int runs;
	uint32_t packets;
	uint32_t routes; /* 0: all */
} opt = {.runs = 7, .packets = 1u << 20};

static struct router r;
static char summary_buf[4096];
static size_t summary_len;

/* A "name value" line for the summary printed at the end. */
static void
summary(const char *name, double v)
{
	summary_len += (size_t)snprintf(summary_buf + summary_len,
					sizeof(summary_buf) - summary_len, "%s %.2f\n", name, v);
}
static const uint8_t gw_mac[6] = {0x02, 0, 0, 0, 0, 0x99};

/* A resolved gateway nexthop on port 1. */
static uint32_t
gateway(uint8_t family, uint8_t last)
{
	return dp_harness_gateway(&r, family, last, gw_mac);
}

/* How many gateways the full table's routes alternate over. */
#define PIPE_GATEWAYS 8

struct dests {
	uint8_t family;
	uint32_t n;
	uint8_t (*a)[16]; /* network order */
};

/* n destinations inside random prefixes of the table (uniform spread),
 * or `distinct` of them repeated. */
static void
make_dests(const struct prefix_list *pl, struct dests *d, uint32_t distinct, uint64_t seed)
{
	d->a = malloc(16 * (size_t)d->n);
	for (uint32_t i = 0; i < d->n; i++) {
		if (distinct && i >= distinct) {
			memcpy(d->a[i], d->a[i % distinct], 16);
			continue;
		}
		const struct fib_prefix *p = &pl->p[xorshift64(&seed) % pl->n];
		uint64_t h = xorshift64(&seed), l = xorshift64(&seed);
		prefix_pick(p, h, l, d->a[i]);
	}
}

/* A 64-byte UDP frame to dst, as received on port 0 from the gateway. */
static void
build(struct rte_mbuf *m, uint8_t family, const uint8_t *dst, uint32_t i)
{
	static const uint8_t src4[4] = {192, 0, 2, 2};
	static const uint8_t src6[16] = {0x20, 0x01, [15] = 2};
	udp_frame(m, family, &r.dp.port[0].mac, (const struct rte_ether_addr *)gw_mac,
		  family == FIB_AF_INET ? src4 : src6, dst, (uint16_t)(1024 + i % 4096));
}

/* Bursts built ahead of the one being timed. The builder's stores must
 * have left the store buffer before dp_burst loads the headers, as a
 * NIC's writes have: a load that spans several pending smaller stores
 * (the IPv4 checksum's 32-bit reads over byte and word fields) cannot be
 * forwarded and waits for them, which no received packet does. Four
 * bursts are about 1,500 stores, well past the store buffer. */
#define AHEAD 4

static void
build_burst(const struct dests *d, struct rte_mbuf **pkts, uint32_t i)
{
	if (rte_pktmbuf_alloc_bulk(r.pool, pkts, RT_BURST) != 0)
		bench_die("mbufs", ENOMEM);
	for (unsigned int k = 0; k < RT_BURST; k++)
		build(pkts[k], d->family, d->a[i + k], i + k);
}

/* A burst copied into fresh mbufs, as memif's RX does (a copy of each
 * frame into an mbuf from the pool, its lengths set); the originals are
 * freed. The copy is in 16-byte stores, as Debian's driver, built for
 * baseline x86-64, makes it with rte_memcpy (rounded up to 16 bytes:
 * the buffers are 2 KiB). */
static void
copy_in(struct rte_mbuf **pkts)
{
	struct rte_mbuf *c[RT_BURST];
	if (rte_pktmbuf_alloc_bulk(r.pool, c, RT_BURST) != 0)
		bench_die("mbufs", ENOMEM);
	for (unsigned int k = 0; k < RT_BURST; k++) {
		uint16_t len = rte_pktmbuf_data_len(pkts[k]);
		const uint8_t *from = rte_pktmbuf_mtod(pkts[k], const uint8_t *);
		uint8_t *to = rte_pktmbuf_mtod(c[k], uint8_t *);
		for (unsigned int o = 0; o < len; o += 16)
			_mm_storeu_si128((__m128i *)(to + o),
					 _mm_loadu_si128((const __m128i *)(from + o)));
		c[k]->data_len = len;
		c[k]->pkt_len = len;
		c[k]->port = 0;
	}
	rte_pktmbuf_free_bulk(pkts, RT_BURST);
	memcpy(pkts, c, sizeof(c));
}

/* One run: cycles per packet spent in dp_burst; with copied, each burst
 * is copied in (copy_in) right before it, outside the timed part. */
static double
run(const struct dests *d, bool copied)
{
	struct rt_worker *w = &r.dp.worker[0];
	struct rte_mbuf *q[AHEAD + 1][RT_BURST];
	uint64_t cycles = 0, fwd0 = w->st.fwd;
	uint32_t nb = d->n / RT_BURST;
	for (uint32_t b = 0; b < AHEAD && b < nb; b++)
		build_burst(d, q[b], b * RT_BURST);
	for (uint32_t b = 0; b < nb; b++) {
		if (b + AHEAD < nb)
			build_burst(d, q[(b + AHEAD) % (AHEAD + 1)], (b + AHEAD) * RT_BURST);
		struct rte_mbuf **pkts = q[b % (AHEAD + 1)];
		if (copied)
			copy_in(pkts);
		uint64_t t0 = rte_rdtsc();
		dp_burst(&r.dp, w, 0, pkts, RT_BURST);
		cycles += rte_rdtsc() - t0;
		for (uint16_t p = 0; p < r.dp.nb_ports; p++)
			dp_tx_flush(w, p);
		for (unsigned int c = 0; c < RT_EXC_CLASSES; c++) {
			struct rte_mbuf *x[64];
			unsigned int n =
				rte_ring_sc_dequeue_burst(w->exc[0][c], (void **)x, 64, NULL);
			rte_pktmbuf_free_bulk(x, n);
		}
	}
	uint32_t done = d->n - d->n % RT_BURST;
	if (w->st.fwd - fwd0 != done) {
		fprintf(stderr, "pipeline_bench: only %llu of %u packets forwarded\n",
			(unsigned long long)(w->st.fwd - fwd0), done);
		exit(1);
	}
	return (double)cycles / done;
}

/* The median of --runs runs; the label names the variant in callgrind's
 * dump, which covers exactly these runs. */
static double
median_run(const struct dests *d, const char *label, bool copied)
{
	double v[31];
	for (unsigned int k = 0; k < opt.runs; k++)
		v[k] = run(d, copied);
	char l[96];
	snprintf(l, sizeof(l), "pipeline%s_%s packets=%u", d->family == FIB_AF_INET ? "4" : "6",
		 label, opt.runs * (d->n - d->n % RT_BURST));
	CALLGRIND_DUMP_STATS_AT(l);
	return bench_median(v, opt.runs);
}

/* Route i through nh[i % n], in table t (0: main). */
static void
add_routes(const struct prefix_list *pl, const uint32_t *nh, unsigned int n, uint32_t t)
{
	for (uint32_t i = 0; i < pl->n; i++) {
		struct fib_route rt = {.dst = pl->p[i], .table = t, .nh = nh[i % n]};
		int rc = fib_route_replace(r.fib, &rt);
		if (rc < 0)
			bench_die("route", rc);
	}
}

static void
family(uint8_t af, const char *file, const char *tag)
{
	struct prefix_list pl;
	int rc = prefix_list_load(prefix_data_path(file), &pl);
	if (rc < 0)
		bench_die(file, rc);
	prefix_list_dedup(&pl);
	if (opt.routes && opt.routes < pl.n)
		pl.n = opt.routes;
	struct dests uni = {.family = af, .n = opt.packets}, few = uni;
	make_dests(&pl, &uni, 0, 0x1234);
	make_dests(&pl, &few, 4096, 0x5678);
	/* Gateways the routes alternate over, as a router's neighbours: were
	 * every route through the default route's gateway, the FIB would
	 * merge the whole table into its first level (a group that says one
	 * thing everywhere is merged), and the "full table" would be walked
	 * like a single route. */
	uint32_t gws[PIPE_GATEWAYS];
	for (unsigned int k = 0; k < PIPE_GATEWAYS; k++)
		gws[k] = gateway(af, (uint8_t)(1 + k));
	uint32_t gw = gws[0];
	char key[64];

	/* A single route: the default. */
	struct fib_route def = {.dst = {.family = af}, .nh = gw};
	fib_route_add(r.fib, &def);
	double single = median_run(&uni, "single", false);
	printf("IPv%s single route            %6.2f cycles/packet\n", tag, single);
	/* The full table. */
	add_routes(&pl, gws, PIPE_GATEWAYS, 0);
	double full = median_run(&uni, "full", false), full4k = median_run(&few, "4096", false);
	printf("IPv%s full table, uniform     %6.2f cycles/packet\n", tag, full);
	printf("IPv%s full table, 4096 dests  %6.2f cycles/packet\n", tag, full4k);
	double copied = median_run(&few, "copyin", true);
	printf("IPv%s 4096 dests, copied in   %6.2f cycles/packet\n", tag, copied);
	/* One custom rule that matches nothing. */
	struct fib_rule ru = {.priority = 100,
			      .family = af,
			      .action = FIB_RULE_TABLE,
			      .dscp = FIB_DSCP_ANY,
			      .iif = FIB_IIF_ANY,
			      .table = 100};
	ru.src.family = ru.dst.family = af;
	ru.src.len = 8;
	if (af == FIB_AF_INET)
		ru.src.addr.v4 = 0x0a000000;
	else
		ru.src.addr.v6[0] = 0xfd;
	fib_rule_add(r.fib, &ru);
	double rule = median_run(&uni, "rule", false);
	fib_rule_del(r.fib, &ru);
	printf("IPv%s full table, one rule    %6.2f cycles/packet\n", tag, rule);
	/* A rule that sends every packet to another table holding only a
	 * default route: a small table (docs/fib.md), walked by its scalar
	 * loop instead of main's vector lookup. */
	ru.src.len = 0;
	memset(&ru.src.addr, 0, sizeof(ru.src.addr));
	ru.table = 101;
	struct fib_route vdef = {.dst = {.family = af}, .table = 101, .nh = gw};
	if (fib_route_add(r.fib, &vdef) < 0 || fib_rule_add(r.fib, &ru) < 0)
		bench_die("small table", EINVAL);
	double vrf = median_run(&uni, "small", false);
	fib_rule_del(r.fib, &ru);
	fib_route_del(r.fib, &vdef, true);
	printf("IPv%s rule to a small table   %6.2f cycles/packet\n", tag, vrf);
	/* A rule that sends every packet to another table holding the full
	 * table too, as a VRF with its own feed: main's answer serves only
	 * the local check, and each packet is looked up again there. */
	ru.table = 102;
	add_routes(&pl, gws, PIPE_GATEWAYS, 102);
	if (fib_rule_add(r.fib, &ru) < 0)
		bench_die("full table rule", EINVAL);
	double vrf_full = median_run(&uni, "vrf_full", false);
	fib_rule_del(r.fib, &ru);
	printf("IPv%s rule to a full table    %6.2f cycles/packet\n", tag, vrf_full);
	/* Through an ECMP group of 4. */
	struct nh_member m[4];
	for (int k = 0; k < 4; k++)
		m[k] = (struct nh_member){gateway(af, (uint8_t)(10 + k)), 1};
	uint32_t g;
	if (nh_group_add(r.nh, m, 4, &g) < 0)
		bench_die("group", ENOSPC);
	add_routes(&pl, &g, 1, 0);
	double ecmp = median_run(&uni, "ecmp", false);
	printf("IPv%s full table, ECMP of 4   %6.2f cycles/packet\n", tag, ecmp);

	snprintf(key, sizeof(key), "pipeline%s_cycles", tag);
	summary(key, full);
	snprintf(key, sizeof(key), "pipeline%s_single_cycles", tag);
	summary(key, single);
	snprintf(key, sizeof(key), "pipeline%s_4096_cycles", tag);
	summary(key, full4k);
	snprintf(key, sizeof(key), "pipeline%s_copyin_cycles", tag);
	summary(key, copied);
	snprintf(key, sizeof(key), "pipeline%s_rule_cycles", tag);
	summary(key, rule);
	snprintf(key, sizeof(key), "pipeline%s_ecmp_cycles", tag);
	summary(key, ecmp);
	snprintf(key, sizeof(key), "pipeline%s_small_table_cycles", tag);
	summary(key, vrf);
	snprintf(key, sizeof(key), "pipeline%s_full_table_rule_cycles", tag);
	summary(key, vrf_full);
	free(uni.a);
	free(few.a);
	prefix_list_free(&pl);
}

int
main(int argc, char **argv)
{
	bench_eal_init(&argc, &argv);
	static const struct option longopts[] = {{"smoke", no_argument, NULL, 's'},
						 {"runs", required_argument, NULL, 'r'},
						 {"packets", required_argument, NULL, 'p'},
						 {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 's') {
			opt.runs = 1;
			opt.packets = 1u << 14;
			opt.routes = 20000;
		} else if (c == 'r') {
			opt.runs = (unsigned int)atoi(optarg);
		} else if (c == 'p') {
			opt.packets = (uint32_t)strtoul(optarg, NULL, 0);
		} else {
			fprintf(stderr, "usage: pipeline_bench [EAL] -- [--smoke] [--runs N] "
					"[--packets N]\n");
			return 2;
		}
	}
	if (opt.runs < 1 || opt.runs > 31 || opt.packets < RT_BURST) {
		fprintf(stderr, "pipeline_bench: --runs 1..31, --packets >= 32\n");
		return 2;
	}
	/* TX buffers of twice the burst: they never flush inside the timed
	 * part. */
	dp_harness_setup(&r, 2 * RT_BURST);
	printf("TSC %.3f GHz, %u packets a run, %u runs\n", rte_get_tsc_hz() / 1e9, opt.packets,
	       opt.runs);
	family(FIB_AF_INET, "prefixes-v4.txt.gz", "4");
	family(FIB_AF_INET6, "prefixes-v6.txt.gz", "6");
	printf("\nsummary\n%s", summary_buf);
	return 0;
}
