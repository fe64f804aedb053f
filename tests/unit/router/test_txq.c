/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The backlog behind a worker's TX queue (txq.c, dp_tx_flush): what a
 * queue refuses waits and leaves in order, ahead of anything newer; what
 * does not fit is dropped and counted; nothing leaks. The queue is
 * net_null's behind a TX callback that lets through only as many packets
 * as the test gives it room for (what is left, the ethdev hands back
 * unsent, as a full NIC queue does) and records their sequence numbers.
 * Needs EAL (no hugepages).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "dp_inline.h"
#include "dp_harness.h"
#include "../../../bench/xorshift.h"

#define PORT 1
#define BACKLOG 256u

static struct router r;
static struct rt_worker *w;

/* The queue: room for this many more packets; what it took, in order. */
static struct {
	unsigned int room;
	uint32_t seen[1u << 16];
	unsigned int nb_seen;
} q;

static uint16_t
queue_room(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n, void *arg)
{
	(void)port, (void)queue, (void)arg;
	uint16_t take = (uint16_t)RTE_MIN((unsigned int)n, q.room);
	for (uint16_t i = 0; i < take; i++) {
		assert_true(q.nb_seen < RTE_DIM(q.seen));
		q.seen[q.nb_seen++] = *rte_pktmbuf_mtod(pkts[i], uint32_t *);
	}
	q.room -= take;
	return take;
}

static uint32_t next_seq;

/* n packets numbered from next_seq, appended to the port's TX buffer. */
static void
append(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(r.pool);
		assert_non_null(m);
		uint32_t *seq = (uint32_t *)rte_pktmbuf_append(m, 64);
		assert_non_null(seq);
		*seq = next_seq++;
		dp_tx_append(w, PORT, &m, 1);
	}
}

static unsigned int
held(void)
{
	return rt_dp_tx_backlog(&r.dp, 0, PORT);
}

/* Empty the backlog and the counters for the next test. */
static int
reset(void **state)
{
	(void)state;
	w->txb[PORT]->length = 0;
	rt_txq_discard(w, PORT);
	w->tx_dropped[PORT] = 0;
	w->st.port_tx_held[PORT] = 0;
	q.nb_seen = 0;
	q.room = 0;
	return 0;
}

/* A queue that takes part of a burst: the rest waits, and leaves first
 * once the queue has room again; the newer packets follow it. */
static void
test_refused_wait_in_order(void **state)
{
	(void)state;
	next_seq = 0;
	q.room = 40;
	append(RT_BURST); /* a full buffer goes at once: 40 taken, 24 held */
	assert_int_equal(q.nb_seen, 40);
	assert_int_equal(held(), RT_BURST - 40);
	assert_true(w->backlogged >> PORT & 1);
	append(10);
	dp_tx_flush(w, PORT); /* behind the 24, though nothing is refused yet */
	assert_int_equal(held(), RT_BURST - 40 + 10);
	q.room = 1000;
	rt_txq_drain(w, PORT);
	assert_int_equal(held(), 0);
	assert_false(w->backlogged >> PORT & 1);
	append(5);
	dp_tx_flush(w, PORT);
	assert_int_equal(q.nb_seen, RT_BURST + 15);
	for (unsigned int i = 0; i < q.nb_seen; i++)
		assert_int_equal(q.seen[i], i);
	assert_int_equal(w->st.port_tx_held[PORT], RT_BURST - 40 + 10);
	assert_int_equal(w->tx_dropped[PORT], 0);
}

/* A backlog full: what comes after it is freed and counted, the held
 * packets still leave in order. */
static void
test_full_backlog_drops_newest(void **state)
{
	(void)state;
	next_seq = 0;
	unsigned int free_before = rte_mempool_avail_count(r.pool);
	append(BACKLOG + 3 * RT_BURST);
	dp_tx_flush(w, PORT);
	assert_int_equal(held(), BACKLOG);
	assert_int_equal(w->tx_dropped[PORT], 3 * RT_BURST);
	assert_int_equal(rte_mempool_avail_count(r.pool), free_before - BACKLOG);
	q.room = 1000;
	rt_txq_drain(w, PORT);
	assert_int_equal(q.nb_seen, BACKLOG);
	for (unsigned int i = 0; i < q.nb_seen; i++)
		assert_int_equal(q.seen[i], i);
}

/* A port losing its carrier: what waits is freed, and said how much. */
static void
test_discard(void **state)
{
	(void)state;
	unsigned int free_before = rte_mempool_avail_count(r.pool);
	append(100);
	dp_tx_flush(w, PORT);
	assert_int_equal(held(), 100);
	assert_int_equal(rt_txq_discard(w, PORT), 100);
	assert_int_equal(held(), 0);
	assert_false(w->backlogged >> PORT & 1);
	assert_int_equal(rte_mempool_avail_count(r.pool), free_before);
}

/* Random bursts against a queue of random room, long enough for the
 * FIFO's indices to wrap many times: the packets that leave do so in
 * increasing order, every one is sent, held or counted as dropped, and
 * no mbuf is lost. */
static void
test_random(void **state)
{
	(void)state;
	next_seq = 0;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	unsigned int free_before = rte_mempool_avail_count(r.pool);
	uint32_t last = 0;
	uint64_t left = 0;
	for (int round = 0; round < 20000; round++) {
		append((unsigned int)(xorshift64(&rng) % 100));
		q.room = (unsigned int)(xorshift64(&rng) % 120);
		dp_tx_flush(w, PORT);
		if (w->backlogged >> PORT & 1)
			rt_txq_drain(w, PORT);
		for (unsigned int i = 0; i < q.nb_seen; i++) {
			assert_true(left == 0 || q.seen[i] > last);
			last = q.seen[i];
			left++;
		}
		q.nb_seen = 0;
		assert_true(held() <= BACKLOG);
	}
	assert_true(w->st.port_tx_held[PORT] > 0);
	assert_true(w->tx_dropped[PORT] > 0);
	assert_int_equal(left + held() + w->tx_dropped[PORT], next_seq);
	assert_int_equal(rte_mempool_avail_count(r.pool), free_before - held());
}

/* Its size: a power of two, all of them full at most a quarter of the
 * pool; none when none is asked for. */
static void
test_size(void **state)
{
	(void)state;
	assert_int_equal(rt_txq_backlog_size(0, 2, 1, 8191), 0);
	/* the defaults: 8,191 mbufs, two ports, a worker */
	assert_int_equal(rt_txq_backlog_size(1024, 2, 1, 8191), 1024);
	assert_int_equal(rt_txq_backlog_size(1024, 3, 1, 8191), 512);
	assert_int_equal(rt_txq_backlog_size(1000, 1, 1, 1u << 20), 512);
	assert_int_equal(rt_txq_backlog_size(16384, 2, 1, 131071), 16384);
	assert_int_equal(rt_txq_backlog_size(16384, 2, 1, 131070), 8192);
	assert_int_equal(rt_txq_backlog_size(65536, 16, 8, 1023), 2); /* 256 for 128 */
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (dp_harness_eal(argv[0], "test_txq", 2) < 0)
		return 1;
	dp_harness_setup(&r, RT_BURST);
	w = &r.dp.worker[0];
	if (rt_txq_backlog_create(w, PORT, BACKLOG, (int)rte_socket_id()) < 0 ||
	    rte_eth_add_tx_callback(PORT, 0, queue_room, NULL) == NULL)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_refused_wait_in_order, reset),
		cmocka_unit_test_setup(test_full_backlog_drops_newest, reset),
		cmocka_unit_test_setup(test_discard, reset),
		cmocka_unit_test_setup(test_random, reset),
		cmocka_unit_test(test_size),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
