/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tables the workers read: the QSBR variable, the nexthop table with
 * its special nexthops, and the FIB whose special routes answer with
 * them. routerd's main and tests/common/dp_harness.c (which drives the
 * worker's stages without routerd) both build them here.
 */
#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "ctl_priv.h"

/* fib_conf.nh_down: a route through a nexthop that leads only to ports
 * set down is withdrawn from lookups while they are (lib/nexthop knows). */
static bool
nh_down_cb(void *ctx, uint32_t nh)
{
	const struct router *r = ctx;
	return nh_down(r->nh, nh);
}

int
rt_tables_create(struct router *r)
{
	size_t sz = rte_rcu_qsbr_get_memsize(r->dp.nb_workers);
	r->dp.qsbr = rte_zmalloc("qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (r->dp.qsbr == NULL || rte_rcu_qsbr_init(r->dp.qsbr, r->dp.nb_workers) != 0)
		return -ENOMEM;
	struct nh_conf nc = {.max_nexthops = NH_INDEX_MAX,
			     .nb_workers = (uint16_t)r->dp.nb_workers,
			     .qsbr = r->dp.qsbr,
			     .hash_policy = r->conf.hash_policy};
	r->nh = nh_table_create(&nc);
	if (r->nh == NULL)
		return -errno;
	/* The special nexthops every table's special routes answer with. */
	static const uint8_t types[] = {NH_T_LOCAL, NH_T_BLACKHOLE, NH_T_UNREACHABLE,
					NH_T_PROHIBIT};
	uint32_t *slot[] = {&r->nh_local, &r->nh_blackhole, &r->nh_unreachable, &r->nh_prohibit};
	for (int i = 0; i < 4; i++) {
		struct nh_spec s = {.type = types[i]};
		int rc = nh_add(r->nh, &s, slot[i]);
		if (rc < 0)
			return rc;
	}
	/* A rule's unreachable answers net unreachable: its own nexthop,
	 * an explicit one so that it is not shared with the route type's. */
	struct nh_spec ru = {.type = NH_T_UNREACHABLE, .id = RT_NH_ID_RULE_UNREACHABLE};
	int rc = nh_add(r->nh, &ru, &r->nh_rule_unreachable);
	if (rc < 0)
		return rc;
	struct fib_conf fc = {.qsbr = r->dp.qsbr,
			      .rule_unreachable_nh = r->nh_rule_unreachable,
			      .nh_down = nh_down_cb,
			      .nh_down_ctx = r};
	fc.type_nh[FIB_RT_LOCAL] = r->nh_local;
	fc.type_nh[FIB_RT_BLACKHOLE] = r->nh_blackhole;
	fc.type_nh[FIB_RT_UNREACHABLE] = r->nh_unreachable;
	fc.type_nh[FIB_RT_PROHIBIT] = r->nh_prohibit;
	r->fib = fib_create(&fc);
	if (r->fib == NULL)
		return -errno;
	r->dp.fib = r->fib;
	r->dp.main = fib_table_lookup(r->fib, FIB_TABLE_MAIN);
	r->dp.hash_policy = r->conf.hash_policy;
	return 0;
}
