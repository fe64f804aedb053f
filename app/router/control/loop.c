/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core's loop and its life. It sleeps in epoll_wait for at
 * most 1 ms at a time, so the exception rings are drained within a
 * millisecond without busy-polling; runs what is ready among the file
 * descriptors others registered (the CLI's socket and clients); runs the
 * neighbour, router advertisement and reassembly timers; reclaims memory
 * after QSBR grace periods; and calls the round hooks.
 *
 * The work a round does on exception packets is bounded by a budget per
 * ring (a class's from one worker and port), so a flood of one class, or
 * on one port, cannot hold up the timers, the sockets, the other classes
 * or the other ports for long; neighbour discovery goes first. What a round leaves waits for the
 * next, a millisecond later: under a flood the control core spends at
 * most its budgets' worth of work a millisecond on exceptions, and the
 * rest of the flood is dropped (and counted) at the ring by class.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "ctl_priv.h"
#include "reasm.h"

/* Packets a round takes from each ring of a class (a worker's, for one
 * ingress port). A round costs at most their sum a worker and flooded
 * port; at a few hundred nanoseconds a packet that is under a
 * millisecond (docs/neigh.md). */
static const unsigned int exc_budget[RT_EXC_CLASSES] = {
	[RT_EXC_NEIGH] = 256,
	[RT_EXC_PROTO] = 256,
	[RT_EXC_LOCAL] = 256,
	[RT_EXC_DATA] = 512,
};
#define EXC_BURST 64

static int epfd = -1;
static void (*round_hooks[RT_LOOP_HOOKS])(struct router *r, uint64_t now_ms);

void
rt_ctl_tx(struct router *r, uint16_t port, struct rte_mbuf *m)
{
	m->port = port;
	if (port >= r->dp.nb_ports || rte_ring_sp_enqueue(r->dp.ctl_tx, m) != 0) {
		r->ctr[RT_CTR_TX_RING_FULL]++;
		rte_pktmbuf_free(m);
	}
}

static int
epoll_fd(void)
{
	if (epfd < 0)
		epfd = epoll_create1(EPOLL_CLOEXEC);
	return epfd;
}

int
rt_loop_watch(struct rt_watch *w, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = w};
	if (epoll_fd() < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, w->fd, &ev) < 0)
		return -errno;
	return 0;
}

int
rt_loop_rewatch(struct rt_watch *w, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = w};
	return epoll_ctl(epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0 ? -errno : 0;
}

void
rt_loop_unwatch(struct rt_watch *w)
{
	epoll_ctl(epfd, EPOLL_CTL_DEL, w->fd, NULL);
}

int
rt_loop_on_round(void (*fn)(struct router *r, uint64_t now_ms))
{
	for (unsigned int i = 0; i < RT_LOOP_HOOKS; i++)
		if (round_hooks[i] == NULL) {
			round_hooks[i] = fn;
			return 0;
		}
	return -ENOSPC;
}

int
rt_control_init(struct router *r)
{
	struct neigh_conf ng = {.max_entries = r->conf.neigh_max,
				.base_reachable_ms = r->conf.neigh_reachable_ms,
				.gc_stale_ms = r->conf.neigh_gc_stale_ms,
				.port_incomplete = r->conf.neigh_port_incomplete,
				.source_incomplete = r->conf.neigh_source_incomplete,
				.port_requests = r->conf.neigh_port_requests,
				.source_requests = r->conf.neigh_source_requests,
				.seed = rte_rdtsc()};
	r->neigh = neigh_create(&ng, &rt_neigh_ops, r);
	if (r->neigh == NULL)
		return -errno;
	r->reasm = rt_reasm_create();
	r->nh_used_seen = calloc(NH_INDEX_MAX + 1, sizeof(uint32_t));
	if (r->reasm == NULL || r->nh_used_seen == NULL || epoll_fd() < 0)
		return -ENOMEM;
	rt_icmp_init(r);
	rt_telemetry_init(r);
	return 0;
}

void
rt_control_fini(struct router *r)
{
	rt_reasm_destroy(r->reasm);
	neigh_free(r->neigh);
	free(r->nh_used_seen);
	if (epfd >= 0)
		close(epfd);
	epfd = -1;
}

static void
drain_exceptions(struct router *r)
{
	struct rte_mbuf *pkts[EXC_BURST];
	for (unsigned int c = 0; c < RT_EXC_CLASSES; c++)
		for (unsigned int w = 0; w < r->dp.nb_workers; w++)
			for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
				struct rte_ring *ring = r->dp.worker[w].exc[p][c];
				unsigned int done = 0, n;
				while (done < exc_budget[c] &&
				       (n = rte_ring_sc_dequeue_burst(
						ring, (void **)pkts,
						RTE_MIN((unsigned int)EXC_BURST,
							exc_budget[c] - done),
						NULL)) > 0) {
					rt_exception_burst(r, pkts, n);
					done += n;
				}
			}
}

/* The timers: links and router advertisements each round; the nexthops' use and
 * reassembly once a second; the neighbour table when it says. */
static void
run_timers(struct router *r, uint64_t now, uint64_t *next_touch, uint64_t *next_neigh)
{
	rt_link_timer(r, now);
	rt_ra_timer(r, now);
	if (now >= *next_touch) {
		rt_neigh_touch_used(r, now);
		rt_reasm_timer(r, now);
		*next_touch = now + 1000;
	}
	if (now >= *next_neigh) {
		uint64_t due = neigh_timer(r->neigh, now);
		*next_neigh = due ? due : now + 1000;
		if (*next_neigh > now + 1000)
			*next_neigh = now + 1000;
	}
}

int
rt_control_run(struct router *r)
{
	uint64_t next_neigh = 0, next_touch = 0;
	while (!r->stop) {
		struct epoll_event evs[32];
		int n = epoll_wait(epfd, evs, 32, 1);
		for (int i = 0; i < n; i++) {
			struct rt_watch *w = evs[i].data.ptr;
			w->ready(r, w, evs[i].events);
		}
		drain_exceptions(r);
		uint64_t now = rt_now_ms();
		run_timers(r, now, &next_touch, &next_neigh);
		fib_reclaim(r->fib);
		nh_reclaim(r->nh);
		for (unsigned int i = 0; i < RT_LOOP_HOOKS && round_hooks[i] != NULL; i++)
			round_hooks[i](r, now);
	}
	/* What must go out before the workers stop: worker 0 sends what
	 * the control core queues, so wait (briefly) for the ring to empty. */
	rt_ra_shutdown(r);
	for (int ms = 0; ms < 200 && !rte_ring_empty(r->dp.ctl_tx); ms++)
		rte_delay_us_sleep(1000);
	rte_delay_us_sleep(2000); /* the round that took them flushes them */
	return 0;
}
