/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly of IPv4 and IPv6 fragments addressed to the router (RFC 791
 * 3.2, RFC 8200 4.5), as Linux's ip_defrag and ipv6 frag do it for
 * local delivery: so that a large ping to the router is answered.
 * Forwarded fragments never come here: a router forwards them as they
 * are.
 *
 * Control core only: fragments to the router are a slow path, and any
 * host can send them, so the state they make is bounded by memory rather
 * than made fast:
 *
 * - the data of pending datagrams is held in chunks from a pool of
 *   mem_max bytes (4 MiB by default, Linux's ipfrag_high_thresh), and at
 *   most RT_REASM_MAX datagrams are pending; no mbuf is held (fragments
 *   are copied and freed at once), so a fragment flood cannot take the
 *   workers' mbufs;
 * - a new datagram, or a fragment, that finds no room evicts the oldest
 *   pending datagram (never the one it belongs to), so a table filled by
 *   fragments that never complete cannot keep a later datagram out;
 * - one source (an IPv4 address, an IPv6 /64) holds at most an eighth of
 *   the datagrams and of the memory; past that its own oldest goes, so a
 *   single host cannot evict everyone else's;
 * - a pending datagram expires after 30 s (IPv4, Linux's ipfrag_time) or
 *   60 s (IPv6, RFC 8200).
 *
 * A fragment overlapping data already received discards the whole
 * datagram (RFC 5722; Linux does so for IPv4 too); an exact duplicate is
 * ignored. A datagram whose headers and data would pass 65,535 bytes of
 * IP length is refused, whichever fragment shows it (the first's header
 * length counts, options included).
 */
#ifndef RT_REASM_H
#define RT_REASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rte_mbuf;
struct rte_mempool;
struct rt_reasm;

#define RT_REASM_MAX 1024               /* datagrams pending at once */
#define RT_REASM_MEM_DEFAULT (4u << 20) /* bytes of fragment data held */
#define RT_REASM_MEM_MIN (512u << 10)   /* a source's share holds the largest datagram */
#define RT_REASM_MEM_MAX (32u << 20)
#define RT_REASM_TIMEOUT4_MS 30000
#define RT_REASM_TIMEOUT6_MS 60000
/* The most bytes of Ethernet and unfragmentable headers a first fragment
 * may carry (IPv4's 60 with options fit; IPv6 extension headers before
 * the Fragment header beyond this are refused). */
#define RT_REASM_HDR_MAX 256

/* Counters, named after Linux's /proc/net/snmp ones where it has them. */
struct rt_reasm_stats {
	uint64_t reqds;       /* fragments received (ReasmReqds) */
	uint64_t oks;         /* datagrams reassembled (ReasmOKs) */
	uint64_t fails;       /* datagrams or fragments given up (ReasmFails) */
	uint64_t timeouts;    /* datagrams expired, also counted in fails (ReasmTimeout) */
	uint64_t evicted;     /* datagrams given up to make room, also in fails */
	uint64_t src_evicted; /* of those, for a source over its share */
	uint64_t pending;     /* datagrams pending now (a gauge) */
	uint64_t bytes;       /* memory their data holds now (a gauge) */
};

/* mem_max: bytes for pending datagrams' data (0: RT_REASM_MEM_DEFAULT;
 * clamped to RT_REASM_MEM_MIN..RT_REASM_MEM_MAX); seed: keys the hashes
 * of datagrams and sources, so that a sender cannot aim at one bucket.
 * @return NULL when memory runs out. */
struct rt_reasm *rt_reasm_create(size_t mem_max, uint32_t seed);
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
 * Fragment header removed (IPv6)); otherwise NULL. Either way m has been
 * freed (its data is copied), except for an IPv6 fragment that RFC 8200
 * 4.5 answers with a parameter problem (code 0): *pointer is then the
 * offset of the field at fault in its IPv6 packet (the payload length
 * when a non-last fragment's length is not a multiple of 8, the fragment
 * offset when the datagram would pass 65,535 bytes) and m is left to the
 * caller; otherwise *pointer is 0.
 */
struct rte_mbuf *rt_reasm_in(struct rt_reasm *ra, struct rte_mbuf *m, struct rte_mempool *pool,
			     uint64_t now_ms, uint16_t *pointer);

/* Expire the pending datagrams whose time has run out at now_ms. For one
 * whose first fragment had arrived, @return a copy of that fragment (its
 * headers and the start of its data, enough to quote, from pool) with
 * its port: the sender is owed an ICMP time exceeded, code 1, about it
 * (RFC 792, RFC 8200). Call again until NULL. */
struct rte_mbuf *rt_reasm_expire(struct rt_reasm *ra, struct rte_mempool *pool, uint64_t now_ms);

void rt_reasm_stats(const struct rt_reasm *ra, struct rt_reasm_stats *s);

#endif
