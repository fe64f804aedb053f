/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core's loop and its life. A round runs what is ready
 * among the file descriptors others registered (the CLI's socket and
 * clients, the control-plane ports, the kernel's notifications); drains
 * the exception rings; runs the neighbour, link, router advertisement
 * and reassembly timers; reclaims memory after QSBR grace periods; and
 * calls the round hooks.
 *
 * Between rounds it sleeps in epoll_wait, as long as it can: until the
 * earliest timer, and no longer than a second, when there is nothing
 * else. A round that took exception packets, or left memory to reclaim,
 * is followed by another a millisecond later, so that a stream of
 * exceptions is taken in batches a millisecond apart, as a poll would.
 * Before a longer sleep it arms the workers' doorbell (rt_dp.ctl_asleep),
 * and the first packet punted wakes it. An idle router's control core
 * thus wakes a few times a second rather than a thousand: each wake-up
 * costs the CPU it shares (with a routing daemon, say) some microseconds
 * of kernel and hypervisor time, whatever the round does.
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
#include <sys/eventfd.h>
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

/* The longest sleep, when no timer is due sooner. */
#define IDLE_MAX_MS 1000

static int epfd = -1;
static uint64_t (*round_hooks[RT_LOOP_HOOKS])(struct router *r, uint64_t now_ms);
/* The workers' doorbell and rt_loop_wake's: an eventfd in the epoll set. */
static struct rt_watch bell = {.fd = -1};
static uint32_t sleeps; /* the number of the last sleep the bell was armed for */

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
rt_loop_on_round(uint64_t (*fn)(struct router *r, uint64_t now_ms))
{
	for (unsigned int i = 0; i < RT_LOOP_HOOKS; i++)
		if (round_hooks[i] == NULL) {
			round_hooks[i] = fn;
			return 0;
		}
	return -ENOSPC;
}

/* The bell rang: a worker punted packets, or rt_loop_wake (a link
 * interrupt, a signal). */
static void
bell_ready(struct router *r, struct rt_watch *w, uint32_t events)
{
	(void)events;
	uint64_t n;
	if (read(w->fd, &n, sizeof(n)) == sizeof(n))
		r->ctr[RT_CTR_LOOP_BELLS]++;
}

static int
bell_open(struct router *r)
{
	bell.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	bell.ready = bell_ready;
	if (bell.fd < 0)
		return -errno;
	int rc = rt_loop_watch(&bell, EPOLLIN);
	if (rc < 0) {
		close(bell.fd);
		bell.fd = -1;
		return rc;
	}
	r->dp.ctl_bell = bell.fd;
	return 0;
}

void
rt_loop_wake(void)
{
	uint64_t one = 1;
	if (bell.fd >= 0 && write(bell.fd, &one, sizeof(one)) < 0) {
		/* the counter is full: the loop is being woken */
	}
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
	r->reasm = rt_reasm_create((size_t)r->conf.reasm_kb << 10, (uint32_t)rte_rdtsc());
	r->nh_used_seen = calloc(NH_INDEX_MAX + 1, sizeof(uint32_t));
	if (r->reasm == NULL || r->nh_used_seen == NULL || epoll_fd() < 0)
		return -ENOMEM;
	int rc = bell_open(r);
	if (rc < 0)
		return rc;
	rt_icmp_init(r);
	rt_telemetry_init(r);
	return 0;
}

void
rt_control_fini(struct router *r)
{
	if (bell.fd >= 0) {
		r->dp.ctl_bell = -1;
		close(bell.fd);
		bell.fd = -1;
	}
	rt_reasm_destroy(r->reasm);
	neigh_free(r->neigh);
	free(r->nh_used_seen);
	if (epfd >= 0)
		close(epfd);
	epfd = -1;
}

/* @return whether any ring had packets (what a budget left waits for the
 * next round). */
static bool
drain_exceptions(struct router *r)
{
	struct rte_mbuf *pkts[EXC_BURST];
	bool took = false;
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
				took |= done != 0;
			}
	return took;
}

/* Is any exception ring non-empty? */
static bool
exceptions_waiting(const struct router *r)
{
	for (unsigned int w = 0; w < r->dp.nb_workers; w++)
		for (uint16_t p = 0; p < r->dp.nb_ports; p++)
			for (unsigned int c = 0; c < RT_EXC_CLASSES; c++)
				if (!rte_ring_empty(r->dp.worker[w].exc[p][c]))
					return true;
	return false;
}

/* The timers: links and router advertisements each round (each knows
 * when its ports are due); the nexthops' use and reassembly once a
 * second; the neighbour table when it says. */
static void
run_timers(struct router *r, uint64_t now, uint64_t *next_touch)
{
	rt_link_timer(r, now);
	rt_ra_timer(r, now);
	if (now >= *next_touch) {
		rt_neigh_touch_used(r, now);
		rt_reasm_timer(r, now);
		*next_touch = now + 1000;
	}
	neigh_timer(r->neigh, now);
}

/* How long the loop may sleep after a round at `now` (ms), from what is
 * due: the timers, and what the round hooks said. Asked after the hooks,
 * which may have changed a timer (a route from the kernel mirror makes a
 * neighbour to resolve). */
static uint64_t
next_due(struct router *r, uint64_t now, uint64_t next_touch, uint64_t hooks_due)
{
	uint64_t due = RTE_MIN(now + IDLE_MAX_MS, RTE_MIN(next_touch, hooks_due));
	/* Its timers run at `now` already: this only says when the next is. */
	uint64_t neigh = neigh_timer(r->neigh, now);
	if (neigh != 0)
		due = RTE_MIN(due, neigh);
	due = RTE_MIN(due, rt_link_due(r));
	return RTE_MIN(due, rt_ra_due(r));
}

/* Sleep in epoll_wait until `due` (ms; a millisecond at least), unless
 * `poll`: then a millisecond, as a poll would. A sleep past the next
 * millisecond arms the doorbell first, and looks at the rings again after
 * arming it: a packet punted before a worker could see the bell armed is
 * seen here (the workers' side: ring_bell in datapath/worker.c). */
static int
sleep_until(struct router *r, uint64_t now, uint64_t due, bool poll, struct epoll_event *evs,
	    int max)
{
	int timeout = due <= now + 1 || poll ? 1 : (int)(due - now);
	if (timeout > 1) {
		if (++sleeps == 0)
			sleeps = 1;
		__atomic_store_n(&r->dp.ctl_asleep, sleeps, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (exceptions_waiting(r))
			timeout = 0;
	}
	int n = epoll_wait(epfd, evs, max, timeout);
	__atomic_store_n(&r->dp.ctl_asleep, 0, __ATOMIC_RELAXED);
	r->ctr[RT_CTR_LOOP_ROUNDS]++;
	return n;
}

int
rt_control_run(struct router *r)
{
	uint64_t next_touch = 0, due = 0;
	bool poll = true;
	while (!r->stop) {
		struct epoll_event evs[32];
		int n = sleep_until(r, rt_now_ms(), due, poll, evs, 32);
		for (int i = 0; i < n; i++) {
			struct rt_watch *w = evs[i].data.ptr;
			w->ready(r, w, evs[i].events);
		}
		poll = drain_exceptions(r);
		uint64_t now = rt_now_ms();
		run_timers(r, now, &next_touch);
		/* Memory a grace period from release: the next millisecond. */
		poll |= fib_reclaim(r->fib) != 0;
		poll |= nh_reclaim(r->nh) != 0;
		uint64_t hooks_due = UINT64_MAX;
		for (unsigned int i = 0; i < RT_LOOP_HOOKS && round_hooks[i] != NULL; i++)
			hooks_due = RTE_MIN(hooks_due, round_hooks[i](r, now));
		due = next_due(r, now, next_touch, hooks_due);
	}
	/* What must go out before the workers stop: worker 0 sends what
	 * the control core queues, so wait (briefly) for the ring to empty. */
	rt_ra_shutdown(r);
	for (int ms = 0; ms < 200 && !rte_ring_empty(r->dp.ctl_tx); ms++)
		rte_delay_us_sleep(1000);
	rte_delay_us_sleep(2000); /* the round that took them flushes them */
	return 0;
}
