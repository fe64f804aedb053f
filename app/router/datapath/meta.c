/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the datapath shares with the control core besides packets: the
 * per-packet metadata field, the names of its counters, and their sum
 * over the workers.
 */
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf_dyn.h>

#include "datapath.h"

#define RT_NAME(name, str) str,
const char *const rt_drop_names[RT_DROP_COUNT] = {RT_DROP_REASONS(RT_NAME)};
const char *const rt_punt_names[RT_PUNT_COUNT] = {RT_PUNT_REASONS(RT_NAME)};
#undef RT_NAME

int rt_meta_offset = -1;

int
rt_meta_register(void)
{
	static const struct rte_mbuf_dynfield meta = {.name = "router_meta",
						      .size = sizeof(struct rt_meta),
						      .align = __alignof__(struct rt_meta)};
	rt_meta_offset = rte_mbuf_dynfield_register(&meta);
	return rt_meta_offset < 0 ? -rte_errno : 0;
}

uint64_t
rt_dp_worker_forwarded(const struct rt_dp *dp, unsigned int w)
{
	const struct rt_worker *wk = &dp->worker[w];
	uint64_t fwd = wk->st.fwd;
	for (int p = 0; p < RT_MAX_PORTS; p++)
		fwd -= wk->tx_dropped[p];
	return fwd;
}

void
rt_dp_stats_sum(const struct rt_dp *dp, struct rt_wstats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned int w = 0; w < dp->nb_workers; w++) {
		const struct rt_worker *wk = &dp->worker[w];
		const struct rt_wstats *s = &wk->st;
		sum->rx += s->rx;
		sum->fwd += s->fwd;
		sum->punt_total += s->punt_total;
		sum->drop_total += s->drop_total;
		for (int p = 0; p < RT_MAX_PORTS; p++) {
			sum->port_rx[p] += s->port_rx[p];
			sum->port_drop[p] += s->port_drop[p];
			for (unsigned int c = 0; c < RT_EXC_CLASSES; c++)
				sum->port_exc_drop[p][c] += s->port_exc_drop[p][c];
			sum->port_tx_held[p] += s->port_tx_held[p];
			sum->port_proto_strangers[p] += s->port_proto_strangers[p];
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
