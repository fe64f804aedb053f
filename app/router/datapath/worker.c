/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker loop: receive a burst on each port, classify it, run the
 * IPv4 and IPv6 stages, flush the TX buffers, report a quiescent state.
 * Read top to bottom, it takes no lock, does no atomic read-modify-write,
 * allocates nothing and makes no system call or log on the packet path;
 * only an idle worker sleeps, after marking itself offline for QSBR.
 */
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "datapath.h"
#include "log.h"

static unsigned int
ctl_tx(const struct rt_dp *dp, struct rt_worker *w)
{
	struct rte_mbuf *pkts[RT_BURST];
	unsigned int n = rte_ring_sc_dequeue_burst(dp->ctl_tx, (void **)pkts, RT_BURST, NULL);
	for (unsigned int i = 0; i < n; i++)
		rte_eth_tx_buffer(pkts[i]->port, (uint16_t)w->id, w->txb[pkts[i]->port], pkts[i]);
	return n;
}

int
rt_worker_main(void *arg)
{
	struct rt_dp *dp = arg;
	struct rt_worker *w = NULL;
	for (unsigned int i = 0; i < dp->nb_workers; i++)
		if (dp->worker[i].lcore == rte_lcore_id())
			w = &dp->worker[i];
	if (w == NULL)
		return -1;
	struct rte_mbuf *pkts[RT_BURST];
	unsigned int idle = 0;
	uint16_t q = (uint16_t)w->id;

	RT_LOG(INFO, main, "worker %u on lcore %u: queue %u of every port", w->id, w->lcore, q);
	rte_rcu_qsbr_thread_register(dp->qsbr, w->id);
	rte_rcu_qsbr_thread_online(dp->qsbr, w->id);
	uint64_t last = rte_rdtsc();
	while (!dp->quit) {
		unsigned int got = 0;
		w->st.rounds++; /* also the stamp dp_send leaves in nh_used */
		for (uint16_t port = 0; port < dp->nb_ports; port++) {
			uint16_t n = rte_eth_rx_burst(port, q, pkts, RT_BURST);
			if (n == 0)
				continue;
			got += n;
			dp_burst(dp, w, port, pkts, n);
		}
		if (w->id == 0) /* what the control core sends */
			got += ctl_tx(dp, w);
		for (uint16_t port = 0; port < dp->nb_ports; port++)
			rte_eth_tx_buffer_flush(port, q, w->txb[port]);
		/* No pointer into shared structures is held past here. */
		rte_rcu_qsbr_quiescent(dp->qsbr, w->id);
		/* One TSC read a round, not two (each is dozens of cycles): a
		 * busy round is timed from the end of the one before, which
		 * began right then. */
		uint64_t now = rte_rdtsc();
		if (got != 0) {
			w->st.busy_rounds++;
			w->st.busy_cycles += now - last;
		}
		last = now;
		if (got != 0 || !dp->idle_backoff) {
			idle = 0;
			continue;
		}
		/* Idle: after 256 empty rounds, sleep between polls, offline
		 * for QSBR so reclamation never waits for a sleeper. */
		if (++idle < 256)
			continue;
		rte_rcu_qsbr_thread_offline(dp->qsbr, w->id);
		usleep(dp->idle_sleep_us);
		rte_rcu_qsbr_thread_online(dp->qsbr, w->id);
		last = rte_rdtsc(); /* the sleep is not the next round's work */
	}
	rte_rcu_qsbr_thread_offline(dp->qsbr, w->id);
	rte_rcu_qsbr_thread_unregister(dp->qsbr, w->id);
	return 0;
}
