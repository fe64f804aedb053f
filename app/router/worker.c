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

#include "dp.h"
#include "dp_stages.h"

static unsigned int
ctl_tx(const struct router *r, struct rt_worker *w)
{
	struct rte_mbuf *pkts[RT_BURST];
	unsigned int n = rte_ring_sc_dequeue_burst(r->ctl_tx, (void **)pkts, RT_BURST, NULL);
	for (unsigned int i = 0; i < n; i++)
		rte_eth_tx_buffer(pkts[i]->port, (uint16_t)w->id, w->txb[pkts[i]->port], pkts[i]);
	return n;
}

int
rt_worker_main(void *arg)
{
	struct router *r = arg;
	struct rt_worker *w = NULL;
	for (unsigned int i = 0; i < r->nb_workers; i++)
		if (r->worker[i].lcore == rte_lcore_id())
			w = &r->worker[i];
	if (w == NULL)
		return -1;
	struct rte_mbuf *pkts[RT_BURST];
	unsigned int idle = 0;
	uint16_t q = (uint16_t)w->id;

	RT_LOG(INFO, main, "worker %u on lcore %u: queue %u of every port", w->id, w->lcore, q);
	rte_rcu_qsbr_thread_register(r->qsbr, w->id);
	rte_rcu_qsbr_thread_online(r->qsbr, w->id);
	uint64_t last = rte_rdtsc();
	while (!r->quit) {
		unsigned int got = 0;
		w->st.rounds++; /* also the stamp dp_send leaves in nh_used */
		for (uint16_t port = 0; port < r->nb_ports; port++) {
			uint16_t n = rte_eth_rx_burst(port, q, pkts, RT_BURST);
			if (n == 0)
				continue;
			got += n;
			dp_burst(r, w, port, pkts, n);
		}
		if (w->id == 0) /* what the control core sends */
			got += ctl_tx(r, w);
		for (uint16_t port = 0; port < r->nb_ports; port++)
			rte_eth_tx_buffer_flush(port, q, w->txb[port]);
		/* No pointer into shared structures is held past here. */
		rte_rcu_qsbr_quiescent(r->qsbr, w->id);
		/* One TSC read a round (two cost the ring loop 3-4%,
		 * docs/performance.md): a busy round is timed from the end of
		 * the one before, which began right then. */
		uint64_t now = rte_rdtsc();
		if (got != 0) {
			w->st.busy_rounds++;
			w->st.busy_cycles += now - last;
		}
		last = now;
		if (got != 0 || !r->conf.idle_backoff) {
			idle = 0;
			continue;
		}
		/* Idle: after 256 empty rounds, sleep between polls, offline
		 * for QSBR so reclamation never waits for a sleeper. */
		if (++idle < 256)
			continue;
		rte_rcu_qsbr_thread_offline(r->qsbr, w->id);
		usleep(r->conf.idle_sleep_us);
		rte_rcu_qsbr_thread_online(r->qsbr, w->id);
		last = rte_rdtsc(); /* the sleep is not the next round's work */
	}
	rte_rcu_qsbr_thread_offline(r->qsbr, w->id);
	rte_rcu_qsbr_thread_unregister(r->qsbr, w->id);
	return 0;
}
