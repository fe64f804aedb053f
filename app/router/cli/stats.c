/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stats [show|reset]: every counter of the router, one "group name
 * value" a line (JSON: one object, "group.name": value): the workers'
 * totals, per port, per worker, drops and punts by reason; the control
 * core's (RT_CTL_COUNTERS); the devices' own; and what each FIB table
 * holds. `reset` zeroes what is shown, not the counters: the workers own
 * theirs, so what they were at the reset is kept here and subtracted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_ethdev.h>

#include "cli_priv.h"

/* What a port's device counts on its own: packets the NIC dropped for
 * want of RX descriptors (the worker fell behind: rx_missed) or of mbufs
 * (rx_nombuf), and bad frames in and failed sends out. Control core
 * only: some drivers accumulate clear-on-read registers as they are
 * read. */
struct dev_counters {
	uint64_t missed, nombuf, rx_errors, tx_errors;
};

/* The counters at the last `stats reset`. */
static struct {
	struct rt_wstats dp;
	uint64_t ctl[RT_CTR_COUNT];
	struct dev_counters dev[RT_MAX_PORTS];
	struct neigh_port_stats neigh[RT_MAX_PORTS];
	struct rt_cport_stats cport[RT_MAX_PORTS];
	struct rt_mirror_stats mirror;
} base;

static struct dev_counters
dev_counters(uint16_t port)
{
	struct rte_eth_stats st;
	if (rte_eth_stats_get(port, &st) != 0)
		return (struct dev_counters){0};
	return (struct dev_counters){st.imissed, st.rx_nombuf, st.ierrors, st.oerrors};
}

static void
stat_line(struct cli *c, const char *group, const char *name, uint64_t v)
{
	if (c->json) {
		char key[96];
		snprintf(key, sizeof(key), "%s.%s", group, name);
		json_u64(&c->j, key, v);
	} else {
		rt_buf_printf(c->out, "%-10s %-24s %llu\n", group, name, (unsigned long long)v);
	}
}

/* stat_line with a name made of a prefix (a port, a worker) and a
 * counter. */
static void
stat_line2(struct cli *c, const char *group, const char *prefix, const char *name, uint64_t v)
{
	char n[64];
	snprintf(n, sizeof(n), "%s.%s", prefix, name);
	stat_line(c, group, n, v);
}

static void
port_lines(struct cli *c, const struct rt_wstats *s)
{
	const struct rt_dp *dp = &c->r->dp;
	for (uint16_t p = 0; p < dp->nb_ports; p++) {
		const char *name = dp->port[p].name;
		struct dev_counters d = dev_counters(p), b = base.dev[p];
		stat_line2(c, "port", name, "rx", s->port_rx[p] - base.dp.port_rx[p]);
		stat_line2(c, "port", name, "tx", s->port_tx[p] - base.dp.port_tx[p]);
		stat_line2(c, "port", name, "rx_missed", d.missed - b.missed);
		stat_line2(c, "port", name, "rx_nombuf", d.nombuf - b.nombuf);
		stat_line2(c, "port", name, "rx_errors", d.rx_errors - b.rx_errors);
		stat_line2(c, "port", name, "tx_errors", d.tx_errors - b.tx_errors);
		/* The backlog behind its TX queues (txq.c): what waited in it,
		 * and what waits now (a gauge, never reset). */
		stat_line2(c, "port", name, "tx_held",
			   s->port_tx_held[p] - base.dp.port_tx_held[p]);
		uint64_t backlog = 0;
		for (unsigned int w = 0; w < dp->nb_workers; w++)
			backlog += rt_dp_tx_backlog(dp, w, p);
		stat_line2(c, "port", name, "tx_backlog", backlog);
		/* What the exception path refused (by class), and the port's
		 * share of the neighbour table's budget (docs/neigh.md). */
		for (unsigned int k = 0; k < RT_EXC_CLASSES; k++) {
			char n[32];
			snprintf(n, sizeof(n), "exc_drop_%s", rt_exc_names[k]);
			stat_line2(c, "port", name, n,
				   s->port_exc_drop[p][k] - base.dp.port_exc_drop[p][k]);
		}
		stat_line2(c, "port", name, "proto_strangers",
			   s->port_proto_strangers[p] - base.dp.port_proto_strangers[p]);
		/* Its control-plane port's traffic (docs/control-plane.md). */
		const struct rt_cport_stats *cs = &c->r->cport[p].st, *cb = &base.cport[p];
		stat_line2(c, "port", name, "cport_punted", cs->punted - cb->punted);
		stat_line2(c, "port", name, "cport_punt_limited",
			   cs->punt_limited - cb->punt_limited);
		stat_line2(c, "port", name, "cport_punt_limited_proto",
			   cs->punt_limited_proto - cb->punt_limited_proto);
		stat_line2(c, "port", name, "cport_punt_dropped",
			   cs->punt_dropped - cb->punt_dropped);
		stat_line2(c, "port", name, "cport_injected", cs->injected - cb->injected);
		stat_line2(c, "port", name, "cport_injected_group",
			   cs->injected_group - cb->injected_group);
		stat_line2(c, "port", name, "cport_inject_bad", cs->inject_bad - cb->inject_bad);
		stat_line2(c, "port", name, "cport_inject_long", cs->inject_long - cb->inject_long);
		stat_line2(c, "port", name, "cport_inject_ethertype",
			   cs->inject_ethertype - cb->inject_ethertype);
		stat_line2(c, "port", name, "cport_inject_nombuf",
			   cs->inject_nombuf - cb->inject_nombuf);
		stat_line2(c, "port", name, "cport_remade", cs->remade - cb->remade);
		struct neigh_port_stats ns, *nb = &base.neigh[p];
		if (neigh_get_port_stats(c->r->neigh, p, &ns) != 0)
			continue;
		stat_line2(c, "port", name, "neigh_incomplete", ns.incomplete);
		stat_line2(c, "port", name, "neigh_requests", ns.requests - nb->requests);
		stat_line2(c, "port", name, "neigh_probes", ns.probes - nb->probes);
		stat_line2(c, "port", name, "neigh_rate_limited",
			   ns.rate_limited - nb->rate_limited);
		stat_line2(c, "port", name, "neigh_replaced", ns.replaced - nb->replaced);
		stat_line2(c, "port", name, "neigh_refused", ns.refused - nb->refused);
	}
}

/* Each worker's own (not reset: its load figures are read as rates). */
static void
worker_lines(struct cli *c)
{
	const struct rt_dp *dp = &c->r->dp;
	for (unsigned int w = 0; w < dp->nb_workers; w++) {
		const struct rt_wstats *ws = rt_dp_worker_stats(dp, w);
		char name[24];
		snprintf(name, sizeof(name), "worker%u", w);
		stat_line2(c, "worker", name, "rx", ws->rx);
		stat_line2(c, "worker", name, "forwarded", rt_dp_worker_forwarded(dp, w));
		stat_line2(c, "worker", name, "rounds", ws->rounds);
		stat_line2(c, "worker", name, "busy_rounds", ws->busy_rounds);
		stat_line2(c, "worker", name, "busy_cycles", ws->busy_cycles);
	}
	/* The instruction set of the stages and lookups (lib/fib/isa.c). */
	stat_line(c, "worker", "isa_avx512", fib_isa_avx512());
}

/* What each table holds now (gauges, never reset): its routes per
 * family and the bytes its lookup structures and RIB take, so that an
 * operator sees a flushed table give its memory back (docs/fib.md). */
static void
fib_lines(struct cli *c)
{
	const struct fib *fib = c->r->fib;
	uint32_t few[16], n;
	uint32_t *ids = cli_table_ids(c, few, RTE_DIM(few), &n);
	for (uint32_t i = 0; i < n; i++) {
		struct fib_mem_stats st;
		if (fib_table_mem(fib, ids[i], &st) != 0)
			continue;
		char name[24];
		snprintf(name, sizeof(name), "table%u", ids[i]);
		stat_line2(c, "fib", name, "routes4", fib_route_count(fib, ids[i], FIB_AF_INET));
		stat_line2(c, "fib", name, "routes6", fib_route_count(fib, ids[i], FIB_AF_INET6));
		stat_line2(c, "fib", name, "bytes",
			   st.tbl24_bytes + st.groups_bytes + st.rib_bytes);
	}
	if (ids != few)
		free(ids);
}

/* The kernel route mirror's (docs/control-plane.md). */
static void
mirror_lines(struct cli *c)
{
	static const char *const skip[RT_MIRROR_SKIP_COUNT] = {
		"skipped_iface",    "skipped_encap",   "skipped_source", "skipped_gateway",
		"skipped_conflict", "skipped_nexthop", "skipped_full"};
	const struct rt_mirror_stats *s = &c->r->mirror, *b = &base.mirror;
	stat_line(c, "mirror", "added", s->added - b->added);
	stat_line(c, "mirror", "replaced", s->replaced - b->replaced);
	stat_line(c, "mirror", "deleted", s->deleted - b->deleted);
	stat_line(c, "mirror", "ignored", s->ignored - b->ignored);
	for (unsigned int i = 0; i < RT_MIRROR_SKIP_COUNT; i++)
		stat_line(c, "mirror", skip[i], s->skipped[i] - b->skipped[i]);
	stat_line(c, "mirror", "malformed", s->malformed - b->malformed);
	stat_line(c, "mirror", "unknown_attrs", s->unknown_attrs - b->unknown_attrs);
	stat_line(c, "mirror", "resyncs", s->resyncs - b->resyncs);
	stat_line(c, "mirror", "swept", s->swept - b->swept);
	stat_line(c, "mirror", "dropped", s->dropped - b->dropped);
	stat_line(c, "mirror", "groups", s->groups);
}

static void
reset(struct cli *c, const struct rt_wstats *s, const uint64_t ctl[RT_CTR_COUNT])
{
	base.dp = *s;
	for (unsigned int i = 0; i < RT_CTR_COUNT; i++)
		base.ctl[i] = rt_ctr_info[i].gauge ? 0 : ctl[i];
	for (uint16_t p = 0; p < c->r->dp.nb_ports; p++) {
		base.dev[p] = dev_counters(p);
		neigh_get_port_stats(c->r->neigh, p, &base.neigh[p]);
		base.cport[p] = c->r->cport[p].st;
	}
	base.mirror = c->r->mirror;
}

int
cli_stats(struct cli *c)
{
	struct router *r = c->r;
	const char *cmd = cli_next(c);
	struct rt_wstats s;
	uint64_t ctl[RT_CTR_COUNT];
	rt_dp_stats_sum(&r->dp, &s);
	rt_ctl_counters(r, ctl);
	if (cmd != NULL && cli_matches(cmd, "reset")) {
		int rc = cli_may_change(c, "stats", cmd);
		if (rc < 0)
			return rc;
		reset(c, &s, ctl);
		return 0;
	}
	if (cmd != NULL && !cli_matches(cmd, "show"))
		return cli_fail(c, EINVAL, "stats: unknown command '%s'", cmd);
	if (c->json)
		json_obj(&c->j, NULL);
	stat_line(c, "total", "rx", s.rx - base.dp.rx);
	stat_line(c, "total", "forwarded", s.fwd - base.dp.fwd);
	stat_line(c, "total", "punted", s.punt_total - base.dp.punt_total);
	stat_line(c, "total", "dropped", s.drop_total - base.dp.drop_total);
	port_lines(c, &s);
	worker_lines(c);
	for (int i = 0; i < RT_DROP_COUNT; i++)
		stat_line(c, "drop", rt_drop_names[i], s.drop[i] - base.dp.drop[i]);
	for (int i = 0; i < RT_PUNT_COUNT; i++)
		stat_line(c, "punt", rt_punt_names[i], s.punt[i] - base.dp.punt[i]);
	for (unsigned int i = 0; i < RT_CTR_COUNT; i++)
		stat_line(c, rt_ctr_info[i].group, rt_ctr_info[i].name, ctl[i] - base.ctl[i]);
	mirror_lines(c);
	fib_lines(c);
	if (c->json)
		json_end(&c->j);
	return 0;
}
