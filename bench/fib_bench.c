/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FIB benchmark: our lookup structures against rte_fib and rte_lpm (IPv4)
 * and rte_fib6 and rte_lpm6 (IPv6), on the vendored real tables and the
 * same random addresses, in the same run. Every figure is the median of
 * --runs runs, in TSC cycles per operation; ratios are rates (ours over
 * the peer's), so above 1 means we are faster.
 *
 *   fib_bench [EAL options] -- [--smoke] [--runs N] [--addrs N] [--routes N]
 *
 * Lookups go in bursts of 32 (DPDK's usual burst; the summary's ratios)
 * and of 64 (routerd's worker burst; the _b64 keys). Each peer is measured in
 * every lookup implementation it has on this machine (rte_fib's AVX-512
 * one needs --force-max-simd-bitwidth=512), and compared at its fastest.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_eal.h>

#include "bench_util.h"
#include "lpm_peers.h"
#include "mem_chase.h"
#include "prefix_file.h"

#define MAX_RUNS 31

static struct {
	unsigned int runs;
	uint32_t addrs;
	uint32_t routes;       /* 0: the whole table */
	unsigned int burst;    /* addresses per bulk lookup call */
	unsigned int burst2;   /* a second burst size measured, 0: none */
	unsigned int max_len6; /* IPv6 addresses only in prefixes this long or shorter */
	int in_prefixes4;      /* % of IPv4 addresses inside random prefixes, as IPv6's */
	int shuffle;           /* routes go in and out in random order, not the file's */
	int isolated;          /* each bulk call's answers awaited before the next call */
	int ours_only;         /* our bulk lookup alone: no peer, no updates */
	int smoke;
	const char *only; /* "4", "6", "rules" or "shrink": run just that part */
	FILE *summary;
} opt = {.runs = 7, .addrs = 1u << 22, .burst = 32, .burst2 = 64, .max_len6 = 128};

struct family_setup {
	uint8_t af;
	const char *file;
	const char *tag; /* "4" or "6" */
	int (*fast_peer)(struct peer *, uint32_t, uint32_t);
	int (*slow_peer)(struct peer *, uint32_t, uint32_t);
	/* Second-level groups the peers get per route, on top of twice what
	 * ours needed: rte_fib6 and rte_lpm6 allocate about 1.5 to 2.3 per
	 * IPv6 route on this table (measured), far more than we do. */
	uint32_t peer_groups_per_route;
};

struct workload {
	uint8_t af;
	struct prefix_list pl;
	uint32_t *nh;
	void *addrs; /* uint32_t[n] or uint8_t[n][16] */
	size_t addr_size;
	uint32_t naddrs;
	uint32_t ngroups; /* for the peers: what ours needed, with margin */
};

static void
summary(const char *name, double v)
{
	fprintf(opt.summary, "%s %.3f\n", name, v);
}

static const void *
addr_at(const struct workload *w, uint32_t i)
{
	return (const uint8_t *)w->addrs + (size_t)i * w->addr_size;
}

static void
make_addrs(struct workload *w)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	w->addr_size = w->af == FIB_AF_INET ? 4 : 16;
	w->addrs = malloc(w->addr_size * w->naddrs);
	for (uint32_t i = 0; i < w->naddrs; i++) {
		/* The draw for a mix only when asked, so that the pure
		 * cases keep the addresses of earlier runs. */
		if (w->af == FIB_AF_INET &&
		    (opt.in_prefixes4 == 0 ||
		     (opt.in_prefixes4 < 100 && (int)(xorshift64(&s) % 100) >= opt.in_prefixes4))) {
			/* Uniform over the address space: the table covers
			 * most of it, and each lookup lands on a random line. */
			((uint32_t *)w->addrs)[i] = (uint32_t)xorshift64(&s);
			continue;
		}
		if (w->af == FIB_AF_INET) {
			/* A random address inside a random route: traffic to
			 * where the table routes, which lands in the /16s
			 * holding longer prefixes far more often than uniform
			 * addresses do (docs/performance.md). */
			const struct fib_prefix *p = &w->pl.p[xorshift64(&s) % w->pl.n];
			uint32_t keep = p->len ? ~0u << (32 - p->len) : 0;
			((uint32_t *)w->addrs)[i] =
				(p->addr.v4 & keep) | ((uint32_t)xorshift64(&s) & ~keep);
			continue;
		}
		/* IPv6 routes cover a sliver of the space: a uniform address
		 * would miss at the first level. Instead a random address
		 * inside a random route, so lookups walk the trie as
		 * forwarded traffic does. */
		const struct fib_prefix *p;
		do
			p = &w->pl.p[xorshift64(&s) % w->pl.n];
		while (p->len > opt.max_len6);
		uint8_t *a = (uint8_t *)w->addrs + 16 * (size_t)i;
		uint64_t h = xorshift64(&s), l = xorshift64(&s);
		for (int k = 0; k < 16; k++) {
			uint8_t r = (uint8_t)((k < 8 ? h : l) >> (8 * (k % 8)));
			int bits = (int)p->len - 8 * k; /* prefix bits in byte k */
			uint8_t keep = bits >= 8   ? 0xff
				       : bits <= 0 ? 0
						   : (uint8_t)(0xff << (8 - bits));
			a[k] = (p->addr.v6[k] & keep) | (r & ~keep);
		}
	}
}

/* Add every route; returns TSC cycles per insert, or -1 on error. */
static double
load(struct peer *p, const struct workload *w)
{
	uint64_t t0 = bench_tsc();
	for (uint32_t i = 0; i < w->pl.n; i++) {
		int rc = p->add(p->ctx, &w->pl.p[i], w->nh[i]);
		if (rc < 0) {
			fprintf(stderr, "%s: add #%u failed: %s\n", p->name, i, strerror(-rc));
			return -1;
		}
	}
	return (double)(bench_tsc() - t0) / w->pl.n;
}

static double
unload(struct peer *p, const struct workload *w)
{
	uint64_t t0 = bench_tsc();
	for (uint32_t i = 0; i < w->pl.n; i++) {
		int rc = p->del(p->ctx, &w->pl.p[i]);
		if (rc < 0) {
			fprintf(stderr, "%s: delete #%u failed: %s\n", p->name, i, strerror(-rc));
			return -1;
		}
	}
	return (double)(bench_tsc() - t0) / w->pl.n;
}

/* Back to back, a call's instructions that do not wait for its misses
 * let the CPU start the next call's reads under them, and a lookup whose
 * calls overlap that way runs faster per address than its latency
 * allows. routerd cannot overlap that way: its act step reads each
 * burst's answers before the next burst is received. --isolated measures
 * that case: each call's answers are read back and an lfence (which on
 * x86 lets no later instruction start before every earlier one is done)
 * keeps the next call from starting under this one. */
static inline void
await_answers(const uint64_t *out, unsigned int burst)
{
	uint64_t sum = 0;
	/* burst words: all of the answers, whether 4 or 8 bytes each. */
	for (unsigned int j = 0; j < burst; j++)
		sum += out[j];
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("lfence" : : "r"(sum) : "memory");
#else
	/* Elsewhere a full barrier: it orders memory, not execution, so
	 * calls may still overlap somewhat. */
	__asm__ volatile("" : : "r"(sum) : "memory");
	rte_mb();
#endif
}

static double
time_bulk(const struct peer *p, unsigned int v, const struct workload *w, unsigned int burst)
{
	uint64_t out[PEER_BURST_MAX] = {0};
	uint64_t t0 = bench_tsc();
	if (opt.isolated) {
		for (uint32_t i = 0; i + burst <= w->naddrs; i += burst) {
			p->bulk[v](p->ctx, addr_at(w, i), out, burst);
			await_answers(out, burst);
		}
	} else {
		for (uint32_t i = 0; i + burst <= w->naddrs; i += burst)
			p->bulk[v](p->ctx, addr_at(w, i), out, burst);
	}
	return (double)(bench_tsc() - t0) / (w->naddrs - w->naddrs % burst);
}

/* Bulk lookups in bursts of `burst`: every variant of every peer, runs
 * interleaved so drift affects them alike; best[k] is peer k's fastest
 * variant's median. */
static void
bulk_medians(struct peer *peers, unsigned int np, const struct workload *w, unsigned int burst,
	     double *best)
{
	double samples[3][PEER_MAX_VARIANTS][MAX_RUNS];
	for (unsigned int r = 0; r < opt.runs; r++) {
		for (unsigned int k = 0; k < np; k++) {
			struct peer *p = &peers[k];
			for (unsigned int v = 0; v < p->nvariants; v++) {
				if (p->select)
					p->select(p->ctx, v);
				samples[k][v][r] = time_bulk(p, v, w, burst);
			}
		}
	}
	unsigned int bv[3] = {0};
	for (unsigned int k = 0; k < np; k++) {
		struct peer *p = &peers[k];
		best[k] = 1e30;
		for (unsigned int v = 0; v < p->nvariants; v++) {
			double sorted[MAX_RUNS]; /* bench_median sorts; the runs stay paired */
			memcpy(sorted, samples[k][v], sizeof(double) * opt.runs);
			double m = bench_median(sorted, opt.runs);
			printf("  %-9s bulk lookup %-14s burst %3u %6.2f cycles\n", p->name,
			       p->variant[v], burst, m);
			if (m < best[k]) {
				best[k] = m;
				bv[k] = v;
			}
		}
	}
	/* The summary's ratio divides medians over all runs; each run's own
	 * ratio pairs two timings made seconds apart, so their spread shows
	 * how far the machine drifted between runs. */
	for (unsigned int k = 1; k < np; k++) {
		double q[MAX_RUNS];
		for (unsigned int r = 0; r < opt.runs; r++)
			q[r] = samples[k][bv[k]][r] / samples[0][bv[0]][r];
		double m = bench_median(q, opt.runs); /* sorts q */
		printf("  vs %-9s burst %3u: per-run ratios median %.3f, %.3f to %.3f\n",
		       peers[k].name, burst, m, q[0], q[opt.runs - 1]);
	}
}

static double
time_one(const struct peer *p, const struct workload *w)
{
	volatile uint32_t sink = 0;
	uint32_t acc = 0;
	uint64_t t0 = bench_tsc();
	for (uint32_t i = 0; i < w->naddrs; i++)
		acc += p->one(p->ctx, addr_at(w, i));
	double c = (double)(bench_tsc() - t0) / w->naddrs;
	sink = acc;
	(void)sink;
	return c;
}

/* Every variant of every peer must agree with ours on every address. */
static int
verify(struct peer *peers, unsigned int np, const struct workload *w)
{
	uint64_t ref[PEER_BURST_MAX], out[PEER_BURST_MAX];
	uint64_t bad = 0;
	for (unsigned int k = 1; k < np; k++) {
		struct peer *p = &peers[k];
		for (unsigned int v = 0; v < p->nvariants; v++) {
			if (p->select && p->select(p->ctx, v) != 0)
				return -1;
			for (uint32_t i = 0; i + opt.burst <= w->naddrs; i += opt.burst) {
				peers[0].bulk[0](peers[0].ctx, addr_at(w, i), ref, opt.burst);
				p->bulk[v](p->ctx, addr_at(w, i), out, opt.burst);
				for (unsigned int j = 0; j < opt.burst; j++) {
					uint32_t a = peers[0].result[0](ref, j);
					uint32_t b = p->result[v](out, j);
					if (a != b && bad++ < 5)
						fprintf(stderr,
							"%s/%s disagrees at #%u: %u vs ours %u\n",
							p->name, p->variant[v], i + j, b, a);
					if (j == 0 && p->one(p->ctx, addr_at(w, i)) != a)
						bad++;
				}
			}
		}
	}
	printf("  verified: every lookup of every peer agrees with ours (%s)\n",
	       bad ? "NO" : "yes");
	return bad ? -1 : 0;
}

/* One update run: a fresh table, all routes in, all routes out. */
static int
update_run(const struct family_setup *fs, const struct workload *w,
	   int (*mk)(struct peer *, uint32_t, uint32_t), double *ins, double *del)
{
	struct peer p;
	int rc = mk ? mk(&p, w->pl.n + 16, w->ngroups) : peer_ours(&p, fs->af, w->pl.n, w->ngroups);
	if (rc < 0)
		return rc;
	*ins = load(&p, w);
	*del = *ins < 0 ? -1 : unload(&p, w);
	p.destroy(p.ctx);
	return *ins < 0 || *del < 0 ? -EIO : 0;
}

/* Ours and the peer (mk) in turn, the one that goes first changing with
 * each run, so that the machine's drift falls on both alike, as the
 * lookups' runs do: run back to back in two blocks, the insert ratio
 * swung with the minute. [0] is ours, [1] the peer. */
static int
bench_updates(const struct family_setup *fs, const struct workload *w, const char *peer_name,
	      int (*mk)(struct peer *, uint32_t, uint32_t), double ins[2], double del[2])
{
	double i_s[2][MAX_RUNS], d_s[2][MAX_RUNS];
	for (unsigned int r = 0; r < opt.runs; r++)
		for (unsigned int k = 0; k < 2; k++) {
			unsigned int who = (k + r) % 2;
			int rc = update_run(fs, w, who ? mk : NULL, &i_s[who][r], &d_s[who][r]);
			if (rc < 0)
				return rc;
		}
	for (unsigned int who = 0; who < 2; who++) {
		ins[who] = bench_median(i_s[who], opt.runs);
		del[who] = bench_median(d_s[who], opt.runs);
		printf("  %-9s insert %7.1f cycles/route, delete %7.1f cycles/route\n",
		       who ? peer_name : "ours", ins[who], del[who]);
	}
	return 0;
}

/* Routes in random order, each keeping its nexthop: updates as churn
 * brings them rather than as a full table arrives. After make_addrs, so
 * the lookups' addresses stay those of the file order. */
static void
shuffle_routes(struct workload *w)
{
	uint64_t s = 0x2545f4914f6cdd1dull;
	for (uint32_t i = w->pl.n; i > 1; i--) {
		uint32_t j = (uint32_t)(xorshift64(&s) % i);
		struct fib_prefix p = w->pl.p[i - 1];
		uint32_t nh = w->nh[i - 1];
		w->pl.p[i - 1] = w->pl.p[j];
		w->nh[i - 1] = w->nh[j];
		w->pl.p[j] = p;
		w->nh[j] = nh;
	}
}

/* The vendored table `file` (at most --routes of it) as w's routes,
 * route i through nexthop i % nhs + 1. */
static int
workload_routes(struct workload *w, const char *file, uint32_t nhs)
{
	int rc = prefix_list_load(prefix_data_path(file), &w->pl);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", prefix_data_path(file), strerror(-rc));
		return rc;
	}
	prefix_list_dedup(&w->pl); /* the v4 table lists 215.0.0.0/16 twice */
	if (opt.routes && opt.routes < w->pl.n)
		w->pl.n = opt.routes;
	w->nh = malloc(sizeof(*w->nh) * w->pl.n);
	if (w->nh == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < w->pl.n; i++)
		w->nh[i] = i % nhs + 1;
	return 0;
}

static int
run_family(const struct family_setup *fs)
{
	struct workload w = {.af = fs->af, .naddrs = opt.addrs};
	/* Every nexthop index in turn: within every next-hop width. */
	int rc = workload_routes(&w, fs->file, FIB_NH_MAX);
	if (rc < 0)
		return rc;
	make_addrs(&w);
	if (opt.shuffle)
		shuffle_routes(&w);
	printf("IPv%s: %u routes, %u addresses, %u runs%s%s\n", fs->tag, w.pl.n, w.naddrs, opt.runs,
	       opt.shuffle ? ", routes in random order" : "",
	       opt.isolated ? ", bulk calls isolated" : "");

	/* Ours first: it tells how many groups the peers need. */
	struct peer peers[3];
	unsigned int np = 0;
	if ((rc = peer_ours(&peers[0], fs->af, w.pl.n, 1u << 20)) < 0 || load(&peers[0], &w) < 0)
		return rc < 0 ? rc : -EIO;
	peer_update_mem(&peers[0]);
	struct fib_mem_stats st;
	fib_table_mem(peer_ours_fib(&peers[0]), FIB_TABLE_MAIN, &st);
	uint32_t used = fs->af == FIB_AF_INET ? st.groups4_used : st.groups6_used;
	printf("  ours      %u second-level groups; memory: first level %.1f MiB, groups %.1f MiB, "
	       "RIB %.1f MiB\n",
	       used, (double)st.tbl24_bytes / (1 << 20), (double)st.groups_bytes / (1 << 20),
	       (double)st.rib_bytes / (1 << 20));
	w.ngroups = 2 * used + fs->peer_groups_per_route * w.pl.n + 4096;
	np = 1;
	char key[64];
	if (opt.ours_only) { /* (bench/isa_bench.sh: one build against another) */
		double b[1];
		bulk_medians(peers, 1, &w, opt.burst, b);
		snprintf(key, sizeof(key), "lookup%s_cycles", fs->tag);
		summary(key, b[0]);
		peers[0].destroy(peers[0].ctx);
		return 0;
	}
	if ((rc = fs->fast_peer(&peers[np], w.pl.n + 16, w.ngroups)) < 0)
		return rc;
	if (load(&peers[np], &w) < 0)
		return -EIO;
	peer_update_mem(&peers[np++]);
	if ((rc = fs->slow_peer(&peers[np], w.pl.n + 16, w.ngroups)) < 0)
		return rc;
	double slow_insert = load(&peers[np], &w);
	if (slow_insert < 0)
		return -EIO;
	peer_update_mem(&peers[np++]);
	if (verify(peers, np, &w) < 0)
		return -EPROTO;

	double best[3], one[3], single[3][MAX_RUNS];
	bulk_medians(peers, np, &w, opt.burst, best);
	for (unsigned int r = 0; r < opt.runs; r++) {
		for (unsigned int k = 0; k < np; k++) {
			if (peers[k].select)
				peers[k].select(peers[k].ctx, 0);
			single[k][r] = time_one(&peers[k], &w);
		}
	}
	for (unsigned int k = 0; k < np; k++) {
		one[k] = bench_median(single[k], opt.runs);
		printf("  %-9s single lookup %6.2f cycles, memory %.1f MiB\n", peers[k].name,
		       one[k], (double)peers[k].mem / (1 << 20));
	}
	snprintf(key, sizeof(key), "lookup%s_vs_%s", fs->tag, peers[1].name);
	summary(key, best[1] / best[0]);
	snprintf(key, sizeof(key), "lookup%s_vs_%s", fs->tag, peers[2].name);
	summary(key, best[2] / best[0]);
	snprintf(key, sizeof(key), "lookup%s_cycles", fs->tag);
	summary(key, best[0]);
	snprintf(key, sizeof(key), "single%s_vs_%s", fs->tag, peers[1].name);
	summary(key, one[1] / one[0]);
	snprintf(key, sizeof(key), "single%s_cycles", fs->tag);
	summary(key, one[0]);
	snprintf(key, sizeof(key), "mem%s_mib", fs->tag);
	summary(key, (double)peers[0].mem / (1 << 20));
	snprintf(key, sizeof(key), "mem%s_%s_mib", fs->tag, peers[1].name);
	summary(key, (double)peers[1].mem / (1 << 20));
	/* A second burst size: our IPv6 walk overlaps more misses with more
	 * lanes per level (see docs/performance.md). */
	if (opt.burst2 && opt.burst2 != opt.burst) {
		double b2[3];
		bulk_medians(peers, np, &w, opt.burst2, b2);
		for (unsigned int k = 1; k < np; k++) {
			snprintf(key, sizeof(key), "lookup%s_vs_%s_b%u", fs->tag, peers[k].name,
				 opt.burst2);
			summary(key, b2[k] / b2[0]);
		}
		snprintf(key, sizeof(key), "lookup%s_cycles_b%u", fs->tag, opt.burst2);
		summary(key, b2[0]);
	}
	printf("  %-9s insert %7.1f cycles/route (one run)\n", peers[2].name, slow_insert);
	for (unsigned int k = 0; k < np; k++)
		peers[k].destroy(peers[k].ctx);

	/* Updates: fresh tables each run, all routes in, all routes out. */
	double ins[2], del[2];
	if ((rc = bench_updates(fs, &w, fs->af == FIB_AF_INET ? "rte_fib" : "rte_fib6",
				fs->fast_peer, ins, del)) < 0)
		return rc;
	snprintf(key, sizeof(key), "insert%s_vs_%s", fs->tag,
		 fs->af == FIB_AF_INET ? "rte_fib" : "rte_fib6");
	summary(key, ins[1] / ins[0]);
	snprintf(key, sizeof(key), "delete%s_vs_%s", fs->tag,
		 fs->af == FIB_AF_INET ? "rte_fib" : "rte_fib6");
	summary(key, del[1] / del[0]);
	snprintf(key, sizeof(key), "insert%s_cycles", fs->tag);
	summary(key, ins[0]);

	prefix_list_free(&w.pl);
	free(w.nh);
	free(w.addrs);
	return 0;
}

/* What the first custom rule costs: the datapath's routing step with no
 * rule (bulk lookup of main only) against one rule that does not match
 * (bulk lookup of main, then the burst through the rules, as the
 * datapath calls them); and what more rules cost. IPv6 addresses go by
 * pointers, as the datapath passes them, built in the timed loop as
 * ours_bulk6 builds them. */
static double
time_route(struct fib *fib, uint8_t af, const void *src, const void *dst, uint32_t n)
{
	const struct fib_table *main_t = fib_table_lookup(fib, FIB_TABLE_MAIN);
	uint32_t nh[PEER_BURST_MAX];
	static const struct fib_flow flow[PEER_BURST_MAX]; /* all 0: port 0, DSCP 0, no L4 */
	volatile uint32_t sink;
	uint32_t acc = 0;
	uint64_t t0 = bench_tsc();
	for (uint32_t i = 0; i + opt.burst <= n; i += opt.burst) {
		const struct fib_rule_set *rules;
		if (af == FIB_AF_INET) {
			const uint32_t *s4 = (const uint32_t *)src + i,
				       *d4 = (const uint32_t *)dst + i;
			fib_lookup4_bulk(main_t, d4, nh, opt.burst);
			rules = fib_rules_get(fib, FIB_AF_INET);
			if (rules != NULL)
				fib_rule_route4_bulk(fib, rules, s4, d4, flow, nh, opt.burst);
		} else {
			const uint8_t(*s6)[16] = (const uint8_t(*)[16])src + i;
			const uint8_t(*d6)[16] = (const uint8_t(*)[16])dst + i;
			const uint8_t *sp[PEER_BURST_MAX], *dp[PEER_BURST_MAX];
			for (unsigned int k = 0; k < opt.burst; k++) {
				sp[k] = s6[k];
				dp[k] = d6[k];
			}
			fib_lookup6_bulk(main_t, dp, nh, opt.burst);
			rules = fib_rules_get(fib, FIB_AF_INET6);
			if (rules != NULL)
				fib_rule_route6_bulk(fib, rules, sp, dp, flow, nh, opt.burst);
		}
		acc += nh[0];
	}
	double c = (double)(bench_tsc() - t0) / (n - n % opt.burst);
	sink = acc;
	(void)sink;
	return c;
}

/* Rule k of the ones that match no packet: from 1.0.0.0/8, 2.0.0.0/8, ...
 * (IPv6: 1::/16, 2::/16, ...), sources the benchmark's packets never
 * have (their first bit is set). */
static struct fib_rule
unmatched_rule(uint8_t af, unsigned int k)
{
	struct fib_rule r = {.priority = 100 + k,
			     .family = af,
			     .action = FIB_RULE_TABLE,
			     .dscp = FIB_DSCP_ANY,
			     .iif = FIB_IIF_ANY,
			     .src = {.family = af, .len = 8},
			     .dst = {.family = af},
			     .table = 100};
	if (af == FIB_AF_INET) {
		r.src.addr.v4 = (1u + k) << 24;
	} else {
		r.src.len = 16;
		r.src.addr.v6[1] = (uint8_t)(1 + k);
	}
	return r;
}

/* Add (or delete) the first n of those rules. @return 0 or the first
 * error. */
static int
unmatched_rules(struct fib *fib, uint8_t af, unsigned int n, bool add)
{
	int rc = 0;
	for (unsigned int k = 0; k < n && rc == 0; k++) {
		struct fib_rule ru = unmatched_rule(af, k);
		rc = add ? fib_rule_add(fib, &ru) : fib_rule_del(fib, &ru);
	}
	return rc;
}

static int
bench_rules(uint8_t af)
{
	const char *fam = af == FIB_AF_INET ? "4" : "6";
	struct workload w = {.af = af, .naddrs = opt.addrs};
	int rc = workload_routes(
		&w, af == FIB_AF_INET ? "prefixes-v4.txt.gz" : "prefixes-v6.txt.gz", FIB_NH_MAX);
	if (rc < 0)
		return rc;
	make_addrs(&w);
	/* The sources: the destinations backwards, first bit set. */
	uint8_t *src = malloc(w.addr_size * w.naddrs);
	if (src == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < w.naddrs; i++) {
		memcpy(src + (size_t)i * w.addr_size, addr_at(&w, w.naddrs - 1 - i), w.addr_size);
		if (af == FIB_AF_INET)
			((uint32_t *)src)[i] |= 0x80000000u;
		else
			src[(size_t)i * w.addr_size] |= 0x80;
	}
	struct peer p;
	if ((rc = peer_ours(&p, af, w.pl.n, 1u << 16)) < 0 || load(&p, &w) < 0)
		return rc < 0 ? rc : -EIO;
	struct fib *fib = peer_ours_fib(&p);
	static const unsigned int counts[] = {1, 4, 16, 64};
	double cost[RTE_DIM(counts)];
	double none[MAX_RUNS], some[MAX_RUNS];
	char key[64];
	for (unsigned int c = 0; c < RTE_DIM(counts); c++) {
		for (unsigned int r = 0; r < opt.runs; r++) {
			none[r] = time_route(fib, af, src, w.addrs, w.naddrs);
			if ((rc = unmatched_rules(fib, af, counts[c], true)) < 0)
				return rc;
			some[r] = time_route(fib, af, src, w.addrs, w.naddrs);
			if ((rc = unmatched_rules(fib, af, counts[c], false)) < 0)
				return rc;
		}
		double base = bench_median(none, opt.runs), with = bench_median(some, opt.runs);
		cost[c] = with - base;
		if (c == 0) {
			printf("Rules, IPv%s: routing with no custom rule %.2f cycles, "
			       "with one %.2f cycles\n",
			       fam, base, with);
			snprintf(key, sizeof(key), "rule%s_none_cycles", fam);
			summary(key, base);
			snprintf(key, sizeof(key), "rule%s_one_cycles", fam);
			summary(key, with);
			snprintf(key, sizeof(key), "rule%s_first_rule_cost_cycles", fam);
			summary(key, cost[c]);
		} else {
			snprintf(key, sizeof(key), "rule%s_%u_rules_cost_cycles", fam, counts[c]);
			summary(key, cost[c]);
		}
	}
	printf("Rules, IPv%s: what rules that match no packet cost a packet, in cycles:", fam);
	for (unsigned int c = 0; c < RTE_DIM(counts); c++)
		printf(" %u rules %.2f%s", counts[c], cost[c],
		       c + 1 < RTE_DIM(counts) ? "," : "\n");
	p.destroy(p.ctx);
	free(src);
	prefix_list_free(&w.pl);
	free(w.nh);
	free(w.addrs);
	return 0;
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL options] -- [--smoke] [--runs N] [--addrs N] [--routes N]\n"
		"  --smoke     tiny workload, one run: checks that the benchmark works\n"
		"  --runs N    runs per figure, the median is reported (default 7)\n"
		"  --addrs N   random addresses per lookup run (default 4194304)\n"
		"  --routes N  use only the first N routes of each table\n"
		"  --only P    run only part P: 4, 6, rules, or shrink (not run by default)\n"
		"  --burst N   addresses per bulk lookup call (default 32, at most 256)\n"
		"  --burst2 N  a second burst size to measure, 0 for none (default 64)\n"
		"  --max-len6 N  IPv6 addresses only inside prefixes of length <= N (default "
		"128):\n"
		"              how the lookup's cost grows with the levels it walks\n"
		"  --in-prefixes4[=PCT]  IPv4 addresses inside random prefixes of the table\n"
		"              instead of uniform over the address space; with PCT, that\n"
		"              share of them (0-100) and the rest uniform\n"
		"  --shuffle   insert and delete the routes in random order, not the file's\n"
		"  --isolated  bulk calls wait for the previous call's answers, as the\n"
		"              datapath's act step does, instead of overlapping it\n"
		"  --ours-only our bulk lookups alone (no peer, no updates): one build\n"
		"              against another (bench/isa_bench.sh)\n",
		prog);
}

/* A table other than main given a whole real table (it grows to the
 * full first level) and then losing its routes in random order: what
 * each delete costs, above all those that try the small form again
 * (lib/fib/mbt.c, demote), which read the first level: the control
 * core's longest stall in a shrink. */
static int
shrink_family(uint8_t af, const char *file, const char *tag)
{
	struct workload w = {.af = af};
	/* Few nexthops: groups merge as they would. */
	int rc = workload_routes(&w, file, 8);
	if (rc < 0)
		return rc;
	shuffle_routes(&w);
	/* Ours as the other figures use it (default groups and small
	 * tables); its table 100 is what is measured. */
	struct peer p;
	if ((rc = peer_ours(&p, af, w.pl.n, 0)) < 0)
		return rc;
	struct fib *fib = peer_ours_fib(&p);
	for (uint32_t i = 0; i < w.pl.n; i++) {
		struct fib_route r = {.dst = w.pl.p[i], .table = 100, .nh = w.nh[i]};
		if ((rc = fib_route_add(fib, &r)) < 0)
			return rc;
	}
	struct fib_mem_stats st;
	fib_table_mem(fib, 100, &st);
	uint64_t grown = st.tbl24_bytes, total = 0, worst = 0, shrink = 0;
	uint32_t worst_at = 0, small_at = 0;
	for (uint32_t i = w.pl.n; i-- > 0;) {
		struct fib_route r = {.dst = w.pl.p[i], .table = 100};
		uint64_t t0 = bench_tsc();
		rc = fib_route_del(fib, &r, true);
		uint64_t c = bench_tsc() - t0;
		if (rc < 0)
			return rc;
		total += c;
		if (c > worst) {
			worst = c;
			worst_at = i;
		}
		if (small_at == 0 && i > 0) {
			fib_table_mem(fib, 100, &st);
			if (st.tbl24_bytes < grown) {
				small_at = i;
				shrink = c;
			}
		}
	}
	if (grown < (1u << 20) || small_at == 0) {
		fprintf(stderr, "shrink, IPv%s: the table %s\n", tag,
			grown < (1u << 20) ? "did not grow"
					   : "did not shrink back before it emptied");
		return -EIO;
	}
	double hz = (double)rte_get_tsc_hz();
	printf("Shrink, IPv%s: %u routes into table 100 (first level %.1f MiB), deleted in random "
	       "order: %.0f cycles a delete; small again with %u routes left, that delete "
	       "%.2f ms; the slowest delete %.2f ms, with %u routes left\n",
	       tag, w.pl.n, (double)grown / (1 << 20), (double)total / w.pl.n, small_at,
	       (double)shrink * 1e3 / hz, (double)worst * 1e3 / hz, worst_at);
	char key[64];
	snprintf(key, sizeof(key), "shrink%s_delete_ms", tag);
	summary(key, (double)shrink * 1e3 / hz);
	snprintf(key, sizeof(key), "shrink%s_slowest_delete_ms", tag);
	summary(key, (double)worst * 1e3 / hz);
	snprintf(key, sizeof(key), "shrink%s_small_at_routes", tag);
	summary(key, small_at);
	p.destroy(p.ctx);
	prefix_list_free(&w.pl);
	free(w.nh);
	return 0;
}

int
main(int argc, char **argv)
{
	bench_eal_init(&argc, &argv);
	static const struct option longopts[] = {{"smoke", no_argument, NULL, 's'},
						 {"runs", required_argument, NULL, 'r'},
						 {"addrs", required_argument, NULL, 'a'},
						 {"routes", required_argument, NULL, 'n'},
						 {"only", required_argument, NULL, 'o'},
						 {"burst", required_argument, NULL, 'b'},
						 {"burst2", required_argument, NULL, 'B'},
						 {"max-len6", required_argument, NULL, 'L'},
						 {"in-prefixes4", optional_argument, NULL, 'P'},
						 {"shuffle", no_argument, NULL, 'S'},
						 {"isolated", no_argument, NULL, 'I'},
						 {"ours-only", no_argument, NULL, 'O'},
						 {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			opt.smoke = 1;
			opt.runs = 1;
			opt.addrs = 1u << 16;
			opt.routes = 20000;
			opt.burst2 = 0;
			break;
		case 'r':
			opt.runs = (unsigned int)atoi(optarg);
			break;
		case 'a':
			opt.addrs = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			opt.routes = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			opt.only = optarg;
			break;
		case 'b':
			opt.burst = (unsigned int)atoi(optarg);
			break;
		case 'B':
			opt.burst2 = (unsigned int)atoi(optarg);
			break;
		case 'L':
			opt.max_len6 = (unsigned int)atoi(optarg);
			break;
		case 'S':
			opt.shuffle = 1;
			break;
		case 'I':
			opt.isolated = 1;
			break;
		case 'O':
			opt.ours_only = 1;
			break;
		case 'P':
			opt.in_prefixes4 = optarg ? atoi(optarg) : 100;
			if (opt.in_prefixes4 < 0 || opt.in_prefixes4 > 100) {
				usage(argv[0]);
				return 2;
			}
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (opt.runs < 1 || opt.runs > MAX_RUNS || opt.burst < 1 || opt.burst > PEER_BURST_MAX ||
	    opt.burst2 > PEER_BURST_MAX || opt.addrs < opt.burst || opt.addrs < opt.burst2 ||
	    opt.max_len6 < 16 || opt.max_len6 > 128) {
		usage(argv[0]);
		return 2;
	}
	opt.summary = tmpfile();
	printf("TSC %.3f GHz\n", (double)rte_get_tsc_hz() / 1e9);
	/* How far memory is today: the lookups' figures, and how much of
	 * them a burst's chain of misses costs, move with it. */
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	double chase = bench_chase((size_t)64 << 20, opt.smoke ? 100000 : 2000000, &seed);
	printf("memory: random pointer chase over 64 MiB, %.1f cycles a load\n", chase);
	summary("mem_chase64_cycles", chase);
	static const struct family_setup fams[] = {
		{FIB_AF_INET, "prefixes-v4.txt.gz", "4", peer_rte_fib, peer_rte_lpm, 0},
		{FIB_AF_INET6, "prefixes-v6.txt.gz", "6", peer_rte_fib6, peer_rte_lpm6, 3},
	};
	int rc = 0;
	for (unsigned int i = 0; i < 2 && rc == 0; i++)
		if (opt.only == NULL || strcmp(opt.only, fams[i].tag) == 0)
			rc = run_family(&fams[i]);
	if (rc == 0 && (opt.only == NULL || strcmp(opt.only, "rules") == 0))
		rc = bench_rules(FIB_AF_INET);
	if (rc == 0 && (opt.only == NULL || strcmp(opt.only, "rules") == 0))
		rc = bench_rules(FIB_AF_INET6);
	if (rc == 0 && opt.only != NULL && strcmp(opt.only, "shrink") == 0) {
		rc = shrink_family(FIB_AF_INET, "prefixes-v4.txt.gz", "4");
		if (rc == 0)
			rc = shrink_family(FIB_AF_INET6, "prefixes-v6.txt.gz", "6");
	}
	if (rc < 0) {
		fprintf(stderr, "benchmark failed: %s\n", strerror(-rc));
		return 1;
	}
	/* The summary, one "name value" per line, for scripts. */
	char line[128];
	rewind(opt.summary);
	printf("\nsummary\n");
	while (fgets(line, sizeof(line), opt.summary))
		fputs(line, stdout);
	rte_eal_cleanup();
	return 0;
}
