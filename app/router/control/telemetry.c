/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Router counters for DPDK telemetry (`dpdk-telemetry.py`, commands
 * /router/stats and /router/workers). The telemetry thread reads them
 * while the workers and the control core write them: each an aligned
 * 64-bit word, never torn.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_telemetry.h>

#include "ctl_priv.h"

static struct router *the_router;

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	struct router *r = the_router;
	struct rt_wstats s;
	rt_dp_stats_sum(&r->dp, &s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "rx", s.rx);
	rte_tel_data_add_dict_u64(d, "forwarded", s.fwd);
	rte_tel_data_add_dict_u64(d, "punted", s.punt_total);
	rte_tel_data_add_dict_u64(d, "dropped", s.drop_total);
	for (int i = 0; i < RT_DROP_COUNT; i++)
		rte_tel_data_add_dict_u64(d, rt_drop_names[i], s.drop[i]);
	for (int i = 0; i < RT_PUNT_COUNT; i++)
		rte_tel_data_add_dict_u64(d, rt_punt_names[i], s.punt[i]);
	uint64_t c[RT_CTR_COUNT];
	rt_ctl_counters(r, c);
	for (unsigned int i = 0; i < RT_CTR_COUNT; i++) {
		char name[48];
		snprintf(name, sizeof(name), "%s%s",
			 strcmp(rt_ctr_info[i].group, "neigh") ? "" : "neigh_",
			 rt_ctr_info[i].name);
		rte_tel_data_add_dict_u64(d, name, c[i]);
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
	rte_tel_data_add_dict_string(d, "isa", fib_isa_name());
	for (unsigned int i = 0; i < r->dp.nb_workers; i++) {
		const struct rt_wstats *s = rt_dp_worker_stats(&r->dp, i);
		struct rte_tel_data *w = rte_tel_data_alloc();
		if (w == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(w);
		rte_tel_data_add_dict_u64(w, "lcore", r->dp.worker[i].lcore);
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
		"The stages' instruction set; per worker: packets, loop rounds, busy rounds and "
		"their TSC cycles");
}
