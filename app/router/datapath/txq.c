/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's backlog behind each TX queue: the forwarded packets the
 * queue refused, held in order and sent before anything newer, as
 * Linux holds them in the device's qdisc (txqueuelen) while the driver
 * has stopped the queue. A queue refuses when its descriptors are all
 * in flight: a peer's pause frames, several ingress ports converging on
 * one egress, or, over memif, a peer off its CPU for a millisecond or
 * two. Dropping there and then loses packets that waiting would have
 * delivered. What the backlog cannot take is dropped at its tail and
 * counted as tx_full.
 *
 * The worker never waits for a queue: it goes on receiving and routing
 * while packets wait, so a peer that sends and receives in one loop
 * (pktgen) is never held up by it. Packets the control core sends are
 * not held (they have their own buffers and counters, worker.c): a
 * refused one is dropped and counted, as before.
 */
#include <errno.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "datapath.h"

unsigned int
rt_txq_backlog_size(unsigned int want, unsigned int nb_ports, unsigned int nb_workers,
		    unsigned int nb_mbufs)
{
	if (want == 0)
		return 0;
	uint64_t size = rte_align32prevpow2(want);
	while (size > 1 && size * nb_ports * nb_workers > ((uint64_t)nb_mbufs + 1) / 4)
		size >>= 1;
	return (unsigned int)size;
}

int
rt_txq_backlog_create(struct rt_worker *w, uint16_t port, unsigned int size, int socket)
{
	struct rt_txq_backlog *b = &w->backlog[port];
	*b = (struct rt_txq_backlog){0};
	if (size == 0)
		return 0;
	b->m = rte_zmalloc_socket("txq_backlog", sizeof(*b->m) * size, RTE_CACHE_LINE_SIZE,
				  socket);
	if (b->m == NULL)
		return -ENOMEM;
	b->size = size;
	return 0;
}

void
rt_txq_drain(struct rt_worker *w, uint16_t port)
{
	struct rt_txq_backlog *b = &w->backlog[port];
	while (b->head != b->tail) {
		/* Up to the end of the array at most: tx_burst takes a
		 * contiguous run, and a uint16_t count. */
		uint32_t at = b->head & (b->size - 1);
		uint32_t n = RTE_MIN(b->tail - b->head, b->size - at);
		n = RTE_MIN(n, 1024u);
		uint16_t sent = rte_eth_tx_burst(port, (uint16_t)w->id, &b->m[at], (uint16_t)n);
		b->head += sent;
		if (sent < n)
			return;
	}
	w->backlogged &= ~(1u << port);
}

/* Put n packets at the backlog's tail; free and count what does not fit. */
static void
hold(struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts, unsigned int n)
{
	struct rt_txq_backlog *b = &w->backlog[port];
	unsigned int k = RTE_MIN(n, b->size - (b->tail - b->head));
	for (unsigned int i = 0; i < k; i++)
		b->m[(b->tail + i) & (b->size - 1)] = pkts[i];
	b->tail += k;
	w->st.port_tx_held[port] += k;
	if (k != 0)
		w->backlogged |= 1u << port;
	if (k < n) {
		rte_pktmbuf_free_bulk(pkts + k, n - k);
		w->tx_dropped[port] += n - k;
	}
}

void
rt_txq_refused(struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts, unsigned int n)
{
	if (w->backlogged >> port & 1)
		rt_txq_drain(w, port);
	if (!(w->backlogged >> port & 1)) {
		/* Nothing waits (any more): what the queue takes now goes. */
		uint16_t sent = rte_eth_tx_burst(port, (uint16_t)w->id, pkts, (uint16_t)n);
		pkts += sent;
		n -= sent;
	}
	if (n != 0)
		hold(w, port, pkts, n);
}

unsigned int
rt_txq_discard(struct rt_worker *w, uint16_t port)
{
	struct rt_txq_backlog *b = &w->backlog[port];
	unsigned int n = b->tail - b->head;
	for (; b->head != b->tail; b->head++)
		rte_pktmbuf_free(b->m[b->head & (b->size - 1)]);
	w->backlogged &= ~(1u << port);
	return n;
}
