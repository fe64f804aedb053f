/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Router counters for DPDK telemetry (`dpdk-telemetry.py`, commands
 * /router/stats and /router/workers), and the sum of the workers'
 * counters that both /router/stats and `routerctl stats` show.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_telemetry.h>

#include "router.h"

#define RT_NAME(name, str) str,
const char *const rt_drop_names[RT_DROP_COUNT] = {RT_DROP_REASONS(RT_NAME)};
const char *const rt_punt_names[RT_PUNT_COUNT] = {RT_PUNT_REASONS(RT_NAME)};
#undef RT_NAME

static struct router *the_router;

void
rt_ctl_counters(const struct router *r, struct rt_ctl_counter out[RT_CTL_COUNTERS])
{
	struct rt_reasm_stats rs;
	struct neigh_stats ns;
	rt_reasm_stats(r->reasm, &rs);
	neigh_get_stats(r->neigh, &ns);
	/* Read while the control core may write them (telemetry's thread):
	 * each an aligned 64-bit word, never torn. */
	const struct rt_ctl_counter c[RT_CTL_COUNTERS] = {
		{"control", "icmp_sent", r->icmp_sent, false},
		{"control", "icmp_ratelimited", r->icmp_ratelimited, false},
		{"control", "local_unhandled", r->exc_unhandled, false},
		{"control", "tcp_resets", r->tcp_resets, false},
		{"control", "ra_sent", r->ra_sent, false},
		{"control", "rs_received", r->rs_received, false},
		{"control", "neigh_refused", r->neigh_refused, false},
		{"control", "out_no_route", r->out_no_route, false},
		{"control", "fragments", r->fragments, false},
		{"control", "reasm_reqds", rs.reqds, false},
		{"control", "reasm_oks", rs.oks, false},
		{"control", "reasm_fails", rs.fails, false},
		{"control", "reasm_timeouts", rs.timeouts, false},
		{"control", "tx_ring_full", r->ctl_tx_dropped, false},
		{"neigh", "entries", ns.entries, true},
		{"neigh", "incomplete", ns.incomplete, true},
		{"neigh", "queue_drops", ns.queue_drops, false},
		{"neigh", "failed", ns.failed, false},
		{"neigh", "table_full", ns.table_full, false},
	};
	memcpy(out, c, sizeof(c));
}

void
rt_stats_sum(const struct router *r, struct rt_wstats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned int w = 0; w < r->nb_workers; w++) {
		const struct rt_worker *wk = &r->worker[w];
		const struct rt_wstats *s = &wk->st;
		sum->rx += s->rx;
		sum->fwd += s->fwd;
		sum->punt_total += s->punt_total;
		sum->drop_total += s->drop_total;
		for (int p = 0; p < RT_MAX_PORTS; p++) {
			sum->port_rx[p] += s->port_rx[p];
			sum->port_drop[p] += s->port_drop[p];
			sum->port_tx[p] += s->port_tx[p] - wk->tx_dropped[p];
			sum->drop[RT_DROP_TX_FULL] += wk->tx_dropped[p];
			sum->drop_total += wk->tx_dropped[p];
			sum->fwd -= wk->tx_dropped[p];
		}
		for (int i = 0; i < RT_PUNT_COUNT; i++)
			sum->punt[i] += s->punt[i];
		for (int i = 0; i < RT_DROP_COUNT; i++)
			sum->drop[i] += s->drop[i];
	}
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	struct router *r = the_router;
	struct rt_wstats s;
	rt_stats_sum(r, &s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "rx", s.rx);
	rte_tel_data_add_dict_u64(d, "forwarded", s.fwd);
	rte_tel_data_add_dict_u64(d, "punted", s.punt_total);
	rte_tel_data_add_dict_u64(d, "dropped", s.drop_total);
	for (int i = 0; i < RT_DROP_COUNT; i++)
		rte_tel_data_add_dict_u64(d, rt_drop_names[i], s.drop[i]);
	for (int i = 0; i < RT_PUNT_COUNT; i++)
		rte_tel_data_add_dict_u64(d, rt_punt_names[i], s.punt[i]);
	struct rt_ctl_counter c[RT_CTL_COUNTERS];
	rt_ctl_counters(r, c);
	for (unsigned int i = 0; i < RT_CTL_COUNTERS; i++) {
		char name[48];
		snprintf(name, sizeof(name), "%s%s", strcmp(c[i].group, "neigh") ? "" : "neigh_",
			 c[i].name);
		rte_tel_data_add_dict_u64(d, name, c[i].value);
	}
	return 0;
}

/* Per worker: its packets and its load (rounds, busy rounds, their
 * cycles; docs/cli.md says how to read them). */
static int
tel_workers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	const struct router *r = the_router;
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < r->nb_workers; i++) {
		const struct rt_wstats *s = &r->worker[i].st;
		struct rte_tel_data *w = rte_tel_data_alloc();
		if (w == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(w);
		rte_tel_data_add_dict_u64(w, "lcore", r->worker[i].lcore);
		rte_tel_data_add_dict_u64(w, "rx", s->rx);
		rte_tel_data_add_dict_u64(w, "forwarded", s->fwd);
		rte_tel_data_add_dict_u64(w, "rounds", s->rounds);
		rte_tel_data_add_dict_u64(w, "busy_rounds", s->busy_rounds);
		rte_tel_data_add_dict_u64(w, "busy_cycles", s->busy_cycles);
		char name[24]; /* "worker" and any unsigned int */
		snprintf(name, sizeof(name), "worker%u", i);
		if (rte_tel_data_add_dict_container(d, name, w, 0) < 0) {
			rte_tel_data_free(w);
			return -ENOSPC;
		}
	}
	return 0;
}

void
rt_telemetry_init(struct router *r)
{
	the_router = r;
	rte_telemetry_register_cmd("/router/stats", tel_stats,
				   "Router counters: totals, drops and punts by reason");
	rte_telemetry_register_cmd(
		"/router/workers", tel_workers,
		"Per worker: packets, loop rounds, busy rounds and their TSC cycles");
}
