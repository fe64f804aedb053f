/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly of IPv4 and IPv6 fragments addressed to the router (RFC 791
 * 3.2, RFC 8200 4.5), as Linux's ip_defrag and ipv6 frag do it for
 * local delivery: so that a large ping to the router is answered.
 * Forwarded fragments never come here: a router forwards them as they
 * are.
 *
 * Control core only: fragments to the router are a slow path, and a
 * table that any host can fill is kept small and bounded instead of
 * fast. At most RT_REASM_MAX datagrams are pending at once (each with a
 * 64 KiB buffer: 4 MiB in all, Linux's default ipfrag_high_thresh);
 * fragments of a new datagram beyond that are dropped and counted, and a
 * pending datagram expires after 30 s (IPv4, Linux's ipfrag_time) or 60 s
 * (IPv6, RFC 8200). A fragment overlapping data already received
 * discards the whole datagram (RFC 5722; Linux does so for IPv4 too); an
 * exact duplicate is ignored.
 */
#ifndef RT_REASM_H
#define RT_REASM_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mbuf;
struct rte_mempool;
struct rt_reasm;

#define RT_REASM_MAX 64
#define RT_REASM_TIMEOUT4_MS 30000
#define RT_REASM_TIMEOUT6_MS 60000

/* Counters, named as Linux's /proc/net/snmp ones. */
struct rt_reasm_stats {
	uint64_t reqds;    /* fragments received (ReasmReqds) */
	uint64_t oks;      /* datagrams reassembled (ReasmOKs) */
	uint64_t fails;    /* datagrams or fragments given up (ReasmFails) */
	uint64_t timeouts; /* datagrams expired, also counted in fails (ReasmTimeout) */
};

/* @return NULL when memory runs out. */
struct rt_reasm *rt_reasm_create(void);
void rt_reasm_destroy(struct rt_reasm *ra);

/* Is the frame m (Ethernet, then an IPv4 or IPv6 header the worker has
 * validated) a fragment? IPv6: a Fragment header after any
 * Hop-by-Hop, Routing and Destination Options headers. */
bool rt_reasm_is_fragment(const struct rte_mbuf *m);

/*
 * Take the fragment frame m (rt_reasm_is_fragment). When it completes a
 * datagram, @return that datagram as one frame (an mbuf chain from pool,
 * the first fragment's Ethernet and IP headers in its first segment,
 * the IP header's lengths set, the fragment fields cleared (IPv4) or the
 * Fragment header removed (IPv6)); otherwise NULL: m is held, or freed
 * (a duplicate, an overlap, an invalid fragment, no room). An IPv6
 * fragment that RFC 8200 4.5 answers with a parameter problem (code 0)
 * is neither: *pointer is then the offset of the field at fault in its
 * IPv6 packet (the payload length when a non-last fragment's length is
 * not a multiple of 8, the fragment offset when the datagram would pass
 * 65,535 bytes) and m is left to the caller; otherwise *pointer is 0.
 */
struct rte_mbuf *rt_reasm_in(struct rt_reasm *ra, struct rte_mbuf *m, struct rte_mempool *pool,
			     uint64_t now_ms, uint16_t *pointer);

/* Expire the pending datagrams whose time has run out at now_ms. For one
 * whose first fragment had arrived, @return that fragment (the sender is
 * owed an ICMP time exceeded, code 1, about it: RFC 792, RFC 8200);
 * call again until NULL. */
struct rte_mbuf *rt_reasm_expire(struct rt_reasm *ra, uint64_t now_ms);

void rt_reasm_stats(const struct rt_reasm *ra, struct rt_reasm_stats *s);

#endif
