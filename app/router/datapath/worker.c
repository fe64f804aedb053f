/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker loop: receive a burst on each port, classify it, run the
 * IPv4 and IPv6 stages, flush the TX buffers, report a quiescent state.
 * Read top to bottom, it takes no lock, does no atomic read-modify-write,
 * allocates nothing and makes no system call or log on the packet path;
 * only an idle worker sleeps, after marking itself offline for QSBR, and
 * only a round that punted packets to a sleeping control core wakes it
 * (ring_bell).
 */
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "dp_inline.h"
#include "log.h"

/* What the control core sends (worker 0): into the ports' control
 * buffers, apart from forwarded packets; none to a port without carrier. */
static unsigned int
ctl_tx(const struct rt_dp *dp, struct rt_worker *w, uint32_t nocarrier)
{
	struct rte_mbuf *pkts[RT_BURST];
	unsigned int n = rte_ring_sc_dequeue_burst(dp->ctl_tx, (void **)pkts, RT_BURST, NULL);
	w->st.ctl_tx += n;
	for (unsigned int i = 0; i < n; i++) {
		uint16_t port = pkts[i]->port;
		if (unlikely(nocarrier >> port & 1)) {
			rte_pktmbuf_free(pkts[i]);
			w->st.ctl_tx_dropped++;
			continue;
		}
		rte_eth_tx_buffer(port, (uint16_t)w->id, w->ctl_txb[port], pkts[i]);
	}
	return n;
}

/* Free what a TX buffer holds, unsent. @return how many. */
static unsigned int
empty_buffer(struct rte_eth_dev_tx_buffer *b)
{
	unsigned int n = b == NULL ? 0 : b->length;
	for (unsigned int i = 0; i < n; i++)
		rte_pktmbuf_free(b->pkts[i]);
	if (b != NULL)
		b->length = 0;
	return n;
}

/* A port lost its carrier with packets in this worker's buffers (queued
 * before the worker saw its headers withdrawn): freed, not sent, and
 * counted as what they are, no_carrier drops rather than forwarded. */
static void
discard_buffered(struct rt_worker *w, uint16_t port)
{
	unsigned int n = empty_buffer(w->txb[port]) + rt_txq_discard(w, port);
	w->st.fwd -= n;
	w->st.port_tx[port] -= n;
	w->st.drop[RT_DROP_NO_CARRIER] += n;
	w->st.drop_total += n;
	w->st.ctl_tx_dropped += empty_buffer(w->ctl_txb[port]);
}

/* What arrived on an administratively down port: dropped as port_down,
 * as if it had not been received (Linux takes nothing in on a device set
 * down). The port is still polled, so that its ring holds nothing stale
 * when it comes up again: a NIC set down receives nothing, but a virtual
 * port's peer may go on sending. */
static void
drop_received(struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	rte_pktmbuf_free_bulk(pkts, n);
	w->st.rx += n; /* received by the port, dropped by the router */
	w->st.port_rx[port] += n;
	w->st.drop[RT_DROP_PORT_DOWN] += n;
	w->st.drop_total += n;
	w->st.port_drop[port] += n;
}

/* Packets were punted this round: wake the control core if it sleeps
 * past its next millisecond and nobody here rang for that sleep yet. The
 * fence orders the enqueue before the read of ctl_asleep, as the control
 * core's orders its write of ctl_asleep before its last look at the
 * rings, so one of the two sees the other (control/loop.c). Rounds
 * without punts pay nothing; one that rings pays a system call, at most
 * once a control-core sleep. */
static void
ring_bell(struct rt_dp *dp, struct rt_worker *w)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	uint32_t asleep = __atomic_load_n(&dp->ctl_asleep, __ATOMIC_RELAXED);
	if (asleep == 0 || asleep == w->bell_rung)
		return;
	w->bell_rung = asleep;
	uint64_t one = 1;
	if (write(dp->ctl_bell, &one, sizeof(one)) < 0) {
		/* the counter is full: the control core is being woken */
	}
}

/* The end of a round: every buffer out, and what waits in a backlog as
 * far as its queue takes it, but to ports without carrier (the round's
 * reading of the mask: one marked since is left alone until the next
 * round, and the control core waits for that round to end). */
static void
flush(const struct rt_dp *dp, struct rt_worker *w, uint16_t q, uint32_t nocarrier)
{
	for (uint16_t port = 0; port < dp->nb_ports; port++) {
		if (unlikely(nocarrier >> port & 1)) {
			discard_buffered(w, port);
			continue;
		}
		/* A backlog is sent whenever new packets for its port are, and
		 * otherwise tried every 64th round only: a queue that refused
		 * everything does not clear in a round, and each call into a
		 * driver whose peer is going away (memif unmaps its rings from
		 * another thread before the control core sees the carrier go)
		 * is a chance to be inside it then. */
		if (w->txb[port]->length != 0)
			dp_tx_flush(w, port); /* behind the backlog, if any */
		else if (unlikely(w->backlogged >> port & 1) && (w->st.rounds & 63) == 0)
			rt_txq_drain(w, port);
		if (w->ctl_txb[port] != NULL)
			rte_eth_tx_buffer_flush(port, q, w->ctl_txb[port]);
	}
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
		uint64_t punted = w->st.punt_total;
		w->st.rounds++; /* also the stamp dp_send leaves in nh_used */
		/* Acquire: the control core's changes made before it marked a
		 * port are seen with the mark. A port without carrier is not
		 * polled: its driver may be tearing its rings down. */
		uint32_t nocarrier = __atomic_load_n(&dp->ports_nocarrier, __ATOMIC_ACQUIRE);
		uint32_t down = __atomic_load_n(&dp->ports_down, __ATOMIC_RELAXED);
		for (uint16_t port = 0; port < dp->nb_ports; port++) {
			if (unlikely(nocarrier >> port & 1))
				continue;
			uint16_t n = rte_eth_rx_burst(port, q, pkts, RT_BURST);
			if (n == 0)
				continue;
			got += n;
			if (unlikely(down >> port & 1))
				drop_received(w, port, pkts, n);
			else
				dp_burst(dp, w, port, pkts, n);
		}
		if (w->id == 0)
			got += ctl_tx(dp, w, nocarrier);
		flush(dp, w, q, nocarrier);
		if (unlikely(w->st.punt_total != punted))
			ring_bell(dp, w);
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
		/* A worker with packets waiting for a queue is not idle: it
		 * polls the queue as it would a busy port. */
		if (got != 0 || !dp->idle_backoff || w->backlogged != 0) {
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
