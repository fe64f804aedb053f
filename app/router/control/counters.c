/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core's counters with the neighbour table's and the
 * reassembly's, in the one list RT_CTL_COUNTERS gives (control.h).
 */
#include <string.h>

#include "ctl_priv.h"
#include "reasm.h"

#define RT_INFO(name, group, str, gauge) [RT_CTR_##name] = {group, str, gauge},
const struct rt_ctr_info rt_ctr_info[RT_CTR_COUNT] = {RT_CTL_COUNTERS(RT_INFO)};
#undef RT_INFO

void
rt_ctl_counters(const struct router *r, uint64_t out[RT_CTR_COUNT])
{
	struct rt_reasm_stats rs;
	struct neigh_stats ns;
	rt_reasm_stats(r->reasm, &rs);
	neigh_get_stats(r->neigh, &ns);
	/* Read while the control core may write them (telemetry's thread):
	 * each an aligned 64-bit word, never torn. */
	memcpy(out, r->ctr, sizeof(r->ctr));
	out[RT_CTR_REASM_REQDS] = rs.reqds;
	out[RT_CTR_REASM_OKS] = rs.oks;
	out[RT_CTR_REASM_FAILS] = rs.fails;
	out[RT_CTR_REASM_TIMEOUTS] = rs.timeouts;
	out[RT_CTR_REASM_EVICTED] = rs.evicted;
	out[RT_CTR_REASM_SRC_EVICTED] = rs.src_evicted;
	out[RT_CTR_REASM_PENDING] = rs.pending;
	out[RT_CTR_REASM_BYTES] = rs.bytes;
	out[RT_CTR_PEERS] = rt_peers_count();
	out[RT_CTR_NEIGH_ENTRIES] = ns.entries;
	out[RT_CTR_NEIGH_INCOMPLETE] = ns.incomplete;
	out[RT_CTR_NEIGH_QUEUE_DROPS] = ns.queue_drops;
	out[RT_CTR_NEIGH_FAILED] = ns.failed;
	out[RT_CTR_NEIGH_TABLE_FULL] = ns.table_full;
	out[RT_CTR_NEIGH_SOURCES] = ns.sources;
	out[RT_CTR_NEIGH_REPLACED] = ns.replaced;
	out[RT_CTR_NEIGH_RATE_LIMITED] = ns.rate_limited;
	out[RT_CTR_NEIGH_EVICTED] = ns.evicted;
	const struct rt_wstats *w0 = rt_dp_worker_stats(&r->dp, 0);
	out[RT_CTR_TX_SENT] = w0->ctl_tx - w0->ctl_tx_dropped;
	out[RT_CTR_TX_DROPPED] = w0->ctl_tx_dropped;
}
